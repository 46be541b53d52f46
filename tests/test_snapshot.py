"""snapshot(): outline text, ids, locators and fingerprints on real pages in real Chromium.

Playwright's own `page.aria_snapshot(mode="ai")` is the oracle for roles and names: for every
interactive element it gives a ref, we resolve that ref and our id to DOM elements and check
they are the same element with the same role and name.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
import yaml
from playwright.sync_api import Frame, Locator, Page, expect
from scripted_answers import choose_described, scripted_ai_page

from pytest_stagehand.errors import ElementNotFound
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.replay import RecordingResolver
from pytest_stagehand.recordings.store import Recordings, RecordingStore
from pytest_stagehand.snapshot.element import ElementRef, Fingerprint, LiveElement
from pytest_stagehand.snapshot.outline import (
    Snapshot,
    _script,
    describer,
    estimate_tokens,
    inspect,
    snapshot,
)
from pytest_stagehand.snapshot.record import role_selector

PAGES = [
    "login.html", "shop.html", "forms.html", "table.html", "hidden.html", "frames.html",
    "shadow.html",
]  # fmt: skip
INTERACTIVE = {
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
    "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "treeitem", "gridcell",
}  # fmt: skip
OUR_LINE = re.compile(r'^\s*(e\d+) (\S+)(?: "((?:[^"\\]|\\.)*)")?')
OUR_ID = re.compile(r"^\s*(e\d+) (.*)$")  # an outline line's id and the rest of it
PLAYWRIGHT_NODE = re.compile(r'^(\S+)(?: "((?:[^"\\]|\\.)*)")?.*\[ref=(\w+)\]')
# A position in the DOM that does not depend on any selector: child indexes up the tree,
# through shadow roots to their hosts.
DOM_POSITION = """el => {
  const steps = [];
  for (let node = el; node.parentNode; ) {
    const parent = node.parentNode;
    steps.unshift([...parent.childNodes].indexOf(node));
    if (parent instanceof ShadowRoot) steps.unshift("shadow");
    node = parent instanceof ShadowRoot ? parent.host : parent;
  }
  return steps.join("/");
}"""


def unescape(name: str | None) -> str:
    return (name or "").replace('\\"', '"').replace("\\\\", "\\")


def open_page(page: Page, pages_server, path: str) -> Snapshot:
    page.goto(pages_server.url(path))
    return snapshot(page)


def shown(snap: Snapshot) -> dict[str, tuple[str, str]]:
    """id -> (role, name as shown on its outline line)."""
    found = {}
    for line in snap.text.splitlines():
        if match := OUR_LINE.match(line):
            found[match[1]] = (match[2], unescape(match[3]))
    return found


def line_of(snap: Snapshot, element_id: str) -> str:
    """The outline line of an id, without indent and id."""
    mark = f"{element_id} "
    return next(
        line.strip()[len(mark) :]
        for line in snap.text.splitlines()
        if line.strip().startswith(mark)
    )


def by_name(snap: Snapshot, role: str, name: str) -> list[ElementRef]:
    return [ref for ref in snap.elements.values() if ref.role == role and ref.name == name]


def the(snap: Snapshot, role: str, name: str) -> ElementRef:
    (ref,) = by_name(snap, role, name)
    return ref


def position(locator: Locator) -> tuple[Frame, str]:
    """Which frame and where in it the locator's (single) element is."""
    handle = locator.element_handle(timeout=2000)
    return handle.owner_frame(), handle.evaluate(DOM_POSITION)


def frame_at(page: Page, frame_path: tuple[str, ...]) -> Frame:
    frame = page.main_frame
    for selector in frame_path:
        frame = frame.locator(selector).element_handle().content_frame()
    return frame


def playwright_refs(page: Page) -> list[tuple[str, str, str]]:
    """(role, name, ref) of the interactive elements in Playwright's AI snapshot."""
    found = []

    def visit(items: list) -> None:
        for item in items or []:
            key, children = next(iter(item.items())) if isinstance(item, dict) else (item, None)
            match = PLAYWRIGHT_NODE.match(str(key))
            if match and match[1] in INTERACTIVE:
                found.append((match[1], unescape(match[2]), match[3]))
            if isinstance(children, list):
                visit(children)

    visit(yaml.safe_load(page.aria_snapshot(mode="ai")))
    return found


# --- what the outline says ----------------------------------------------------------------


def test_login_form_lists_every_control_with_its_label_and_state(page: Page, pages_server):
    snap = open_page(page, pages_server, "login.html")

    assert snap.title == "Swag Labs – Login"
    assert snap.url == pages_server.url("login.html")
    lines = [re.sub(r"^e\d+ ", "", line.strip()) for line in snap.text.splitlines()]
    assert 'heading "Swag Labs" level=1' in lines
    assert 'textbox "Username" placeholder="standard_user" required' in lines
    assert 'textbox "Password" required' in lines  # placeholder equal to the name: not repeated
    assert 'checkbox "Remember me"' in lines
    assert 'button "Login"' in lines
    assert 'link "Forgot your password?" -> /help.html#password' in lines
    assert 'text "Username"' not in lines  # the label's text is the textbox's name
    assert the(snap, "textbox", "Username").states == {
        "required": True,
        "placeholder": "standard_user",
    }


