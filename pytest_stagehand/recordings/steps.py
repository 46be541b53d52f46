"""Recorded steps: the one protocol every step that replays from a recording follows.

Read this first. Every kind of step a test takes (act, extract, observe, an assertion, an
agent run) is recorded to disk and replayed the same way, here, in `RecordedSteps.run`:

1. key: what the step is (kind, instruction, page, variable names, scope) and which use of
   it in the test this is, so the second "click Continue" on one page, or the same claim
   checked again after the page changed, has its own recording;
2. lookup: the step's recording, when the cache mode replays (auto, offline); a step with
   none and no model to ask is a CacheMiss that says how to record it;
3. replay and verify against the live page: the kind replays the recording and checks it
   against the page as it is now, healing without a model what merely moved (a renamed
   id, a wrapper); a recording healed so is put back in the store;
4. a recording that no longer holds (`Stale`) is answered afresh by the model where the
   mode allows, and the answer replaces it as a "model" heal; with no model to ask the
   step fails, saying what changed and what to do;
5. record: the model's answer, when the mode records (not off), with every variable's
   value masked as its %name% placeholder and refused if one still shows.

The step's cache status (hit, healed, miss, refreshed, off) is decided here too.

Each kind supplies only a `RecordedStep`: how it replays and verifies (healing without a
model as it goes), how it asks the model, and what it records. The kinds live next to
what they replay: act, extract and observe in replay.py, assertions in evaluator.py,
agent runs in agent.py. docs/recordings.md has the table of what each verifies.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import ClassVar, Generic, TypeVar

from playwright.sync_api import Page

from pytest_stagehand.events import CacheStatus, Heal, RecordedKind, StepEvent, StepLog
from pytest_stagehand.recordings.format import Recording
from pytest_stagehand.recordings.keys import StepKey, step_key
from pytest_stagehand.recordings.store import CachePolicy, Recordings

V = TypeVar("V")


class Stale(Exception):
    """A recording the live page no longer bears out: what changed, and the error the step
    fails with when no model may answer it afresh."""

    def __init__(
        self,
        problem: str,
        failure: Exception,
        *,
        changed: Iterable[str] = (),
        replaces: bool = True,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.failure = failure
        self.changed = tuple(changed)  # what differs from the recording, for the heal note
        # False: the recording could never be replayed (a claim recorded with no check); the
        # model's answer is then recorded as a new step, not as a heal of it.
        self.replaces = replaces
        self.recording: Recording | None = None  # set by RecordedSteps.run


@dataclass(frozen=True)
class Replayed(Generic[V]):
    """What a replay that held gives: the step's value and, when something had to be healed
    without a model on the way, the recording as healed and the (last) heal."""

    value: V
    healed: Recording | None = None
    heal: Heal | None = None


class RecordedStep(ABC, Generic[V]):
    """One kind of step, as the protocol needs it. Subclasses are built per use, holding
    the page, the request and the step's event; they say nothing about cache modes."""

    # What keys the step (with the page and which use in the test it is).
    kind: ClassVar[RecordedKind]
    instruction: str
    variables: Iterable[str]  # the names only
    scope: str | None

    @abstractmethod
    def replay(self, recording: Recording) -> Replayed[V]:
        """Replay `recording` on the live page, verified; heal without a model what moved.
        Raise Stale when the page no longer bears it out."""

    @abstractmethod
    def ask(self, stale: Stale | None) -> V:
        """The model's answer (performed, for act); `stale` is the recording it replaces."""

    @abstractmethod
    def record(self, key: StepKey, value: V) -> Recording | None:
        """What to record of the model's answer; None: nothing (a NO verdict, a failed run)."""

    def settle(self) -> None:
        """Let the page settle now where the step was still to (an act settles as it first
        reads the page): a miss is looked up again on the address it settled at."""

    def summary(self, recording: Recording) -> str:
        """The recording in a few words, for a heal note's before and after."""
        return "; ".join(a.description for a in recording.actions) or "nothing"

    def changes(self, stale: Recording, fresh: Recording) -> tuple[str, ...]:
        """How the model's fresh answer differs from the stale recording (for the heal note)."""
        return ()

    def model_heal(self, stale: Stale, fresh: Recording) -> Heal:
        """The note that the model's answer replaced a stale recording."""
        assert stale.recording is not None
        changed = stale.changed or self.changes(stale.recording, fresh)
        return Heal("model", self.summary(stale.recording), self.summary(fresh), changed=changed)

    def without_model(self, stale: Stale) -> V:
        """A stale recording where no model may be asked: fail (an assertion answers NO)."""
        raise stale.failure


