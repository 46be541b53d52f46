"""Checkout: a custom (non-native) dropdown, radio buttons, totals read into a schema.

The async twin of examples/test_checkout.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

import re

from playwright.async_api import expect
from pydantic import BaseModel


class OrderTotals(BaseModel):
    item_total: str
    shipping: str
    tax: str
    total: str


async def test_checkout_with_express_delivery_and_paypal(shopper):
    await shopper.act("add the Fleece Jacket to the cart")
    await shopper.act("open the cart")
    await shopper.act("click the checkout button")

    await shopper.act("type Ada into the first name field")
    await shopper.act("type Lovelace into the last name field")
    await shopper.act("type 10115 into the postal code field")
    # A custom listbox, not a <select>: opened, then its option chosen (two recorded actions).
    await shopper.act("choose Express delivery as the shipping method")
    await shopper.act("pay with PayPal")
    await shopper.act("click continue")

    totals = await shopper.extract("the order totals", schema=OrderTotals)
    assert totals == OrderTotals(
        item_total="$54.99", shipping="$14.99", tax="$4.40", total="$74.38"
    )

    await shopper.act("finish the order")
    await shopper.assert_that("the page thanks the customer for the order")
    await expect(shopper.locator("[data-test=order-number]")).to_have_text(re.compile(r"TO-\d+"))


async def test_checkout_needs_a_shipping_method(shopper):
    await shopper.act("add the Fleece Jacket to the cart")
    await shopper.act("open the cart")
    await shopper.act("click the checkout button")
    await shopper.act("type Ada into the first name field")
    await shopper.act("type Lovelace into the last name field")
    await shopper.act("type 10115 into the postal code field")
    await shopper.act("pay with PayPal")
    await shopper.act("click continue")

    await shopper.assert_that("an error asks the customer to choose a shipping method")
    await expect(shopper.page).to_have_url(re.compile(r"/checkout$"))