def test_typed_values_show_but_passwords_never_do(page: Page, pages_server):
    page.goto(pages_server.url("login.html"))
    page.fill("#user-name", "standard_user")
    page.fill("#password", "secret_sauce")
    page.check("#remember")

    snap = snapshot(page)

    assert "secret_sauce" not in snap.text
    assert the(snap, "textbox", "Password").states["value"] == "***"
    assert the(snap, "textbox", "Username").states["value"] == "standard_user"
    assert 'value="standard_user"' in snap.text
    assert the(snap, "checkbox", "Remember me").states == {"checked": True}


def test_catalogue_shows_products_links_buttons_and_the_cart_badge(page: Page, pages_server):
    snap = open_page(page, pages_server, "shop.html")

    add = by_name(snap, "button", "Add to cart")
    assert len(add) == 4
    assert add[0].selector == '[data-testid="add-to-cart-sauce-labs-backpack"]'
    assert add[0].candidates[0] == add[0].selector
    product = next(ref for ref in snap.elements.values() if ref.href and "id=4" in ref.href)
    assert product.role == "link"
    assert product.name == "Sauce Labs Backpack"  # the full accessible name is kept...
    assert line_of(snap, product.id) == "link -> /product.html?id=4"  # ...the heading shows it
    assert 'heading "Sauce Labs Backpack" level=3' in snap.text
    assert 'img "Sauce Labs Backpack"' in snap.text
    assert re.search(r'\be\d+ text "\$29.99"\n', snap.text)  # a price on its own has an id
    assert 'option "Name (A to Z)" selected' in snap.text

    add[0].locator(page).click()
    after = snapshot(page)

    cart = the(after, "link", "Cart")
    assert line_of(after, cart.id) == 'link "Cart" -> /cart.html: 1'
    assert by_name(after, "button", "Remove")[0].selector == add[0].selector


def test_native_and_custom_form_controls(page: Page, pages_server):
    snap = open_page(page, pages_server, "forms.html")

    def states(role: str, name: str) -> dict:
        return the(snap, role, name).states

    assert states("radio", "Standard (5–7 days)") == {"checked": True}
    assert states("radio", "Drone delivery") == {"disabled": True}
    assert states("group", "Shipping method") == {}
    assert states("checkbox", "Gift wrap") == {"checked": True}
    assert states("checkbox", "I accept the terms and conditions") == {"required": True}
    assert states("combobox", "Country") == {"value": "France"}
    assert states("listbox", "Languages") == {"value": "English"}
    assert states("option", "Klingon") == {"disabled": True}  # listbox options are clickable
    assert states("slider", "Volume") == {"value": "3"}
    assert states("spinbutton", "Quantity") == {"value": "2"}
    assert states("textbox", "Zip/Postal Code") == {"invalid": True}
    assert states("textbox", "Delivery notes") == {"value": "Leave at the door"}
    assert states("switch", "Newsletter") == {}
    assert states("tab", "Card") == {"selected": True}
    assert states("button", "Continue") == {"disabled": True}
    assert states("generic", "Gift message") == {"editable": True}
    assert states("generic", "Order summary") == {"expanded": False, "clickable": True}
    clickable = [ref.states for ref in by_name(snap, "generic", "") if ref.states]
    assert clickable == [{"clickable": True}]  # the "Need help?" div
    assert "generic clickable: Need help?" in snap.text
    assert 'option "France" selected' in snap.text
    assert not by_name(snap, "option", "France")  # dropdown options are chosen via the select
    assert "Pay with PayPal" not in snap.text  # hidden tab panel
    assert "Item total" not in snap.text  # closed <details>
    assert not by_name(snap, "option", "Small")  # closed custom dropdown

    size = the(snap, "button", "Size Medium")
    assert size.states == {"expanded": False}
    size.locator(page).click()
    opened = snapshot(page)

    assert the(opened, "button", "Size Medium").states == {"expanded": True}
    assert the(opened, "listbox", "Size").states == {}
    assert the(opened, "option", "Medium").states == {"selected": True}
    the(opened, "option", "Large").locator(page).click()
    assert the(snapshot(page), "button", "Size Large").states == {"expanded": False}


LEAVES = """<header><div class="cart-nav"><a href="/cart">Cart</a>
  <span class="badge" data-test="cart-badge">2</span></div></header>
<main>
  <p>You have <span class="count">3</span> items</p>
  <ul><li><span class="stock">In stock</span></li></ul>
  <div class="price">$29.99</div>
  <div class="desc">A long description of the item that goes on for many words.</div>
  <div role="alert"><b>Error:</b> the card was declined. <a href="/help">Help</a></div>
  <output>42</output>
</main>"""


def test_short_text_standing_alone_has_an_id_so_a_check_can_point_at_it(page: Page):
    page.set_content(LEAVES)
    snap = snapshot(page)
    ids = {found[2]: found[1] for line in snap.text.splitlines() if (found := OUR_ID.match(line))}

    badge = snap.element(ids['text "2"'])  # a badge beside its link
    assert badge.candidates[0] == '[data-test="cart-badge"]'
    assert badge.locator(page).get_attribute("class") == "badge"
    assert 'text "$29.99"' in ids  # a price on its own line
    assert "status: 42" in ids
    assert "alert" in ids  # a message in several parts is pointable as one
    # In a sentence, or the whole text of its line, a leaf is just text: no extra line.
    assert "paragraph: You have 3 items" in ids and 'text "3"' not in snap.text
    assert "listitem: In stock" in ids and 'text "In stock"' not in snap.text
    # Long text stays an unnumbered text line: ids are for what a claim points at.
    assert '\n text "A long description of the item that goes on for many words."' in snap.text


