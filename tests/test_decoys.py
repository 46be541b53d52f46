"""Decoys by principle: for each kind of container and each kind of token in a name, a
decoy that keeps everything but the meaning (never healed onto offline, and the failure
names what changed), beside a control that keeps the meaning and changes everything else
(healed onto). No case names a word the heal knows: the rule is one (docs/recordings.md).

Each page is written three times from one template: as recorded, as the decoy (the same
markup, test ids and place, another container label or another token in the name), and
as the control (ids, classes and test ids renamed, a wrapper added, the order changed).
The element a heal must find is marked `data-truth` in the control; the mark is taken off
before the heal looks.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Page
from real_widgets import RealWidgetsServer

from pytest_stagehand.errors import HealFailed
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.heal.resolve import resolve
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import snapshot


@dataclass(frozen=True)
class Case:
    template: str  # {label}: the meaning that changes; {v}: "" as recorded, "v2-" restyled
    role: str
    name: str
    recorded: str  # the label or token as recorded (and in the control)
    decoy: str  # the same place with another label or token
    changed: str  # what the refusal must say (a regex)
    instruction: str = ""
    restyle: str = ""  # the control's extra markup change, as a script

    def html(self, label: str, restyled: bool) -> str:
        v = "v2-" if restyled else ""
        return self.template.format(label=label, v=v, wrap="<div class='v2-wrap'>" * restyled)


def gone(name: str, kind: str, recorded: str, decoy: str) -> str:
    return rf"'{name}' is gone from {kind} '{recorded}'; it remains only in {kind} '{decoy}'"


SHOW_MODAL = "<script>document.querySelector('dialog').showModal()</script>"
CONTAINERS = {
    "dialog": Case(
        "<main><h1>Projects</h1><dialog id='{v}confirm' class='{v}modal'>{wrap}<h2>{label}</h2>"
        "<p>This cannot be undone.</p><button class='{v}btn' data-testid='{v}cancel'>Cancel"
        "</button><button class='{v}btn primary' data-testid='{v}ok' data-truth>Confirm</button>"
        "</dialog></main>" + SHOW_MODAL,
        "button", "Confirm", "Delete project", "Publish project",
        gone("Confirm", "dialog", "Delete project", "Publish project"),
        "click Confirm",
    ),
    "aria-modal dialog": Case(
        "<main><h1>Projects</h1><div role='dialog' aria-modal='true' aria-labelledby='{v}t' "
        "class='{v}modal'>{wrap}<h2 id='{v}t'>{label}</h2><p>This cannot be undone.</p>"
        "<button class='{v}btn' data-testid='{v}ok' data-truth>Confirm</button></div></main>",
        "button", "Confirm", "Delete project", "Publish project",
        gone("Confirm", "dialog", "Delete project", "Publish project"),
        "confirm it",
    ),
    "section": Case(
        "<main><h1>Settings</h1><section aria-labelledby='{v}h' class='{v}panel'>{wrap}"
        "<h2 id='{v}h'>{label}</h2><p>Deleting erases every file and invoice.</p>"
        "<button class='{v}danger' data-testid='{v}delete' data-truth>Delete</button>"
        "</section></main>",
        "button", "Delete", "Personal account", "Team account",
        gone("Delete", "section", "Personal account", "Team account"),
        "click Delete",
    ),
    "form": Case(
        "<main><h1>Checkout</h1><form aria-label='{label}' class='{v}form'>{wrap}"
        "<label>Street <input name='{v}street'></label><label>City <input name='{v}city'>"
        "</label><button type='button' class='{v}save' data-truth>Save</button></form></main>",
        "button", "Save", "Billing address", "Shipping address",
        gone("Save", "form", "Billing address", "Shipping address"),
        "click Save",
    ),
    "row": Case(
        "<main><h1>Orders</h1><table class='{v}grid'><thead><tr><th>Order</th><th>Status</th>"
        "<th>Actions</th></tr></thead><tbody><tr><td>{label}</td><td>Shipped</td><td>{wrap}"
        "<button class='{v}row-action' data-truth>Cancel</button></td></tr></tbody></table>"
        "</main>",
        "button", "Cancel", "Order 1001", "Order 1002",
        gone("Cancel", "row", "Order 1001", "Order 1002"),
        "click Cancel",
    ),
    "card": Case(
        "<main><h1>Shop</h1><div class='{v}card'><div class='{v}card-header'><h5>{label}</h5>"
        "</div><div class='{v}card-body'>{wrap}<p>Ships in two days, free returns.</p>"
        "<button class='{v}btn' data-testid='{v}add' data-truth>Add to cart</button></div>"
        "</div></main>",
        "button", "Add to cart", "Backpack", "Bike Light",
        gone("Add to cart", "heading", "Backpack", "Bike Light"),
        "click Add to cart",
    ),
    "landmark": Case(
        "<header><nav aria-label='{label}' class='{v}nav'>{wrap}<a href='/about' "
        "class='{v}link'>About</a> <a href='/' class='{v}link' data-truth>Home</a></nav>"
        "</header><main><h1>Welcome</h1></main>",
        "link", "Home", "Primary", "Footer",
        gone("Home", "landmark", "Primary", "Footer"),
        "click Home",
    ),
    "frame": Case(
        "<main><h1>Billing</h1>{wrap}<iframe id='{v}pay' title='{label}' srcdoc=\""
        "<button class='{v}submit' data-truth>Submit</button>\"></iframe></main>",
        "button", "Submit", "Payment", "Newsletter",
        gone("Submit", "frame", "Payment", "Newsletter"),
        "click Submit",
    ),
    "list item": Case(
        "<main><h1>Projects</h1><ul class='{v}list'><li class='{v}item'>{wrap}<span>{label}"
        "</span> <button class='{v}del' data-testid='{v}del' data-truth>Delete</button></li>"
        "</ul></main>",
        "button", "Delete", "Project Alpha", "Project Beta",
        gone("Delete", "item", "Project Alpha", "Project Beta"),
        "click Delete",
    ),
    "message": Case(
        "<main><h1>Inbox</h1><div role='status' class='{v}toast'>{wrap}<span>{label}</span> "
        "<button class='{v}undo' data-testid='{v}undo' data-truth>Undo</button></div></main>",
        "button", "Undo", "Message archived", "Message deleted",
        gone("Undo", "message", "Message archived", "Message deleted"),
        "click Undo",
    ),
    "tab panel": Case(
        "<main><h1>Settings</h1><div role='tablist'><button role='tab' id='{v}tab' "
        "aria-selected='true' aria-controls='{v}p'>{label}</button></div><div role='tabpanel' "
        "id='{v}p' aria-labelledby='{v}tab' class='{v}panel'>{wrap}<p>Change what you see.</p>"
        "<button class='{v}btn' data-truth>Save changes</button></div></main>",
        "button", "Save changes", "Profile", "Security",
        gone("Save changes", "tab", "Profile", "Security"),
        "click Save changes",
    ),
    "menu": Case(
        "<main><h1>Editor</h1><button id='{v}mb' aria-haspopup='menu' aria-expanded='true'>"
        "{label}</button><ul role='menu' aria-labelledby='{v}mb' class='{v}menu'>{wrap}"
        "<li role='menuitem' class='{v}item'>Open</li><li role='menuitem' class='{v}item' "
        "data-truth>Delete</li></ul></main>",
        "menuitem", "Delete", "File", "Edit",
        gone("Delete", "menu", "File", "Edit"),
        "click Delete",
    ),
    "listbox": Case(
        "<main><h1>Flights</h1><span id='{v}l'>{label}</span><ul role='listbox' "
        "aria-labelledby='{v}l' class='{v}lb'>{wrap}<li role='option' class='{v}o'>London</li>"
        "<li role='option' class='{v}o' data-truth>Paris</li></ul></main>",
        "option", "Paris", "Departure", "Arrival",
        gone("Paris", "list", "Departure", "Arrival"),
        "choose Paris",
    ),
    "list": Case(
        "<main><h1>Docs</h1><ul aria-label='{label}' class='{v}list'>{wrap}<li><a href='/a' "
        "class='{v}l'>Intro</a></li><li><a href='/b' class='{v}l' data-truth>Open</a></li></ul>"
        "</main>",
        "link", "Open", "Favorites", "Recent",
        gone("Open", "list", "Favorites", "Recent"),
        "click Open",
    ),
    "details": Case(
        "<main><h1>Account</h1><details open class='{v}d'><summary>{label}</summary>{wrap}"
        "<p>Kept on file.</p><button class='{v}rm' data-truth>Remove</button></details></main>",
        "button", "Remove", "Billing address", "Shipping address",
        gone("Remove", "group", "Billing address", "Shipping address"),
        "click Remove",
    ),
    "table": Case(
        "<main><h1>Reports</h1><table class='{v}t'><caption>{label}</caption><tbody><tr><td>"
        "{wrap}<button class='{v}dl' data-truth>Download</button></td></tr></tbody></table>"
        "</main>",
        "button", "Download", "Sales 2025", "Refunds 2025",
        gone("Download", "table", "Sales 2025", "Refunds 2025"),
        "click Download",
    ),
}  # fmt: skip
TOKENS = {
    "number": ("Add 2 seats", "Add 3 seats", r"another number \(2 vs 3\)"),
    "currency": ("Pay €100", "Pay $100", r"another number \(€100 vs \$100\)"),
    "unit": ("Ship 5 kg", "Ship 5 lb", r"another name \('Ship 5 lb' for 'Ship 5 kg'\)"),
    "date": ("Book 2025-05-03", "Book 2025-05-04", r"another number \(03, 05, 2025 vs 04, 05"),
    "sign": ("Adjust by +5", "Adjust by -5", r"another number \(5 vs -5\)"),
    "negation": (
        "Email me about offers",
        "Do not email me about offers",
        r"another name \('Do not email me about offers' for 'Email me about offers'\)",
    ),
}
TOKEN_PAGE = (
    "<main><h1>Account</h1><section class='{v}card'>{wrap}<h2>Plan</h2><p>Billed monthly.</p>"
    "<button class='{v}btn' data-testid='{v}primary-action' data-truth>{label}</button>"
    "</section></main>"
)


def record(page: Page, role: str, name: str) -> RecordedElement:
    page_snapshot = snapshot(page)
    (ref,) = [r for r in page_snapshot.elements.values() if (r.role, r.name) == (role, name)]
    return recorded_element(page, page_snapshot, ref)


def mark_truth(page: Page) -> None:
    """Remember the element marked `data-truth` (in any frame), then take the mark off."""
    for frame in page.frames:
        frame.evaluate("""() => {
            const truth = document.querySelector("[data-truth]");
            if (truth) { window.__truth = truth; truth.removeAttribute("data-truth"); }
        }""")


def acted_on_truth(page: Page, element: RecordedElement, instruction: str) -> bool:
    """Found (verified where a selector still hits it, else healed), and the right one."""
    resolution = resolve(page, element, wait_ms=0, instruction=instruction)
    return resolution.locator.evaluate("el => el === window.__truth")


def play(page: Page, case: Case, record_html: str, decoy_html: str, control_html: str) -> None:
    page.set_content(record_html)
    element = record(page, case.role, case.name)
    page.set_content(decoy_html)
    with pytest.raises(HealFailed, match=case.changed):
        resolve(page, element, wait_ms=0, instruction=case.instruction)
    page.set_content(control_html)
    mark_truth(page)
    assert acted_on_truth(page, element, case.instruction)


def play_case(page: Page, case: Case) -> None:
    """`play` on the case's own three pages: recorded, its decoy, its restyled control."""
    play(
        page,
        case,
        case.html(case.recorded, restyled=False),
        case.html(case.decoy, restyled=False),
        case.html(case.recorded, restyled=True),
    )


