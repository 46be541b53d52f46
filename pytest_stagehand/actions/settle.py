"""Waiting for a page to calm down: the one settle, the wait for what an action started,
and the marks that tell whether a page changed since."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.covering import OVERLAY_ID
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.snapshot.outline import describer

PAGE_CHANGES_KEY = "__stagehandDomQuiet"  # where a document's window holds PAGE_CHANGES
PAGE_CHANGES_STATE = f"window.{PAGE_CHANGES_KEY}"  # PAGE_CHANGES, once a settle set it up


SETTLE_CAP_S = 3.0  # the most one settle waits, however busy the page


DOM_QUIET_MS = 100  # no DOM change for this long counts as quiet


AFTER_ACTION_MS = 50  # after an action, watch at least this long for the page to react


LONG_REQUEST_S = 1.5  # a request open longer is long-polling or streaming: not waited for


POLL_MS = 20


# The document's changes, watched from first use on: when it last changed, how often, and
# who to wake at the next change. A change is a DOM mutation or the end of a CSS transition
# or animation (a menu that fades in changes no node when it becomes visible). `id` tells
# documents apart: a navigation starts a new count. `calm`: the count when the page was
# last known to be at rest: a settle found it quiet, or our own click or fill on a page at
# rest was handled, and what changed meanwhile was its own (DIRECT, READ_GUARD). `take()`
# counts the changes not yet delivered to the observer. `loadWork`: what the document's
# loading started and has not run yet (its timers, animation frames, requests).
PAGE_CHANGES = script(
    __package__,
    "page_changes",
    PAGE_CHANGES_STATE=PAGE_CHANGES_STATE,
    PAGE_CHANGES_KEY=json.dumps(PAGE_CHANGES_KEY),
    OVERLAY_ID=json.dumps(OVERLAY_ID),
)


# Waits until the document has loaded (DOMContentLoaded) and has not changed for `quiet`
# ms, and for at least `least` ms from then (at most `cap` ms in all). A loaded page that
# has long been quiet returns at once when `least` is 0; so does one at rest, its last
# changes our own action's (PAGE_CHANGES's `calm`), when `early`, and one never settled
# whose every change its loading made, all that work done. Resolves to the page's mark then
# ([id, changes, waited]: where a wait for its next change starts; waited false when it
# returned early); null if it did not load in time.
# The describer (page_scripts) is prepared once the document has loaded, in a task of its
# own: in time the wait takes anyway, or, where the settle returns at once, while the step
# after it gets under way. A document given it as it was created has most often been
# prepared already (PREPARE_WHEN_PARSED).
SETTLE = script(__package__, "settle", PAGE_CHANGES=PAGE_CHANGES)
# SETTLE as a document holds it (page_scripts): a settle's call then sends this alone.
SETTLE_CALL = "(describe, settle, settling) => settle(describe, settling)"


# Resolves true at the document's next change after the mark [id, changes] (at once if it
# has changed already, or is another document), false after `cap` ms without one.
NEXT_CHANGE = script(__package__, "next_change", PAGE_CHANGES=PAGE_CHANGES)


def watch_changes(page: Page) -> None:
    """Start the change watch (PAGE_CHANGES) as each new document of the page is created,
    before its own scripts: a settle then knows when the document last changed, so one
    that has been quiet since it loaded is quiet at once, not DOM_QUIET_MS after the
    settle first looks (where the watch would begin otherwise)."""
    page.add_init_script(PAGE_CHANGES)


def watch_documents(watch: PageWatch, *libraries: str) -> None:
    """What each new document of a page the steps may act on gets as it is created: the
    change watch (`watch_changes`), the describer and the settle, which its first settle
    would send it otherwise, about 110 KB in the step's way, and `libraries`: other
    scripts the steps call (page_scripts). The describer is prepared once the document
    has been parsed (PREPARE_WHEN_PARSED)."""
    watch_changes(watch.page)
    watch.give_new_documents([describer(), SETTLE, *libraries])
    watch.page.add_init_script(_prepare_when_parsed())


@cache
def _prepare_when_parsed() -> str:
    """The describer's first use on a document compiles it, which costs the first look
    after a navigation about 10 ms more than the next. A settle prepares it in a task of
    its own (SETTLE), but a step's settle that finds the page at rest returns first, and
    its look then waits for that task: prepared as the document is parsed, it is done by
    the time the step looks, most often while the page still loads."""
    return script(
        __package__,
        "prepare_when_parsed",
        PAGE_CHANGES_STATE=PAGE_CHANGES_STATE,
        DESCRIBER=page_scripts.held(describer()),
    )


def _recent(open_requests: dict[Request, float], since: float) -> bool:
    """Is a request open that started after `since` and is not long-polling?"""
    now = time.monotonic()
    return any(
        start >= since and now - start < LONG_REQUEST_S for start in list(open_requests.values())
    )


def _request_ends(page: Page, ms: float) -> None:
    """Until one of the page's requests finishes, for at most `ms` (a failed one is seen
    when the time is up): the watch has counted it by then, as its listener came first.
    Waited for on the client, not by asking the browser to wait: a wait for requests ends
    as they do, not at the next poll."""
    with suppress(PlaywrightTimeoutError):
        page.wait_for_event("requestfinished", timeout=max(ms, 1.0))  # 0 would be no limit


def settle(
    watch: PageWatch, *, after_action: bool = False, cap: float = SETTLE_CAP_S, early: bool = False
) -> PageMark | None:
    """Wait, for at most `cap` seconds, until no request is open, the document has loaded
    and the DOM has been quiet for DOM_QUIET_MS: what a step waits for before it reads
    the page. A quiet page costs one round trip, or AFTER_ACTION_MS `after_action`, to
    see a reaction that starts a moment late.

    `early`: for a step that checks what it finds before it acts (a replay), and settles
    in full before it reads the page otherwise (`PageMark.waited`): where every change
    since the page was last at rest is our own last click's or fill's, made as it was
    handled (DIRECT), return at once rather than wait out the quiet those changes broke.

    Never raises for a busy page: a page that does not settle in time is used as it is.
    Returns the page's mark as it settled (`page_mark`, read in the same round trip), or
    None when it was not read (a held dialog, a page that did not settle in time).
    """
    least = AFTER_ACTION_MS if after_action else 0
    early = early and not after_action
    return _wait(watch, cap, since=0.0, dom_quiet_least=least, early=early)[0]


class StepSettle:
    """A step's early settle (`settle`'s `early`), made as the step first reads the page
    rather than before: a replayed step's first look at the page then goes with it, in
    the same round trip (`then_call`). Whatever reads the page first in the step settles
    it through here (`mark`, `in_full`, `then_call`); later reads need not."""

    def __init__(self, watch: PageWatch) -> None:
        self.watch = watch
        self.pending = True
        self._mark: PageMark | None = None

    def mark(self) -> PageMark | None:
        """The page's mark as the step settled: settled now if it was not yet."""
        if self.pending:
            self._mark, self.pending = settle(self.watch, early=True), False
        return self._mark

    def in_full(self) -> PageMark | None:
        """Settled in full, for a step that reads the page as it is (a model's look),
        not only what it verifies: no early return."""
        if self.pending or (self._mark is not None and not self._mark.waited):
            self._mark, self.pending = settle(self.watch), False
        return self._mark

    def then_call(
        self, body: str, arg: Any, libraries: Sequence[str] = ()
    ) -> tuple[PageMark | None, Any]:
        """Settle now, and then `body(describer, *libraries, arg)` in the same round trip
        (`libraries`: page_scripts' libraries): the mark, and the call's result (None
        where the page was not read: a held dialog blocks it, or it did not load in
        time). For the step's first read: while `pending`."""
        self.pending = False
        self._mark, result = _wait(
            self.watch, SETTLE_CAP_S, since=0.0, dom_quiet_least=0, early=True,
            then=(body, tuple(libraries), arg),
        )
        return self._mark, result


