"""page_scripts: a large script goes to a document once, and again only when it is lost."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.watch import PageWatches

# A library that counts how often a document was given it.
LIBRARY = "(window.installs = (window.installs || 0) + 1, (x) => x * 2)"
TWICE = "(double, x) => double(x)"


@pytest.mark.parametrize("watched", [True, False], ids=["its watch knows", "asked"])
def test_a_library_is_given_once_per_document_and_again_when_lost(
    page: Page, pages_server, watched: bool
):
    watch = PageWatches(page).current

    def call(n: int) -> int:
        """TWICE(n), with what the page's watch knows of its document, or without."""
        return page_scripts.call(page, [LIBRARY], TWICE, n, held=watch.scripts if watched else None)

    page.goto(pages_server.url("forms.html"))
    assert [call(n) for n in (1, 2, 3)] == [2, 4, 6]
    assert page.evaluate("window.installs") == 1
    # A page script that clears what it finds on window: the next call gives it again.
    page.evaluate("Object.getOwnPropertySymbols(window).forEach((s) => delete window[s])")
    assert call(5) == 10
    assert page.evaluate("window.installs") == 2
    page.goto(pages_server.url("login.html"))  # a new document holds nothing
    evaluate, scripts = page.evaluate, []
    page.evaluate = lambda script, *args: scripts.append(script) or evaluate(script, *args)
    try:
        assert call(7) == 14
    finally:
        del page.evaluate
    assert page.evaluate("window.installs") == 1
    # Known new by its watch, the document is given the library in the first round trip.
    assert len(scripts) == (1 if watched else 2)


def test_a_library_is_used_on_what_a_playwright_locator_hits(page: Page, pages_server):
    page.goto(pages_server.url("forms.html"))
    count = "(double, elements) => double(elements.length)"
    first = page_scripts.call_on_all(page.locator("input"), [LIBRARY], count)
    assert first == 2 * page.locator("input").count() and first > 0
    assert page_scripts.call_on_all(page.locator("role=nothing-like-this"), [LIBRARY], count) == 0
    assert page.evaluate("window.installs") == 1


def test_an_async_body_is_awaited_whether_the_library_goes_with_it_or_not(page: Page, pages_server):
    page.goto(pages_server.url("forms.html"))
    later = "async (double, x) => { await new Promise((r) => setTimeout(r, 1)); return double(x); }"
    assert [page_scripts.call(page, [LIBRARY], later, n) for n in (1, 2)] == [2, 4]
    assert page.evaluate("window.installs") == 1  # the second went without the library


def test_a_library_given_to_new_documents_is_never_sent_with_a_call(page: Page, pages_server):
    watch = PageWatches(page).current
    watch.give_new_documents([LIBRARY])
    page.goto(pages_server.url("frames.html"))
    evaluate, scripts = page.evaluate, []
    page.evaluate = lambda script, *args: scripts.append(script) or evaluate(script, *args)
    try:
        assert page_scripts.call(page, [LIBRARY], TWICE, 4, held=watch.scripts) == 8
    finally:
        del page.evaluate
    assert len(scripts) == 1 and LIBRARY not in scripts[0]  # used where it was given
    assert page.evaluate("window.installs") == 1
    # Calls go to the main frame: its frames' documents are not given it.
    frames = [frame.evaluate("window.installs || 0") for frame in page.frames[1:]]
    assert frames and not any(frames)
