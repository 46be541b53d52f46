"""observe: which elements match an instruction, as Actions that `act` replays with no model."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from playwright.sync_api import Page

from . import prompts, vision
from .actions import Action, action_for, settle
from .errors import InvalidModelChoice
from .events import StepEvent, StepLog
from .heal import context_of, unique_first
from .llm import ModelClient
from .prompts import ChoiceProblem, Observation, VisionObservation
from .snapshot import Snapshot, snapshot
from .vision import Look, VisionMode

if TYPE_CHECKING:
    from .replay import StepRecorder


def observe(
    page: Page,
    client: ModelClient | None,
    steplog: StepLog,
    instruction: str | None = None,
    scope: str | None = None,
    *,
    recorder: StepRecorder | None = None,
    vision_mode: VisionMode = "fallback",
) -> list[Action]:
    """Elements matching `instruction` (or the page's main interactive ones), best first.

    `scope` is a selector limiting the snapshot to part of the page. With a `recorder`,
    the step follows the recorded-step protocol (steps.py): recorded elements found again
    and verified replace the model call. `vision_mode`: when the model is shown a marked
    screenshot (vision.py); "fallback" when it lists nothing from the text, or the view is
    mostly canvas/SVG.
    """
    settle(page)
    asked_for = instruction or prompts.OBSERVE_ALL
    with steplog.step("observe", asked_for, page.url) as event:

        def ask() -> list[Action]:
            return _ask(page, client, steplog, instruction, scope, event, vision_mode)

        actions = recorder.observe(asked_for, scope, event, ask) if recorder else ask()
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
    vision_mode: VisionMode = "fallback",
) -> list[Action]:
    """The model's answer, each element noted as found now (it replays verified like act's)."""
    page_snapshot = snapshot(page, scope)
    messages = prompts.observe_messages(instruction, page_snapshot.url, page_snapshot.text)
    by_sight = vision_mode == "always" or (
        vision_mode == "fallback" and vision.mostly_visual(page, scope)
    )
    try:
        actions = [] if by_sight else prompts.ask_checked(
            client,
            messages,
            Observation,
            lambda answer: _actions(page_snapshot, answer),
            event=event,
            steplog=steplog,
        )
        if not actions and vision_mode != "off":
            seen = vision.look(page, page_snapshot, scope, steplog.secrets)
            actions = prompts.ask_checked(
                client,
                prompts.with_screenshot(messages, seen.caption, seen.image),
                VisionObservation,
                lambda answer: _actions(page_snapshot, answer, page, seen),
                event=event,
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
    page: Page | None = None,
    seen: Look | None = None,
) -> list[Action]:
    """The answer's elements as Actions; with `seen`, an element may be a point on that
    screenshot (vision.action_at), and what was chosen by sight keeps its look."""
    actions = []
    for index, found in enumerate(answer.elements):
        point = getattr(found, "point", None)
        try:
            if page is not None and seen is not None and found.element_id is None:
                if point is None or len(point) != 2:
                    raise ChoiceProblem("give an element_id, or a point [x, y].")
                action, _ = vision.action_at(
                    page, page_snapshot, seen, (point[0], point[1]), found.method,
                    found.arguments, found.description,
                )
            else:
                action = action_for(
                    page_snapshot, found.element_id, found.method, found.arguments,
                    found.description,
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
    return replace(
        action,
        context=context_of(action.locator(page)),
        candidates=tuple(unique_first(page, action.frame_path, action.candidates)),
    )
