"""act through recordings: replay verified steps, heal them, or ask the model and record.

`RecordingResolver` wraps the model resolver (act.py's seam). A recorded step is
replayed only on elements that verify as the recorded ones (heal.resolve); when none
does and the cache mode allows a model, the model resolves the instruction afresh and
the new answer replaces the recording as a "model" heal. Every change is put back in
the store, so it reaches the committed file and the pull request.
"""

from __future__ import annotations

from dataclasses import replace

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from .act import ActRequest, Resolver
from .actions import Action, perform, settle
from .cache import CachePolicy, RecordedAction, RecordedElement, Recording, Recordings
from .errors import ActionFailed, HealFailed
from .events import Heal, StepEvent, StepLog
from .heal import describe, resolve


def recorded_action(action: Action, steplog: StepLog) -> RecordedAction:
    """An action as recordings keep it: selectors best first, fingerprint and context.

    The context is page text, which may echo a variable's value (a greeting with the
    user name): it is recorded with the value as its %name% placeholder.
    """
    element = None
    if action.selector is not None and action.fingerprint is not None:
        element = RecordedElement(
            selectors=list(action.candidates) or [action.selector],
            frame_path=list(action.frame_path),
            fingerprint=action.fingerprint,
            context=steplog.mask(action.context),
            distinct=steplog.mask(action.distinct),
        )
    return RecordedAction(
        method=action.method,
        arguments=list(action.arguments),
        description=action.description,
        element=element,
    )


def resolved_action(
    page: Page, recorded: RecordedAction
) -> tuple[Action, RecordedElement | None, Heal | None]:
    """The recorded action on the element found now: verified, healed if it moved.

    Returns the action to perform, the element to record from now on, and the heal.
    Raises HealFailed when the element is not found safely.
    """
    action = Action(recorded.method, tuple(recorded.arguments), recorded.description)
    if recorded.element is None:
        return action, None, None
    resolution = resolve(page, recorded.element)
    element = resolution.element
    action = replace(
        action,
        frame_path=tuple(element.frame_path),
        candidates=tuple(element.selectors),
        fingerprint=element.fingerprint,
        context=element.context,
        distinct=element.distinct,
        element=describe(element.fingerprint),
    )
    # Every selector of a (healed) element was taken from it, so one that hits a single
    # element hits the element resolve found.
    for selector in element.selectors:
        candidate = replace(action, selector=selector)
        if candidate.locator(page).count() == 1:
            return candidate, element, resolution.heal
    raise HealFailed(f"No recorded selector hits {action.element} alone any more.")


class RecordingResolver:
    """Resolves act steps from recordings first, the inner (model) resolver second."""

    def __init__(
        self,
        page: Page,
        inner: Resolver,
        recordings: Recordings,
        steplog: StepLog,
        *,
        has_model: bool,
        model: str | None = None,
    ) -> None:
        self.page = page
        self.inner = inner
        self.recordings = recordings
        self.steplog = steplog
        self.policy = CachePolicy(recordings.mode, has_model)
        self.model = model

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]:
        recordings = self.recordings
        key = recordings.key("act", request.instruction, self.page.url, request.variable_names)
        recording = recordings.lookup(key) if self.policy.may_replay else None
        if recording is None:
            self.policy.check_miss(key, recordings.test_file)
        else:
            try:
                return self._replay(recording, request, event)
            except (HealFailed, ActionFailed):
                if not self.policy.may_call_model:
                    raise
        actions = self.inner.act(request, event)
        if self.policy.may_record:
            fresh = Recording.of(
                key, [recorded_action(a, self.steplog) for a in actions], model=self.model
            )
            if recording is not None:
                before = _first_selector(recording)
                event.heal = Heal("model", before, _first_selector(fresh))
                fresh = fresh.model_copy(update={"heals": recording.heals}).noted(event.heal)
            recordings.put(fresh, request.values)
        event.cache = (
            "healed"
            if recording is not None
            else "refreshed"
            if self.policy.mode == "refresh"
            else "miss"
            if self.policy.may_record
            else "off"
        )
        return actions

    def _replay(self, recording: Recording, request: ActRequest, event: StepEvent) -> list[Action]:
        performed: list[Action] = []
        updated = recording
        for index, recorded in enumerate(recording.actions):
            if index:  # the options of a custom dropdown appear after the first click
                settle(self.page, after_action=True)
            action, element, heal = resolved_action(self.page, recorded)
            try:
                perform(self.page, action, request.values, request.timeout)
            except PlaywrightError as exc:
                reason = self.steplog.mask(str(exc).splitlines()[0])
                raise ActionFailed(
                    f"Could not replay the recorded {action.method} on {action.element} for "
                    f"{request.instruction!r} on {self.page.url}: {reason}"
                ) from None
            if heal is not None and element is not None:
                updated = updated.healed(index, element, heal)
                event.heal = heal
            performed.append(action)
        if updated is not recording and self.policy.may_record:
            self.recordings.put(updated, request.values)
        event.cache = "healed" if updated is not recording else "hit"
        return performed


def _first_selector(recording: Recording) -> str:
    elements = [a.element for a in recording.actions if a.element is not None]
    return elements[-1].selectors[0] if elements else recording.actions[-1].method
