"""The example shop's own smoke test: plain Playwright, on both markup variants.

It walks every page the example tests rely on and pins the contract they are written
against: the roles and accessible names of the action elements, identical on both variants,
while the redesign really changes ids, classes, wrappers and order.
"""

from __future__ import annotations

import re
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from examples.app.server import (
    REDESIGN_RENAMES,
    ShopServer,
    _HTTPServer,
    render_template,
    serve_shop,
)

VARIANTS = ["classic", "redesign"]
BY_NAME = [
    "Baby Onesie", "Bike Light", "Canvas Tote Bag", "Classic T-Shirt", "Enamel Camp Mug",
    "Fleece Jacket", "Steel Water Bottle", "Trail Backpack",
]
BY_PRICE = [  # $7.99 ... $54.99
    "Baby Onesie", "Bike Light", "Enamel Camp Mug", "Canvas Tote Bag", "Classic T-Shirt",
    "Steel Water Bottle", "Trail Backpack", "Fleece Jacket",
]

# (role, accessible name) of the elements the example tests act on, per page.
ACTIONS: dict[str, list[tuple[str, str]]] = {
    "login": [
        ("textbox", "Username"), ("textbox", "Password"), ("checkbox", "Remember me"),
        ("button", "Log in"), ("link", "Create an account"), ("link", "Sign up"),
    ],
    "inventory": [
        ("searchbox", "Search"), ("combobox", "Sort by"), ("checkbox", "Bags"),
        ("checkbox", "Clothing"), ("checkbox", "Accessories"), ("button", "Add to cart"),
        ("link", "Trail Backpack"), ("link", "Cart"), ("button", "Log out"),
        ("link", "Products"), ("link", "Support"), ("link", "Newsletter"),
    ],
    "checkout": [
        ("textbox", "First name"), ("textbox", "Last name"), ("textbox", "Postal code"),
        ("button", "Shipping method Choose a shipping method"), ("radio", "Credit card"),
        ("radio", "PayPal"), ("radio", "Invoice"), ("button", "Continue"), ("link", "Cancel"),
    ],
}


@pytest.fixture(params=VARIANTS)
def variant(request: pytest.FixtureRequest) -> str:
    return request.param


def open_shop(page: Page, shop: ShopServer, variant: str, path: str = "/") -> None:
    """Open ``path`` in ``variant``; the query parameter sticks for the rest of the test."""
    page.goto(f"{shop.url}{path}?variant={variant}")
    expect(page.locator("meta[name=shop-variant]")).to_have_attribute("content", variant)


def log_in(page: Page, shop: ShopServer, variant: str, user: str = "standard_user") -> None:
    open_shop(page, shop, variant)
    page.get_by_role("textbox", name="Username").fill(user)
    page.get_by_role("textbox", name="Password").fill("secret_sauce")
    page.get_by_role("button", name="Log in").click()


def arrive(page: Page, url: str) -> None:
    """Wait for a page the app navigated to, until its scripts ran: the URL changes when
    the new document starts, and a form clicked before its submit handler is attached
    submits natively (seen under load in CI)."""
    expect(page).to_have_url(url)
    page.wait_for_load_state()


def by_test(page: Page, value: str) -> Locator:
    """The element with ``data-test=value`` (the shop's test-id attribute)."""
    return page.locator(f'[data-test="{value}"]')


def product_names(page: Page) -> Locator:
    return by_test(page, "inventory-item-name")


