"""act through recordings: replay verified steps, heal them, or ask the model and record.

`RecordingResolver` wraps the model resolver (act.py's seam). A recorded step is
replayed only on elements that verify as the recorded ones (heal.resolve); when none
does and the cache mode allows a model, the model resolves the instruction afresh and
the new answer replaces the recording as a "model" heal. Every change is put back in
the store, so it reaches the committed file and the pull request.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from pydantic import BaseModel

from .act import ActRequest, Resolver, element_of, verified
from .actions import VARIABLE, Action, covered, from_ref, perform, settle, substitute
from .cache import (
    CachePolicy,
    RecordedAction,
    RecordedElement,
    Recording,
    Recordings,
    StepKey,
)
from .errors import ActionFailed, HealFailed
from .events import Heal, StepEvent, StepLog, each_text
from .heal import SAME_CONTEXT, Identity, context_of, describe_recorded, differences, unique_first
from .readback import ground, reread, unreadable_fields
from .snapshot import frame_scope, inspect, origin_of, snapshot
from .vision import look_signature, same_look

T = TypeVar("T", bound=BaseModel)


def recorded_action(action: Action, steplog: StepLog) -> RecordedAction:
    """An action as recordings keep it: selectors best first, fingerprint and context.

    The context is page text, which may echo a variable's value (a greeting with the
    user name, the items typed before into a to-do list): it is recorded with the value
    as its %name% placeholder.
    """
    element = element_of(action)
    if element is not None:
        element = element.model_copy(
            update={
                "context": steplog.mask(element.context),
                "distinct": steplog.mask(element.distinct),
            }
        )
    return RecordedAction(
        method=action.method,
        arguments=list(action.arguments),
        description=action.description,
        element=element,
        via=action.via,
        point=action.point,
    )


def resolved_action(
    page: Page,
    recorded: RecordedAction,
    values: Mapping[str, str] | None = None,
    *,
    instruction: str = "",
    mask: Callable[[str], str] | None = None,
) -> tuple[Action, RecordedElement | None, Heal | None]:
    """The recorded action on the element found now: verified, healed if it moved.

    When the element was chosen by a variable's value (its surroundings recorded with a
    %name% placeholder), the current value is put in and must be around any element
    taken: a step recorded for one product never acts on it for another. A variable the
    action types chose nothing: where its placeholders stand, the page shows whatever
    values of it were typed before (`mask` tells them). The step's `instruction` is one
    more signal for a heal.
    Returns the action to perform, the element to record from now on, and the heal.
    Raises HealFailed when the element is not found safely.
    """
    action = Action(
        recorded.method, tuple(recorded.arguments), recorded.description, point=recorded.point
    )
    if recorded.element is None:
        return action, None, None
    typed = {name for argument in recorded.arguments for name in VARIABLE.findall(argument)}
    element = _typed_as_shown(page, recorded.element, typed, mask or (lambda text: text))
    element, required = _with_values(element, values or {})
    return verified(page, action, element, required, instruction)


def _typed_as_shown(
    page: Page, element: RecordedElement, typed: set[str], mask: Callable[[str], str]
) -> RecordedElement:
    """The element with the surroundings the page shows now where they differ from the
    recorded ones only by typed values; else with the typed placeholders left out."""
    placeholders = [f"%{name}%" for name in typed if f"%{name}%" in element.context]
    if not placeholders:
        return element
    try:
        live = inspect(frame_scope(page, element.frame_path).locator(element.selectors[0]))
    except PlaywrightError:
        live = None
    if live is not None and " ".join(mask(live.context).split()) == element.context:
        return element.model_copy(update={"context": live.context})
    context = element.context
    for placeholder in placeholders:
        context = context.replace(placeholder, "")
    return element.model_copy(update={"context": " ".join(context.split())})


def _with_values(
    element: RecordedElement, values: Mapping[str, str]
) -> tuple[RecordedElement, frozenset[str]]:
    identity = " ".join((element.context, element.distinct, element.fingerprint.name))
    used = [values[name] for name in VARIABLE.findall(identity) if name in values]
    if not used:
        return element, frozenset()
    filled = element.model_copy(
        update={
            "context": substitute(element.context, values),
            "distinct": substitute(element.distinct, values),
        }
    )
    return filled, frozenset(word for value in used for word in _words(value))


class _Replaying:
    """What act's resolver and extract/observe's recorder share: the test's recordings,
    what the cache mode allows, and how a model's fresh answer is recorded."""

    def __init__(
        self,
        page: Page,
        recordings: Recordings,
        steplog: StepLog,
        *,
        has_model: bool,
        model: str | None = None,
    ) -> None:
        self.page = page
        self.recordings = recordings
        self.steplog = steplog
        self.policy = CachePolicy(recordings.mode, has_model)
        self.model = model
        # digest -> the recording the model's next answer replaces (extract and observe),
        # and what changed on the page since it was recorded
        self._stale: dict[str, tuple[Recording, tuple[str, ...]]] = {}

    def _record_fresh(
        self,
        fresh: Recording,
        stale: Recording | None,
        event: StepEvent,
        before: str,
        after: str,
        values: Mapping[str, str] | None = None,
        changed: tuple[str, ...] = (),
    ) -> None:
        """Record what the model answered; replacing a stale recording is a "model" heal."""
        if not self.policy.may_record:
            return
        if stale is not None:
            event.heal = Heal("model", before, after, changed=changed or _changes(stale, fresh))
            fresh = fresh.model_copy(update={"heals": stale.heals}).noted(event.heal)
        self.recordings.put(fresh.masked(self.steplog.mask), values)
        event.cache = (
            "healed"
            if stale is not None
            else "refreshed"
            if self.policy.mode == "refresh"
            else "miss"
        )