class RecordedSteps:
    """A test's recordings under its cache mode, and `run`: the protocol (see the module)."""

    def __init__(
        self,
        page: Page,
        recordings: Recordings | None,
        steplog: StepLog,
        *,
        has_model: bool,
        model: str | None = None,
    ) -> None:
        self.page = page
        self.recordings = recordings  # None: nothing is replayed or recorded
        self.steplog = steplog
        self.policy = CachePolicy(recordings.mode if recordings else "off", has_model)
        self.model = model

    def run(self, step: RecordedStep[V], event: StepEvent) -> V:
        """The step replayed from its recording, healed, or answered by the model and recorded."""
        key, recording = self._recording(step)
        stale: Stale | None = None
        if recording is not None:
            try:
                replayed = step.replay(recording)
            except Stale as exc:
                stale, exc.recording = exc, recording
                if not self.policy.may_call_model:
                    value = step.without_model(stale)
                    event.cache = "hit"  # the recording decided: no model was asked
                    return value
            else:
                event.cache = "hit"
                if replayed.healed is not None:
                    event.cache, event.heal = "healed", replayed.heal
                    self.put(replayed.healed)
                return replayed.value
        value = step.ask(stale)
        fresh = step.record(key, value) if self.policy.may_record else None
        event.cache = self._fresh_status
        if fresh is None:
            return value
        fresh = fresh.model_copy(update={"model": self.model})
        if stale is not None and stale.replaces and stale.recording is not None:
            event.heal = step.model_heal(stale, fresh)
            fresh = fresh.model_copy(update={"heals": stale.recording.heals}).noted(event.heal)
            event.cache = "healed"
        self.put(fresh)
        return value

    def key(self, step: RecordedStep[V]) -> StepKey:
        """The key of this use of the step (each use in a test has its own recording)."""
        url = self.page.url
        if self.recordings is None:
            return step_key(step.kind, step.instruction, url, step.variables, scope=step.scope)
        return self.recordings.step(step.kind, step.instruction, url, step.variables, step.scope)

    def put(self, recording: Recording) -> None:
        """Store a recording with variable values masked; one that still shows a value is
        refused (cache.check_secrets)."""
        if self.recordings is not None and self.policy.may_record:
            self.recordings.put(recording.masked(self.steplog.mask), self.steplog.variables)

    def _recording(self, step: RecordedStep[V]) -> tuple[StepKey, Recording | None]:
        """The key of this use of the step, and its recording. A miss is looked up again
        once the page has settled (`RecordedStep.settle`), where it settled at another
        address: a page that drops what it was opened with as it loads (JupyterLab's
        ?reset) has its steps recorded at the address it settles at."""
        recordings = self.recordings
        if recordings is None or not self.policy.may_replay:
            step.settle()  # nothing to look up: keyed where the page settles, as a miss is
            key, recording = self.key(step), None
        else:
            url, take_back = self.page.url, recordings.bookmark()
            key = self.key(step)
            recording = self._lookup(recordings, key)
            if recording is None:
                step.settle()
                if self.page.url != url:
                    take_back()
                    key = self.key(step)
                    recording = self._lookup(recordings, key)
        if recording is None and recordings is not None and not self.policy.may_call_model:
            nearby = recordings.nearby(key) if self.policy.may_replay else []
            self.policy.check_miss(key, recordings.test_file, nearby)
        return key, recording

    def _lookup(self, recordings: Recordings, key: StepKey) -> Recording | None:
        recording = recordings.lookup(key)
        return recording if recording is not None else self._where_loaded(key)

    def loaded_at(self) -> str:
        """The address the page's document was loaded at, where it is known ("" here)."""
        return ""

    def _where_loaded(self, key: StepKey) -> Recording | None:
        """The step's recording on the address its page's document was loaded at, which
        the page changed since without loading another (JupyterLab drops the ?reset it
        was opened with): recorded before the page changed it, replayed after."""
        loaded_at = self.loaded_at()
        if not loaded_at or self.recordings is None:
            return None
        loaded = self.recordings.key(key.kind, key.instruction, loaded_at, key.variables, key.scope)
        if loaded.url == key.url:
            return None
        return self.recordings.lookup(replace(loaded, occurrence=key.occurrence))

    @property
    def _fresh_status(self) -> CacheStatus:
        return {"refresh": "refreshed", "off": "off"}.get(self.policy.mode, "miss")  # type: ignore[return-value]
