"""Scripted answers that read the prompt they receive and answer as a correct model would.

Nothing here is a model: each answer looks up, in the snapshot text of the request, the
element a test names by role and name, and returns its id. So tests exercise the real
prompt → SDK → HTTP → validation → Playwright path with the ids the pipeline really sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from pytest_stagehand.events import StepLog
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.judge import Evaluator
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.recordings.store import Recordings, RecordingStore
from pytest_stagehand.settings import DEFAULT_BUDGET
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest

Answer = Callable[[ScriptedRequest], dict[str, Any]]


SNAPSHOT_STARTS = ("Snapshot:\n", "These elements appeared:\n")


def latest_snapshot(text: str) -> str:
    """The last snapshot (or list of appeared elements) in a prompt."""
    start = max(text.rfind(marker) for marker in SNAPSHOT_STARTS)
    if start < 0:
        raise AssertionError("the scripted model got a prompt without a snapshot")
    return text[start:]


def element_id(text: str, role: str, name: str, after: str | None = None) -> str:
    """The id of the first `role "name"` in the prompt's latest snapshot, after the
    first line mentioning `after` when given (to tell "Add to cart" buttons apart)."""
    outline = latest_snapshot(text)
    if after is not None:
        outline = outline[outline.index(after) :]
    found = re.search(rf'\b(e\d+) {re.escape(role)} "{re.escape(name)}"', outline)
    if found is None:
        raise AssertionError(f'the scripted model sees no {role} "{name}" in its prompt')
    return found.group(1)


def choose(
    role: str,
    name: str,
    method: str = "click",
    arguments: Sequence[str] = (),
    *,
    after: str | None = None,
    two_step: bool = False,
) -> Answer:
    """An act answer: `method` on the element `role "name"` of the snapshot received."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        found = element_id(request.text, role, name, after)
        return act_answer(found, method, arguments, two_step=two_step)

    return answer


def act_answer(
    element: str | None,
    method: str = "click",
    arguments: Sequence[str] = (),
    *,
    found: bool = True,
    two_step: bool = False,
) -> dict[str, Any]:
    """An act answer as a model sends it, with any id, right or wrong."""
    return {
        "found": found,
        "element_id": element,
        "method": method,
        "arguments": list(arguments),
        "description": f"{method} {element}",
        "two_step": two_step,
    }


NOT_FOUND = act_answer(None, found=False)


def choose_described(word: str, method: str = "click") -> Answer:
    """An act answer for a control with no name: the first whose snapshot description
    (`hint="..."`: title, icon, id and class words, neighbour) contains `word`."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        outline = latest_snapshot(request.text)
        found = re.search(rf'\b(e\d+) [^\n]*hint="[^"\n]*\b{re.escape(word)}\b', outline)
        if found is None:
            raise AssertionError(f"the scripted model sees no control described as {word!r}")
        return act_answer(found.group(1), method)

    return answer


def choose_if_shown(role: str, name: str, method: str = "click") -> Answer:
    """An act answer as a correct model gives it on part of a large page: the element
    when the snapshot received shows it, else found false."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        if f'{role} "{name}"' not in latest_snapshot(request.text):
            return NOT_FOUND
        return act_answer(element_id(request.text, role, name), method)

    return answer


def drag(source: tuple[str, str], target: tuple[str, str]) -> Answer:
    """An act answer dragging `role "name"` onto another, both by id."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        return act_answer(
            element_id(request.text, *source),
            "drag_and_drop",
            [element_id(request.text, *target)],
        )

    return answer


def observed(*elements: tuple[str, str, str, Sequence[str]]) -> Answer:
    """An observe answer listing (role, name, method, arguments) elements, by id."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        return {
            "elements": [
                {
                    "element_id": element_id(request.text, role, name),
                    "description": f'{role} "{name}"',
                    "method": method,
                    "arguments": list(arguments),
                }
                for role, name, method, arguments in elements
            ]
        }

    return answer


# How long a step waits for what it looks for in these tests (ms). The test pages are
# local and answer at once (no test that passes waits at all), so this only bounds how long
# a test of a step that must fail (a gone element, a changed value) waits for it first;
# tests about waiting set their own.
TEST_WAIT_MS = 1_000


