"""page_scripts: a large script goes to a document once, and again only when it is lost."""

from __future__ import annotations

from playwright.sync_api import Page

from pytest_stagehand.browser import page_scripts

# A library that counts how often a document was given it.
LIBRARY = "(window.installs = (window.installs || 0) + 1, (x) => x * 2)"
TWICE = "(double, x) => double(x)"


def test_a_library_is_given_once_per_document_and_again_when_lost(page: Page, pages_server):
    page.goto(pages_server.url("forms.html"))
    assert [page_scripts.call(page, [LIBRARY], TWICE, n) for n in (1, 2, 3)] == [2, 4, 6]
    assert page.evaluate("window.installs") == 1
    # A page script that clears what it finds on window: the next call gives it again.
    page.evaluate("Object.getOwnPropertySymbols(window).forEach((s) => delete window[s])")
    assert page_scripts.call(page, [LIBRARY], TWICE, 5) == 10
    assert page.evaluate("window.installs") == 2
    page.goto(pages_server.url("login.html"))  # a new document holds nothing
    assert page_scripts.call(page, [LIBRARY], TWICE, 7) == 14
    assert page.evaluate("window.installs") == 1


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