class RecordingResolver(_Replaying):
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
        super().__init__(page, recordings, steplog, has_model=has_model, model=model)
        self.inner = inner

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]:
        recordings = self.recordings
        key = recordings.step("act", request.instruction, self.page.url, request.variable_names)
        recording = recordings.lookup(key) if self.policy.may_replay else None
        if recording is None:
            self.policy.check_miss(key, recordings.test_file)
        else:
            try:
                return self._replay(recording, request, event)
            except (HealFailed, ActionFailed):
                if not self.policy.may_call_model:
                    raise
            if (stale := _last_element(recording)) is not None:  # "the same thing", for the model
                request = replace(request, recorded=describe_recorded(stale))
        actions = self.inner.act(request, event)  # sets event.cache "off"
        fresh = Recording.of(
            key, [recorded_action(a, self.steplog) for a in actions], model=self.model
        )
        before = _first_selector(recording) if recording is not None else ""
        self._record_fresh(fresh, recording, event, before, _first_selector(fresh), request.values)
        return actions

    def _replay(self, recording: Recording, request: ActRequest, event: StepEvent) -> list[Action]:
        performed: list[Action] = []
        updated = recording
        for index, recorded in enumerate(recording.actions):
            if index:  # the options of a custom dropdown appear after the first click
                settle(self.page, after_action=True)
            # Earlier steps' values count too: the page may echo any of them.
            values = {**self.steplog.variables, **request.values}
            action, element, heal = resolved_action(
                self.page, recorded, values,
                instruction=request.instruction, mask=self.steplog.mask,
            )
            try:
                action = perform(self.page, action, request.values, request.timeout)
            except PlaywrightError as exc:
                if cover := covered(self.page, action, exc):
                    raise cover from None  # not a moved element: neither heal nor model
                reason = self.steplog.mask(str(exc).splitlines()[0])
                raise ActionFailed(
                    f"Could not replay the recorded {action.method} on {action.element} for "
                    f"{request.instruction!r} on {self.page.url}: {reason}"
                ) from None
            if heal is not None and element is not None:
                updated = updated.healed(index, element, heal, action.via)
                event.heal = heal
            performed.append(action)
        if updated is not recording and self.policy.may_record:
            self.recordings.put(updated.masked(self.steplog.mask), request.values)
        event.cache = "healed" if updated is not recording else "hit"
        return performed


def _first_selector(recording: Recording) -> str:
    element = _last_element(recording)
    return element.selectors[0] if element else recording.actions[-1].method


def _last_element(recording: Recording) -> RecordedElement | None:
    elements = [a.element for a in recording.actions if a.element is not None]
    return elements[-1] if elements else None


def _changes(stale: Recording, fresh: Recording) -> tuple[str, ...]:
    """How the element the model chose now differs from the one recorded before."""
    before, after = _last_element(stale), _last_element(fresh)
    if before is None or after is None:
        return ()
    return differences(Identity.of(before), Identity.of(after))


# --- extract and observe: what the model answered, replayed when the page still agrees ---

WORD = re.compile(r"\w+(?:[.,:@/'-]\w+)*")
ORIGIN = "%origin%"  # the page's own scheme://host:port in a recorded value


def _filled(data: Any, values: Mapping[str, str]) -> Any:
    """`data` with variable values put in for their %name% placeholders, all the way down."""
    return each_text(data, lambda text: substitute(text, values))


def schema_id(schema: type[BaseModel]) -> str:
    """Name and shape of a schema: a recorded value replays only into the same shape."""
    shape = json.dumps(schema.model_json_schema(), sort_keys=True)
    return f"{schema.__name__}:{hashlib.sha256(shape.encode()).hexdigest()[:12]}"