@pytest.mark.parametrize("kind", CONTAINERS)
def test_a_container_with_another_label_is_refused_and_a_restyled_one_heals(page, kind):
    case = CONTAINERS[kind]
    play_case(page, case)


def cart_row(columns: list[str], restyled: bool = False) -> str:
    """A cart row whose unnamed number fields are told apart only by their columns."""
    v = "v2-" if restyled else ""
    heads = "".join(f"<th>{column}</th>" for column in columns)
    cells = "".join(
        f"<td><input type='number' class='{v}qty'{' data-truth' * (column == 'Quantity')}></td>"
        for column in columns
    )
    return (
        f"<main><h1>Cart</h1><table class='{v}grid'><thead><tr><th>Item</th>{heads}</tr>"
        f"</thead><tbody><tr><td>Backpack</td>{cells}</tr></tbody></table></main>"
    )


def test_a_column_that_told_look_alikes_apart_is_kept_and_columns_may_reorder(page):
    page.set_content(cart_row(["Quantity", "Gift wraps"]))
    page_snapshot = snapshot(page)
    first = next(r for r in page_snapshot.elements.values() if r.role == "spinbutton")
    element = recorded_element(page, page_snapshot, first)
    assert ("column", "Quantity") in element.apart  # what told it from the other field
    page.set_content(cart_row(["Gift wraps"]))  # the decoy: the other field, where it was
    changed = 'spinbutton ' + gone("", "column", "Quantity", "Gift wraps").removeprefix("'' ")
    with pytest.raises(HealFailed, match=changed):
        resolve(page, element, wait_ms=0, instruction="type 2 into the field")
    page.set_content(cart_row(["Gift wraps", "Quantity"], restyled=True))
    mark_truth(page)
    assert acted_on_truth(page, element, "type 2 into the field")


