"""What a test set up with Playwright itself wins over the plugin: its own handlers of a
page's events (seen as it registers them), its `expect` timeout and the mouse."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from scripted_answers import observed

from pytest_stagehand.browser.handlers import handled_by_test, registered

HOVER_PAGE = """<!doctype html><title>Menu</title>
<style>#menu ul { display: none } #menu:hover ul { display: block }</style>
<nav id="menu" style="width: 200px">Products<ul><li><a href="#boots">Boots</a></li></ul></nav>
<script>
  window.moves = 0;
  document.addEventListener("mousemove", () => window.moves++);
</script>"""


def test_handlers_are_seen_as_the_test_registers_and_removes_them(ai):
    page = ai.page
    assert registered(page) is not None and registered(page.context) is not None
    assert not handled_by_test(page, "dialog", object())  # the plugin's own is not the test's

    def log(dialog) -> None:
        pass

    page.on("dialog", log)
    page.once("dialog", log)
    assert handled_by_test(page, "dialog", object())
    page.remove_listener("dialog", log)
    page.remove_listener("dialog", log)
    assert not handled_by_test(page, "dialog", object())
    page.context.once("popup", log)
    assert handled_by_test(page, "popup", object())


def test_the_tests_expect_timeout_is_its_own_after_ai_steps(ai, scripted_model):
    ai.goto("verbs/dialogs.html")
    expect.set_options(timeout=321)
    try:
        scripted_model.enqueue(
            observed(("button", "Delete draft", "click", [])),
        )
        ai.observe("the delete button")
        ai.extract()
        with pytest.raises(AssertionError, match=re.escape("timeout 321ms")):
            expect(ai.page.locator("#status")).to_have_text("never shown")
    finally:
        expect.set_options(timeout=5_000)  # Playwright's default


def test_the_mouse_stays_where_the_test_put_it(ai, scripted_model):
    """Steps that only read the page leave the pointer (and the hover it holds) alone."""
    ai.page.set_content(HOVER_PAGE)
    ai.page.get_by_text("Products").hover()
    boots = ai.page.get_by_role("link", name="Boots")
    expect(boots).to_be_visible()
    moves = ai.page.evaluate("window.moves")
    scripted_model.enqueue(observed(("link", "Boots", "click", [])))
    ai.observe("the Boots link")
    ai.extract()
    expect(boots).to_be_visible()  # the menu stayed open under the pointer
    assert ai.page.evaluate("window.moves") == moves
