"""The example shop: a small web app served on 127.0.0.1 for the example tests.

Pages are plain HTML templates (``templates/``) with small vanilla JS (``static/``); all
state (session, cart, orders, sign-ups) lives in the browser's storage, so every fresh
browser context starts from a clean, deterministic shop.

Two variants of the same markup are served:

* ``classic`` (default): the app as first recorded.
* ``redesign``: ids and classes renamed, wrapper divs added, some blocks moved and some
  headings reworded; roles and accessible names of the actions stay the same. This is the
  "healing switch" for the example tests.

The variant is chosen per request: a ``?variant=`` query parameter (also remembered in a
cookie), else the ``shop_variant`` cookie, else the server's :attr:`ShopServer.variant`
(from ``serve_shop(variant=...)`` or the ``SHOP_VARIANT`` environment variable).

The support page embeds a contact form in an iframe served by a second server on another
port, so the frame is cross-origin.

Run it by hand::

    python -m examples.app.server [--port 8000] [--variant redesign]
"""

from __future__ import annotations

import argparse
import mimetypes
import os
import re
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

VARIANTS = ("classic", "redesign")
VARIANT_COOKIE = "shop_variant"

# route -> (template, page title); every page shares templates/layout.html.
PAGES: dict[str, tuple[str, str]] = {
    "/": ("login.html", "Log in"),
    "/inventory": ("inventory.html", "Products"),
    "/cart": ("cart.html", "Your cart"),
    "/checkout": ("checkout.html", "Checkout: your information"),
    "/checkout/overview": ("overview.html", "Checkout: overview"),
    "/checkout/complete": ("complete.html", "Order complete"),
    "/support": ("support.html", "Support"),
    "/newsletter": ("newsletter.html", "Newsletter"),
    "/signup": ("signup.html", "Sign up"),
    "/account": ("account.html", "Your account"),
    "/sales": ("sales.html", "Sales"),
    "/track": ("track.html", "Track your order"),
}
PRODUCT_ROUTE = re.compile(r"^/products/[a-z0-9-]+$")

# The redesign renames ids and classes (a "migration to BEM").
# Applied as whole-token replacements to HTML, CSS and JS alike, so the app keeps working.
# Storage keys, routes and visible text never use these tokens.
REDESIGN_RENAMES: dict[str, str] = {
    # layout
    "site-header": "masthead",
    "header-inner": "masthead__bar",
    "brand-link": "masthead__logo",
    "main-nav": "masthead__nav",
    "nav-list": "masthead__links",
    "header-actions": "masthead__tools",
    "cart-nav": "minicart",
    "shopping-cart-link": "minicart__link",
    "cart-count": "minicart__count",
    "account-name": "masthead__user",
    "logout-button": "masthead__signout",
    "guest-links": "masthead__guest",
    "main-content": "content-root",
    "site-footer": "colophon",
    "page-title": "heading-xl",
    # shared widgets
    "btn-primary": "button--solid",
    "btn-secondary": "button--ghost",
    "form-field": "control",
    "field-hint": "control__hint",
    "check-field": "control--check",
    "alert-error": "notice--error",
    "form-actions": "actions-row",
    # login
    "login-panel": "auth-card",
    "login-form": "auth-form",
    "user-name": "auth-username",
    "login-password": "auth-password",
    "remember-me": "auth-remember",
    "login-button": "auth-submit",
    "login-error": "auth-message",
    "demo-credentials": "auth-help",
    # catalogue
    "catalog-layout": "shop-grid",
    "filter-panel": "refine",
    "search-input": "refine__query",
    "category-filter": "refine__categories",
    "catalog-toolbar": "listing-bar",
    "result-count": "listing-bar__count",
    "product-sort": "listing-sort",
    "inventory-list": "tile-grid",
    "inventory-item": "tile",
    "product-card": "tile__inner",
    "product-image": "tile__media",
    "product-name": "tile__title",
    "product-desc": "tile__text",
    "product-price": "tile__price",
    "product-footer": "tile__foot",
    "cart-toggle": "tile__cta",
    "empty-state": "listing-empty",
    "welcome-banner": "greeting",
    # product detail
    "product-detail": "pdp",
    "detail-image": "pdp__media",
    "detail-name": "pdp__title",
    "detail-category": "pdp__category",
    "detail-desc": "pdp__text",
    "detail-price": "pdp__price",
    "back-link": "pdp__back",
    # cart
    "cart-list": "basket",
    "cart-item": "basket__row",
    "item-name": "basket__name",
    "item-price": "basket__price",
    "item-qty": "basket__qty",
    "item-total": "basket__line-total",
    "remove-item": "basket__remove",
    "cart-summary": "basket-summary",
    "cart-total": "basket-summary__total",
    "checkout-button": "basket-checkout",
    "continue-shopping": "basket-back",
    # checkout
    "checkout-steps": "progress",
    "checkout-form": "order-form",
    "checkout-error": "order-form__errors",
    "first-name": "given-name-input",
    "last-name": "family-name-input",
    "postcode": "zip-input",
    "shipping-label": "delivery-label",
    "shipping-dropdown": "delivery-select",
    "shipping-button": "delivery-select__trigger",
    "shipping-options": "delivery-select__menu",
    "dropdown-option": "delivery-select__item",
    "payment-group": "pay-options",
    "continue-button": "order-form__next",
    "cancel-button": "order-form__back",
    "summary-list": "review__items",
    "summary-info": "review__meta",
    "summary-totals": "review__totals",
    "summary-subtotal": "review__subtotal",
    "summary-shipping": "review__shipping",
    "summary-tax": "review__tax",
    "summary-total": "review__total",
    "finish-button": "review__place",
    "order-confirmation": "receipt",
    "order-number": "receipt__number",
    "back-home": "receipt__home",
    # support, newsletter, sign-up
    "support-faq": "help-topics",
    "contact-frame": "help-contact",
    "contact-form": "message-form",
    "contact-name": "message-name",
    "contact-email": "message-email",
    "contact-message": "message-body",
    "contact-send": "message-submit",
    "contact-sent": "message-done",
    "newsletter-signup": "trail-notes-signup",
    "newsletter-form": "notes-form",
    "newsletter-email": "notes-email",
    "newsletter-submit": "notes-submit",
    "newsletter-status": "notes-status",
    "signup-form": "register-form",
    "signup-name": "register-name",
    "signup-email": "register-email",
    "signup-password": "register-password",
    "signup-confirm": "register-confirm",
    "signup-terms": "register-terms",
    "signup-submit": "register-submit",
    "signup-errors": "register-errors",
}
# data-test values are left alone: the redesign changes only the few that its templates
# change explicitly ({% if redesign %}), like a real team that mostly keeps its test ids.
_RENAME_PATTERN = re.compile(
    r'(?<![\w-])(?<!data-test=")('
    + "|".join(map(re.escape, REDESIGN_RENAMES))
    + r")(?![\w-])"
)

