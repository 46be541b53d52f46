"""Step events: the one record of what each AI step did, for every report.

Pipelines open a step, fill in what happened, and close it; reporters (terminal,
Allure, evidence files, JUnit properties) listen. Values of variables (secrets) are
masked here as a last line of defence, though pipelines never put them in: in every form a
page gives them (as typed, URL-encoded, HTML-escaped, JSON-escaped, in another case).
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pytest_stagehand.calls import CallUsage
from pytest_stagehand.errors import StagehandError

# The kinds of step a recording keeps (recordings/keys.py).
RecordedKind = Literal["act", "observe", "extract", "assert", "agent"]
# Besides those: "goto", "dialog" (one no step answered, dismissed), "download" (a file a
# step started), "tab" (a page a step opened: the next steps act there).
StepKind = Literal[RecordedKind, "goto", "dialog", "download", "tab"]
CacheStatus = Literal["hit", "miss", "healed", "refreshed", "off", "none"]
MASK = "***"
SHORT_SECRET = 4  # values shorter than this are masked only as whole tokens
MARKER = re.compile("\ue000(\\d+)\ue001")


def _spellings(char: str) -> list[str]:
    """How one character of a value may be written on a page, in a URL or in JSON."""
    if char.isascii() and char.isalnum():
        return [char]
    spellings = {
        char,
        "".join(f"%{byte:02X}" for byte in char.encode()),  # URL-encoded (any case)
        html.escape(char),
        f"&#{ord(char)};",
        f"&#x{ord(char):x};",
        json.dumps(char)[1:-1],
    }
    if char == " ":
        spellings.add("+")  # form-encoded
    return sorted(spellings, key=len, reverse=True)


def secret_pattern(value: str) -> str:
    """A regular expression (use it with re.IGNORECASE: pages upper- and lower-case what
    they echo) for `value` in every spelling a page gives it: as typed, URL-encoded in part
    or whole, HTML-escaped, JSON-escaped. Values shorter than SHORT_SECRET match only as
    whole tokens ("2", "yes" occur everywhere by chance)."""
    body = "".join(
        re.escape(char)
        if len(spellings := _spellings(char)) == 1
        else "(?:" + "|".join(map(re.escape, spellings)) + ")"
        for char in value
    )
    return body if len(value) >= SHORT_SECRET else rf"(?<!\w){body}(?!\w)"


@dataclass
class Heal:
    """How a recorded step was repaired, so a reviewer can judge it."""

    strategy: Literal["locator", "fingerprint", "model", "rejudged"]
    before: str  # the recorded selector (or check) that no longer held
    after: str  # what replaced it
    score: float | None = None  # fingerprint similarity, when scored
    changed: tuple[str, ...] = ()  # what differs from the recording ("classes", "id"...)
    decided_by: tuple[str, ...] = ()  # signals that put a fingerprint heal ahead ("test id")


@dataclass
class Exchange:
    """One prompt sent to a model and the answer, kept for attachments."""

    purpose: str
    prompt: str
    answer: str


@dataclass
class StepEvent:
    kind: StepKind
    instruction: str  # with %name% placeholders, never the values
    url: str = ""
    started: float = field(default_factory=time.time)
    duration_s: float = 0.0
    cache: CacheStatus = "none"
    heal: Heal | None = None
    element: str | None = None  # e.g. 'button "Log in"'
    selector: str | None = None
    method: str | None = None
    arguments: list[str] = field(default_factory=list)
    calls: list[CallUsage] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    result: str | None = None  # short summary: extracted value, verdict, agent status
    unchecked: str | None = None  # a claim judged YES with no check recorded: why
    screenshot: bytes | None = None
    files: list[str] = field(default_factory=list)  # files the step produced (a download)
    # The page's snapshot text when the step gave up waiting for what it looked for.
    last_snapshot: str | None = None
    ok: bool = True
    error: str | None = None

    @property
    def cost_usd(self) -> float:
        return sum(call.cost_usd or 0.0 for call in self.calls)


class StepListener(Protocol):
    def step_started(self, event: StepEvent) -> None: ...

    def step_finished(self, event: StepEvent) -> None: ...


class StepLog:
    """The steps of one test, in order, with the secrets to mask in anything reported."""

    def __init__(self, nodeid: str = "", listeners: list[StepListener] | None = None) -> None:
        self.nodeid = nodeid
        self.events: list[StepEvent] = []
        self.listeners: list[StepListener] = list(listeners or [])
        self._secrets: dict[str, str] = {}  # value -> what is shown instead
        # One pattern per value, longest value first (one alternation of them all is a
        # hundred times slower on a large page).
        self._patterns: list[tuple[re.Pattern[str], str]] = []

    def add_secrets(self, values: Mapping[str, object] | Iterable[object] | str) -> None:
        """Register variable values; a mapping's values show as their `%name%` placeholder.

        The model then sees the same placeholder it was given, wherever the page echoes
        the value back (a filled field, a greeting).
        """
        if isinstance(values, str):
            values = [values]
        pairs = (
            [(str(v), f"%{k}%") for k, v in values.items()]
            if isinstance(values, Mapping)
            else [(str(v), MASK) for v in values]
        )
        for value, shown in pairs:
            if value.strip():
                self._secrets[value] = shown
        # Longest first, so a secret containing another is masked whole.
        self._patterns = [
            (re.compile(secret_pattern(value), re.IGNORECASE), self._secrets[value])
            for value in sorted(self._secrets, key=len, reverse=True)
        ]

    @property
    def secrets(self) -> dict[str, str]:
        """Every value registered so far, and what is shown instead of it (value -> shown):
        what a screenshot sent to a model must hide (vision.py)."""
        return dict(self._secrets)

    @property
    def variables(self) -> dict[str, str]:
        """The named values registered so far in this test (name -> value)."""
        return {shown[1:-1]: value for value, shown in self._secrets.items() if shown != MASK}

    @property
    def repeated(self) -> frozenset[str]:
        """The variables given more than one value in this test (a loop over items): where
        the page echoes one of them, its name does not tell which value it shows."""
        names = [shown[1:-1] for shown in self._secrets.values() if shown != MASK]
        return frozenset(name for name in names if names.count(name) > 1)

    def mask(self, text: str) -> str:
        """`text` with every spelling of every value replaced (see `secret_pattern`).

        Each match first becomes a private-use marker, so a later (shorter) value never
        matches inside the placeholder of an earlier one."""
        for index, (pattern, _) in enumerate(self._patterns):
            text = pattern.sub(f"\ue000{index}\ue001", text)
        if not self._patterns or "\ue000" not in text:
            return text
        return MARKER.sub(lambda m: self._patterns[int(m[1])][1], text)

    @contextmanager
    def step(self, kind: StepKind, instruction: str, url: str = "") -> Iterator[StepEvent]:
        event = StepEvent(kind=kind, instruction=self.mask(instruction), url=self.mask(url))
        for listener in self.listeners:
            listener.step_started(event)
        begin = time.perf_counter()
        try:
            yield event
        except BaseException as exc:
            event.ok = False
            event.error = self.mask(f"{type(exc).__name__}: {exc}")
            self._mask_error(exc)
            raise
        finally:
            event.duration_s = time.perf_counter() - begin
            self._mask_event(event)
            self.events.append(event)
            for listener in self.listeners:
                listener.step_finished(event)

    def _mask_error(self, exc: BaseException) -> None:
        """Our own errors name URLs and page text: mask them before pytest, JUnit or a
        log shows the message."""
        if self._secrets and isinstance(exc, StagehandError) and exc.args:
            exc.args = tuple(self.mask(a) if isinstance(a, str) else a for a in exc.args)

    def _mask_event(self, event: StepEvent) -> None:
        if not self._secrets:
            return
        event.arguments = [self.mask(a) for a in event.arguments]
        for name in ("element", "selector", "result", "error", "url", "unchecked", "last_snapshot"):
            value = getattr(event, name)
            if value:
                setattr(event, name, self.mask(value))
        for exchange in event.exchanges:
            exchange.prompt = self.mask(exchange.prompt)
            exchange.answer = self.mask(exchange.answer)


def shortened(text: str, limit: int = 60) -> str:
    """`text` as a message or a report line shows it: cut after `limit` characters."""
    return text if len(text) <= limit else f"{text[:limit]}…"


def each_text(data: Any, change: Callable[[str], str]) -> Any:
    """`data` (JSON-like) with `change` applied to every string in it, all the way down:
    how masks and variable values reach recorded and reported data."""
    if isinstance(data, str):
        return change(data)
    if isinstance(data, dict):
        return {key: each_text(item, change) for key, item in data.items()}
    if isinstance(data, list):
        return [each_text(item, change) for item in data]
    return data
