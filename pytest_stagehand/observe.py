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
from .waiting import Waiting

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
    waiting: Waiting | None = None,
) -> list[Action]:
    """Elements matching `instruction` (or the page's main interactive ones), best first.

    `scope` is a selector limiting the snapshot to part of the page. With a `recorder`,
    recorded elements that still verify replace the model call. With `waiting`, finding
    nothing is tried again on each page change until its timeout.
    """
    settle(page)
    asked_for = instruction or prompts.OBSERVE_ALL
    with steplog.step("observe", asked_for, page.url) as event:

        def attempt() -> tuple[list[Action], bool]:
            """The elements, and whether they were recalled from the recording."""
            if recorder is not None:
                recalled = recorder.recall_observe(asked_for, scope, event)
                if recalled is not None:
                    return recalled, True
            return _ask(page, client, steplog, event, instruction, scope), False

        # Nothing found may be a page still loading: wait for it (recalled elements are
        # what the page agreed with when they were recorded).
        actions, recalled = (waiting or Waiting(page, 0)).until(
            attempt, lambda answer: answer[1] or bool(answer[0]), event
        )
        found = "; ".join(action.description for action in actions) or "nothing matched"
        if recalled:
            event.result = f"{found} ({event.result})" if event.result else found
            return actions
        event.result = found
        if recorder is not None:
            recorder.record_observe(asked_for, scope, actions, event)
    return actions


def _ask(
    page: Page,
    client: ModelClient | None,
    steplog: StepLog,
    event: StepEvent,
    instruction: str | None,
    scope: str | None,
) -> list[Action]:
    """The model's answer from a fresh snapshot, each element noted for replay."""
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