# Template directives, expanded per variant by render_template().
_MOVE = re.compile(r'{% move "([\w-]+)" %}(.*?){% endmove %}', re.S)
_IF = re.compile(r"{% if redesign %}(.*?)(?:{% else %}(.*?))?{% endif %}", re.S)
_WRAP = re.compile(r'{% wrap "([\w -]+)" %}')
_VAR = re.compile(r"{{ (\w+) }}")


def render_template(text: str, variant: str, values: dict[str, str]) -> str:
    """Expand the template directives for ``variant`` and fill ``{{ name }}`` values.

    * ``{% if redesign %}A{% else %}B{% endif %}``: A in the redesign, else B (no nesting).
    * ``{% wrap "classes" %}...{% endwrap %}``: a ``<div class="classes">`` wrapper that
      only the redesign has.
    * ``{% move "name" %}...{% endmove %}`` and ``{% to "name" %}``: the block stays where it
      is in the classic markup and moves to the ``to`` marker in the redesign.
    * ``{{ name }}``: a value from ``values``.

    The redesign then gets the id/class renames of :data:`REDESIGN_RENAMES`.
    """
    redesign = variant == "redesign"
    blocks: dict[str, str] = {}

    def move(match: re.Match[str]) -> str:
        blocks[match[1]] = match[2]
        return "" if redesign else match[2]

    text = _MOVE.sub(move, text)
    text = re.sub(
        r'{% to "([\w-]+)" %}', lambda m: blocks[m[1]] if redesign else "", text
    )
    text = _IF.sub(lambda m: m[1] if redesign else (m[2] or ""), text)
    text = _WRAP.sub(lambda m: f'<div class="{m[1]}">' if redesign else "", text)
    text = text.replace("{% endwrap %}", "</div>" if redesign else "")
    text = _VAR.sub(lambda m: values[m[1]], text)
    return rename(text) if redesign else text


def rename(text: str) -> str:
    """Apply the redesign's id/class renames to HTML, CSS or JS."""
    return _RENAME_PATTERN.sub(lambda m: REDESIGN_RENAMES[m[1]], text)


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"unknown shop variant {variant!r}; use one of {', '.join(VARIANTS)}")
    return variant


