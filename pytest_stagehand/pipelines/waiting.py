"""Waiting as Playwright users know it: a step that finds nothing tries again when the page
changes, until its timeout.

Playwright's locators wait for their element and `expect` retries until it holds; here
act, observe and extract wait for what their instruction describes, and assert_that for
its claim. One attempt runs at once. When it finds nothing (no element, an empty answer,
a claim judged NO), the next attempt waits for the page to change (`wait_for_change`: a
DOM change, a transition ending, a navigation; never a sleep; documents in frames are
looked at every FRAME_LOOK_MS, as they cannot wake it), lets it settle
and looks again, with a fresh snapshot. So a model is asked again only about a page that
changed since its last answer, and a page that is ready costs nothing more than the mark
taken before the attempt. When the time is up the step fails as it would have at once,
with how long it waited and the page's last snapshot on the step (its evidence).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.settle import (
    PageMark,
    StepSettle,
    frame_marks,
    page_mark,
    settle,
    wait_for_change,
)
from pytest_stagehand.errors import CacheMiss, ElementNotFound, HealFailed, StagehandError
from pytest_stagehand.events import StepEvent
from pytest_stagehand.snapshot.outline import snapshot

if TYPE_CHECKING:
    from pytest_stagehand.browser.watch import PageWatch
    from pytest_stagehand.pipelines.act import ActRequest, Resolver
    from pytest_stagehand.recordings.store import Recordings

R = TypeVar("R")
V = TypeVar("V")

DEFAULT_TIMEOUT_MS = 5_000.0  # like Playwright's expect


class _NothingYet(StagehandError):
    """The model's answer is empty and there is time to wait for more (internal: it keeps
    the empty answer from being recorded)."""


# What "found nothing" raises: the model found no element, a recorded element or value is
# not (yet) on the page. Other errors (a wrong choice, an action that failed) end the step.
NOT_THERE_YET: tuple[type[StagehandError], ...] = (ElementNotFound, HealFailed, _NothingYet)


@dataclass(frozen=True)
class Waiting:
    """How long one step waits for what it looks for on the `watch`ed page (ms; 0: no
    waiting).

    Its tries are one use of the step in `recordings` (the second use of a step in a test
    has a recording of its own; a try again is not a second use)."""

    watch: PageWatch
    timeout_ms: float = DEFAULT_TIMEOUT_MS
    recordings: tuple[Recordings, ...] = ()

    def until(
        self,
        attempt: Callable[[], R],
        found: Callable[[R], bool] = lambda _: True,
        event: StepEvent | None = None,
        since: PageMark | StepSettle | None = None,
    ) -> R:
        """The first answer of `attempt` that is `found`, trying again on each page change.

        When time runs out, the last failure (NOT_THERE_YET, or a CacheMiss of a step
        recorded on another page: the page may yet get there) is raised, or the last
        answer returned, noting the wait on the error and the last snapshot on `event`.
        `since`: the page's mark as the step settled just before (`settle`), which saves
        reading it again for the first attempt; or the step's settle, still to be made by
        the first attempt as it first reads the page (`StepSettle`), which reads the mark.
        """
        deadline = time.monotonic() + self.timeout_ms / 1000
        first_use = self._first_use()
        tries = 0
        settled = since
        while True:
            since = frames = None
            waits = self.timeout_ms > 0
            pending = isinstance(settled, StepSettle) and settled.pending  # the attempt's
            if waits and not pending:
                since = self._mark(settled)
                if since.frames is None:  # a settle reads the page's own document only
                    since = replace(since, frames=frame_marks(self.watch.page))
            elif waits:  # the frames' documents now, the page's own as the attempt settles
                frames = frame_marks(self.watch.page)
            if tries:
                first_use()
            tries += 1
            failure: StagehandError | None = None
            try:
                answer = attempt()
            except NOT_THERE_YET as exc:
                failure = exc
            except CacheMiss as exc:  # recorded on a page this one may still turn into
                if not exc.recorded_on:
                    raise
                failure = exc
            else:
                if found(answer):
                    return answer
            if waits and pending:
                since = replace(self._mark(settled), frames=frames)
            left_ms = (deadline - time.monotonic()) * 1000
            if since is None or left_ms <= 0 or not wait_for_change(self.watch, since, left_ms):
                break
            settled = settle(self.watch)  # let the change finish before looking again
        if since is not None:
            self._gave_up(tries, event, failure)
        if failure is not None:
            raise failure
        return answer

    def _mark(self, settled: PageMark | StepSettle | None) -> PageMark:
        """Where a wait for the page's next change starts: the mark the step's settle read
        (`settled`), else the page's now."""
        mark = settled.mark() if isinstance(settled, StepSettle) else settled
        return mark or page_mark(self.watch)

    def answered(
        self,
        step: Callable[[Callable[[], V]], V],
        ask: Callable[[], V],
        found: Callable[[V], bool],
        event: StepEvent | None = None,
        since: PageMark | None = None,
    ) -> V:
        """`step(ask)`, a recorded step that asks the model through `ask`, tried again on
        each page change while the model's answer is not `found` (an empty answer is not
        recorded while there is time to wait). When the time is up, the last answer is the
        step's, recorded like any other, with no further question to the model."""
        last: list[V] = []

        def ask_until_found() -> V:
            value = ask()
            if found(value) or self.timeout_ms <= 0:
                return value
            last[:] = [value]
            raise _NothingYet

        first_use = self._first_use()
        try:
            return self.until(lambda: step(ask_until_found), event=event, since=since)
        except _NothingYet:
            first_use()
            return step(lambda: last[0])

    def _first_use(self) -> Callable[[], None]:
        """Takes back the uses of steps counted from now: a try again is the same use."""
        backs = [recordings.bookmark() for recordings in self.recordings]

        def back() -> None:
            for each in backs:
                each()

        return back

    def _gave_up(self, tries: int, event: StepEvent | None, failure: Exception | None) -> None:
        waited = (
            f"Waited {self.timeout_ms:.0f} ms for it ({_times(tries)} on the page as it "
            "changed); set a longer timeout= (ms) on the step, or --ai-wait-timeout, if it "
            "takes longer to appear."
        )
        if event is not None:
            event.last_snapshot = snapshot(self.watch.page).text
        if failure is not None and failure.args and isinstance(failure.args[0], str):
            failure.args = (f"{failure.args[0]}\n{waited}", *failure.args[1:])


def _times(tries: int) -> str:
    return "looked once" if tries == 1 else f"looked {tries} times"


class WaitingResolver:
    """An act resolver that waits: the inner one (recordings, then the model) tried again
    on each page change until the step's timeout, while it finds no element."""

    def __init__(self, inner: Resolver, waiting: Waiting) -> None:
        self.inner = inner
        self.waiting = waiting

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]:
        return self.waiting.until(
            lambda: self.inner.act(request, event), event=event, since=request.settled
        )


def is_empty(value: object) -> bool:
    """An answer with nothing in it: "", an empty list, a model whose fields are all empty."""
    if isinstance(value, BaseModel):
        return all(is_empty(getattr(value, name)) for name in type(value).model_fields)
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list | tuple | dict | set):
        return not value
    return value is None