def test_happy_path(page: Page, shop: ShopServer, variant: str) -> None:
    open_shop(page, shop, variant, "/inventory")
    expect(page).to_have_url(re.compile(r"/\?next=%2Finventory$"))
    expect(page.get_by_role("alert")).to_have_text("Please log in to view that page.")

    log_in(page, shop, variant, user="locked_out_user")
    expect(page.get_by_role("alert")).to_have_text("Sorry, this user has been locked out.")
    page.get_by_role("textbox", name="Password").fill("wrong")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("do not match any user")

    log_in(page, shop, variant)
    expect(page).to_have_url(f"{shop.url}/inventory")
    expect(product_names(page)).to_have_text(BY_NAME)
    expect(page.get_by_role("img", name="Trail Backpack")).to_be_visible()
    page.get_by_role("checkbox", name="Bags").check()
    expect(product_names(page)).to_have_text(["Canvas Tote Bag", "Trail Backpack"])
    page.get_by_role("checkbox", name="Bags").uncheck()
    page.get_by_role("searchbox", name="Search").fill("bottle")
    expect(product_names(page)).to_have_text(["Steel Water Bottle"])
    page.get_by_role("searchbox", name="Search").fill("no such thing")
    expect(page.get_by_text("No products match your filters.")).to_be_visible()
    page.get_by_role("searchbox", name="Search").fill("")
    page.get_by_role("combobox", name="Sort by").select_option(label="Price (high to low)")
    expect(product_names(page)).to_have_text(BY_PRICE[::-1])
    page.get_by_role("combobox", name="Sort by").select_option(label="Price (low to high)")
    expect(product_names(page)).to_have_text(BY_PRICE)

    badge = by_test(page, "shopping-cart-badge")
    expect(badge).to_be_hidden()
    for name in ["Baby Onesie", "Bike Light"]:
        card = page.get_by_role("article", name=name)
        card.get_by_role("button", name="Add to cart").click()
        expect(card.get_by_role("button", name="Remove")).to_be_visible()
    expect(badge).to_have_text("2")

    page.get_by_role("link", name="Bike Light").click()
    expect(page).to_have_url(f"{shop.url}/products/bike-light")
    expect(page.get_by_role("heading", level=1)).to_have_text("Bike Light")
    expect(page.get_by_role("button", name="Remove")).to_be_visible()
    page.get_by_role("link", name="Back to products").click()
    expect(product_names(page)).to_have_text(BY_NAME)

    page.get_by_role("link", name="Cart").click()
    expect(by_test(page, "cart-item")).to_have_count(2)
    expect(by_test(page, "cart-total")).to_have_text("$17.98")
    page.get_by_role("button", name="Checkout").click()

    arrive(page, f"{shop.url}/checkout")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("alert")).to_contain_text("First name is required")
    expect(page.get_by_role("alert")).to_contain_text("Please choose a shipping method")
    page.get_by_role("textbox", name="First name").fill("Ada")
    page.get_by_role("textbox", name="Last name").fill("Lovelace")
    page.get_by_role("textbox", name="Postal code").fill("10115")

    dropdown = page.get_by_role("button", name="Shipping method")
    expect(dropdown).to_have_attribute("aria-haspopup", "listbox")
    expect(dropdown).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("listbox")).to_be_hidden()
    dropdown.click()
    expect(dropdown).to_have_attribute("aria-expanded", "true")
    listbox = page.get_by_role("listbox", name="Shipping method")
    expect(listbox.get_by_role("option")).to_have_count(3)
    listbox.get_by_role("option", name="Express delivery").click()
    expect(listbox).to_be_hidden()
    expect(dropdown).to_have_accessible_name("Shipping method Express delivery")
    page.get_by_role("radio", name="PayPal").check()
    page.get_by_role("button", name="Continue").click()

    expect(page).to_have_url(f"{shop.url}/checkout/overview")
    expect(by_test(page, "subtotal-label")).to_have_text("$17.98")
    expect(by_test(page, "shipping-cost-label")).to_have_text("$14.99")
    expect(by_test(page, "tax-label")).to_have_text("$1.44")
    expect(by_test(page, "total-label")).to_have_text("$34.41")
    expect(by_test(page, "payment-info-value")).to_have_text("PayPal")
    page.get_by_role("button", name="Finish").click()

    expect(page.get_by_role("heading", name="Thank you for your order!")).to_be_visible()
    expect(by_test(page, "order-number")).to_have_text("TO-10001")
    expect(badge).to_be_hidden()


def test_support_iframe_is_cross_origin(page: Page, shop: ShopServer, variant: str) -> None:
    open_shop(page, shop, variant, "/support")
    frame_element = page.get_by_title("Contact form")
    assert frame_element.get_attribute("src").startswith(shop.contact_url)
    assert shop.contact_url != shop.url
    form = page.frame_locator("iframe[title='Contact form']")
    form.get_by_role("button", name="Send message").click()
    expect(form.get_by_role("alert")).to_have_text("Please tell us your name.")
    form.get_by_role("textbox", name="Name").fill("Ada")
    form.get_by_role("textbox", name="Email").fill("ada@example.com")
    form.get_by_role("textbox", name="Message").fill("Where is my order?")
    form.get_by_role("button", name="Send message").click()
    expect(form.get_by_role("status")).to_contain_text(
        "Thanks, Ada! We will reply to ada@example.com within one business day."
    )


def test_newsletter_widget_in_shadow_root(page: Page, shop: ShopServer, variant: str) -> None:
    open_shop(page, shop, variant, "/newsletter")
    widget = by_test(page, "newsletter-widget")
    assert widget.evaluate("el => el.shadowRoot && el.shadowRoot.mode") == "open"
    assert widget.evaluate("el => el.innerHTML") == ""  # the form lives in the shadow root
    page.get_by_role("textbox", name="Email address").fill("not-an-email")
    page.get_by_role("button", name="Subscribe").click()
    expect(page.get_by_role("status")).to_have_text("Please enter a valid email address.")
    page.get_by_role("textbox", name="Email address").fill("ada@example.com")
    page.get_by_role("button", name="Subscribe").click()
    expect(page.get_by_role("status")).to_have_text(
        "Thanks for subscribing! We sent a confirmation link to ada@example.com."
    )


