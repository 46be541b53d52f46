"""Recorded extracts replay by reading their values again from the page (readback.py):
rows in the order and number the page shows now, each value from the element it was read
from, and a value the page never showed refused offline, naming the field."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from scripted_answers import scripted_ai_page

from pytest_stagehand.errors import HealFailed
from pytest_stagehand.pipelines import readback
from pytest_stagehand.pipelines.replay import StepRecorder
from pytest_stagehand.recordings.format import recordings_file
from pytest_stagehand.recordings.store import Recordings

PRODUCTS = [
    ("Backpack", "$29.99"),
    ("Bike Light", "$9.99"),
    ("Bolt T-Shirt", "$15.99"),
    ("Fleece Jacket", "$49.99"),
    ("Onesie", "$7.99"),
    ("Red Hoodie", "$49.99"),
]


class Product(BaseModel):
    name: str
    price: str


class Catalogue(BaseModel):
    products: list[Product]


class Badge(BaseModel):
    items: int


class Summary(BaseModel):
    count: int
    in_stock: bool


@pytest.fixture
def ai(page, scripted_model, pages_server, store, tmp_path):
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        ai_page.goto("replay/shop.html")
        use(ai_page, store, tmp_path, "auto", has_model=True)
        yield ai_page


def use(ai, store, tmp_path, mode, *, has_model):
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, tmp_path / "test_shop.py", mode), ai.steplog,
        has_model=has_model, model="openai/scripted",
    )


def catalogue(products=PRODUCTS) -> dict:
    return {"products": [{"name": name, "price": price} for name, price in products]}


def record_catalogue(ai, scripted_model, store, tmp_path) -> None:
    scripted_model.enqueue(catalogue())
    assert ai.extract("the products in the order shown", schema=Catalogue) == Catalogue(
        **catalogue()
    )
    use(ai, store, tmp_path, "offline", has_model=False)


def steps(store, tmp_path) -> list[dict]:
    store.flush()
    return json.loads(recordings_file(tmp_path / "test_shop.py").read_text())["steps"]


def test_a_recorded_list_replays_offline_as_rows_read_again(ai, scripted_model, store, tmp_path):
    record_catalogue(ai, scripted_model, store, tmp_path)
    assert ai.extract("the products in the order shown", schema=Catalogue) == Catalogue(
        **catalogue()
    )
    assert scripted_model.calls == 1 and ai.steplog.events[-1].cache == "hit"
    (step,) = steps(store, tmp_path)
    rows = step["data"]["reads"]["fields"]["products"]["rows"]
    assert rows["row"][0] == ".product"  # the rows, enumerated again on replay
    assert set(rows["fields"]) == {"name", "price"}


def test_a_broken_sort_fails_the_replay_of_a_list(ai, scripted_model, store, tmp_path):
    record_catalogue(ai, scripted_model, store, tmp_path)
    # The sort breaks: the same products, Z to A. Every word is still on the page.
    ai.page.evaluate(
        "const list = document.querySelector('.products');"
        "[...list.children].reverse().forEach((row) => list.append(row));"
    )
    with pytest.raises(
        HealFailed,
        match=r"products\[0\]\.name: recorded 'Backpack', the page now shows 'Red Hoodie'",
    ):
        ai.extract("the products in the order shown", schema=Catalogue)


def test_an_added_row_fails_the_replay_of_a_list(ai, scripted_model, store, tmp_path):
    record_catalogue(ai, scripted_model, store, tmp_path)
    ai.page.evaluate(
        "const list = document.querySelector('.products');"
        "list.append(list.children[1].cloneNode(true));"
    )
    with pytest.raises(HealFailed, match="products: 6 recorded, the page now shows 7"):
        ai.extract("the products in the order shown", schema=Catalogue)


def test_a_number_is_read_from_its_element_not_found_anywhere(ai, scripted_model, store, tmp_path):
    ai.page.locator("button.add").nth(0).click()
    ai.page.locator("button.add").nth(1).click()
    scripted_model.enqueue({"items": 2})
    ai.extract("the number on the cart badge", schema=Badge)
    use(ai, store, tmp_path, "offline", has_model=False)
    assert ai.extract("the number on the cart badge", schema=Badge) == Badge(items=2)

    # The badge is off by one; "2" is still in the outline (level=2 of the headings).
    ai.page.locator("button.add").nth(2).click()
    use(ai, store, tmp_path, "offline", has_model=False)  # the next run
    with pytest.raises(HealFailed, match="items: recorded 2, the page now shows 3"):
        ai.extract("the number on the cart badge", schema=Badge)


def test_a_value_the_page_never_showed_is_refused_offline_by_name(
    ai, scripted_model, store, tmp_path
):
    scripted_model.enqueue({"count": 6, "in_stock": True})  # the model counted and judged
    ai.extract("how many products there are and whether they are in stock", schema=Summary)
    (step,) = steps(store, tmp_path)
    assert "unreadable" in step["data"]["reads"]["fields"]["count"]
    assert "unreadable" in step["data"]["reads"]["fields"]["in_stock"]

    use(ai, store, tmp_path, "offline", has_model=False)
    with pytest.raises(
        HealFailed, match=r"(?s)count \(the page does not show it.*in_stock \(a yes/no.*"
        r"ask for the text the page shows"
    ):
        ai.extract("how many products there are and whether they are in stock", schema=Summary)


def test_a_changed_value_is_asked_again_and_the_heal_says_what_changed(
    ai, scripted_model, store, tmp_path
):
    record_catalogue(ai, scripted_model, store, tmp_path)
    use(ai, store, tmp_path, "auto", has_model=True)
    ai.page.evaluate("document.querySelectorAll('.price')[1].textContent = '$10.99'")
    changed = [(n, "$10.99" if n == "Bike Light" else p) for n, p in PRODUCTS]
    scripted_model.enqueue(catalogue(changed))
    assert ai.extract("the products in the order shown", schema=Catalogue).products[1].price == (
        "$10.99"
    )
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "model"
    assert "products[1].price: recorded '$9.99', the page now shows '$10.99'" in event.heal.changed


def test_a_restyled_page_still_replays_its_values(ai, scripted_model, store, tmp_path):
    ai.page.locator("button.add").nth(0).click()
    scripted_model.enqueue({"items": 1})
    ai.extract("the number on the cart badge", schema=Badge)
    record_catalogue(ai, scripted_model, store, tmp_path)
    # Classes renamed, a wrapper around the badge: the values and their elements stay.
    ai.page.evaluate(
        """() => {
            for (const el of document.querySelectorAll('[class]')) el.className += '-v2';
            const badge = document.querySelector('[data-test=cart-count]');
            const wrap = document.createElement('span');
            badge.replaceWith(wrap); wrap.append(badge);
        }"""
    )
    assert ai.extract("the number on the cart badge", schema=Badge) == Badge(items=1)
    assert ai.extract("the products in the order shown", schema=Catalogue) == Catalogue(
        **catalogue()
    )
    assert scripted_model.calls == 2


def test_a_value_whose_ids_were_all_renamed_is_read_in_its_place(
    ai, scripted_model, store, tmp_path
):
    ai.page.locator("button.add").nth(0).click()
    scripted_model.enqueue({"items": 1})
    ai.extract("the number on the cart badge", schema=Badge)
    use(ai, store, tmp_path, "offline", has_model=False)
    ai.page.evaluate(
        "const badge = document.querySelector('[data-test=cart-count]');"
        "badge.dataset.test = 'bag-count'; badge.className = 'pill';"
    )
    assert ai.extract("the number on the cart badge", schema=Badge) == Badge(items=1)
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "fingerprint"
    ai.page.locator("button.add").nth(1).click()  # and it is still read, not remembered
    use(ai, store, tmp_path, "offline", has_model=False)
    with pytest.raises(HealFailed, match="items: recorded 1, the page now shows 2"):
        ai.extract("the number on the cart badge", schema=Badge)


def test_a_value_that_is_no_longer_shown_fails_the_replay(ai, scripted_model, store, tmp_path):
    ai.page.locator("button.add").nth(0).click()
    scripted_model.enqueue({"items": 1})
    ai.extract("the number on the cart badge", schema=Badge)
    use(ai, store, tmp_path, "offline", has_model=False)
    ai.page.evaluate("document.querySelector('[data-test=cart-count]').hidden = true")
    with pytest.raises(HealFailed, match="items: the element it was read from is gone"):
        ai.extract("the number on the cart badge", schema=Badge)


PAYEES = """<main><h1>Payees</h1><ul class="payees">
<li class="payee"><span class="who">Alice</span> <span class="balance">$100.00</span></li>
<li class="payee"><span class="who">Alicia</span> <span class="balance">{other}</span></li>
</ul></main>"""


class Balance(BaseModel):
    amount: str


@pytest.mark.parametrize("other", ["$100.00", "$250.00"])
def test_a_value_whose_place_is_gone_is_never_read_from_a_look_alikes(
    ai, scripted_model, store, tmp_path, other
):
    ai.page.set_content(PAYEES.format(other="$250.00"))
    scripted_model.enqueue({"amount": "$100.00"})
    ai.extract("the first balance in the list", schema=Balance)
    (step,) = steps(store, tmp_path)
    assert step["data"]["reads"]["fields"]["amount"]["element"]["distinct"] == "Alice"
    use(ai, store, tmp_path, "offline", has_model=False)
    ai.page.set_content(PAYEES.format(other=other))
    ai.page.evaluate("document.querySelector('li.payee').remove()")  # Alice's row is gone
    # Alicia's balance sits where Alice's was, looks alike, and may even show her value.
    with pytest.raises(HealFailed, match="amount: the element it was read from is gone"):
        ai.extract("the first balance in the list", schema=Balance)


def test_a_value_is_never_read_where_what_the_step_names_is_gone(
    ai, scripted_model, store, tmp_path
):
    only = PAYEES.replace('<li class="payee"><span class="who">Alicia</span>', "<li hidden>")
    ai.page.set_content(only.format(other="$250.00"))  # Alice alone: no look-alikes
    scripted_model.enqueue({"amount": "$100.00"})
    ai.extract("the balance of Alice", schema=Balance)
    use(ai, store, tmp_path, "offline", has_model=False)
    ai.page.set_content(only.replace(">Alice<", ">Alicia<").format(other="$250.00"))
    with pytest.raises(HealFailed, match=r"amount: the element it was read from is gone .*"
                       "the page no longer shows alice, which the step names"):
        ai.extract("the balance of Alice", schema=Balance)  # not Alicia's $100.00


class Heading(BaseModel):
    title: str


def test_a_value_recorded_by_its_role_selector_is_read_by_our_roles(
    ai, scripted_model, store, tmp_path, monkeypatch
):
    scripted_model.enqueue({"title": "Products"})
    ai.extract("the page heading", schema=Heading)
    (step,) = steps(store, tmp_path)
    selectors = step["data"]["reads"]["fields"]["title"]["element"]["selectors"]
    assert selectors[0] == 'role=heading[name="Products"s]'  # no id: its role comes first
    use(ai, store, tmp_path, "offline", has_model=False)

    def engine(*args):
        raise AssertionError("Playwright's selector engine was asked")

    with monkeypatch.context() as patched:  # the page itself tells, confirmed by a path
        patched.setattr(readback.page_scripts, "call_on_all", engine)
        assert ai.extract("the page heading", schema=Heading) == Heading(title="Products")
    assert ai.steplog.events[-1].cache == "hit"

    # A look-alike heading: our roles find two, and Playwright's engine decides, as before.
    ai.page.evaluate("document.querySelector('header').insertAdjacentHTML("
                     "'beforeend', '<h2>Products</h2>')")
    use(ai, store, tmp_path, "offline", has_model=False)
    assert ai.extract("the page heading", schema=Heading) == Heading(title="Products")
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "locator"


class Amount(BaseModel):
    amount: str


SUMMARY = (
    '<main><h1>Your order</h1><dl class="summary">'
    + '<div class="line"><dt>{}</dt><dd>{}</dd></div>' * 3
    + "</dl><p>Thank you for shopping with us.</p></main>"
)
RECORDED = ("Items", "$40.00", "Shipping", "$5.00", "Total", "$45.00")


@pytest.mark.parametrize(
    ("instruction", "now", "why"),
    [
        # The row the step names is gone; another row shows the same amount in its place.
        ("the shipping cost", ("Items", "$40.00", "Handling", "$5.00", "Total", "$45.00"),
         "the page no longer shows shipping, which the step names"),
        ("the order total", ("Items", "$45.00", "Shipping", "$0.00", "Discount", "$0.00"),
         "the page no longer shows total, which the step names"),
        # A step that names nothing: the words of the value's line told it apart.
        ("the second amount", ("Items", "$40.00", "Handling", "$5.00", "Total", "$45.00"),
         "the element it was read from is gone"),
    ],
)  # fmt: skip
def test_a_value_outside_any_card_is_never_read_from_a_line_that_says_another_thing(
    ai, scripted_model, store, tmp_path, instruction, now, why
):
    """A summary's <dd>s sit in no card, row or form: the text of the value's own line
    ("Shipping") is what says which value it is."""
    ai.page.set_content(SUMMARY.format(*RECORDED))
    scripted_model.enqueue({"amount": "$5.00" if "total" not in instruction else "$45.00"})
    recorded = ai.extract(instruction, schema=Amount)
    (step,) = steps(store, tmp_path)
    element = step["data"]["reads"]["fields"]["amount"]["element"]
    assert element["context"] == "" and element["line"] in ("Shipping", "Total")
    use(ai, store, tmp_path, "offline", has_model=False)
    assert ai.extract(instruction, schema=Amount) == recorded  # the same page: read again
    assert ai.steplog.events[-1].cache == "hit"
    use(ai, store, tmp_path, "offline", has_model=False)
    ai.page.set_content(SUMMARY.format(*now))
    with pytest.raises(HealFailed, match=why):
        ai.extract(instruction, schema=Amount)