def test_a_button_moved_to_another_column_of_its_row_heals(page):
    """Which column an action sits in tells nothing apart: the same button, moved."""

    def orders(actions_first: bool) -> str:
        cells = ["<td>Order 1001</td>", "<td>Shipped</td>", "<td><button>Cancel</button></td>"]
        heads = ["<th>Order</th>", "<th>Status</th>", "<th>Actions</th>"]
        if actions_first:
            cells, heads = cells[-1:] + cells[:-1], heads[-1:] + heads[:-1]
        return (
            f"<main><h1>Orders</h1><table><thead><tr>{''.join(heads)}</tr></thead>"
            f"<tbody><tr>{''.join(cells)}</tr></tbody></table></main>"
        )

    page.set_content(orders(actions_first=False))
    element = record(page, "button", "Cancel")
    page.set_content(orders(actions_first=True))
    page.locator("button").evaluate("el => { window.__truth = el; }")
    assert acted_on_truth(page, element, "cancel the order")


def orders_with(*rows: tuple[str, str]) -> str:
    """Orders, each (key, what it replaces) with its own Cancel button: look-alikes by row."""
    body = "".join(
        f"<tr><td>{key}</td><td>{replaces}</td><td><button>Cancel</button></td></tr>"
        for key, replaces in rows
    )
    return (
        "<main><h1>Orders</h1><table><thead><tr><th>Order</th><th>Replaces</th><th></th></tr>"
        f"</thead><tbody>{body}</tbody></table></main>"
    )