def test_sign_up_then_log_in(page: Page, shop: ShopServer, variant: str) -> None:
    open_shop(page, shop, variant, "/signup")
    page.get_by_role("textbox", name="Full name").fill("Ada Lovelace")
    page.get_by_role("textbox", name="Email").fill("ada@example.com")
    page.get_by_role("textbox", name="Password", exact=True).fill("analytical")
    page.get_by_role("textbox", name="Confirm password").fill("analytic")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_contain_text("Passwords do not match")
    expect(page.get_by_role("alert")).to_contain_text("You must accept the terms and conditions")
    page.get_by_role("textbox", name="Confirm password").fill("analytical")
    page.get_by_role("checkbox", name="I agree to the terms and conditions").check()
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(f"{shop.url}/inventory")
    expect(by_test(page, "welcome-banner")).to_contain_text("Welcome, Ada Lovelace!")

    page.get_by_role("button", name="Log out").click()
    arrive(page, f"{shop.url}/")
    page.get_by_role("textbox", name="Username").fill("ada@example.com")
    page.get_by_role("textbox", name="Password").fill("analytical")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Signed in as Ada Lovelace")).to_be_visible()


def _markup(page: Page) -> dict[str, object]:
    return page.evaluate(
        """() => {
            const all = [...document.querySelectorAll("body *")];
            return {
                ids: all.map((el) => el.id).filter(Boolean),
                classes: [...new Set(all.flatMap((el) => [...el.classList]))],
                divs: document.querySelectorAll("div").length,
                h1: document.querySelector("h1").textContent.trim(),
            };
        }"""
    )


# Seeds a logged-in session with one item in the cart, so every page opens directly.
LOGGED_IN_WITH_CART = """
localStorage.setItem("shop.session", '{"username": "standard_user", "name": "standard_user"}');
localStorage.setItem("shop.cart", '{"backpack": 1}');
"""
PATHS = {"login": "/", "inventory": "/inventory", "checkout": "/checkout"}


def test_redesign_changes_markup_but_keeps_roles_and_names(
    browser: Browser, shop: ShopServer
) -> None:
    guest = browser.new_context()
    member = browser.new_context()
    member.add_init_script(LOGGED_IN_WITH_CART)
    for name, actions in ACTIONS.items():
        page = (guest if name == "login" else member).new_page()
        seen = {}
        for variant in VARIANTS:
            open_shop(page, shop, variant, PATHS[name])
            for role, label in actions:
                expect(page.get_by_role(role, name=label, exact=True).first).to_be_attached()
            seen[variant] = _markup(page)
        classic, redesign = seen["classic"], seen["redesign"]
        for kind in ("ids", "classes"):
            renamed = {token for token in classic[kind] if token in REDESIGN_RENAMES}
            assert len(renamed) >= 5, (name, kind)
            assert not renamed & set(redesign[kind]), (name, kind)
            assert {REDESIGN_RENAMES[token] for token in renamed} <= set(redesign[kind])
        assert redesign["divs"] > classic["divs"], name
        assert redesign["h1"] != classic["h1"], name
    guest.close()
    member.close()


def test_redesign_moves_elements(page: Page, shop: ShopServer) -> None:
    order = "([a, b]) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)"
    for variant, remember_first in [("classic", True), ("redesign", False)]:
        open_shop(page, shop, variant)
        remember = page.get_by_role("checkbox", name="Remember me").element_handle()
        button = page.get_by_role("button", name="Log in").element_handle()
        assert page.evaluate(order, [remember, button]) is remember_first, variant


def test_variant_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    def variant_of(url: str, cookie: str = "") -> str:
        request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
        with urllib.request.urlopen(request) as response:
            html = response.read().decode()
        return re.search(r'name="shop-variant" content="(\w+)"', html)[1]

    with serve_shop(variant="redesign") as shop:
        assert variant_of(shop.url + "/") == "redesign"
        assert variant_of(shop.url + "/?variant=classic") == "classic"
        assert variant_of(shop.url + "/", cookie="shop_variant=classic") == "classic"
        shop.variant = "classic"
        assert variant_of(shop.url + "/cart") == "classic"
        assert variant_of(shop.contact_url + "/contact?variant=redesign") == "redesign"
    monkeypatch.setenv("SHOP_VARIANT", "redesign")
    with serve_shop() as shop:
        assert shop.variant == "redesign"
    with pytest.raises(ValueError, match="unknown shop variant"):
        serve_shop(variant="retro")


def test_template_directives() -> None:
    text = '{% move "x" %}<b>{% endmove %}<i>{% to "x" %}{% if redesign %}R{% else %}C{% endif %}'
    assert render_template(text, "classic", {}) == "<b><i>C"
    assert render_template(text, "redesign", {}) == "<i><b>R"
    wrapped = '{% wrap "w" %}<p class="product-name">{{ v }}</p>{% endwrap %}'
    assert render_template(wrapped, "classic", {"v": "1"}) == '<p class="product-name">1</p>'
    assert render_template(wrapped, "redesign", {"v": "1"}) == (
        f'<div class="w"><p class="{REDESIGN_RENAMES["product-name"]}">1</p></div>'
    )


@pytest.mark.parametrize(("error", "printed"), [(BrokenPipeError, False), (ValueError, True)])
def test_only_a_connection_the_browser_dropped_is_not_printed(capsys, error, printed):
    server = _HTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler, shop=None)  # type: ignore[arg-type]
    try:
        raise error("while answering")
    except error:
        server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    assert ("while answering" in capsys.readouterr().err) is printed