def test_table_rows_cells_links_and_buttons(page: Page, pages_server):
    snap = open_page(page, pages_server, "table.html")

    assert 'table "Recent orders"' in snap.text
    assert "caption" not in snap.text  # the caption is the table's name
    assert len(by_name(snap, "link", "View")) == 3
    assert [ref.states for ref in by_name(snap, "button", "Cancel")] == [{}, {}, {"disabled": True}]
    ada = the(snap, "cell", "Ada Lovelace")
    assert ada.selector == "#orders > tbody > tr:nth-of-type(1) > td:nth-of-type(2)"
    assert line_of(snap, the(snap, "button", "Delete order 1001").id).endswith(": 🗑")
    assert the(snap, "rowheader", "Total")
    # A row with nothing of its own is a blank line, its cells one level in, at its place.
    assert re.search(rf'\n\n e\d+ cell "#1001"\n {ada.id} cell "Ada Lovelace"\n', snap.text)
    assert not re.search(r"^ *row\b", snap.text, re.MULTILINE)


def test_text_is_no_larger_than_playwrights(page: Page, pages_server):
    snap = open_page(page, pages_server, "table.html")

    assert snap.tokens == estimate_tokens(snap.text) > 0
    assert len(snap.text) <= len(page.aria_snapshot(mode="ai"))


def test_estimate_tokens_counts_four_characters_per_token():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


# --- hidden and disabled --------------------------------------------------------------------


def test_hidden_elements_are_left_out(page: Page, pages_server):
    snap = open_page(page, pages_server, "hidden.html")

    for hidden in [
        "Display none button", "Visibility hidden button", "Hidden attribute button",
        "Aria hidden button", "Link under aria-hidden", "Input under display none",
        "Zero size button", "Text in zero-size box", "Hidden text", "Button in closed details",
        "Text in closed details", "Template button", "Hidden paragraph", "Noscript link",
    ]:  # fmt: skip
        assert hidden not in snap.text
    for visible in [
        "Visible button", "Overflowing button", "Visible inside hidden", "Closed details",
        "Button in open details", "Visible paragraph",
    ]:  # fmt: skip
        assert visible in snap.text
    clickable = [ref.name for ref in snap.elements.values() if ref.states.get("clickable")]
    assert clickable == ["Closed details", "Open details"]  # not the zero-size onclick box


def test_disabled_and_read_only_are_shown(page: Page, pages_server):
    snap = open_page(page, pages_server, "hidden.html")

    for role, name in [
        ("button", "Disabled button"),
        ("textbox", "Disabled input"),
        ("link", "Disabled link"),
        ("checkbox", "Disabled by fieldset"),
    ]:
        ref = the(snap, role, name)
        assert ref.states["disabled"] is True
        assert " disabled" in line_of(snap, ref.id)
    assert the(snap, "textbox", "Read only").states == {"value": "fixed", "readonly": True}
    assert the(snap, "button", "Visible button").states == {}


# --- ids, locators and candidates --------------------------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_every_id_locates_exactly_its_element_and_so_does_every_candidate(
    page: Page, pages_server, path: str
):
    snap = open_page(page, pages_server, path)

    assert snap.elements
    for ref in snap.elements.values():
        locator = snap.locator(page, ref.id)
        assert locator.count() == 1, (ref.id, ref.selector)
        where = locator.evaluate(DOM_POSITION)
        scope = page
        for frame_selector in ref.frame_path:
            scope = scope.frame_locator(frame_selector)
        for candidate in ref.candidates:
            found = scope.locator(candidate).evaluate_all(f"els => els.map({DOM_POSITION})")
            assert where in found, (ref.id, candidate)


@pytest.mark.parametrize("path", PAGES)
def test_roles_and_names_agree_with_playwright(page: Page, pages_server, path: str):
    snap = open_page(page, pages_server, path)
    ours = shown(snap)
    frames = {ref.frame_path: frame_at(page, ref.frame_path) for ref in snap.elements.values()}
    at = {
        (frames[ref.frame_path], ref.locator(page).evaluate(DOM_POSITION)): ref.id
        for ref in snap.elements.values()
    }

    checked = 0
    for role, name, ref in playwright_refs(page):
        element = page.locator(f"aria-ref={ref}")
        if element.evaluate("el => !!el.closest('[aria-hidden=true]')"):
            continue  # Playwright's AI snapshot keeps aria-hidden content; we leave it out
        element_id = at.get(position(element))
        assert element_id, f"{role} {name!r} ({ref}) is missing from our outline"
        assert ours[element_id] == (role, name), element_id
        checked += 1
    assert checked >= 4


def test_unknown_ids_raise_key_error(page: Page, pages_server):
    snap = open_page(page, pages_server, "login.html")

    assert snap.element("e999") is None
    assert snap.element("e1") is snap.elements["e1"]
    with pytest.raises(KeyError, match="e999"):
        snap.locator(page, "e999")


def test_an_element_s_description_comes_from_the_page_when_it_is_first_asked_for(
    page: Page, pages_server
):
    snap = open_page(page, pages_server, "table.html")
    calls: list[object] = []
    evaluate = page.main_frame.evaluate
    page.main_frame.evaluate = lambda *args: calls.append(args) or evaluate(*args)
    try:
        one = snap.elements["e3"]
        asked_once = len(calls)
        every = list(snap.elements.values())  # the rest, in one call
        asked_for_all = len(calls)
        again = list(snap.elements.values())
    finally:
        del page.main_frame.evaluate

    assert (asked_once, asked_for_all, len(calls)) == (1, 2, 2)
    assert every == again and every[2] is one
    lines = shown(snap)
    for ref in every:  # each id's description is its own element's
        role, name = lines[ref.id]
        assert ref.role == role and ref.name == (name or ref.name), ref.id
        assert page.locator(ref.selector).count() == 1, ref.selector