class StepRecorder(_Replaying):
    """Recordings for extract and observe, consulted inside their steps.

    extract replays the recorded value when the schema is unchanged and the page still
    shows the words of the value it showed then; observe replays its elements verified
    (and healed) like act's. Otherwise the model answers again when the mode allows, and
    the new answer replaces the recording as a "model" heal.
    """

    def recall_extract(
        self, instruction: str, schema: type[T], scope: str | None, event: StepEvent
    ) -> T | None:
        """The recorded extract read again from the page now, or None to ask the model.

        Every value is re-read from the element it was recorded from (readback.py); a value
        the page no longer yields, or yields differently, is a failed replay: the model
        answers again where the mode allows, else HealFailed says what changed.
        """
        key = self.recordings.step("extract", instruction, self.page.url, scope=scope)
        recording = self._lookup(key)
        if recording is None:
            return None
        data = recording.data
        step = f"extract {instruction!r}"
        if data.get("schema") != schema_id(schema):
            problem = f"the schema {schema.__name__} changed since it was recorded"
        elif "look" in data:  # read from a screenshot: replayed while it looks the same
            if not same_look(data["look"], look_signature(self.page, scope)):
                problem = "what it was read from on a screenshot looks different now"
                return self._stale_or_fail(key, recording, step, problem)
            event.cache = "hit"
            return schema.model_validate(data["value"])
        elif "reads" not in data:
            problem = "it was recorded before extracts were read again from the page"
        elif unreadable := list(unreadable_fields(data["reads"])):
            return self._stale_or_fail(key, recording, step, _unreadable(unreadable))
        else:
            recorded = _filled(
                json.loads(json.dumps(data["value"]).replace(ORIGIN, origin_of(self.page.url))),
                self.steplog.variables,
            )  # the page shows the values the model saw as %name%
            reading = reread(self.page, data["reads"], recorded)
            changes = reading.changes(recorded)
            if reading.broken:
                problem = "; ".join(reading.broken)
            elif changes:
                problem = "the page shows other values now: " + "; ".join(changes)
                return self._stale_or_fail(key, recording, step, problem, tuple(changes))
            else:
                # As the model answers it live: a value the page echoes stays its %name%.
                value = schema.model_validate(each_text(reading.value, self.steplog.mask))
                event.cache = "hit"
                if reading.heals:
                    healed = recording.model_copy(update={"data": {**data, "reads": reading.plan}})
                    for heal in reading.heals:
                        healed = healed.noted(heal)
                    event.cache, event.heal = "healed", reading.heals[-1]
                    if self.policy.may_record:
                        self.recordings.put(healed.masked(self.steplog.mask))
                return value
        return self._stale_or_fail(key, recording, step, problem)

    def record_extract(
        self,
        instruction: str,
        schema: type[BaseModel],
        scope: str | None,
        value: BaseModel,
        event: StepEvent,
        look: str | None = None,
    ) -> None:
        """Record the answer with where each value of it is shown (readback.ground), or,
        read from a screenshot, with the `look` of what it was read from (vision.py)."""
        key = self.recordings.key("extract", instruction, self.page.url, scope=scope)
        # Page text may echo a variable's value: it is recorded as its %name% placeholder.
        # Links on the page's own origin are recorded as %origin%/..., so they follow the
        # app from a test server's random port, or from staging to production.
        shown = self.steplog.mask(value.model_dump_json())
        if origin := origin_of(self.page.url):
            shown = shown.replace(origin, ORIGIN)
        data: dict[str, Any] = {"schema": schema_id(schema), "value": json.loads(shown)}
        if look is not None:
            data["look"] = look
        else:  # the model saw variable values as %name%: the page shows the values
            data["reads"] = ground(
                self.page, _filled(value.model_dump(mode="json"), self.steplog.variables)
            )
        self._record(key, Recording.of(key, data=data, model=self.model), event, _preview(shown))

    def recall_observe(
        self, instruction: str, scope: str | None, event: StepEvent
    ) -> list[Action] | None:
        """The recorded elements as the page shows them now, or None to ask the model.

        A set (several elements, each named) is queried again: every element of a recorded
        role and name, in page order, so added, missing and reordered members show, and how
        the set differs from the recording is reported on the step. A single element (or
        one without a name) is verified and healed like act's.
        """
        key = self.recordings.step("observe", instruction, self.page.url, scope=scope)
        recording = self._lookup(key)
        if recording is None:
            return None
        if len(recording.actions) > 1 and all(
            a.element is not None and a.element.fingerprint.name for a in recording.actions
        ):
            found = self._requery(recording, scope, event)
            if found:
                return found
        actions, updated = [], recording
        try:
            for index, recorded in enumerate(recording.actions):
                action, element, heal = resolved_action(
                    self.page, recorded, self.steplog.variables,
                    instruction=instruction, mask=self.steplog.mask,
                )
                if heal is not None and element is not None:
                    updated, event.heal = updated.healed(index, element, heal), heal
                actions.append(action)
        except HealFailed as exc:
            return self._stale_or_fail(key, recording, f"observe {instruction!r}", str(exc))
        if updated is not recording and self.policy.may_record:
            self.recordings.put(updated.masked(self.steplog.mask))
        event.cache = "healed" if updated is not recording else "hit"
        return actions

    def _requery(self, recording: Recording, scope: str | None, event: StepEvent) -> list[Action]:
        """Every element of the recorded roles and names on the page now, in page order."""
        wanted: dict[tuple[tuple[str, ...], str, str], RecordedAction] = {}
        for recorded in recording.actions:
            element = recorded.element
            assert element is not None
            name = " ".join(element.fingerprint.name.split()).casefold()
            wanted.setdefault((tuple(element.frame_path), element.fingerprint.role, name), recorded)
        actions = []
        for ref in snapshot(self.page, scope).elements.values():
            recorded = wanted.get((ref.frame_path, ref.role, " ".join(ref.name.split()).casefold()))
            if recorded is not None:
                action = from_ref(ref, recorded.method, recorded.arguments, recorded.description)
                actions.append(
                    replace(
                        action,
                        context=context_of(action.locator(self.page)),
                        candidates=tuple(
                            unique_first(self.page, ref.frame_path, list(ref.candidates))
                        ),
                    )
                )
        changes = _set_changes(recording, actions, self.steplog.mask)
        if changes:
            event.result = "not as recorded: " + "; ".join(changes)
        event.cache = "hit"
        return actions

    def record_observe(
        self, instruction: str, scope: str | None, actions: list[Action], event: StepEvent
    ) -> None:
        key = self.recordings.key("observe", instruction, self.page.url, scope=scope)
        recorded = [recorded_action(action, self.steplog) for action in actions]
        summary = "; ".join(a.description for a in actions) or "nothing"
        self._record(key, Recording.of(key, recorded, model=self.model), event, summary)

    def _lookup(self, key: StepKey) -> Recording | None:
        if not self.policy.may_replay:
            return None
        recording = self.recordings.lookup(key)
        if recording is None:
            self.policy.check_miss(key, self.recordings.test_file)
        return recording

    def _stale_or_fail(
        self,
        key: StepKey,
        recording: Recording,
        step: str,
        problem: str,
        changed: tuple[str, ...] = (),
    ) -> None:
        if not self.policy.may_call_model:
            raise HealFailed(
                f"The recorded {step} on {self.page.url} no longer holds: {problem}.\n"
                "Re-record it with a model: run with --ai-model (or OPENAI_API_KEY / "
                "ANTHROPIC_API_KEY) and --ai-cache=refresh, then review the diff."
            )
        self._stale[key.digest] = (recording, changed)
        return None

    def _record(self, key: StepKey, fresh: Recording, event: StepEvent, after: str) -> None:
        stale, changed = self._stale.pop(key.digest, (None, ()))
        before = _summary_of(stale) if stale is not None else ""
        self._record_fresh(fresh, stale, event, before, after, changed=changed)


