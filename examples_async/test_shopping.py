"""Browsing and the cart: a native select, look-alike buttons, and data read into a schema.

The async twin of examples/test_shopping.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from playwright.async_api import expect
from pydantic import AnyUrl, BaseModel, Field


class CartLine(BaseModel):
    name: str
    price: str = Field(description="the unit price, e.g. $9.99")
    quantity: int
    page: AnyUrl = Field(description="the link to the product's page")


class Cart(BaseModel):
    lines: list[CartLine]
    total: str = Field(description="the cart total, e.g. $17.98")


async def test_sort_by_price_and_add_the_two_cheapest_products(shopper):
    await shopper.act("sort the products by price, low to high")
    names = shopper.locator("[data-test=inventory-item-name]")
    await expect(names.first).to_have_text("Baby Onesie")

    # Eight "Add to cart" buttons look alike: the recording keeps which product's it was.
    await shopper.act("add the Baby Onesie to the cart")
    await shopper.act("add the Bike Light to the cart")

    await shopper.assert_that("the cart badge in the header shows 2")


async def test_search_narrows_the_catalogue(shopper):
    await shopper.act("search the products for bottle")

    await shopper.assert_that("the catalogue shows only the Steel Water Bottle")
    await expect(shopper.locator("[data-test=inventory-item-name]")).to_have_text(
        ["Steel Water Bottle"]
    )


async def test_the_cart_lists_what_was_added(shopper):
    await shopper.act("add the Trail Backpack to the cart")
    await shopper.act("add the Bike Light to the cart")
    await shopper.act("open the cart")

    cart = await shopper.extract("the products in the cart and the cart total", schema=Cart)

    assert [(line.name, line.price, line.quantity) for line in cart.lines] == [
        ("Trail Backpack", "$49.99", 1),
        ("Bike Light", "$9.99", 1),
    ]
    assert cart.lines[0].page.path == "/products/backpack"  # the link's real href
    assert cart.total == "$59.98"