def test_the_elements_of_an_outline_of_a_page_that_navigated_are_gone_and_say_so(
    page: Page, pages_server
):
    before = open_page(page, pages_server, "login.html")
    later = open_page(page, pages_server, "login.html")  # the same page, loaded again

    with pytest.raises(ElementNotFound, match="navigated, reloaded"):
        before.elements["e1"]
    assert later.elements["e1"].role == shown(later)["e1"][0]  # the new one is known


def test_a_document_keeps_its_last_few_outlines(page: Page, pages_server):
    outlines = [open_page(page, pages_server, "login.html")]
    outlines += [snapshot(page) for _ in range(4)]

    with pytest.raises(ElementNotFound, match="outlined several times since"):
        outlines[0].elements["e1"]
    assert [len(snap.elements.values()) for snap in outlines[1:]] == [len(outlines[0].elements)] * 4


def test_snapshot_leaves_the_page_untouched(page: Page, pages_server):
    page.goto(pages_server.url("shadow.html"))
    page.evaluate("""() => {
        window.mutations = [];
        const observer = new MutationObserver((records) => window.mutations.push(...records));
        const watch = (root) => {
            observer.observe(root, {
                subtree: true, attributes: true, childList: true, characterData: true,
            });
            for (const el of root.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
        };
        watch(document);
    }""")

    snapshot(page)

    assert page.evaluate("window.mutations.length") == 0


# --- frames and shadow roots -------------------------------------------------------------


def test_frames_nest_under_their_iframe_and_locate_through_it(page: Page, pages_server):
    snap = open_page(page, pages_server, "frames.html")

    display_name = the(snap, "textbox", "Display name")
    add_card = the(snap, "button", "Add card")
    card_number = the(snap, "textbox", "Card number")
    assert display_name.frame_path == ("#profile",)
    assert add_card.frame_path == ("#payments",)
    assert card_number.frame_path == ("#payments", "body > iframe")
    assert card_number.fingerprint.frame_path == card_number.frame_path
    assert the(snap, "link", "Manage methods").href == pages_server.other_origin_url("methods.html")
    assert pages_server.other_origin_url("methods.html") in snap.text  # another origin: in full
    outline = snap.text.splitlines()
    payments = next(i for i, line in enumerate(outline) if 'iframe "Payments"' in line)
    indent = [len(line) - len(line.lstrip(" ")) for line in outline]
    assert indent[payments + 1] == indent[payments] + 1  # frame content is indented under it
    assert 'iframe "Card details"' in outline[payments + 4]
    assert snap.text.count("Save profile") == 1  # the display:none iframe is left out
    assert the(snap, "button", "Inline button").frame_path  # srcdoc frame

    for ref, origin in [
        (display_name, pages_server.url()),
        (card_number, pages_server.other_origin_url()),
    ]:
        assert ref.locator(page).evaluate("el => location.origin + '/'") == origin
    card_number.locator(page).fill("4242 4242 4242 4242")
    inner = page.frame_locator("#payments").frame_locator("iframe").locator("#cc")
    assert inner.input_value() == "4242 4242 4242 4242"


@pytest.mark.parametrize("path", ["shadow.html", "forms.html", "login.html"])
def test_elements_described_together_are_described_as_each_alone(page: Page, pages_server, path):
    """A page script that describes many elements in one call shares what it reads from the
    whole document (shadow roots, labels, ids): never what it found for one element."""
    page.goto(pages_server.url(path))
    together, alone = page.evaluate(
        f"""() => {{
            const describe = {describer()};
            const walk = (root, found) => {{
                found.push(...root.querySelectorAll("button, input, a, select, label, textarea"));
                for (const el of root.querySelectorAll("*")) {{
                    if (el.shadowRoot) walk(el.shadowRoot, found);
                }}
                return found;
            }};
            const elements = walk(document, []);
            const memo = {{}};
            return [elements.map((el) => describe(el, memo)), elements.map((el) => describe(el))];
        }}"""
    )
    assert len(together) >= 5
    assert together == alone


# --- our role query (replays look up role selectors without Playwright's engine) -------


def found_by_our_roles(page: Page, role: str, name: str) -> list[str]:
    """Where the elements describer's byRole finds are, in any order."""
    script = f"([role, name]) => ({describer()}).byRole(role, name, {{}}).map({DOM_POSITION})"
    return sorted(json.dumps(where) for where in page.evaluate(script, [role, name]))


def found_by_playwright(page: Page, role: str, name: str) -> list[str]:
    found = page.locator(role_selector(role, name)).evaluate_all(f"els => els.map({DOM_POSITION})")
    return sorted(json.dumps(where) for where in found)


@pytest.mark.parametrize("path", [p for p in PAGES if p != "frames.html"])
def test_our_role_query_finds_what_playwrights_role_selector_finds(
    page: Page, pages_server, path: str
):
    snap = open_page(page, pages_server, path)
    asked = {
        (ref.role, ref.name)
        for ref in snap.elements.values()
        if ref.name and ref.role not in ("generic", "iframe") and not ref.frame_path
    }
    assert len(asked) >= 3
    for role, name in sorted(asked):
        ours = found_by_our_roles(page, role, name)
        assert ours, (role, name)
        assert ours == found_by_playwright(page, role, name), (role, name)


