"""observe: which elements match an instruction, as Actions that `act` replays with no model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from playwright.sync_api import Page

from pytest_stagehand.actions.action import Action, action_for
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import InvalidModelChoice
from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.heal.identity import seen_now
from pytest_stagehand.model.client import Message, ModelClient
from pytest_stagehand.model.inference import ChoiceProblem, ask_checked
from pytest_stagehand.pipelines import vision
from pytest_stagehand.pipelines.vision import Look, VisionMode
from pytest_stagehand.pipelines.waiting import Waiting
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.prompts.chunks import parts_for
from pytest_stagehand.prompts.parts import NOT_FOUND_OBSERVE, part_note
from pytest_stagehand.prompts.texts import Observation
from pytest_stagehand.prompts.vision import VisionObservation, with_screenshot
from pytest_stagehand.settings import DEFAULT_BUDGET
from pytest_stagehand.snapshot.outline import Snapshot, snapshot

if TYPE_CHECKING:
    from pytest_stagehand.pipelines.replay import StepRecorder


def observe(
    watch: PageWatch,
    client: ModelClient | None,
    steplog: StepLog,
    instruction: str | None = None,
    scope: str | None = None,
    *,
    recorder: StepRecorder | None = None,
    waiting: Waiting | None = None,
    prompt_budget: int = DEFAULT_BUDGET,
    vision_mode: VisionMode = "fallback",
) -> list[Action]:
    """Elements matching `instruction` (or the page's main interactive ones), best first.

    `scope` is a selector limiting the snapshot to part of the page. With a `recorder`,
    the step follows the recorded-step protocol (steps.py): recorded elements found again
    and verified replace the model call. A page larger than `prompt_budget` tokens is
    shown in parts, the most relevant first (chunks.py); the next part only when the
    model found nothing in the one before. With `waiting`, finding nothing is asked again
    on each page change until its timeout. `vision_mode`: when the model is shown a marked
    screenshot (vision.py); "fallback" when it lists nothing from the text, or the view is
    mostly canvas/SVG.
    """
    page = watch.page
    settled = settle(watch)
    asked_for = instruction or prompts.OBSERVE_ALL
    with steplog.step("observe", asked_for, page.url) as event:

        def ask() -> list[Action]:
            return _ask(
                page, client, steplog, instruction, scope, event, prompt_budget, vision_mode
            )

        def step(ask: Callable[[], list[Action]]) -> list[Action]:
            return recorder.observe(asked_for, scope, event, ask) if recorder else ask()

        # Nothing found may be a page still loading: asked again when the page changes.
        actions = (waiting or Waiting(watch, 0)).answered(step, ask, bool, event, settled)
        found = "; ".join(action.description for action in actions) or "nothing matched"
        event.result = f"{found} ({event.result})" if event.result else found
    return actions


def _ask(
    page: Page,
    client: ModelClient | None,
    steplog: StepLog,
    instruction: str | None,
    scope: str | None,
    event: StepEvent,
    prompt_budget: int,
    vision_mode: VisionMode = "fallback",
) -> list[Action]:
    """The model's answer, each element noted as found now (it replays verified like act's).
    A large page is asked about part by part until a part holds matches (chunks.py)."""
    page_snapshot = snapshot(page, scope)

    def messages(text: str, part: str = "") -> list[Message]:
        return prompts.observe_messages(instruction, page_snapshot.url, text, part)

    asked_for = instruction or prompts.OBSERVE_ALL
    parts = list(parts_for(page_snapshot.text, asked_for, prompt_budget, messages))
    by_sight = vision_mode == "always" or (
        vision_mode == "fallback" and vision.mostly_visual(page, scope)
    )
    actions: list[Action] = []
    try:
        for part in [] if by_sight else parts:
            note = part_note(part.number, part.count, NOT_FOUND_OBSERVE)
            actions = ask_checked(
                client,
                messages(part.text, note),
                Observation,
                lambda answer, shown=part.ids: _actions(page_snapshot, answer, shown),
                feedback=prompts.feedback, event=event,
                steplog=steplog,
            )
            if actions:
                break
        if not actions and vision_mode != "off":  # the most relevant part, and a screenshot
            seen = vision.look(page, page_snapshot, scope, steplog.secrets)
            actions = ask_checked(
                client,
                with_screenshot(messages(parts[0].text), seen.caption, seen.image),
                VisionObservation,
                lambda answer: _actions(page_snapshot, answer, None, page, seen),
                feedback=prompts.feedback, event=event,
                steplog=steplog,
            )
    except ChoiceProblem as exc:
        raise InvalidModelChoice(
            f"The model's answer to observe {instruction!r} on {page_snapshot.url} cannot "
            f"be used, even after feedback: {exc}"
        ) from None
    # Nothing was done to the page yet: note each element's surroundings and own
    # selectors now, so the actions replay verified like act's.
    return [_noted(page, action) for action in actions]


def _actions(
    page_snapshot: Snapshot,
    answer: Observation | VisionObservation,
    shown: frozenset[str] | None,
    page: Page | None = None,
    seen: Look | None = None,
) -> list[Action]:
    """The answer's elements as Actions (`shown`: the ids the model was shown, when not
    all); with `seen`, an element may be a point on that screenshot (vision.action_at),
    and what was chosen by sight keeps its look."""
    actions = []
    for index, found in enumerate(answer.elements):
        point = getattr(found, "point", None)
        try:
            if page is not None and seen is not None and found.element_id is None:
                if point is None or len(point) != 2:
                    raise ChoiceProblem("give an element_id, or a point [x, y].")
                action, _ = vision.action_at(
                    page, page_snapshot, seen, (point[0], point[1]), found.method,
                    found.arguments, found.description, getattr(found, "label", None),
                )
            else:
                action = action_for(
                    page_snapshot, found.element_id, found.method, found.arguments,
                    found.description, shown,
                )
            if page is not None and seen is not None:
                action = vision.by_its_look(page, action)
            actions.append(action)
        except ChoiceProblem as exc:
            raise ChoiceProblem(f"elements[{index}]: {exc}") from None
    return actions


def _noted(page: Page, action: Action) -> Action:
    if action.selector is None:
        return action
    return replace(action, target=seen_now(page, action.target, action.locator(page)))