def test_a_row_that_only_mentions_the_key_is_refused_and_the_row_moved_heals(page):
    """The selector by the row's key ("the Cancel in the row showing Order 1002") finds,
    once that order is gone, the row of the order that replaces it, which shows its key in
    another cell: that row's key is another, so it is refused. Rows reordered: healed."""
    rows = [("Order 1001", ""), ("Order 1002", ""), ("Order 1003", "")]
    page.set_content(orders_with(*rows))
    page_snapshot = snapshot(page)
    second = [r for r in page_snapshot.elements.values() if r.name == "Cancel"][1]
    element = recorded_element(page, page_snapshot, second)
    page.set_content(orders_with(("Order 1001", ""), ("Order 1004", "Order 1002"), rows[2]))
    (in_row,) = [s for s in element.selectors if s.startswith("role=row >> ")]
    assert page.locator(in_row).count() == 1  # the decoy, by the row's key
    with pytest.raises(HealFailed, match=gone("Cancel", "row", "Order 1002", "Order 1004")):
        resolve(page, element, wait_ms=0, instruction="cancel order 1002")
    page.set_content(orders_with(rows[2], ("Order 1000", ""), *rows[:2]))
    page.get_by_role("row").filter(has_text="Order 1002").get_by_role("button").evaluate(
        "el => { window.__truth = el; }")  # fmt: skip
    assert acted_on_truth(page, element, "cancel order 1002")