# One name given every way a name is given, with look-alikes that do not have it.
NAMED_EVERY_WAY = """<!doctype html>{style}
<button>Save</button> <a href="#">Save</a> <div role="button">Save</div>
<button aria-label="Save"><svg></svg></button> <button><img src="data:," alt="Save"></button>
<span id="save-label">Save</span> <button aria-labelledby="save-label">x</button>
<button title="Save"></button> <input type="submit" value="Save">
<label for="saver">Save</label> <button id="saver"></button>
<button>Sa<span hidden>x</span>ve</button> <button><b>Sa</b><i>ve</i></button>
<button><span aria-label="Save"></span></button> <button class="icon"></button>
<button style="display: none">Save</button> <button aria-hidden="true">Save</button>
<button>Save <input value="all"></button> <button>Save me</button> <button>Sav</button>
<a href="#labelled"><button id="inner" type="button"></button></a> <label for="inner">Save</label>
<div id="host"></div> <a href="#shadow"><span id="inside"></span></a>
<script>
  const shadow = (id) => document.getElementById(id).attachShadow({{ mode: "open" }});
  shadow("host").innerHTML = "<button>Save</button>";
  shadow("inside").innerHTML = "Save";
</script>"""


@pytest.mark.parametrize("style", ["", "<style>.icon::before { content: 'Save'; }</style>"])
def test_our_role_query_finds_a_name_however_it_is_given(page: Page, style: str):
    """Most names of a role are never computed (snapshot.js, mayBeNamed): never one that
    could be the name looked for."""
    page.set_content(NAMED_EVERY_WAY.format(style=style))
    for role, name in [("button", "Save"), ("link", "Save"), ("button", "Save all"),
                       ("button", "Save me"), ("button", "Sav"), ("button", "x")]:  # fmt: skip
        assert found_by_our_roles(page, role, name) == found_by_playwright(page, role, name)
    assert len(found_by_playwright(page, "button", "Save")) >= 10


# Style sheets that give the two controls below their names through ::before/::after text,
# in each form a page writes them; the elements asked for their pseudo text are picked by
# the rules (snapshot.js, ruleReach), or all of them where the rules cannot tell.
PSEUDO_SHEETS = {
    "plain": ".icon::before { content: 'Save'; }",
    "legacy colon": ".icon:after { content: 'Save'; }",
    "after a combinator": ".bar > * .icon::before { content: 'Save'; }",
    "a pseudo alone after a combinator": ":is(button, a) > ::before { content: 'Save'; }",
    "a tag": "span::before { content: 'Save'; }",
    "in @media": "@media all { .icon::before { content: 'Save'; } }",
    "nested rule": ".bar { & .icon::before { content: 'Save'; } }",
    "text set apart": ".icon::before { color: red; } .icon::before { content: 'Save'; }",
    "a reset and an empty content": "*, *::before { box-sizing: border-box; }"
    " .bar::after { content: ''; } .icon::before { content: 'Save'; }",
    "a utility class with a variant": r".hover\:after\:x::after { content: 'Save'; }",
    "a pseudo's name in a string": "[data-k=':after'] .icon::before { content: 'Save'; }",
    "an icon font's many rules": "".join(f".i{n}::before {{ content: '{n}'; }}" for n in range(150))
    + ".icon::before { content: 'Save'; }",
}


ICON = "<span class='icon hover:after:x'></span>"


@pytest.mark.parametrize("sheet", PSEUDO_SHEETS.values(), ids=PSEUDO_SHEETS)
def test_pseudo_element_text_names_elements_as_playwright_names_them(page: Page, sheet: str):
    page.set_content(
        f"<style>{sheet}</style><div class=bar data-k=:after><p><button>{ICON}</button>"
        f"<a href='/all'>{ICON} all</a></p>"
        "<div id=host></div></div><button>Other</button>"
    )
    page.evaluate("""([sheet, icon]) => {
        const shadow = document.getElementById("host").attachShadow({ mode: "open" });
        shadow.innerHTML = `<style>${sheet}</style><div class=bar data-k=:after><p><button>${icon}`;
    }""", [sheet, ICON])  # fmt: skip
    ours = sorted(shown(snapshot(page)).values())
    saved = [(role, name) for role, name in ours if "Save" in name]
    assert saved == [("button", "Save"), ("button", "Save"), ("link", "Save all")]
    assert ours == sorted((role, name) for role, name, _ in playwright_refs(page))


# Style sheets that give a generic box a pointer cursor (a control without a role), hide
# content with content-visibility, and clip a zero-size box's text with overflow, in each
# form a page writes them; the elements asked are picked by the rules (snapshot.js,
# ruleReach), or all of them where the rules cannot tell.
RULE_SHEETS = {
    "plain": ".card { cursor: pointer } .cv { content-visibility: hidden }"
    " .clip { overflow: hidden }",
    "in @media and @supports": "@media all { .card { cursor: pointer } .clip { overflow: auto } }"
    " @supports (display: grid) { .cv { content-visibility: hidden } }",
    "a tag and an attribute": "section { cursor: pointer }"
    " [data-cv] { content-visibility: hidden } [data-clip] { overflow: scroll }",
    "nested rule": ".box { & .card { cursor: pointer } & .cv { content-visibility: hidden }"
    " & .clip { overflow: hidden } }",
    "after a reset of everything": "* { all: revert } .card { cursor: pointer }"
    " .cv { content-visibility: hidden } .clip { overflow: clip }",
    "animated": "@keyframes point { from, to { cursor: pointer } }"
    " @keyframes clip { from, to { overflow: hidden } }"
    " .card { animation: point 1000s } .cv { content-visibility: hidden }"
    " .clip { animation: clip 1000s }",
    "a pseudo-element's cursor only": ".card::before { cursor: pointer }"
    " .cv { content-visibility: hidden } .clip { overflow-x: clip }",
    "inline": "",
}
RULE_BOXES = """<div class=box>
  <section class=card data-k=1>Open card <span>inner</span></section>
  <div class=cv data-cv><button>Hidden by a rule</button></div>
  <div hidden=until-found><button>Until found</button></div>
  <div class=clip data-clip style="width: 0; height: 0">Clipped text</div>
  <div class=plain>Plain</div><button>Shown</button>
  <div id=by-script>Script card</div>{inline}</div>"""
