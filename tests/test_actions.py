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
    done = perform(controls, Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked()
    assert done.via == 'label "Dark mode"'  # what the recording and the report name
    perform(controls, Action("uncheck", selector="#dark-mode"), timeout=3000)
    assert not controls.locator("#dark-mode").is_checked()


def test_a_covered_checkbox_without_a_label_is_clicked_through_its_own_slider(controls):
    # A custom switch: no label, and its slider's click handler toggles the checkbox.
    controls.evaluate("""() => {
        document.querySelector('label[for=dark-mode]').remove();
        const box = document.querySelector('#dark-mode');
        document.querySelector('.slider').addEventListener('click', () => box.click());
    }""")
    done = perform(controls, Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked()
    assert done.via == "<span.slider> over it in its own wrapper"


def test_a_control_a_person_can_click_is_clicked_itself(controls):
    controls.evaluate("document.querySelector('#dark-mode').style.opacity = '1'")
    controls.evaluate("document.querySelector('.slider').remove()")
    done = perform(controls, Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked() and done.via == ""


def test_a_checkbox_redrawn_with_a_new_id_after_the_click_is_not_a_failure(controls):
    first = controls.locator("#todos input").first.get_attribute("id")
    perform(controls, Action("check", selector=f"#{first}"), timeout=3000)
    # The list was redrawn: the old id is gone, and the outcome is what was asked.
    assert controls.locator(f"#{first}").count() == 0
    assert controls.locator("#todos input").first.is_checked()
    assert not controls.locator("#todos input").nth(1).is_checked()  # only the one
