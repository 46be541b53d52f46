"""observe: which elements match an instruction, as Actions that `act` replays with no model."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from playwright.sync_api import Page

from . import prompts
from .actions import Action, action_for, settle
from .errors import InvalidModelChoice
from .events import StepEvent, StepLog
from .heal import context_of, unique_first
from .llm import ModelClient
from .prompts import ChoiceProblem, Observation
from .snapshot import Snapshot, snapshot

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
) -> list[Action]:
    """Elements matching `instruction` (or the page's main interactive ones), best first.

    `scope` is a selector limiting the snapshot to part of the page. With a `recorder`,
    the step follows the recorded-step protocol (steps.py): recorded elements found again
    and verified replace the model call.
    """
    settle(page)
    asked_for = instruction or prompts.OBSERVE_ALL
    with steplog.step("observe", asked_for, page.url) as event:

        def ask() -> list[Action]:
            return _ask(page, client, steplog, instruction, scope, event)

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
) -> list[Action]:
    """The model's answer, each element noted as found now (it replays verified like act's)."""
    page_snapshot = snapshot(page, scope)
    messages = prompts.observe_messages(instruction, page_snapshot.url, page_snapshot.text)
    try:
        actions = prompts.ask_checked(
            client,
            messages,
            Observation,
            lambda answer: _actions(page_snapshot, answer),
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


def _actions(page_snapshot: Snapshot, answer: Observation) -> list[Action]:
    actions = []
    for index, found in enumerate(answer.elements):
        try:
            actions.append(
                action_for(
                    page_snapshot, found.element_id, found.method, found.arguments,
                    found.description,
                )
            )
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
