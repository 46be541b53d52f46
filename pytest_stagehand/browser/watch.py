"""What the plugin keeps about the pages it drives, owned by whoever drives them.

Like pytest-playwright's per-test state, it lives in an object its owner creates (the
`ai_page` fixture, or an AIPage made by hand) and passes to the code that reads it, never
in a module: two owners of one page each keep their own, and a page no owner watches has
none. `PageWatches` is one owner's: the tabs its steps follow, and a `PageWatch` for each
page they may act on (a popup a step opens gets its own, owned by the same owner).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import suppress

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page, Request
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.dialogs import Dialogs
from pytest_stagehand.browser.files import Downloads
from pytest_stagehand.browser.handlers import watch_handlers
from pytest_stagehand.browser.tabs import Tabs
from pytest_stagehand.errors import InvalidArgument
from pytest_stagehand.events import StepLog

# Requests a settle never waits for: streams, which stay open, and those whose answer the
# page never reads: a ping (sendBeacon, <a ping>), and "other", which Chromium gives only
# to what it fetches for itself, the tab's icon, once the page has loaded.
NOT_WAITED_FOR = frozenset({"eventsource", "websocket", "ping", "other"})


class PageWatch:
    """One page, watched from its owner's first look on: its native dialogs, the downloads
    it starts, the page scripts its document holds (page_scripts), its open requests and
    when its main frame last navigated (settle), and the tabs of its owner."""

    def __init__(self, page: Page, steplog: StepLog, tabs: Tabs) -> None:
        self.page = page
        self.tabs = tabs
        watch_handlers(page)  # first: the plugin's listeners stay behind the test's
        self.requests: dict[Request, float] = {}  # open ones, and when each started
        # When the main frame last navigated or its last navigation request ended (a
        # download, a No Content answer): 0.0 before.
        self.navigated = 0.0
        # The address the page's document was loaded at, which the page may have changed
        # since without loading another (history.replaceState): "" before the first load.
        self.loaded_at = ""
        self._loading = False  # a main-frame navigation request is on its way
        self.scripts: set[str] = set()  # the keys of the libraries the document was given
        self._given: frozenset[str] = frozenset()  # those each new document is given
        page.on("request", self._request_started)
        page.on("requestfinished", self._request_ended)
        page.on("requestfailed", self._request_ended)
        page.on("framenavigated", self._navigated)
        self.dialogs = Dialogs(page, steplog)
        self.downloads = Downloads()
        page.on("download", self.downloads.started)
        page.context.on("close", self.downloads.remove)

    @property
    def blocked(self) -> bool:
        """True while a held dialog blocks the page (nothing can read it until answered)."""
        return self.dialogs.pending is not None

    def _request_started(self, request: Request) -> None:
        if request.resource_type not in NOT_WAITED_FOR:
            self.requests[request] = time.monotonic()
        with suppress(PlaywrightError):  # a worker's request has no frame
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self._loading = True

    def _request_ended(self, request: Request) -> None:
        self.requests.pop(request, None)
        with suppress(PlaywrightError):  # a worker's request has no frame
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self.navigated = time.monotonic()

    def next_navigation(self, ms: float) -> None:
        """Until the main frame navigates, for at most `ms`: ends as the event arrives, not
        at a poll's next turn. A navigation request that ends without one (a download) is
        seen when the time is up."""
        with suppress(PlaywrightTimeoutError):
            self.page.wait_for_event(
                "framenavigated", lambda frame: frame.parent_frame is None, timeout=max(ms, 1.0)
            )

    def give_new_documents(self, libraries: Sequence[str]) -> None:
        """Each new document of the page gets `libraries` as it is created
        (`page_scripts.give_to_new_documents`): its first call need not send them."""
        self._given |= page_scripts.give_to_new_documents(self.page, libraries)

    def _navigated(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self.navigated = time.monotonic()
            self.scripts = set(self._given)  # a new document holds only what it is given
            if self._loading or not self.loaded_at:  # not a change of address alone
                self.loaded_at, self._loading = frame.url, False


class PageWatches:
    """One owner's pages: the tabs its steps follow (`tabs`) and each page's watch (`of`).

    `adopt`: what else the owner does with each page's watch, begun (the AIPage starts
    the page's change watch)."""

    def __init__(
        self, page: Page, steplog: StepLog | None = None,
        adopt: Callable[[PageWatch], None] = lambda watch: None,
    ) -> None:
        self.steplog = steplog if steplog is not None else StepLog()
        self._adopt = adopt
        self._watches: dict[Page, PageWatch] = {}
        self.first = page  # the page the owner began on; the steps may go on in another tab
        self.tabs = Tabs(page, self.of, lambda tab: self.of(tab).blocked)
        self.of(page)

    def of(self, page: Page) -> PageWatch:
        """The watch of `page`, begun now if this owner had none yet."""
        watch = self._watches.get(page)
        if watch is None:
            watch = self._watches[page] = PageWatch(page, self.steplog, self.tabs)
            self._adopt(watch)
        return watch

    @property
    def current(self) -> PageWatch:
        """The watch of the page the steps act on now."""
        return self.of(self.tabs.current)

    @property
    def acting(self) -> PageWatch:
        """The watch of the page the steps act on now: the tab a step opened or switched
        to, while it is open; else the page the owner began on. What evidence shows."""
        current = self.tabs.current
        return self.of(self.first if current.is_closed() else current)


class ReadsPage:
    """A part of an AIPage (a resolver, the judge): it acts on `page` and reads what is
    kept about it through `watch`, the one its AIPage gives it (or it is made with)."""

    page: Page
    _watch: PageWatch | None = None

    def _reads(self, page: Page | PageWatch) -> None:
        if isinstance(page, PageWatch):
            self.watch = page
        else:
            self.page = page

    @property
    def watch(self) -> PageWatch:
        if self._watch is None:
            raise InvalidArgument(
                f"{type(self).__name__} has no page watch: make it with one "
                "(PageWatches(page).current) or hand it to an AIPage, which gives it its own."
            )
        return self._watch

    @watch.setter
    def watch(self, watch: PageWatch) -> None:
        self._watch, self.page = watch, watch.page

    def loaded_at(self) -> str:
        """The address the page's document was loaded at ("" without a watch)."""
        return self._watch.loaded_at if self._watch is not None else ""