def books(named: str | None) -> str:
    """A list of books, a checkbox in each row to select it: unnamed, or named by `named`
    (a format given the row's title), as Django's admin named them from 5.0 on."""
    titles = [("On Computable Numbers", 1936), ("Orbital Mechanics", 1961)]
    label = "" if named is None else f" aria-label='{named}'"
    rows = "".join(
        f"<tr><td><input type='checkbox'{label.format(title)}></td><th>{title}</th>"
        f"<td>{year}</td></tr>"
        for title, year in titles
    )
    return f"<main><h1>Books</h1><table><tbody>{rows}</tbody></table></main>"


def test_an_unnamed_control_that_gains_a_name_for_its_row_heals_and_one_for_another_is_refused(
    page,
):
    """Recorded with no name, told from the other row's checkbox by its row's key: named
    now for that row, it is the same checkbox; named for another row, it is not."""
    page.set_content(books(None))
    first = next(r for r in snapshot(page).elements.values() if r.role == "checkbox")
    element = recorded_element(page, snapshot(page), first)
    assert ("row", "On Computable Numbers") in element.apart
    page.set_content(books("Select this object for an action - {}").replace(
        "action - On Computable Numbers", "action - Orbital Mechanics", 1))  # fmt: skip
    with pytest.raises(HealFailed, match="another name"):
        resolve(page, element, wait_ms=0, instruction="select the first book")
    page.set_content(books("Select this object for an action - {}"))
    page.get_by_role("checkbox").first.evaluate("el => { window.__truth = el; }")
    assert acted_on_truth(page, element, "select the first book")


@pytest.mark.parametrize("kind", TOKENS)
def test_a_name_with_another_token_is_refused_under_its_test_id_and_a_restyled_one_heals(
    page, kind
):
    recorded, decoy, changed = TOKENS[kind]

    def html(label: str, restyled: bool) -> str:
        return TOKEN_PAGE.format(label=label, v="v2-" if restyled else "", wrap="<div>" * restyled)

    case = Case(TOKEN_PAGE, "button", recorded, recorded, decoy, changed, f"click {recorded}")
    play(page, case, html(recorded, False), html(decoy, False), html(recorded, True))