INLINE = """<div style="cursor: pointer">Inline card</div>
  <div style="content-visibility: hidden"><button>Hidden inline</button></div>
  <div style="overflow: hidden; width: 0; height: 0">Inline clipped</div>"""


@pytest.mark.parametrize("sheet", RULE_SHEETS.values(), ids=RULE_SHEETS)
def test_pointer_cursors_and_hidden_content_are_read_as_playwright_reads_them(
    page: Page, sheet: str
):
    boxes = RULE_BOXES.format(inline=INLINE if not sheet else "")
    page.set_content(f"<style>{sheet}</style>{boxes}<div id=host></div>")
    page.evaluate("""([sheet, boxes]) => {
        document.getElementById("by-script").style.cursor = "pointer";
        const shadow = document.getElementById("host").attachShadow({ mode: "open" });
        shadow.innerHTML = `<style>${sheet}</style>${boxes}`;
        shadow.getElementById("by-script").style.cursor = "pointer";
    }""", [sheet, boxes])  # fmt: skip
    text, reference = snapshot(page).text, page.aria_snapshot(mode="ai")
    cards = ["Open card inner"] if sheet and "::before" not in sheet else []
    cards += ["Script card"] + (["Inline card"] if not sheet else [])
    pointed = re.findall(r"generic clickable: (.*)", text)
    assert pointed == re.findall(r"\[cursor=pointer\]: (.*)", reference) == cards * 2
    # Twice each: the page's, and the shadow root's. Resetting everything reverts the
    # browser's own rule for hidden=until-found too; without a sheet, only the inline style hides.
    shown_buttons = ["Hidden by a rule"] if not sheet else []
    shown_buttons += ["Until found", "Shown"] if "all: revert" in sheet else ["Shown"]
    buttons = re.findall(r'button "(.*?)"', text)
    assert buttons == re.findall(r'button "(.*?)"', reference) == shown_buttons * 2
    # A zero-size box shows none of its text once a rule (or its inline style) clips it.
    assert text.count("Clipped text") == (0 if sheet else 2)
    assert "Inline clipped" not in text


def test_a_link_given_a_generic_role_is_still_a_control_by_its_pointer(page: Page):
    """The browser's own style sheet gives it the pointer, which no page rule reaches."""
    page.set_content("<p>Text <a href='/x' role=generic>Generic link</a></p>")
    assert "generic clickable: Generic link" in snapshot(page).text


def test_shadow_dom_content_is_outlined_and_located(page: Page, pages_server):
    snap = open_page(page, pages_server, "shadow.html")

    follow = by_name(snap, "button", "Follow")
    assert len(follow) == 2  # the hidden third card is left out
    assert "Hidden Person" not in snap.text
    assert [ref.states for ref in by_name(snap, "radio", "2 stars")] == [{"checked": True}] * 2
    assert the(snap, "link", "Ada's profile").href == pages_server.url("people/ada")
    # Duplicate ids inside shadow roots make "#follow" ambiguous for the light-DOM button.
    follow_all = the(snap, "button", "Follow all")
    assert follow_all.selector != "#follow"
    assert follow_all.locator(page).count() == 1
    # A light child and a shadow child on the same CSS path: pinned, each resolves to itself.
    twins = [the(snap, "button", name) for name in ["Light twin", "Shadow twin"]]
    assert any(">> nth=" in twin.selector for twin in twins)
    for twin in twins:
        assert twin.locator(page).inner_text() == twin.name
    # Each card's button and nested radio belong to that card's shadow tree.
    card_of = """el => {
        while (el.localName !== "user-card") el = el.getRootNode().host;
        return el.getAttribute("name");
    }"""
    assert [ref.locator(page).evaluate(card_of) for ref in follow] == [
        "Ada Lovelace",
        "Alan Turing",
    ]
    stars = by_name(snap, "radio", "1 star")
    assert [ref.locator(page).evaluate(card_of) for ref in stars] == ["Ada Lovelace", "Alan Turing"]
    assert not any(c.startswith("xpath=") for c in follow[1].candidates)
    assert follow[1].fingerprint.path[-2:] == ("user-card", "div")


def test_scope_outlines_only_that_subtree_with_page_wide_ids(page: Page, pages_server):
    page.goto(pages_server.url("shop.html"))

    scoped = snapshot(page, scope=".inventory li:nth-of-type(2)")

    assert "Sauce Labs Bike Light" in scoped.text
    assert "Sauce Labs Backpack" not in scoped.text
    assert "Twitter" not in scoped.text
    button = the(scoped, "button", "Add to cart")
    assert button.locator(page).count() == 1
    assert button.selector == '[data-testid="add-to-cart-sauce-labs-bike-light"]'
    assert scoped.text.splitlines()[0].strip() == "listitem"
    with pytest.raises(ElementNotFound, match="#nope"):
        snapshot(page, scope="#nope")


