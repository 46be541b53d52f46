"""Rich-text editors whose text lives in an iframe of their own (TinyMCE, as released on
npm): the iframe's body is what a person types into, so the snapshot shows it as an
editable element a step can fill, press keys in, and replay offline."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect
from scripted_answers import choose_if_shown, recorded_ai_page

from pytest_stagehand.testing.scripted_model import ScriptedRequest

WAIT_MS = 10_000
EDITOR = ("generic", "Rich Text Area")  # TinyMCE's body: role generic, its aria-label


def typing_into_the_editor(request: ScriptedRequest) -> dict[str, Any]:
    """The scripted model: fill the editor's body, the element a correct model names."""
    return choose_if_shown(*EDITOR, "fill")(request) | {"arguments": ["Version 2 is out"]}


def test_text_typed_into_an_editor_in_its_iframe_records_and_replays(
    page, browser, scripted_model, store, tmp_path, real
):
    scripted_model.default = typing_into_the_editor
    test_file = tmp_path / "test_editor.py"
    replay_page = browser.new_page()
    try:
        for mode, on in (("auto", page), ("offline", replay_page)):
            with recorded_ai_page(on, scripted_model, store, test_file, mode,
                                  base_url=real.url(), wait_timeout=WAIT_MS) as ai:
                ai.goto("pages/tinymce.html")
                asked = scripted_model.calls
                ai.act("type Version 2 is out into the editor")
                # What TinyMCE itself says its content is, read from the page
                expect(on.locator("#chosen")).to_have_text("HTML: <p>Version 2 is out</p>")
                if mode == "offline":
                    assert scripted_model.calls == asked  # no model offline
    finally:
        replay_page.close()
