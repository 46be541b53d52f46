"""Checkout: a custom (non-native) dropdown, radio buttons, totals read into a schema."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from pydantic import BaseModel


class OrderTotals(BaseModel):
    item_total: str
    shipping: str
    tax: str
    total: str


def test_checkout_with_express_delivery_and_paypal(shopper):
    shopper.act("add the Fleece Jacket to the cart")
    shopper.act("open the cart")
    shopper.act("click the checkout button")

    shopper.act("type Ada into the first name field")
    shopper.act("type Lovelace into the last name field")
    shopper.act("type 10115 into the postal code field")
    # A custom listbox, not a <select>: opened, then its option chosen (two recorded actions).
    shopper.act("choose Express delivery as the shipping method")
    shopper.act("pay with PayPal")
    shopper.act("click continue")

    totals = shopper.extract("the order totals", schema=OrderTotals)
    assert totals == OrderTotals(
        item_total="$54.99", shipping="$14.99", tax="$4.40", total="$74.38"
    )

    shopper.act("finish the order")
    shopper.assert_that("the page thanks the customer for the order")
    expect(shopper.locator("[data-test=order-number]")).to_have_text(re.compile(r"TO-\d+"))


def test_checkout_needs_a_shipping_method(shopper):
    shopper.act("add the Fleece Jacket to the cart")
    shopper.act("open the cart")
    shopper.act("click the checkout button")
    shopper.act("type Ada into the first name field")
    shopper.act("type Lovelace into the last name field")
    shopper.act("type 10115 into the postal code field")
    shopper.act("pay with PayPal")
    shopper.act("click continue")

    shopper.assert_that("an error asks the customer to choose a shipping method")
    expect(shopper.page).to_have_url(re.compile(r"/checkout$"))