# What a link or a submit button does is more than its name: where the link goes, the value
# the button submits. Each decoy keeps the name, markup, test id and place, and sends
# elsewhere; the control keeps where it sends and changes the markup.
SENDS = {
    "link path": Case(
        "<main><h1>Users</h1><section class='{v}card'>{wrap}<h2>Your profile</h2><p>Shown to "
        "your team.</p><a class='{v}btn' data-testid='{v}edit' href='{label}' data-truth>Edit"
        "</a></section></main>",
        "link", "Edit", "/users/alice/edit", "/users/bob/edit",
        r"link \"Edit\" now goes to /users/bob/edit, recorded /users/alice/edit",
        "click Edit",
    ),
    "link to a number shown beside it": Case(
        "<main><h1>Invoices</h1><table class='{v}grid'><tbody><tr><td>Invoice 2025</td><td>"
        "{wrap}<a class='{v}dl' data-testid='{v}download' href='{label}' data-truth>Download"
        "</a></td></tr></tbody></table></main>",
        "link", "Download", "/invoices/2025.pdf?v=17", "/invoices/2024.pdf?v=17",
        r"link \"Download\" now goes to /invoices/2024.pdf, recorded /invoices/2025.pdf",
        "click Download",
    ),
    "link to another site": Case(
        "<main><h1>Get the app</h1><p>For every desktop.</p>{wrap}<a class='{v}cta' "
        "data-testid='{v}get' href='{label}' data-truth>Download</a></main>",
        "link", "Download", "https://downloads.example.com/app.zip",
        "https://downloads.example.net/app.zip",
        r"now goes to https://downloads.example.net/app.zip, recorded https://downloads.exa",
        "click Download",
    ),
    "button value": Case(
        "<main><h1>Inbox</h1><form method='post' class='{v}f'>{wrap}<h2>Selected messages</h2>"
        "<button name='action' value='{label}' class='{v}go' data-testid='{v}go' data-truth>Go"
        "</button></form></main>",
        "button", "Go", "archive", "delete",
        r"button \"Go\" now submits action=delete, recorded action=archive",
        "click Go",
    ),
    "submit input value": Case(
        "<main><h1>Inbox</h1><form method='post' class='{v}f'>{wrap}<h2>Selected messages</h2>"
        "<input type='submit' name='action' value='{label}' aria-label='Apply' class='{v}go' "
        "data-testid='{v}go' data-truth></form></main>",
        "button", "Apply", "archive_selected", "delete_selected",
        r"button \"Apply\" now submits action=delete_selected, recorded action=archive_sel",
        "click Apply",
    ),
}  # fmt: skip


@pytest.mark.parametrize("kind", SENDS)
def test_a_control_that_sends_elsewhere_is_refused_and_a_restyled_one_heals(page, kind):
    case = SENDS[kind]
    play_case(page, case)


# What a running app changes in a link or a value without changing what it does: row keys,
# generated ids, tokens and cache-busters in the query, a fragment's generated suffix.
SAME_DESTINATION = {
    "row key and query": (
        "/admin/books/book/17/change/?_changelist_filters=o%3D1",
        "/admin/books/book/18/change/?_changelist_filters=o%3D2",
    ),
    "uuid": (
        "/files/3f2a9c1e-8b4d-4c2a-9e7f-0a1b2c3d4e5f/open",
        "/files/c0ffee00-1234-4abc-8def-aabbccddeeff/open",
    ),
    "hash and cache-buster": (
        "/static/report.deadbeefcafe.pdf?v=1700000000",
        "/static/report.0badc0de.pdf?v=17",
    ),
    "token": ("/reset/?csrf=abc123&next=/home", "/reset/?csrf=zzz999&next=/home"),
    "generated fragment": ("#panel-r1", "#panel-r7"),
    "empty fragment": ("#", "#"),
    "api fragment": ("#/books/get_books", "#/books/get_books"),
    "relative and absolute": ("change/", "/admin/books/book/18/change/"),
    "the app's own host in CI": ("http://localhost:8000/admin/", "http://web:8000/admin/"),
    "staging and production": ("https://staging.shop.com/cart", "https://www.shop.com/cart"),
}