def test_link_hrefs_are_absolute_and_shown_short(page: Page, pages_server):
    snap = open_page(page, pages_server, "shop.html")

    links = [ref for ref in snap.elements.values() if ref.role == "link"]
    assert len(links) == 10
    assert all(ref.href and ref.href.startswith("http") for ref in links)
    assert the(snap, "link", "About").href == pages_server.url("about.html")
    assert "-> /about.html" in line_of(snap, the(snap, "link", "About").id)
    assert "-> https://twitter.com/saucelabs" in line_of(snap, the(snap, "link", "Twitter").id)


# --- fingerprints ---------------------------------------------------------------------------


def test_fingerprint_describes_the_element_and_round_trips(page: Page, pages_server):
    snap = open_page(page, pages_server, "shop.html")
    button = by_name(snap, "button", "Add to cart")[0]

    fingerprint = button.fingerprint
    assert fingerprint.tag == "button"
    assert (fingerprint.role, fingerprint.name, fingerprint.text) == (
        "button",
        "Add to cart",
        "Add to cart",
    )
    assert fingerprint.test_id == "add-to-cart-sauce-labs-backpack"
    assert fingerprint.id is None
    assert fingerprint.classes == ("btn_inventory",)
    assert fingerprint.path == ("html", "body", "main#shop", "ul.inventory", "li.item")
    assert the(snap, "link", "About").fingerprint.attributes == {"href": "about.html"}
    data = json.loads(json.dumps(fingerprint.to_dict()))
    assert Fingerprint.from_dict(data) == fingerprint


@pytest.mark.parametrize("path", ["forms.html", "frames.html", "shadow.html"])
def test_live_fingerprint_matches_the_snapshots(page: Page, pages_server, path: str):
    snap = open_page(page, pages_server, path)

    for ref in snap.elements.values():
        live = inspect(ref.locator(page), ref.frame_path)
        # The labels of its containers only a look at the one element reads.
        looked = replace(live.fingerprint, containers=())
        assert (live.count, looked) == (1, ref.fingerprint), ref.id
    several = inspect(page.locator("body *"))
    assert several.count > 1 and several.fingerprint is None and several.context == ""
    assert inspect(page.locator("#nothing-here")) == LiveElement(0)


def test_live_fingerprint_follows_the_page(page: Page, pages_server):
    page.goto(pages_server.url("shop.html"))
    button = page.locator('[data-testid="add-to-cart-sauce-labs-backpack"]')
    before = inspect(button).fingerprint

    button.click()

    after = inspect(button).fingerprint
    assert (before.role, before.name) == ("button", "Add to cart")
    assert (after.role, after.name, after.text) == ("button", "Remove", "Remove")
    assert after.test_id == before.test_id


def test_a_cells_column_counts_the_cells_spanning_down_into_its_row(page: Page):
    """A cell's column is read from its own row alone only where no cell among its rows
    spans rows down: under a group's cell spanning two rows, the second row's button
    stands in the third column, "Action", though it is its row's second cell."""
    page.set_content(
        "<table><thead><tr><th>Group</th><th>Name</th><th>Action</th></tr></thead><tbody>"
        "<tr><th rowspan='2'>Fruit</th><td>Apple</td><td><button>Buy</button></td></tr>"
        "<tr><td>Pear</td><td><button>Buy</button></td></tr>"
        "<tr><th>Nuts</th><td>Pecan</td><td><button>Buy</button></td></tr></tbody></table>"
    )
    for row in (1, 2, 3):
        cell = page.locator(f"tbody tr:nth-child({row}) button").locator("..")
        containers = inspect(page.locator(f"tbody tr:nth-child({row}) button")).fingerprint
        assert ("column", "Action") in containers.containers, row
        assert cell.evaluate("el => el.cellIndex") == (1 if row == 2 else 2)


# --- unnamed controls -----------------------------------------------------------------------
def test_icon_only_controls_are_described_by_their_icon_and_classes(
    page: Page, pages_server
):
    snap = open_page(page, pages_server, "icons.html")

    hints = dict(re.findall(r'\b(e\d+) generic clickable hint="([^"]*)"', snap.text))
    assert list(hints.values()) == [
        "icon heart; nav wishlist",
        "icon cart; nav basket",
    ]
    cart = snap.elements[list(hints)[1]]
    assert cart.name == ""  # no accessible name is made up: a role+name selector would miss
    assert cart.fingerprint.attributes == {"icon": "cart"}  # the icon is what identifies it
    assert inspect(cart.locator(page)).fingerprint == cart.fingerprint  # replay reads the same


def icon_resolver(ai, store, test_file, mode, *, has_model):
    ai.resolver = RecordingResolver(
        ai.page, ModelResolver(ai.page, ai.client, ai.steplog),
        Recordings(store, test_file, mode), ai.steplog, has_model=has_model,
    )  # fmt: skip


