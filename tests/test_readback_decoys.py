"""Decoys for replayed extracts: the element a value was read from is found by act's
resolver and gates (heal.resolve), with the value left out. A look-alike that keeps
everything but the meaning (another dialog's title, another currency in its card, another
row key) is never read offline, and the failure says what changed; a control that keeps the
meaning and changes ids, classes and markup is healed onto and read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel
from real_widgets import RealWidgetsServer
from scripted_answers import scripted_ai_page

from pytest_stagehand.errors import HealFailed
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.replay import StepRecorder
from pytest_stagehand.recordings.store import Recordings


@pytest.fixture
def ai(page, scripted_model, pages_server, store, tmp_path) -> Iterator[AIPage]:
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        use(ai_page, store, tmp_path, "auto")
        yield ai_page


def use(ai: AIPage, store, tmp_path, mode: str) -> None:
    """The next run: with the scripted model ("auto"), or with none ("offline")."""
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, tmp_path / "test_decoys.py", mode), ai.steplog,
        has_model=mode != "offline", model="openai/scripted",
    )  # fmt: skip


def record(ai: AIPage, scripted_model, store, tmp_path, instruction, schema, answer) -> None:
    """The extract recorded with the scripted model's answer, then the next run offline."""
    scripted_model.enqueue(answer)
    assert ai.extract(instruction, schema=schema) == schema(**answer)
    use(ai, store, tmp_path, "offline")


RESTYLE = """() => {
  for (const el of document.querySelectorAll('[class]')) el.className += '-v2';
  for (const el of document.querySelectorAll('[id]')) el.id += '-v2';
  for (const el of document.querySelectorAll('[data-testid]')) el.dataset.testid += '-v2';
}"""


def wrap(ai: AIPage, css: str) -> None:
    """A wrapper added around each element `css` finds: every recorded path breaks."""
    ai.page.evaluate(
        """(css) => { for (const el of document.querySelectorAll(css)) {
             const wrapper = document.createElement('div'); wrapper.className = 'v2-wrap';
             el.replaceWith(wrapper); wrapper.append(el); } }""",
        css,
    )


# --- a dialog's title: Bootstrap 5's modal ---------------------------------------------------


class Warning(BaseModel):
    warning: str


def open_modal(ai: AIPage, url: str) -> None:
    """Open the page's modal with its own trigger, and wait for its opening to end."""
    ai.page.goto(url)
    ai.page.get_by_role("button", name="Open").click()
    ai.page.wait_for_function("""() => {
        const shown = document.querySelector("#projectModal.show .modal-dialog");
        return !!shown && getComputedStyle(shown).transform === "none";
    }""")


DIALOG_STEP = "the warning in the dialog"


def test_a_value_in_a_dialog_with_another_title_is_refused(
    ai, scripted_model, store, tmp_path, real
):
    """The same modal, markup and text, titled "Publish project": its warning is another
    dialog's, however alike."""
    open_modal(ai, real.url("pages/bootstrap5-modal.html"))
    answer = {"warning": "This cannot be undone."}
    record(ai, scripted_model, store, tmp_path, DIALOG_STEP, Warning, answer)
    open_modal(ai, real.url("pages/bootstrap5-modal.html"))
    ai.page.locator("#projectModalLabel").evaluate("el => { el.textContent = 'Publish project'; }")
    with pytest.raises(HealFailed, match="is gone from dialog 'Delete project'; it remains only"
                                         " in dialog 'Publish project'"):  # fmt: skip
        ai.extract(DIALOG_STEP, schema=Warning)


def test_a_value_in_a_restyled_dialog_of_the_same_title_is_read(
    ai, scripted_model, store, tmp_path, real
):
    """Bootstrap 4's markup of the same modal, its ids and classes renamed and the body
    wrapped: the same dialog, healed onto."""
    open_modal(ai, real.url("pages/bootstrap5-modal.html"))
    answer = {"warning": "This cannot be undone."}
    record(ai, scripted_model, store, tmp_path, DIALOG_STEP, Warning, answer)
    bootstrap4 = (Path(__file__).parent / "real/pages/bootstrap4-modal.html").read_text()
    ai.page.route(real.url("pages/bootstrap5-modal.html"), lambda r: r.fulfill(
        body=bootstrap4, content_type="text/html"))  # fmt: skip
    open_modal(ai, real.url("pages/bootstrap5-modal.html"))
    assert "bootstrap4" in ai.page.content()
    wrap(ai, ".modal-body")
    ai.page.evaluate(RESTYLE)
    assert ai.extract(DIALOG_STEP, schema=Warning) == Warning(**answer)
    assert ai.steplog.events[-1].cache == "healed"


# --- a currency sign in the card around the value -------------------------------------------

PLANS = """<main><h1>Plans</h1>
<section class="plan" data-testid="plan-solo"><h2>Solo</h2><p class="price">{solo}</p>
  <p class="seats">Seats: <b class="n">1</b></p></section>
<section class="plan" data-testid="plan-team"><h2>Team</h2><p class="price">{team}</p>
  <p class="seats">Seats: <b class="n">10</b></p></section>
</main>"""


class Seats(BaseModel):
    seats: int


PLAN_STEP = "the seats of the Team plan"


def test_a_value_beside_another_currency_is_refused(ai, scripted_model, store, tmp_path):
    """The Team plan's card now prices it in dollars: the seats read there are another
    offer's, though every word and the markup are the same."""
    ai.page.set_content(PLANS.format(solo="€10 / month", team="€100 / month"))
    record(ai, scripted_model, store, tmp_path, PLAN_STEP, Seats, {"seats": 10})
    ai.page.set_content(PLANS.format(solo="$10 / month", team="$100 / month"))
    with pytest.raises(HealFailed, match=r"seats: the element it was read from is gone .*"
                                         r"in another row \(€100 vs \$100\)"):  # fmt: skip
        ai.extract(PLAN_STEP, schema=Seats)


def test_a_value_in_a_restyled_card_of_the_same_price_is_read(
    ai, scripted_model, store, tmp_path
):
    """Ids, classes and test ids renamed, each card wrapped and the cards reordered: the
    Team plan's seats, read where they went."""
    ai.page.set_content(PLANS.format(solo="€10 / month", team="€100 / month"))
    record(ai, scripted_model, store, tmp_path, PLAN_STEP, Seats, {"seats": 10})
    ai.page.set_content(PLANS.format(solo="€10 / month", team="€100 / month"))
    ai.page.evaluate("() => { const main = document.querySelector('main');"
                     " main.insertBefore(main.lastElementChild, main.children[1]); }")
    wrap(ai, "section")
    ai.page.evaluate(RESTYLE)
    assert ai.extract(PLAN_STEP, schema=Seats) == Seats(seats=10)
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "fingerprint"


# --- the term a definition's value stands under -------------------------------------------

TOTALS = """<main><h1>Checkout</h1><dl class="info">
<div><dt>Shipping method</dt><dd class="method">{method}</dd></div></dl>
<dl class="totals"><div><dt>Item total</dt><dd>$40.00</dd></div>
<div><dt>Shipping</dt><dd class="cost">{cost}</dd></div></dl></main>"""


class Shipping(BaseModel):
    shipping: str


SHIPPING_STEP = "the shipping cost"


def test_a_value_under_another_term_is_refused(ai, scripted_model, store, tmp_path):
    """The shipping cost no longer shown: the shipping method beside it is another value,
    though both stand under words about shipping in the same kind of list."""
    ai.page.set_content(TOTALS.format(method="Express delivery", cost="$14.99"))
    record(ai, scripted_model, store, tmp_path, SHIPPING_STEP, Shipping, {"shipping": "$14.99"})
    ai.page.set_content(TOTALS.format(method="Express delivery", cost=""))
    with pytest.raises(HealFailed, match=r"shipping: the element it was read from is gone"):
        ai.extract(SHIPPING_STEP, schema=Shipping)


def test_a_value_under_its_term_in_a_restyled_list_is_read(ai, scripted_model, store, tmp_path):
    ai.page.set_content(TOTALS.format(method="Express delivery", cost="$14.99"))
    record(ai, scripted_model, store, tmp_path, SHIPPING_STEP, Shipping, {"shipping": "$14.99"})
    ai.page.set_content(TOTALS.format(method="Express delivery", cost="$14.99"))
    wrap(ai, "dl")
    ai.page.evaluate(RESTYLE)
    assert ai.extract(SHIPPING_STEP, schema=Shipping) == Shipping(shipping="$14.99")


# --- a row's key ---------------------------------------------------------------------------

STOCK = """<main><h1>Stock</h1><table class="stock">
<thead><tr><th>Item</th><th>Price</th><th>Left</th></tr></thead><tbody>{rows}</tbody></table>
</main>"""
ROW = '<tr><td>{}</td><td>{}</td><td><span class="left">{}</span></td></tr>'


def stock(*rows: tuple[str, str, int]) -> str:
    return STOCK.format(rows="".join(ROW.format(*row) for row in rows))


class Left(BaseModel):
    left: int


ROW_STEP = "how many are left in the first row"


def test_a_value_in_a_row_with_another_key_is_refused(ai, scripted_model, store, tmp_path):
    """The first row now holds another item, at the same price with as many left: its
    count is that item's, not the one recorded."""
    ai.page.set_content(stock(("Lamp", "$10", 3), ("Desk", "$20", 7)))
    record(ai, scripted_model, store, tmp_path, ROW_STEP, Left, {"left": 3})
    ai.page.set_content(stock(("Lens", "$10", 3), ("Desk", "$20", 7)))
    with pytest.raises(HealFailed, match=r"left: the element it was read from is gone .*"
                                         "is gone from row 'Lamp'; it remains only in row 'Lens'"):
        ai.extract(ROW_STEP, schema=Left)


def test_a_value_in_a_restyled_row_of_the_same_key_is_read(ai, scripted_model, store, tmp_path):
    """The rows swapped, classes renamed and each count wrapped: Lamp's count, read in
    its row."""
    ai.page.set_content(stock(("Lamp", "$10", 3), ("Desk", "$20", 7)))
    record(ai, scripted_model, store, tmp_path, ROW_STEP, Left, {"left": 3})
    ai.page.set_content(stock(("Desk", "$20", 7), ("Lamp", "$10", 3)))
    wrap(ai, "span.left")
    ai.page.evaluate(RESTYLE)
    assert ai.extract(ROW_STEP, schema=Left) == Left(left=3)
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "fingerprint"


# --- a row's key in a real grid: Tabulator ---------------------------------------------------


class City(BaseModel):
    city: str


CITY_STEP = "the city in the second row of the team table"


def tabulator(ai: AIPage, real: RealWidgetsServer) -> None:
    ai.page.goto(real.url("pages/tabulator.html"))
    ai.page.get_by_role("gridcell", name="Portland").wait_for()


def test_a_value_in_a_tabulator_row_with_another_key_is_refused(
    ai, scripted_model, store, tmp_path, real
):
    """Grace Hopper's row now keyed "Grace Kelly" by the grid's own API: the same cell,
    markup and city, in another person's row."""
    tabulator(ai, real)
    record(ai, scripted_model, store, tmp_path, CITY_STEP, City, {"city": "Arlington"})
    tabulator(ai, real)
    ai.page.evaluate("table.updateData([{id: 2, name: 'Grace Kelly'}])")
    ai.page.get_by_role("gridcell", name="Grace Kelly").wait_for()
    with pytest.raises(HealFailed, match=r"city: the element it was read from is gone .*"
                                         "gone from row 'Grace Hopper'; it remains only in row"
                                         " 'Grace Kelly'"):  # fmt: skip
        ai.extract(CITY_STEP, schema=City)


def test_a_value_in_a_tabulator_row_moved_and_reordered_is_read(
    ai, scripted_model, store, tmp_path, real
):
    """The grid sorted by age and its City column moved first, by the grid's own API:
    Grace Hopper's city, read in her row where it went (its role selector finds it)."""
    tabulator(ai, real)
    record(ai, scripted_model, store, tmp_path, CITY_STEP, City, {"city": "Arlington"})
    tabulator(ai, real)
    ai.page.evaluate("table.setSort('age', 'asc'); table.moveColumn('city', 'name', false)")
    assert ai.page.get_by_role("columnheader").first.inner_text() == "City"
    assert ai.extract(CITY_STEP, schema=City) == City(city="Arlington")  # offline


# --- a column's header: a plain table, no class or id anywhere ------------------------------

PRICES = """<main><h1>Prices</h1><table>
<tr><th>Item</th><th>{first}</th><th>{second}</th></tr>
<tr><td>Lamp</td><td>{lamp[0]}</td><td>{lamp[1]}</td></tr>
<tr><td>Desk</td><td>{desk[0]}</td><td>{desk[1]}</td></tr></table></main>"""


class Price(BaseModel):
    price: str


PRICE_STEP = "the price of the lamp"


def test_a_value_under_another_column_is_not_read(ai, scripted_model, store, tmp_path):
    """The columns relabelled: $10 in the Lamp's row now stands under "Was", and its price
    is the $12 beside it. The same cell, text and row; another value: the price is read
    under its column, and differs."""
    ai.page.set_content(PRICES.format(first="Price", second="Was", lamp=("$10", "$12"),
                                      desk=("$20", "$25")))  # fmt: skip
    record(ai, scripted_model, store, tmp_path, PRICE_STEP, Price, {"price": "$10"})
    ai.page.set_content(PRICES.format(first="Was", second="Price", lamp=("$10", "$12"),
                                      desk=("$20", "$25")))  # fmt: skip
    with pytest.raises(HealFailed, match=r"price: recorded '\$10', the page now shows '\$12'"):
        ai.extract(PRICE_STEP, schema=Price)


def test_a_value_in_its_column_moved_is_read(ai, scripted_model, store, tmp_path):
    """The columns swapped, values with their headers, and the table wrapped: the Lamp's
    price, read under its column where it went."""
    ai.page.set_content(PRICES.format(first="Price", second="Was", lamp=("$10", "$12"),
                                      desk=("$20", "$25")))  # fmt: skip
    record(ai, scripted_model, store, tmp_path, PRICE_STEP, Price, {"price": "$10"})
    ai.page.set_content(PRICES.format(first="Was", second="Price", lamp=("$12", "$10"),
                                      desk=("$25", "$20")))  # fmt: skip
    wrap(ai, "table")
    assert ai.extract(PRICE_STEP, schema=Price) == Price(price="$10")


# --- a list's section: Bootstrap's list group ----------------------------------------------


class Subjects(BaseModel):
    subjects: list[str]


INBOX = ["Quarterly report", "Team lunch", "Server upgrade"]
MAIL_STEP = "the subjects of the messages"


def mail(ai: AIPage, real: RealWidgetsServer) -> None:
    ai.page.goto(real.url("pages/bootstrap-list-groups.html"))


def test_a_list_gone_from_its_section_is_not_read_in_another_section(
    ai, scripted_model, store, tmp_path, real
):
    """The Inbox emptied, its messages archived: the Archive's list holds the same
    subjects in the same markup, but it is another section's list."""
    mail(ai, real)
    record(ai, scripted_model, store, tmp_path, MAIL_STEP, Subjects, {"subjects": INBOX})
    mail(ai, real)
    ai.page.evaluate("""() => {
        const inbox = document.querySelector('#inbox ul');
        document.querySelector('#archive ul').replaceWith(inbox);
        document.querySelector('#inbox').insertAdjacentHTML('beforeend', '<p>No messages</p>');
    }""")
    assert ai.page.locator("#archive li").all_inner_texts() == INBOX
    with pytest.raises(HealFailed, match=r"subjects: its rows are no longer found .*is gone from"
                                         " heading 'Inbox'; it remains only in heading 'Archive'"):
        ai.extract(MAIL_STEP, schema=Subjects)