@pytest.mark.parametrize("kind", SAME_DESTINATION)
def test_a_link_whose_generated_parts_changed_is_the_same_link(page, kind):
    recorded, now = SAME_DESTINATION[kind]
    link = "<main><h1>Books</h1><section><h2>Orbital Mechanics</h2><a href='{}'>Open</a></section>"
    page.set_content(link.format(recorded) + "</main>")
    element = record(page, "link", "Open")
    page.set_content(link.format(now) + "</main>")
    page.get_by_role("link").evaluate("el => { window.__truth = el; }")
    assert acted_on_truth(page, element, "click Open")
    assert resolve(page, element, wait_ms=0, instruction="click Open").heal is None


def test_a_button_value_that_is_a_row_key_may_change(page):
    form = "<main><h1>Orders</h1><form><h2>Order</h2><button name='pk' value='{}'>Cancel</button>"
    page.set_content(form.format(17) + "</form></main>")
    element = record(page, "button", "Cancel")
    page.set_content(form.format(18) + "</form></main>")
    page.get_by_role("button").evaluate("el => { window.__truth = el; }")
    assert acted_on_truth(page, element, "click Cancel")


def test_a_count_nothing_depended_on_may_change(page):
    page.set_content(TOKEN_PAGE.format(label="Cart (2)", v="", wrap=""))
    element = record(page, "button", "Cart (2)")
    page.set_content(TOKEN_PAGE.format(label="Cart (3)", v="v2-", wrap="<div>"))
    mark_truth(page)
    assert acted_on_truth(page, element, "open the cart")


def test_a_message_counting_on_keeps_its_controls(page):
    """A status's numbers move as it is read ("Uploading 45%"): its words say what it is."""
    progress = "<main><div role='status'><span>Uploading {}%</span> <button data-truth>Cancel"
    page.set_content(progress.format(45) + "</button></div></main>")
    element = record(page, "button", "Cancel")
    page.set_content(progress.format(62) + "</button></div></main>")
    mark_truth(page)
    assert acted_on_truth(page, element, "click Cancel")


def test_a_count_the_step_names_is_kept(page):
    page.set_content(TOKEN_PAGE.format(label="Seats (2)", v="", wrap=""))
    element = record(page, "button", "Seats (2)")
    page.set_content(TOKEN_PAGE.format(label="Seats (3)", v="", wrap=""))
    with pytest.raises(HealFailed, match=r"another number \(2 vs 3\)"):
        resolve(page, element, wait_ms=0, instruction="click the 2 seats button")


# --- the dialog case on a real widget: Bootstrap's modal, as released on npm ----------------


@pytest.fixture(scope="module")
def widgets() -> RealWidgetsServer:
    server = RealWidgetsServer().start()
    yield server
    server.close()


def open_modal(page: Page, url: str) -> None:
    """Open the page's modal with its own trigger, and wait for its opening to end."""
    page.goto(url)
    page.get_by_role("button", name="Open").click()
    page.wait_for_function("""() => {
        const shown = document.querySelector("#projectModal.show .modal-dialog");
        return !!shown && getComputedStyle(shown).transform === "none";
    }""")


def test_a_real_modal_with_another_title_is_refused_and_its_bootstrap_4_build_heals(
    page, widgets
):
    """Recorded in Bootstrap 5's modal "Delete project"; the same modal titled "Publish
    project" is refused; Bootstrap 4's markup of the "Delete project" modal is a real
    redesign of it, healed onto."""
    open_modal(page, widgets.url("pages/bootstrap5-modal.html"))
    element = record(page, "button", "Confirm")
    assert ("dialog", "Delete project") in element.fingerprint.containers
    open_modal(page, widgets.url("pages/bootstrap5-modal.html?title=Publish+project"))
    changed = gone("Confirm", "dialog", "Delete project", "Publish project")
    with pytest.raises(HealFailed, match=changed):
        resolve(page, element, wait_ms=0, instruction="click Confirm")
    open_modal(page, widgets.url("pages/bootstrap4-modal.html"))
    page.get_by_role("button", name="Confirm").evaluate("el => { window.__truth = el; }")
    assert acted_on_truth(page, element, "click Confirm")