def finish_started(watch: PageWatch, since: float, cap: float = SETTLE_CAP_S) -> None:
    """After an action begun at `since` (time.monotonic()), wait for at most `cap` seconds
    for what it started: the requests opened since then (not long-polling ones) and a
    navigation (until its document has loaded). Nothing else: the page's later reactions
    are the next step's to wait for (`settle`). Costs no round trip when the action
    started neither: open requests and navigations are events Playwright has delivered.
    """
    _wait(watch, cap, since, dom_quiet_least=None)


@cache
def _settled_then(body: str, libraries: int) -> str:
    """SETTLE, and once it has returned a mark, `body(describe, *libraries, arg)`: one
    page script, called with the describer, SETTLE and that many more libraries. A body
    that throws answers null, as one not called: its caller calls it on its own, which
    tells the error, where a settle would take it for a navigation and try again."""
    held = "".join(f", library{index}" for index in range(libraries))
    return (
        f"async (describe, settle{held}, [settling, arg]) => {{"
        f" const mark = await settle(describe, settling); if (!mark) return [mark, null];"
        f" try {{ return [mark, await ({body})(describe{held}, arg)]; }}"
        f" catch {{ return [mark, null]; }} }}"
    )


def _wait(
    watch: PageWatch, cap: float, since: float, dom_quiet_least: float | None,
    early: bool = False, then: tuple[str, tuple[str, ...], Any] | None = None,
) -> tuple[PageMark | None, Any]:
    """Until no request opened after `since` is open, the document has loaded and, unless
    `dom_quiet_least` is None, the DOM is quiet (watched for at least that many ms; the
    mark it was quiet at is returned). Never raises for a busy page: what does not finish
    within `cap` is left running. `then`: a body, the libraries it takes and its argument,
    called as the DOM is found quiet, in the same round trip (`_settled_then`); its result
    is returned too."""
    if watch.blocked:
        return None, None  # a held dialog blocks the page until a step answers it
    page, open_requests = watch.page, watch.requests
    mark, result = None, None
    deadline = time.monotonic() + cap
    while time.monotonic() < deadline:
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            if _recent(open_requests, since):
                _request_ends(page, min(POLL_MS, left_ms))
                continue
            if dom_quiet_least is not None:  # the page waits for its own load: one call
                settling = [DOM_QUIET_MS, dom_quiet_least, left_ms, early]
                if then is None:
                    quiet = page_scripts.call(
                        page, [describer(), SETTLE], SETTLE_CALL, settling, held=watch.scripts
                    )
                else:
                    body, libraries, arg = then
                    quiet, result = page_scripts.call(
                        page, [describer(), SETTLE, *libraries],
                        _settled_then(body, len(libraries)), [settling, arg],
                        held=watch.scripts,
                    )
                if quiet is None:
                    return None, None
                document, changes, waited = quiet
                mark = PageMark(document, changes, waited=waited)
            elif watch.navigated >= since:  # the document the page had loaded was replaced
                page.wait_for_load_state("domcontentloaded", timeout=max(1.0, left_ms))
        except PlaywrightTimeoutError:
            return None, None
        except PlaywrightError:
            if page.is_closed():
                return None, None
            continue  # a navigation replaced the document while we waited
        if not _recent(open_requests, since):
            return mark, result
    return None, None


