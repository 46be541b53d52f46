"""Toggle buttons drawn by their labels (Bootstrap 5's btn-check, as released on npm): the
radio itself takes no pointer and lies under another option's label, so a step that
chooses it clicks its own label, and replays offline."""

from __future__ import annotations

from playwright.sync_api import expect
from scripted_answers import choose_if_shown, recorded_then_replayed

WAIT_MS = 10_000


def test_a_radio_drawn_by_its_label_is_chosen_through_that_label(
    page, browser, scripted_model, store, tmp_path, real
):
    scripted_model.default = choose_if_shown("radio", "Express")
    test_file = tmp_path / "test_toggle.py"
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto("pages/bootstrap-more.html")
            asked = scripted_model.calls
            ai.act("choose Express delivery")
            expect(ai.locator("#chosen")).to_have_text("Delivery: express")
            expect(ai.locator("#express")).to_be_checked()
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline
