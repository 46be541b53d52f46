"""Tabs and popups: the page a test's steps act on follows the pages its steps open.

A step that opens a page (a popup, a `target=_blank` link, `window.open`) makes it the
page the next steps act on, as a person's eyes follow a new tab. `switch_tab` (an act
answer, or `AIPage.switch_to`) goes to another open tab by title, URL or index. The model
reads the open tabs after the snapshot, and the dialog that blocks the page instead of it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from weakref import WeakKeyDictionary

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_stagehand.browser.handlers import listen
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.errors import ActionFailed

POPUP_LOAD_MS = 10_000  # how long a new tab may take to open and show its document

# Counts what a step does that opens a page (window.open, a link to another window), so
# the step waits for a page that opens a moment after its action returns, and only then.
COUNT_OPENS = script(__package__, "count_opens")
TAKE_OPENS = script(__package__, "take_opens")


class Tabs:
    """The tab the steps act on (`current`) and the tabs steps opened since the last look."""

    def __init__(
        self, page: Page, adopt: Callable[[Page], object], blocked: Callable[[Page], bool]
    ) -> None:
        self.current = page
        self._adopt = adopt  # what the owner does with every page it may act on
        self._blocked = blocked  # does a held dialog block the page?
        self._opened: list[Page] = []
        self._openers: WeakKeyDictionary[Page, Page] = WeakKeyDictionary()
        self._watch(page)

    def _watch(self, page: Page) -> None:
        listen(page, "popup", lambda popup: self._popup(page, popup))
        page.add_init_script(COUNT_OPENS)
        with suppress(PlaywrightError):  # the document already shown (a blank one may go)
            page.evaluate(COUNT_OPENS)

    def _popup(self, opener: Page, popup: Page) -> None:
        if popup.is_closed():  # by the test's own handler (which ran first): not followed
            return
        self._openers[popup] = opener
        self._opened.append(popup)
        self._watch(popup)
        self._adopt(popup)

    @property
    def pages(self) -> list[Page]:
        """The open pages of the browser context, in the order they opened."""
        return [page for page in self.current.context.pages if not page.is_closed()]

    def after_step(self, opens: int | None = None) -> Page:
        """The page to act on after a step: the last page the step opened, loaded; else
        the tab a switch_tab chose; else the same one. `opens`: how many pages the step
        asked to open, when its actions read that as they acted; else the page is asked."""
        # Taken each step, or a count left over would wait later.
        opening = self._opening() if opens is None else opens > 0
        if opening and not self._opened:  # not yet arrived
            with suppress(PlaywrightError):  # a named window reused opens no page
                self.current.wait_for_event("popup", timeout=POPUP_LOAD_MS)
        opened = [page for page in self._opened if not page.is_closed()]
        self._opened.clear()
        if opened:
            self.current = opened[-1]
            with suppress(PlaywrightError):  # a slow or blank popup is still the one opened
                self.current.wait_for_load_state("domcontentloaded", timeout=POPUP_LOAD_MS)
        return self.current

    def back_from_closed(self) -> Page | None:
        """The page to act on when the current one has closed: the page it was opened
        from (a sign-in popup that closes itself, as a person's eyes go back to the page
        they came from); None when the closed page was not opened by a step."""
        page = self.current
        while page.is_closed():
            opener = self._openers.get(page)
            if opener is None:
                return None
            page = opener
        self.current = page
        return page

    def _opening(self) -> bool:
        """Did the last step ask for a new page (that may not have opened yet)?"""
        if self.current.is_closed() or self._blocked(self.current):
            return False
        try:
            return bool(self.current.evaluate(TAKE_OPENS))
        except PlaywrightError:  # navigated away meanwhile: what opened has been seen
            return False

    def switch(self, tab: int | str | Page) -> Page:
        """Make `tab` the page to act on: an index into `pages`, a title, a URL or a Page."""
        pages = self.pages
        if not isinstance(tab, int | str):  # a Page, or the async face's bridge of one
            found = [tab] if tab in pages else []
        elif isinstance(tab, int):
            found = [pages[tab]] if -len(pages) <= tab < len(pages) else []
        else:
            found = [page for page in pages if page.title() == tab] or [
                page for page in pages if page.url == tab
            ]
        if len(found) != 1:
            listed = "; ".join(f"{i}: {page.title()!r} {page.url}" for i, page in enumerate(pages))
            why = "several tabs are" if found else "no open tab is"
            raise ActionFailed(
                f"Cannot switch to the tab {tab!r}: {why} {tab!r}. Open tabs: {listed}. "
                "Name one by its exact title or URL, or by its index."
            )
        self.current = found[0]
        self.current.bring_to_front()
        self._adopt(self.current)
        return self.current