class ShopServer:
    """The running shop: the main origin at :attr:`url`, the contact form at :attr:`contact_url`.

    :attr:`variant` is the default for requests that do not ask for one; it may be changed
    while the server runs (e.g. record on ``classic``, then replay on ``redesign``).
    """

    def __init__(self, port: int = 0, variant: str | None = None, contact_port: int = 0):
        self.variant = _check_variant(variant or os.environ.get("SHOP_VARIANT") or "classic")
        self._main = _HTTPServer(("127.0.0.1", port), _ShopHandler, self)
        self._contact = _HTTPServer(("127.0.0.1", contact_port), _ContactHandler, self)
        self.url = f"http://127.0.0.1:{self._main.server_address[1]}"
        self.contact_url = f"http://127.0.0.1:{self._contact.server_address[1]}"
        self._threads = [
            threading.Thread(
                target=srv.serve_forever, args=(0.05,), name=f"shop-{name}", daemon=True
            )
            for name, srv in (("main", self._main), ("contact", self._contact))
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        for srv in (self._main, self._contact):
            srv.shutdown()
            srv.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> ShopServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ShopServer(url={self.url!r}, variant={self.variant!r})"


def serve_shop(port: int = 0, variant: str | None = None) -> ShopServer:
    """Start the shop on 127.0.0.1 (``port=0``: any free port) and return it, running.

    ``variant`` is ``"classic"`` or ``"redesign"``; ``None`` reads ``SHOP_VARIANT``.
    Use it as a context manager, or call :meth:`ShopServer.stop`.
    """
    return ShopServer(port=port, variant=variant)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: Callable[..., BaseHTTPRequestHandler],
        shop: ShopServer,
    ):
        self.shop = shop
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        # A browser drops a response it no longer wants (a page that navigated on while
        # its script loaded): nothing went wrong on the shop's side, so print no traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _BaseHandler(BaseHTTPRequestHandler):
    server: _HTTPServer
    quiet = True

    def do_GET(self) -> None:
        self._handle(send_body=True)

    def do_HEAD(self) -> None:
        self._handle(send_body=False)

    def _handle(self, send_body: bool) -> None:
        parts = urlsplit(self.path)
        variant, remember = self._variant(parts.query)
        status, content_type, body = self.route(parts.path, variant)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        # The same URL serves different markup per variant: never let the browser cache it.
        self.send_header("Cache-Control", "no-store")
        if remember:
            self.send_header("Set-Cookie", f"{VARIANT_COOKIE}={variant}; Path=/; SameSite=Lax")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _variant(self, query: str) -> tuple[str, bool]:
        asked = parse_qs(query).get("variant", [""])[0]
        if asked in VARIANTS:
            return asked, True
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        if VARIANT_COOKIE in cookie and cookie[VARIANT_COOKIE].value in VARIANTS:
            return cookie[VARIANT_COOKIE].value, False
        return self.server.shop.variant, False

    def route(self, path: str, variant: str) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def static(self, path: str, variant: str) -> tuple[int, str, bytes]:
        file = (STATIC / path.removeprefix("/static/")).resolve()
        if not file.is_file() or not file.is_relative_to(STATIC):
            return self.not_found()
        content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if file.suffix in {".css", ".js"}:
            text = file.read_text(encoding="utf-8")
            text = rename(text) if variant == "redesign" else text
            return HTTPStatus.OK, f"{content_type}; charset=utf-8", text.encode()
        return HTTPStatus.OK, content_type, file.read_bytes()

    def page(
        self, template: str, title: str, page: str, variant: str, status: int = HTTPStatus.OK
    ) -> tuple[int, str, bytes]:
        layout = (TEMPLATES / "layout.html").read_text(encoding="utf-8")
        content = (TEMPLATES / template).read_text(encoding="utf-8")
        values = {
            "title": title,
            "page": page,
            "variant": variant,
            "contact_url": self.server.shop.contact_url,
        }
        html = render_template(layout.replace("{{ content }}", content), variant, values)
        return status, "text/html; charset=utf-8", html.encode()

    def not_found(self) -> tuple[int, str, bytes]:
        return HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"404 Not Found\n"

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


class _ShopHandler(_BaseHandler):
    def route(self, path: str, variant: str) -> tuple[int, str, bytes]:
        if path.startswith("/static/"):
            return self.static(path, variant)
        if path == "/favicon.ico":
            return self.static("/static/img/logo.svg", variant)
        if path in PAGES:
            template, title = PAGES[path]
            name = template.removesuffix(".html")
            return self.page(template, title, name, variant)
        if PRODUCT_ROUTE.match(path):
            return self.page("product.html", "Product", "product", variant)
        return self.page("not_found.html", "Page not found", "not-found", variant,
                         status=HTTPStatus.NOT_FOUND)


class _ContactHandler(_BaseHandler):
    """The second origin: only the contact form (shown in an iframe) and its assets."""

    def route(self, path: str, variant: str) -> tuple[int, str, bytes]:
        if path.startswith("/static/"):
            return self.static(path, variant)
        if path == "/contact":
            text = (TEMPLATES / "contact.html").read_text(encoding="utf-8")
            html = render_template(text, variant, {"variant": variant})
            return HTTPStatus.OK, "text/html; charset=utf-8", html.encode()
        return self.not_found()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run the pytest-stagehand example shop.")
    parser.add_argument("--port", type=int, default=8000, help="main port (0: any free port)")
    parser.add_argument("--variant", choices=VARIANTS, default=None,
                        help="default markup variant (default: $SHOP_VARIANT or classic)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    _BaseHandler.quiet = not args.verbose
    with serve_shop(port=args.port, variant=args.variant) as shop:
        print(f"Shop ({shop.variant}):  {shop.url}/")
        print(f"Redesign:        {shop.url}/?variant=redesign")
        print(f"Classic:         {shop.url}/?variant=classic")
        print(f"Contact iframe:  {shop.contact_url}/contact")
        print("Log in as standard_user / secret_sauce.  Ctrl-C to stop.")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print()


if __name__ == "__main__":
    main()
