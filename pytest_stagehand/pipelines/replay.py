"""The recorded steps of act, extract and observe: how each replays and verifies, asks
the model, and records (the sequence around them is steps.py's, for every kind).

- act (`ActStep`, through `RecordingResolver`, act.py's resolver seam): each recorded
  action runs on its element found now and verified as the recorded one (heal.resolve),
  healed without a model when it moved; the model answers a step that no longer verifies.
- extract (`ExtractStep`): every value is read again from where the page showed it
  (readback.py); the value returned is what the page shows now.
- observe (`ObserveStep`): a recorded set is queried again (added, missing, reordered
  members show); a single element is verified like act's.

Kept whole: the three recorded step kinds share their recorder and differ in a few lines
each; apart, each would repeat the recorder's seam.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from pydantic import BaseModel

from pytest_stagehand.actions.action import VARIABLE, Action, from_ref, substitute
from pytest_stagehand.actions.perform import NotPerformed, perform
from pytest_stagehand.actions.settle import StepSettle
from pytest_stagehand.browser.watch import PageWatch, ReadsPage
from pytest_stagehand.errors import ActionFailed, HealFailed
from pytest_stagehand.events import Heal, StepEvent, StepLog, each_text, shortened
from pytest_stagehand.heal.identity import Identity, relabelled, seen_now
from pytest_stagehand.heal.meaning import SAME_CONTEXT, describe_recorded, differences
from pytest_stagehand.heal.words import overlap, words_of
from pytest_stagehand.pipelines.act import ActRequest, Resolver, element_of, verified
from pytest_stagehand.pipelines.grounding import ground, needs_model, unreadable_fields
from pytest_stagehand.pipelines.readback import reread
from pytest_stagehand.pipelines.vision import look_signature, same_look
from pytest_stagehand.recordings.format import RecordedAction, RecordedElement, Recording
from pytest_stagehand.recordings.keys import StepKey
from pytest_stagehand.recordings.steps import RecordedStep, RecordedSteps, Replayed, Stale
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.snapshot.element import frame_scope
from pytest_stagehand.snapshot.outline import inspect, origin_of, snapshot

T = TypeVar("T", bound=BaseModel)


def recorded_action(action: Action, steplog: StepLog) -> RecordedAction:
    """An action as recordings keep it: selectors best first, fingerprint and context.

    The context is page text, which may echo a variable's value (a greeting with the
    user name, the items typed before into a to-do list): it is recorded with the value
    as its %name% placeholder.
    """
    element = element_of(action)
    if element is not None:
        element = relabelled(element, steplog.mask).model_copy(
            update={
                "context": steplog.mask(element.context),
                "distinct": steplog.mask(element.distinct),
                "rivals": [steplog.mask(name) for name in element.rivals],
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
    acting: bool = False,
    at_once: bool = False,
    echoed: Collection[str] = (),
    settling: StepSettle | None = None,
) -> tuple[Action, RecordedElement | None, Heal | None]:
    """The recorded action on the element found now: verified, healed if it moved.

    When the element was chosen by a variable's value (its surroundings recorded with a
    %name% placeholder), the current value is put in and must be around any element
    taken: a step recorded for one product never acts on it for another. A variable the
    action types chose nothing: where its placeholders stand, the page shows whatever
    values of it were typed before (`mask` tells them). So do the `echoed` variables: ones
    the step does not name that had several values (a loop), the page showing any of
    them. The step's `instruction` is one more signal for a heal. `acting`: the action is
    performed right after; `at_once`: verified in one look, or HealFailed (`verified`);
    `settling`: the step's settle, made as the page is first read (`StepSettle`).
    Returns the action to perform, the element to record from now on, and the heal.
    Raises HealFailed when the element is not found safely.
    """
    action = Action(
        recorded.method, tuple(recorded.arguments), recorded.description, point=recorded.point
    )
    if recorded.element is None:
        return action, None, None
    typed = {name for argument in recorded.arguments for name in VARIABLE.findall(argument)}
    typed |= set(echoed)
    element = _typed_as_shown(
        page, recorded.element, typed, mask or (lambda text: text), settling
    )
    values = {name: value for name, value in (values or {}).items() if name not in echoed}
    element, required = _with_values(element, values)
    return verified(page, action, element, required, instruction, acting, at_once, settling)


def _typed_as_shown(
    page: Page, element: RecordedElement, typed: set[str], mask: Callable[[str], str],
    settling: StepSettle | None = None,
) -> RecordedElement:
    """The element with the surroundings the page shows now where they differ from the
    recorded ones only by typed values; else with the typed placeholders left out. A
    container labelled by a typed value (a row of the list typed into) is left out: which
    of the values typed it shows is not known."""
    element = relabelled(
        element, lambda label: None if any(f"%{name}%" in label for name in typed) else label
    )
    placeholders = [f"%{name}%" for name in typed if f"%{name}%" in element.context]
    if not placeholders:
        return element
    if settling is not None:
        settling.mark()  # the page is read here first
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
    labels = [label for _, label in element.fingerprint.containers]
    identity = " ".join((element.context, element.distinct, element.fingerprint.name, *labels))
    used = [values[name] for name in VARIABLE.findall(identity) if name in values]
    if not used:
        return element, frozenset()
    filled = relabelled(element, lambda label: substitute(label, values)).model_copy(
        update={
            "context": substitute(element.context, values),
            "distinct": substitute(element.distinct, values),
            "rivals": [substitute(name, values) for name in element.rivals],
        }
    )
    return filled, frozenset(word for value in used for word in words_of(value))


class RecordingResolver(ReadsPage, RecordedSteps):
    """Resolves act steps by the recorded-step protocol (steps.py): replayed from the
    recording, verified; else the inner (model) resolver answers and is recorded."""

    def __init__(
        self,
        page: Page | PageWatch,
        inner: Resolver,
        recordings: Recordings,
        steplog: StepLog,
        *,
        has_model: bool,
        model: str | None = None,
    ) -> None:
        super().__init__(
            page.page if isinstance(page, PageWatch) else page, recordings, steplog,
            has_model=has_model, model=model,
        )
        self._reads(page)
        self.inner = inner

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]:
        return self.run(ActStep(self, request, event), event)


@dataclass
class ActStep(RecordedStep[list[Action]]):
    """act: each recorded action performed on its element found now, verified and healed
    (resolved_action); the model answers a recording that no longer verifies."""

    kind = "act"
    scope = None
    steps: RecordingResolver
    request: ActRequest
    event: StepEvent

    @property
    def instruction(self) -> str:  # type: ignore[override]
        return self.request.instruction

    @property
    def variables(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.request.variable_names

    def replay(self, recording: Recording) -> Replayed[list[Action]]:
        watch, steplog, request = self.steps.watch, self.steps.steplog, self.request
        page = watch.page
        performed: list[Action] = []
        updated, last = recording, None
        for index, recorded in enumerate(recording.actions):
            # The options of a custom dropdown appear after the first click: the next
            # action waits for them as the next step would.
            settling = StepSettle(watch) if index else request.settled
            # Earlier steps' values count too: the page may echo any of them.
            values = {**steplog.variables, **request.values}
            resolved = partial(
                resolved_action, page, recorded, values,
                instruction=request.instruction, mask=steplog.mask, acting=True,
                echoed=steplog.repeated - request.values.keys(),
            )  # fmt: skip
            try:
                action, element, heal = self._resolved(resolved, settling)
            except HealFailed as exc:
                raise Stale(str(exc), exc) from None
            try:
                action = perform(watch, action, request.values, request.timeout)
            except NotPerformed as exc:  # a cover is ElementCovered: neither heal nor model
                reason = steplog.mask(exc.reason)
                failure = ActionFailed(
                    f"Could not replay the recorded {action.method} on {action.element} for "
                    f"{request.instruction!r} on {page.url}: {reason}"
                )
                raise Stale(reason, failure) from None
            except HealFailed as exc:  # Playwright would act on another element: not done
                raise Stale(str(exc), exc) from None
            if heal is not None and element is not None:
                updated, last = updated.healed(index, element, heal, action.via), heal
            performed.append(action)
        return Replayed(performed, None if last is None else updated, last)

    def _resolved(
        self, resolved: Callable[..., tuple[Action, RecordedElement | None, Heal | None]],
        settling: StepSettle | None,
    ) -> tuple[Action, RecordedElement | None, Heal | None]:
        """`resolved()`; where the settle before it is still to be made, it is made with
        the first look (`StepSettle`). Where it returns early, the page may still be
        answering the last action: only an element that verifies at once is taken, else
        the page is settled in full and the element resolved as usual."""
        if settling is not None and settling.pending:
            try:
                found = resolved(at_once=True, settling=settling)
                if found[2] is None:
                    return found
            except HealFailed:
                pass
            settling.in_full()
        return resolved()

    def settle(self) -> None:
        if self.request.settled is not None:
            self.request.settled.mark()

    def ask(self, stale: Stale | None) -> list[Action]:
        request = self.request
        if stale is not None and (element := _last_element(stale.recording)) is not None:
            request = replace(request, recorded=describe_recorded(element))  # "the same thing"
        return self.steps.inner.act(request, self.event)

    def record(self, key: StepKey, value: list[Action]) -> Recording:
        return Recording.of(key, [recorded_action(a, self.steps.steplog) for a in value])

    def summary(self, recording: Recording) -> str:
        element = _last_element(recording)
        return element.selectors[0] if element else recording.actions[-1].method

    def changes(self, stale: Recording, fresh: Recording) -> tuple[str, ...]:
        return element_changes(stale, fresh)


def element_changes(stale: Recording, fresh: Recording) -> tuple[str, ...]:
    """How the element the model chose now differs from the one recorded before."""
    before, after = _last_element(stale), _last_element(fresh)
    if before is None or after is None:
        return ()
    return differences(Identity.of(before), Identity.of(after))


def _last_element(recording: Recording | None) -> RecordedElement | None:
    elements = [a.element for a in recording.actions if a.element is not None] if recording else []
    return elements[-1] if elements else None


# --- extract and observe: what the model answered, replayed when the page still agrees ---

ORIGIN = "%origin%"  # the page's own scheme://host:port in a recorded value


def _filled(data: Any, values: Mapping[str, str]) -> Any:
    """`data` with variable values put in for their %name% placeholders, all the way down."""
    return each_text(data, lambda text: substitute(text, values))


def schema_id(schema: type[BaseModel]) -> str:
    """Name and shape of a schema: a recorded value replays only into the same shape."""
    shape = json.dumps(schema.model_json_schema(), sort_keys=True)
    return f"{schema.__name__}:{hashlib.sha256(shape.encode()).hexdigest()[:12]}"


class StepRecorder(ReadsPage, RecordedSteps):
    """extract and observe by the recorded-step protocol (steps.py); `ask` is the step's
    own model call, made only when the recording is missing or no longer holds."""

    def extract(
        self,
        instruction: str,
        schema: type[T],
        scope: str | None,
        event: StepEvent,
        ask: Callable[[], T],
        by_sight: Callable[[], bool] = lambda: False,
    ) -> T:
        """`by_sight()`: the model reads a screenshot; the answer is recorded with the look
        of what it read, and replays while it looks the same (vision.py). Asked only when
        the model is, so a replay does not measure the page for it."""
        step = ExtractStep(self, instruction, schema, scope, event, ask, by_sight)
        return self.run(step, event)

    def observe(
        self,
        instruction: str,
        scope: str | None,
        event: StepEvent,
        ask: Callable[[], list[Action]],
    ) -> list[Action]:
        return self.run(ObserveStep(self, instruction, scope, event, ask), event)


def no_longer_holds(step: str, url: str, problem: str) -> HealFailed:
    """The failure of a recorded extract or observe the page no longer bears out."""
    return HealFailed(
        f"The recorded {step} on {url} no longer holds: {problem}.\n"
        "Re-record it with a model: run with --ai-model (or OPENAI_API_KEY / "
        "ANTHROPIC_API_KEY) and --ai-cache=refresh, then review the diff."
    )


@dataclass
class ExtractStep(RecordedStep[T]):
    """extract: every value read again from where the page showed it (readback.py), so the
    value returned is what the page shows now; one that reads otherwise is stale."""

    kind = "extract"
    variables = ()
    steps: StepRecorder
    instruction: str
    schema: type[T]
    scope: str | None
    event: StepEvent
    asked: Callable[[], T]
    by_sight: Callable[[], bool] = lambda: False

    def replay(self, recording: Recording) -> Replayed[T]:
        page, steplog, data = self.steps.page, self.steps.steplog, recording.data
        if data.get("schema") != schema_id(self.schema):
            raise self._stale(f"the schema {self.schema.__name__} changed since it was recorded")
        if "look" in data:  # read from a screenshot: replayed while it looks the same
            if not same_look(data["look"], look_signature(page, self.scope)):
                raise self._stale("what it was read from on a screenshot looks different now")
            return Replayed(self.schema.model_validate(data["value"]))
        if "reads" not in data:
            raise self._stale("it was recorded before extracts were read again from the page")
        if unreadable := list(unreadable_fields(data["reads"])):
            raise self._stale(_unreadable(unreadable))
        recorded = _filled(
            json.loads(json.dumps(data["value"]).replace(ORIGIN, origin_of(page.url))),
            steplog.variables,
        )  # the page shows the values the model saw as %name%
        reading = reread(page, data["reads"], recorded, self.instruction)
        if reading.broken:
            raise self._stale("; ".join(reading.broken))
        if changes := reading.changes(recorded):
            raise self._stale(
                "the page shows other values now: " + "; ".join(changes), tuple(changes)
            )
        # As the model answers it live: a value the page echoes stays its %name%.
        value = self.schema.model_validate(each_text(reading.value, steplog.mask))
        if not reading.heals:
            return Replayed(value)
        healed = recording.model_copy(update={"data": {**data, "reads": reading.plan}})
        for heal in reading.heals:
            healed = healed.noted(heal)
        return Replayed(value, healed, reading.heals[-1])

    def _stale(self, problem: str, changed: tuple[str, ...] = ()) -> Stale:
        step = f"extract {self.instruction!r}"
        return Stale(problem, no_longer_holds(step, self.steps.page.url, problem), changed=changed)

    def ask(self, stale: Stale | None) -> T:
        return self.asked()

    def record(self, key: StepKey, value: T) -> Recording:
        """The answer with where each value of it is shown (readback.ground), or, read from
        a screenshot, with the look of what it was read from (vision.py)."""
        page, steplog = self.steps.page, self.steps.steplog
        # Page text may echo a variable's value: it is recorded as its %name% placeholder.
        # Links on the page's own origin are recorded as %origin%/..., so they follow the
        # app from a test server's random port, or from staging to production.
        shown = steplog.mask(value.model_dump_json())
        if origin := origin_of(page.url):
            shown = shown.replace(origin, ORIGIN)
        data: dict[str, Any] = {"schema": schema_id(self.schema), "value": json.loads(shown)}
        if self.by_sight():
            data["look"] = look_signature(page, self.scope)
        else:  # the model saw variable values as %name%: the page shows the values
            data["reads"] = ground(page, _filled(value.model_dump(mode="json"), steplog.variables))
            step = f"extract {self.instruction!r}"
            self.event.unchecked = needs_model(data["reads"], step, steplog.mask) or None
        return Recording.of(key, data=data)

    def summary(self, recording: Recording) -> str:
        return shortened(json.dumps(recording.data.get("value"), ensure_ascii=False), 120)


@dataclass
class ObserveStep(RecordedStep[list[Action]]):
    """observe: a set (several elements, each named) is queried again, so added, missing
    and reordered members show; a single element is verified and healed like act's."""

    kind = "observe"
    variables = ()
    steps: StepRecorder
    instruction: str
    scope: str | None
    event: StepEvent
    asked: Callable[[], list[Action]]

    def replay(self, recording: Recording) -> Replayed[list[Action]]:
        if len(recording.actions) > 1 and all(
            a.element is not None and a.element.fingerprint.name for a in recording.actions
        ):
            found = self._requery(recording)
            if found:
                return Replayed(found)
        page, steplog = self.steps.page, self.steps.steplog
        actions, updated, last = [], recording, None
        for index, recorded in enumerate(recording.actions):
            try:
                action, element, heal = resolved_action(
                    page, recorded, steplog.variables,
                    instruction=self.instruction, mask=steplog.mask, echoed=steplog.repeated,
                )
            except HealFailed as exc:
                step = f"observe {self.instruction!r}"
                raise Stale(str(exc), no_longer_holds(step, page.url, str(exc))) from None
            if heal is not None and element is not None:
                updated, last = updated.healed(index, element, heal), heal
            actions.append(action)
        return Replayed(actions, None if last is None else updated, last)

    def _requery(self, recording: Recording) -> list[Action]:
        """Every element of the recorded roles and names on the page now, in page order;
        how the set differs from the recording is reported on the step."""
        page = self.steps.page
        wanted: dict[tuple[tuple[str, ...], str, str], RecordedAction] = {}
        for recorded in recording.actions:
            element = recorded.element
            assert element is not None
            name = " ".join(element.fingerprint.name.split()).casefold()
            wanted.setdefault((tuple(element.frame_path), element.fingerprint.role, name), recorded)
        actions = []
        for ref in snapshot(page, self.scope).elements.values():
            recorded = wanted.get((ref.frame_path, ref.role, " ".join(ref.name.split()).casefold()))
            if recorded is not None:
                action = from_ref(ref, recorded.method, recorded.arguments, recorded.description)
                actions.append(
                    replace(action, target=seen_now(page, action.target, action.locator(page)))
                )
        changes = _set_changes(recording, actions, self.steps.steplog.mask)
        if changes:
            self.event.result = "not as recorded: " + "; ".join(changes)
        return actions

    def ask(self, stale: Stale | None) -> list[Action]:
        return self.asked()

    def record(self, key: StepKey, value: list[Action]) -> Recording:
        return Recording.of(key, [recorded_action(action, self.steps.steplog) for action in value])

    def changes(self, stale: Recording, fresh: Recording) -> tuple[str, ...]:
        return element_changes(stale, fresh)


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
    now = [mask(action.target.context if action.target else "") for action in actions]
    changes = []
    if len(recorded) != len(now):
        changes.append(f"{len(recorded)} elements recorded, {len(now)} on the page now")
    for number, (before, after) in enumerate(zip(recorded, now, strict=False), 1):
        kept = overlap(before, after)
        if words_of(before) and kept is not None and kept < SAME_CONTEXT:
            near, now = shortened(before), shortened(after)
            changes.append(f"element {number} was near {near!r}, now {now!r}")
    return changes