@contextmanager
def scripted_ai_page(
    page: Page,
    server: ScriptedModelServer,
    *,
    provider: str = "openai",
    base_url: str | None = None,
    steplog: StepLog | None = None,
    prompt_budget: int = DEFAULT_BUDGET,
    wait_timeout: float = TEST_WAIT_MS,
) -> Iterator[AIPage]:
    """An AIPage whose model client is the real SDK pointed at the scripted server."""
    endpoint = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    config = ModelConfig(f"{provider}/scripted", base_url=endpoint, max_retries=0)
    with create_client(config) as client:
        yield AIPage(
            page,
            client,
            steplog=steplog,
            base_url=base_url,
            prompt_budget=prompt_budget,
            wait_timeout=wait_timeout,
        )


@contextmanager
def recorded_ai_page(
    page: Page,
    server: ScriptedModelServer,
    store: RecordingStore,
    test_file: Path,
    mode: str,
    *,
    base_url: str | None = None,
    wait_timeout: float = TEST_WAIT_MS,
) -> Iterator[AIPage]:
    """An AIPage whose act, extract, observe and claims replay and record `test_file`'s
    recordings in `mode`: with the scripted model ("auto", "refresh") or none ("offline")."""
    config = ModelConfig("openai/scripted", base_url=server.openai_base_url, max_retries=0)
    with create_client(config) as client:
        model = client if mode != "offline" else None
        steplog = StepLog()
        recordings = Recordings(store, test_file, mode)
        has_model = model is not None
        yield AIPage(
            page,
            model,
            steplog=steplog,
            base_url=base_url,
            wait_timeout=wait_timeout,
            resolver=RecordingResolver(
                page, ModelResolver(page, model, steplog), recordings, steplog,
                has_model=has_model, model="openai/scripted",
            ),
            evaluator=Evaluator(page, model, steplog, recordings=recordings),
            recorder=StepRecorder(
                page, recordings, steplog, has_model=has_model, model="openai/scripted"
            ),
        )


def recorded_then_replayed(
    page: Page,
    browser: Browser,
    server: ScriptedModelServer,
    store: RecordingStore,
    test_file: Path,
    **options: Any,
) -> Iterator[tuple[str, AbstractContextManager[AIPage]]]:
    """("auto", an AIPage to record on `page`), then ("offline", one on a page of its own,
    as a later run's): each for the test to enter. `options` go to `recorded_ai_page`."""
    replay_page = browser.new_page()
    try:
        for mode, on in (("auto", page), ("offline", replay_page)):
            yield mode, recorded_ai_page(on, server, store, test_file, mode, **options)
    finally:
        replay_page.close()


# --- vision: answers to a request that carries a marked screenshot -------------------------


def screenshot_width(request: ScriptedRequest) -> int:
    """The pixel width of the (PNG) screenshot a request carries."""
    if not request.images:
        raise AssertionError("the scripted model got no screenshot")
    return int.from_bytes(request.images[-1][16:20], "big")  # the PNG's IHDR width


def pointing(
    x: float,
    y: float,
    viewport_width: int,
    method: str = "click",
    label: Sequence[float] | None = None,
) -> Answer:
    """A vision act answer: the point of the screenshot showing viewport CSS pixel (x, y),
    as a model sees the thing to act on there (a bar drawn on a canvas), and the box of
    the text that names it (`label`: x, y, width, height in CSS pixels), as it reads it."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        scale = screenshot_width(request) / viewport_width
        named = None if label is None else [value * scale for value in label]
        return {**act_answer(None, method), "point": [x * scale, y * scale], "label": named}

    return answer


def marked(
    mark: Callable[[str], str], method: str = "click", arguments: Sequence[str] = ()
) -> Answer:
    """A vision act answer naming a mark of the screenshot, found by `mark(prompt text)`."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        screenshot_width(request)  # a mark is only seen on a screenshot
        return {**act_answer(mark(request.text), method, arguments), "point": None}

    return answer


def nth_unnamed(role: str, index: int) -> Callable[[str], str]:
    """The id of the `index`-th element of `role` with no name in the latest snapshot: an
    icon the text cannot tell apart, which the screenshot shows."""

    def find(text: str) -> str:
        unnamed = rf'\b(e\d+) {re.escape(role)}(?: hint="[^"\n]*")?$'  # hint: snapshot.js
        ids = re.findall(unnamed, latest_snapshot(text), re.M)
        return ids[index]

    return find