def test_an_icon_only_cart_link_is_recorded_by_its_icon_and_replayed_offline(
    page: Page, pages_server, scripted_model, tmp_path
):
    store = RecordingStore(tmp_path / "store")
    test_file = tmp_path / "test_icons.py"
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai:
        ai.goto("icons.html")
        icon_resolver(ai, store, test_file, "auto", has_model=True)
        scripted_model.enqueue(choose_described("cart"))
        ai.act("open the cart by its icon")
        assert page.evaluate("window.__clicks") == ["Your cart"]

        # Offline, with no model: the recording alone finds and checks the icon.
        ai.goto("icons.html")
        icon_resolver(ai, store, test_file, "offline", has_model=False)
        ai.act("open the cart by its icon")
        assert page.evaluate("window.__clicks") == ["Your cart"]
        assert [event.cache for event in ai.steplog.events if event.kind == "act"][-1] == "hit"

        # Another run, where the icons swapped places (the wishlist heart now stands where
        # the cart was): the heart is never clicked for the cart.
        ai.goto("icons.html")
        page.evaluate("""() => {
            const [heart, cart] = document.querySelectorAll('.nav-icon');
            cart.after(heart);
        }""")
        icon_resolver(ai, store, test_file, "offline", has_model=False)
        ai.act("open the cart by its icon")
        assert page.evaluate("window.__clicks") == ["Your cart"]
    store.close()


def test_the_page_and_its_frames_keep_the_outline_script_after_their_first_outline(
    page: Page, pages_server
):
    page.goto(pages_server.url("frames.html"))
    first = snapshot(page)
    scripts: list[str] = []
    for frame in page.frames:  # the page's own document and its frame's
        evaluate = frame.evaluate
        frame.evaluate = lambda script, *args, evaluate=evaluate: (
            scripts.append(script) or evaluate(script, *args)
        )
    try:
        again = snapshot(page)
    finally:
        for frame in page.frames:
            del frame.evaluate
    assert again.text == first.text and "Inline button" in again.text  # with its frame
    assert len(scripts) > 1  # the frames were outlined too
    assert not any(_script() in script for script in scripts)  # not sent again


def test_a_control_whose_text_says_nothing_is_described_by_its_markup(page: Page, pages_server):
    snap = open_page(page, pages_server, "unnamed.html")

    cart = re.search(r'\be\d+ generic clickable hint="([^"]*)": 1', snap.text)
    assert cart is not None, snap.text  # the badge alone said "generic clickable: 1"
    assert cart.group(1) == "icon cart; shopping"  # its background image, classes and test id


def test_an_unlabelled_checkbox_is_described_by_the_text_right_after_it(
    page: Page, pages_server
):
    snap = open_page(page, pages_server, "unnamed.html")

    hints = re.findall(r'\be\d+ checkbox[^\n]* hint="([^"]*)"', snap.text)
    assert hints == [
        "text after it: checkbox 1",
        "text after it: checkbox 2",  # not "after checkbox 1": that is the box above
        "remember",  # its id says what it is; its text comes before it
    ]


def test_a_control_that_shows_nothing_is_described_by_the_text_right_after_it(page: Page):
    """A box drawn by its style alone (a tree's checkbox with no role), in a row of flex
    items: a person reads what it is for in the text beside it, as for a checkbox."""
    page.set_content("""
        <style>.node { display: flex } .box { width: 14px; height: 14px; border: 1px solid }</style>
        <div class="node"><span class="box" onclick=""></span><span>Apples</span></div>
        <div class="node"><span class="box" onclick=""></span><span>Pears</span></div>""")
    hints = re.findall(r'\be\d+ generic clickable hint="([^"]*)"', snapshot(page).text)
    assert hints == ["box; text after it: Apples", "box; text after it: Pears"]


def test_a_sorted_ag_grid_is_outlined_in_the_order_it_shows_its_rows(page: Page, real):
    """AG Grid sorts by moving each row with a transform, not in the document: the outline
    lists the rows as they are shown, top to bottom."""
    page.goto(real.url("pages/ag-grid.html"))
    page.get_by_role("gridcell", name="Portland").wait_for()
    page.get_by_role("columnheader", name="Age").get_by_text("Age").click()  # ascending
    page.get_by_role("columnheader", name="Age").get_by_text("Age").click()  # descending
    first = page.locator(".ag-center-cols-container [role=row][aria-rowindex='2']")
    expect(first).to_contain_text("Hampton")
    page.wait_for_function("document.getAnimations().length === 0")  # rows slid into place
    rows = page.locator(".ag-center-cols-container [role=row]")
    shown = sorted(rows.all(), key=lambda row: row.bounding_box()["y"])
    cities = [row.locator("[col-id=city]").inner_text() for row in shown]
    assert cities != [row.locator("[col-id=city]").inner_text() for row in rows.all()]
    text = snapshot(page).text
    assert [city for city in cities if city in text] == cities
    assert sorted(cities, key=text.index) == cities


@pytest.mark.parametrize(
    ("made_up", "kept"),
    [
        ("id-1cce57f7-11eb-4e82-8573-5d00584f13bf", True),  # JupyterLab's, a UUID per load
        (":r1:", True),  # React's useId
        ("headlessui-menu-button-:r5:", True),
        ("a1b2c3d4e5", True),  # a hash
        ("menu-item_3150017071851795792356634", True),  # TinyMCE's, a number per load
        ("checkout-form", False),
        ("row-1500", False),
        ("SUBMIT", False),
        ("loginButton", False),
    ],
)  # fmt: skip
def test_an_id_a_framework_makes_anew_on_each_load_anchors_no_selector(
    page: Page, made_up: str, kept: bool
):
    page.set_content(f'<main><section><button id="{made_up}">Go</button></section></main>')
    [ref] = snapshot(page).elements.values()
    anchored = ref.selector.startswith("#")
    assert anchored is not kept, ref.selector
    assert page.locator(ref.selector).count() == 1
