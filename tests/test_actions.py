"""perform: what one step does to the page, as a person would do it (real Chromium)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from pytest_stagehand.actions import Action, perform


@pytest.fixture
def controls(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("heal/controls.html"))
    return page


def test_a_covered_transparent_checkbox_is_checked_through_its_label(controls):
    # Playwright alone waits for the slider to stop covering it until the timeout.
    perform(controls, Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked()
    perform(controls, Action("uncheck", selector="#dark-mode"), timeout=3000)
    assert not controls.locator("#dark-mode").is_checked()


def test_a_checkbox_redrawn_with_a_new_id_after_the_click_is_not_a_failure(controls):
    first = controls.locator("#todos input").first.get_attribute("id")
    perform(controls, Action("check", selector=f"#{first}"), timeout=3000)
    # The list was redrawn: the old id is gone, and the outcome is what was asked.
    assert controls.locator(f"#{first}").count() == 0
    assert controls.locator("#todos input").first.is_checked()
    assert not controls.locator("#todos input").nth(1).is_checked()  # only the one
