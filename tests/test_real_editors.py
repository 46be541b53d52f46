"""Rich-text editors whose text lives in an iframe of their own (TinyMCE, as released on
npm): the iframe's body is what a person types into, so the snapshot shows it as an
editable element a step can fill, press keys in, and replay offline. Its menus, drawn in
the page, are read back offline too."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect
from pydantic import BaseModel
from scripted_answers import choose_if_shown, latest_snapshot, recorded_then_replayed

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
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto("pages/tinymce.html")
            asked = scripted_model.calls
            ai.act("type Version 2 is out into the editor")
            # What TinyMCE itself says its content is, read from the page
            expect(ai.locator("#chosen")).to_have_text("HTML: <p>Version 2 is out</p>")
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline


class Names(BaseModel):
    names: list[str]


FORMAT_MENU = ["Bold", "Italic", "Underline", "Strikethrough", "Superscript", "Subscript",
               "Code", "Formats", "Blocks", "Fonts", "Font sizes", "Align", "Line height",
               "Text color Black", "Background color Black", "Clear formatting"]


def menu_items(request: ScriptedRequest) -> dict[str, Any]:
    """The scripted model: the names of the items of the menu the snapshot shows open."""
    opened = latest_snapshot(request.text).split("\nmenu\n", 1)[1]
    return {"names": re.findall(r'^ +e\d+ menuitem "([^"]+)"', opened, re.M)}


def test_a_menu_s_items_read_back_offline_by_their_labels(
    page, browser, scripted_model, store, tmp_path, real
):
    """TinyMCE's Format menu shows most items' names in an inner label and its colour
    items' only in their aria-label (their text is a swatch and "Text color"): the items
    are the rows, each read by its own label, and the menu is found again on a fresh load,
    where TinyMCE numbers its ids anew."""
    scripted_model.default = menu_items
    test_file = tmp_path / "test_menu.py"
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto("pages/tinymce.html")
            ai.get_by_role("menuitem", name="Format").click()
            expect(ai.get_by_role("menuitem", name="Clear formatting")).to_be_visible()
            asked = scripted_model.calls
            names = ai.extract("the items of the Format menu", schema=Names).names
            assert names == FORMAT_MENU
            if mode == "offline":
                assert scripted_model.calls == asked  # read again from the page
                # found by what was recorded, not healed: no id made anew was recorded
                assert [e.heal for e in ai.steplog.events if e.kind == "extract"] == [None]
