"""Toggle buttons drawn by their labels (Bootstrap 5's btn-check, as released on npm): the
radio itself takes no pointer and lies under another option's label, so a step that
chooses it clicks its own label, and replays offline."""

from __future__ import annotations

from playwright.sync_api import expect
from scripted_answers import choose_if_shown, recorded_ai_page

WAIT_MS = 10_000


def test_a_radio_drawn_by_its_label_is_chosen_through_that_label(
    page, browser, scripted_model, store, tmp_path, real
):
    scripted_model.default = choose_if_shown("radio", "Express")
    test_file = tmp_path / "test_toggle.py"
    replay_page = browser.new_page()
    try:
        for mode, on in (("auto", page), ("offline", replay_page)):
            with recorded_ai_page(on, scripted_model, store, test_file, mode,
                                  base_url=real.url(), wait_timeout=WAIT_MS) as ai:
                ai.goto("pages/bootstrap-more.html")
                asked = scripted_model.calls
                ai.act("choose Express delivery")
                expect(on.locator("#chosen")).to_have_text("Delivery: express")
                expect(on.locator("#express")).to_be_checked()
                if mode == "offline":
                    assert scripted_model.calls == asked  # no model offline
    finally:
        replay_page.close()