# Where the document was asked to navigate since this was last read, the asks its page
# let go ahead (PAGE_CHANGES's `leaving`); none where a page script took the watch away.
_LEAVING = script(__package__, "leaving", PAGE_CHANGES_STATE=PAGE_CHANGES_STATE)


def navigations_asked(watch: PageWatch) -> list[str]:
    """The URLs the page's documents, its frames' included, were asked to navigate to
    since last read (a link, a form, a script, a download). Each is noted as the ask is
    made, while its request may reach the browser's network, and the page's routes, only
    after the step that made it has settled: what a wait for requests cannot see yet.
    One round trip per document; none while a held dialog blocks the page."""
    if watch.blocked:
        return []
    asked: list[str] = []
    for frame in watch.page.frames:
        with suppress(PlaywrightError):  # detached, or between documents
            asked += frame.evaluate(_LEAVING)
    return asked


FRAME_LOOK_MS = 250  # on a page with frames, how often a wait looks at their documents


_MARK = script(__package__, "mark", PAGE_CHANGES=PAGE_CHANGES)


FrameMarks = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class PageMark:
    """Where the page's changes stood at one moment (see PAGE_CHANGES)."""

    document: str  # "" when it could not be read (the page was between documents)
    changes: int
    # The same for each frame in the page (`frame_marks`); None when not read.
    frames: FrameMarks | None = None
    # False from a settle that returned early, not waiting for what our last action's
    # changes may start (`settle`): a step reads the page only after a full settle.
    waited: bool = True


def page_mark(watch: PageWatch) -> PageMark:
    """The page's changes so far, to wait for the next one with `wait_for_change`."""
    if watch.blocked:  # a held dialog: nothing changes until a step answers it
        return PageMark("", -1)
    page = watch.page
    try:
        document, changes = page.evaluate(_MARK)
    except PlaywrightError:
        return PageMark("", -1)
    return PageMark(document, changes, frame_marks(page))


def frame_marks(page: Page) -> FrameMarks:
    """The marks of the documents in the page's frames, in frame order (one round trip
    each: only a wait on a page with frames reads them)."""
    marks = []
    for frame in page.frames[1:]:
        try:
            marks.append(tuple(frame.evaluate(_MARK)))
        except PlaywrightError:  # detached, or between documents
            marks.append(("", -1))
    return tuple(marks)


def wait_for_change(watch: PageWatch, since: PageMark, timeout_ms: float) -> bool:
    """Wait, for at most `timeout_ms`, until the page changed after `since`: a DOM change,
    a CSS transition or animation ending, or another document. The page's document wakes
    the wait, with no polling; on a page with frames their documents are looked at every
    FRAME_LOOK_MS too (a card field that renders inside a payment iframe changes nothing
    outside it). True at once when it has changed already; False when it did not in time."""
    if watch.blocked:  # a held dialog: the page cannot change until a step answers it
        return False
    page = watch.page
    deadline = time.monotonic() + timeout_ms / 1000
    frames = since.frames if since.frames is not None else frame_marks(page)
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            return False
        look_ms = min(left_ms, FRAME_LOOK_MS) if frames else left_ms
        try:
            if page.evaluate(NEXT_CHANGE, [since.document, since.changes, look_ms]):
                return True
        except PlaywrightError:
            if page.is_closed():
                raise
            return True  # the document was replaced while we waited: a navigation
        if frames and frame_marks(page) != frames:
            return True