def _words(text: str) -> list[str]:
    return [word.casefold() for word in WORD.findall(text)]


def _unreadable(fields: list[tuple[str, str]]) -> str:
    named = "; ".join(f"{name} ({why})" for name, why in fields)
    return (
        f"it has values that cannot be read again from the page: {named}. To replay it with "
        "no model, ask for the text the page shows (a str field holding the shown count, "
        "price or message) or read such values with Playwright; otherwise run this step "
        "with a model (--ai-cache=auto and --ai-model or OPENAI_API_KEY / ANTHROPIC_API_KEY)"
    )


def _set_changes(
    recording: Recording, actions: list[Action], mask: Callable[[str], str]
) -> list[str]:
    """How an observed set differs from the recorded one: its size, and members that now
    stand elsewhere (another card, another row) or in another order."""
    recorded = [a.element.context if a.element else "" for a in recording.actions]
    now = [mask(action.context) for action in actions]
    changes = []
    if len(recorded) != len(now):
        changes.append(f"{len(recorded)} elements recorded, {len(now)} on the page now")
    for number, (before, after) in enumerate(zip(recorded, now, strict=False), 1):
        words, live = set(_words(before)), set(_words(after))
        if words and len(words & live) < SAME_CONTEXT * len(words | live):
            changes.append(f"element {number} was near {before[:60]!r}, now {after[:60]!r}")
    return changes


def _preview(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…"


def _summary_of(recording: Recording) -> str:
    if recording.kind == "extract":
        return _preview(json.dumps(recording.data.get("value")))
    return "; ".join(a.description for a in recording.actions) or "nothing"
