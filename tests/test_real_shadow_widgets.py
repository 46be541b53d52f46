"""Web components from npm that draw their controls in shadow roots and slot their labels
in (Ionic's standalone build, Material Web), recorded with a scripted model and replayed
offline; and what the snapshot shows of them, read as a model reads it.

The scripted model answers as a correct model would: it names the element the instruction
means by the role and name the snapshot it was sent shows."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from playwright.sync_api import expect
from pydantic import BaseModel
from scripted_answers import (
    choose,
    element_id,
    latest_snapshot,
    recorded_ai_page,
    recorded_then_replayed,
)

from pytest_stagehand.errors import AIAssertionError
from pytest_stagehand.snapshot.outline import inspect, snapshot

WAIT_MS = 10_000  # an overlay's own entry animation, on a loaded machine


def record_then_replay(page, browser, scripted_model, store, test_file, real, url: str,
                       steps: Sequence[tuple[str, str, str, str, Sequence[str]]], shows: str):
    """Each step (instruction, role, name, method, arguments) recorded on `page`, then
    replayed offline on a page of its own: the app says `shows` each time."""
    answers = {instruction: choose(role, name, method, arguments)
               for instruction, role, name, method, arguments in steps}
    scripted_model.default = lambda request: answers[
        request.text.rsplit("Instruction: ", 1)[1].split("\n", 1)[0]](request)
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto(url)
            asked = scripted_model.calls
            for instruction, *_ in steps:
                ai.act(instruction)
            expect(ai.locator("#chosen")).to_have_text(shows, timeout=WAIT_MS)
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline


def test_an_item_whose_label_is_slotted_into_its_shadow_button_is_named_by_it(
    page, browser, scripted_model, store, tmp_path, real
):
    """Ionic's ion-item draws a <button> in its shadow root and slots its ion-label in; the
    label inherits the button's pointer cursor through the slot. It is the button's name,
    not a clickable thing of its own beside an unnamed button."""
    record_then_replay(
        page, browser, scripted_model, store, tmp_path / "test_inbox.py", real,
        "pages/ionic.html", [("open Delivery note 7", "button", "Delivery note 7", "click", ())],
        "Opened: Delivery note 7")


def test_a_field_drawn_behind_a_components_own_child_accessors_is_in_the_snapshot(
    page, browser, scripted_model, store, tmp_path, real
):
    """Ionic's scoped components (Stencil) override their host's firstChild, childNodes and
    textContent to show only the children the app wrote: ion-input's own <input> and label
    are hidden from those. The snapshot reads the tree the browser renders, so the modal's
    name field is there to type into."""
    record_then_replay(
        page, browser, scripted_model, store, tmp_path / "test_profile.py", real,
        "pages/ionic.html",
        [("click Edit profile", "button", "Edit profile", "click", ()),
         ("type Ada into the name field", "textbox", "Your name", "fill", ("Ada",)),
         ("click Save", "button", "Save", "click", ())],
        "Profile: Ada")


def test_a_dialog_titled_by_its_heading_shows_the_rest_of_its_text(page, real):
    """Material Web's md-dialog is labelled by its headline (aria-labelledby, inside it):
    its name is that part of its text, so the message beside the headline is still shown."""
    page.goto(real.url("pages/material-web.html"))
    page.get_by_role("button", name="More actions").click()
    page.get_by_role("menuitem", name="Close account").click()
    expect(page.get_by_role("dialog", name="Close the account?")).to_be_visible()
    outline = snapshot(page).text
    dialog = outline[outline.index('dialog "Close the account?"'):]
    assert 'text "Its data will be deleted after 30 days."' in dialog


class Names(BaseModel):
    names: list[str]


def extract_then_reread(page, browser, scripted_model, store, test_file, real, opens: str,
                        line: str) -> list[list[str]]:
    """Click `opens` (a role and name) if given, then extract the names of the snapshot
    lines that `line` (a pattern with one group) matches, as a model reads them; recorded,
    then read again offline. What the extract gave each time."""
    scripted_model.default = lambda request: {
        "names": re.findall(line, latest_snapshot(request.text))}
    got = []
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto("pages/material-web.html")
            if opens:
                role, name = opens.split(" ", 1)
                ai.get_by_role(role, name=name).click()  # the test's own Playwright step
            asked = scripted_model.calls
            got.append(ai.extract("the names listed", schema=Names).names)
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline
    return got


def test_options_a_component_draws_in_shadow_roots_are_read_again_as_rows(
    page, browser, scripted_model, store, tmp_path, real
):
    """Material Web's md-select-option draws its role=option <li> in its own shadow root and
    slots the app's headline into it: the rows of the list are those <li>s, found up the
    flat tree from each headline, not up the document around it."""
    got = extract_then_reread(page, browser, scripted_model, store, tmp_path / "test_plans.py",
                              real, "combobox Plan", r'option "([^"]+)"')
    assert got == [["Free", "Team", "Enterprise"]] * 2


def test_text_slotted_into_a_named_slot_is_read_again_by_its_slot(
    page, browser, scripted_model, store, tmp_path, real
):
    """Material Web's md-list-item takes its headline and its supporting text as two <div>s
    slotted by name: in each row, the headline is the one in the headline slot."""
    got = extract_then_reread(page, browser, scripted_model, store, tmp_path / "test_list.py",
                              real, "", r'listitem clickable[^\n]*\n *(?:e\d+ )?text "([^"]+)"')
    assert got == [["Signed in", "Changed the password", "Added a payment card"]] * 2


def test_a_claim_on_a_cell_whose_text_is_slotted_in_is_checked_on_that_text(
    page, browser, scripted_model, store, tmp_path, real
):
    """Vaadin's grid draws each cell as a <td> in its shadow root showing the app's cell
    content through a slot: innerText of the cell is empty. The judge's check on the cell
    reads the text the slot shows; recorded, it replays offline, and fails once the cell
    shows another number."""
    claim = "the row of P-0005 shows 47 in stock"

    def judge(request):
        cell = element_id(request.text, "gridcell", "47", after='gridcell "P-0005"')
        return {"verdict": "YES", "reasoning": 'The gridcell reads "47".',
                "check": {"kind": "element", "element_id": cell, "property": "text",
                          "match": "equals", "expected": "47"}}

    scripted_model.default = judge
    pages = [page, browser.new_page(), browser.new_page()]
    try:
        for mode, on, changed in (("auto", pages[0], False), ("offline", pages[1], False),
                                  ("offline", pages[2], True)):
            with recorded_ai_page(on, scripted_model, store, tmp_path / "test_stock.py", mode,
                                  base_url=real.url(), wait_timeout=WAIT_MS) as ai:
                ai.goto("pages/vaadin.html")
                expect(on.get_by_role("gridcell", name="P-0005")).to_be_visible()
                asked = scripted_model.calls
                if changed:  # the app now shows another stock for that row
                    on.evaluate("""() => { const grid = document.getElementById("parts");
                        grid.items = grid.items.map((item) =>
                            item.sku === "P-0005" ? { ...item, stock: 48 } : item); }""")
                    expect(on.get_by_role("gridcell", name="48")).to_be_visible()
                    with pytest.raises(AIAssertionError):
                        ai.assert_that(claim, timeout=2_000)
                else:
                    ai.assert_that(claim)
                if mode == "offline":
                    assert scripted_model.calls == asked  # no model offline
    finally:
        for opened in pages[1:]:
            opened.close()


def test_a_heading_is_over_the_controls_in_shadow_roots_after_it_only(page, real):
    """Material Web draws each control in its element's shadow root. The page's "Recent
    activity" heading comes after Save and "More actions" and before the activity list: it
    heads the list's items, not those buttons (the browser orders a shadow root's nodes
    against the document's arbitrarily, and it put both buttons under the heading)."""
    page.goto(real.url("pages/material-web.html"))
    expect(page.locator("md-list-item").first).to_be_visible()
    heading = ("heading", "Recent activity")
    for name in ("Save", "More actions"):
        button = inspect(page.get_by_role("button", name=name)).fingerprint
        assert button is not None and heading not in button.containers, button
    item = inspect(page.get_by_role("listitem").first).fingerprint
    assert item is not None and heading in item.containers, item