def test_a_list_moved_rewrapped_and_restyled_in_its_section_is_read(
    ai, scripted_model, store, tmp_path, real
):
    """The sections swapped, the Inbox's list wrapped and its classes renamed, and the
    Archive now holding the same subjects: the Inbox's list is read, with a heal."""
    mail(ai, real)
    record(ai, scripted_model, store, tmp_path, MAIL_STEP, Subjects, {"subjects": INBOX})
    mail(ai, real)
    ai.page.evaluate("""() => {
        const main = document.querySelector('main');
        main.insertBefore(document.querySelector('#archive'), document.querySelector('#inbox'));
        document.querySelector('#archive ul').innerHTML =
            document.querySelector('#inbox ul').innerHTML;
        document.querySelector('#inbox ul').className = 'list-group-v2 list-group-flush';
    }""")
    wrap(ai, "#inbox ul")
    assert ai.extract(MAIL_STEP, schema=Subjects) == Subjects(subjects=INBOX)  # offline
    event = ai.steplog.events[-1]
    assert event.cache == "healed", event
    # Read in the Inbox's list where it went, not in the Archive's at its old place.
    assert ai.page.locator(event.heal.after).evaluate("ul => ul.closest('section').id") == "inbox"


# --- a grid's section: two Tabulator tables --------------------------------------------------


class Names(BaseModel):
    names: list[str]


ENGINEERS = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
STAFF_STEP = "the names of the people"


def staff(ai: AIPage, real: RealWidgetsServer) -> None:
    ai.page.goto(real.url("pages/tabulator-sections.html"))
    ai.page.get_by_role("gridcell", name="Linus Torvalds").wait_for()


def test_a_grid_gone_from_its_section_is_not_read_in_another_section(
    ai, scripted_model, store, tmp_path, real
):
    """The Engineering grid emptied and the Sales grid showing the same people, by the
    grids' own API: the same rows, cells and markup, in another section."""
    staff(ai, real)
    record(ai, scripted_model, store, tmp_path, STAFF_STEP, Names, {"names": ENGINEERS})
    staff(ai, real)
    ai.page.evaluate("async () => { await sales.setData(engineering.getData());"
                     " engineering.clearData(); }")
    ai.page.locator("#sales").get_by_role("gridcell", name="Ada Lovelace").wait_for()
    with pytest.raises(HealFailed, match=r"names: its rows are no longer found .*is gone from"
                                         " heading 'Engineering'; it remains only in heading"
                                         " 'Sales'"):  # fmt: skip
        ai.extract(STAFF_STEP, schema=Names)


def test_a_grid_moved_and_rewrapped_in_its_section_is_read(
    ai, scripted_model, store, tmp_path, real
):
    """The sections swapped, the Engineering grid's id renamed and the grid wrapped, and
    the Sales grid showing the same people: the Engineering grid is read, with a heal."""
    staff(ai, real)
    record(ai, scripted_model, store, tmp_path, STAFF_STEP, Names, {"names": ENGINEERS})
    staff(ai, real)
    ai.page.evaluate("""async () => {
        await sales.setData(engineering.getData());
        const first = document.querySelector('#engineering-section');
        first.before(document.querySelector('#sales-section'));
        document.querySelector('#engineering').id = 'engineering-v2';
    }""")
    ai.page.locator("#sales").get_by_role("gridcell", name="Ada Lovelace").wait_for()
    wrap(ai, "#engineering-v2")
    assert ai.extract(STAFF_STEP, schema=Names) == Names(names=ENGINEERS)  # offline
    event = ai.steplog.events[-1]
    assert event.cache == "healed", event
    where = ai.page.locator(event.heal.after).evaluate("el => el.closest('section').id")
    assert where == "engineering-section"
