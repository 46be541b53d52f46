"""Benchmark: does offline replay fail on regressions and pass on harmless changes?

Run: .venv/bin/python bench/bench_regressions.py [--only NAME ...]

A suite of plain-English tests of the example shop (examples/app) is recorded once with
the scripted shop oracle of examples/record.py (NOT a model: a table of the answers a
correct model gives, read out of the snapshot it is sent), then replayed offline, with no
model, against mutated builds of the shop. The shop itself stays clean: each mutation
rewrites the shop's responses (HTML, CSS, JS) by route interception in the replaying
browser. Benign mutations (restyled classes, renamed ids and test ids, wrappers, moved
blocks, reworded copy the tests do not read) must pass or heal; regressions (a wrong price,
a broken sort, an item added or missing, a badge off by one, a disabled button, a value in
the wrong field, an error message missing, ...) must fail.

Three replays are compared on the same mutations, step by step along the replay that ran:

- verified: this plugin (verified acts, extracts read again from the page, observed sets
  queried again, recorded assertion checks, agent outputs read again);
- blind:    what replaying the recorded selectors blindly gives: an act passes when its
            first recorded selector finds an enabled element; an extract, observe,
            assertion or agent output returns what was recorded;
- witness:  the previous plugin: acts verified as now, an extract or agent output passes
            when the words of the recorded value are still in the page outline (the word
            witness), observe returns the recorded elements when each still verifies,
            assertions as now.

Baselines are judged along the verified replay's path (their later steps see the page the
verified replay produced); a step after the point where the verified replay stopped counts
as passed for them, which can only flatter them.

Prints one row per mutation (which tests failed, by kind of step), then false passes
(regressions that passed: must be 0) and false failures (benign mutations that failed: at
most 5%) for each replay, side by side.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, Route, sync_playwright  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from examples import record as oracle  # noqa: E402
from examples.app.server import serve_shop  # noqa: E402
from pytest_stagehand.agent.agent import Agent  # noqa: E402
from pytest_stagehand.browser.launch import system_chromium_path  # noqa: E402
from pytest_stagehand.errors import StagehandError  # noqa: E402
from pytest_stagehand.events import StepLog  # noqa: E402
from pytest_stagehand.model.client import ModelConfig  # noqa: E402
from pytest_stagehand.model.providers import create_client  # noqa: E402
from pytest_stagehand.page import AIPage  # noqa: E402
from pytest_stagehand.pipelines.act import ModelResolver  # noqa: E402
from pytest_stagehand.pipelines.judge import Evaluator  # noqa: E402
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder, resolved_action  # noqa: E402
from pytest_stagehand.recordings.store import Recordings, RecordingStore  # noqa: E402
from pytest_stagehand.snapshot.outline import snapshot, without_ids  # noqa: E402
from pytest_stagehand.testing.scripted_model import ScriptedModelServer  # noqa: E402

TEST_FILE = Path("bench_suite/test_shop.py")  # a name for the recordings, never written
USER, PASSWORD = "standard_user", "secret_sauce"
WORD = re.compile(r"\w+(?:[.,:@/'-]\w+)*")

# --- the suite ------------------------------------------------------------------------------


class Product(BaseModel):
    name: str
    price: str


class Catalogue(BaseModel):
    products: list[Product]


class CartLine(BaseModel):
    name: str
    price: str
    quantity: int


class Cart(BaseModel):
    lines: list[CartLine]
    total: str


class OrderTotals(BaseModel):
    item_total: str
    shipping: str
    tax: str
    total: str


class Welcome(BaseModel):
    name: str
    banner: str


SORTED = [("Baby Onesie", "$7.99"), ("Bike Light", "$9.99"), ("Enamel Camp Mug", "$11.50"),
          ("Canvas Tote Bag", "$12.99"), ("Classic T-Shirt", "$15.99"),
          ("Steel Water Bottle", "$19.49"), ("Trail Backpack", "$49.99"),
          ("Fleece Jacket", "$54.99")]  # fmt: skip


class Failed(Exception):
    """A test of the suite failed (its own assertion, or a step raised)."""


@dataclass
class Outcome:
    """One replay of the suite: the first failing step of each test, per kind of replay."""

    failed: dict[str, dict[str, str]] = field(
        default_factory=lambda: {"verified": {}, "blind": {}, "witness": {}}
    )


class Suite:
    """The tests, written once; `Steps` decides whether each step records or replays."""

    def __init__(self, steps: Steps) -> None:
        self.s = steps

    def log_in(self) -> None:
        self.s.ai.goto("/")
        self.s.act("type %user% into the username field", {"user": USER})
        self.s.act("type %password% into the password field", {"password": PASSWORD})
        self.s.act("click the log in button")

    def test_catalogue(self) -> None:  # observe, act, extract (list), assertion
        self.log_in()
        buttons = self.s.observe("the Add to cart buttons")
        self.s.check("observe", len(buttons) == 8, f"{len(buttons)} Add to cart buttons")
        self.s.act("sort the products by price, low to high")
        shown = self.s.extract("the products in the order shown, with prices", Catalogue)
        got = [(p.name, p.price) for p in shown.products]
        self.s.check("extract list", got == SORTED, f"catalogue {got}")
        self.s.act("add the Baby Onesie to the cart")
        self.s.act("add the Bike Light to the cart")
        self.s.judge("the cart badge in the header shows 2")

    def test_cart(self) -> None:  # act, extract (list and scalar)
        self.log_in()
        self.s.act("add the Trail Backpack to the cart")
        self.s.act("add the Bike Light to the cart")
        self.s.act("open the cart")
        cart = self.s.extract("the products in the cart and the cart total", Cart)
        lines = [(line.name, line.price, line.quantity) for line in cart.lines]
        expected = [("Trail Backpack", "$49.99", 1), ("Bike Light", "$9.99", 1)]
        self.s.check("extract list", lines == expected, f"cart lines {lines}")
        self.s.check("extract", cart.total == "$59.98", f"cart total {cart.total}")

    def check_out(self, *, express: bool) -> None:
        self.log_in()
        self.s.act("add the Fleece Jacket to the cart")
        self.s.act("open the cart")
        self.s.act("click the checkout button")
        self.s.act("type Ada into the first name field")
        self.s.act("type Lovelace into the last name field")
        self.s.act("type 10115 into the postal code field")
        if express:
            self.s.act("choose Express delivery as the shipping method")
        self.s.act("pay with PayPal")
        self.s.act("click continue")

    def test_checkout(self) -> None:  # acts with a custom dropdown, extract (scalars)
        self.check_out(express=True)
        totals = self.s.extract("the order totals", OrderTotals)
        expected = OrderTotals(item_total="$54.99", shipping="$14.99", tax="$4.40", total="$74.38")
        self.s.check("extract", totals == expected, f"totals {totals}")

    def test_shipping_is_required(self) -> None:  # assertion on an error message
        self.check_out(express=False)
        self.s.judge("an error asks the customer to choose a shipping method")

    def test_sign_up(self) -> None:  # the agent
        self.s.ai.goto("/")
        result = self.s.agent(oracle.SIGN_UP, {"password": "correct-horse-battery"})
        self.s.check("agent", result == Welcome(
            name="Ada Lovelace", banner="Welcome, Ada Lovelace! Your account is ready."
        ), f"agent output {result}")

    TESTS = ("test_catalogue", "test_cart", "test_checkout", "test_shipping_is_required",
             "test_sign_up")  # fmt: skip


# --- the oracle, with the bench's own two questions --------------------------------------


def bench_answer(request: Any) -> dict[str, Any]:
    system = request.messages[0].get("content", "") if request.messages else ""
    prompt = next((t for t in reversed(oracle.user_messages(request)) if "Snapshot:\n" in t), "")
    if system.startswith(oracle.prompts.EXTRACT_SYSTEM) and (
        oracle.asked(prompt, "Extract") == "the products in the order shown, with prices"
    ):
        lines = oracle.snapshot_lines(prompt)
        names = [line.name for line in lines if line.role == "link" and "/products/" in line.rest]
        prices = [line.text for line in lines if line.role == "paragraph" and
                  line.text.startswith("$")]
        return {"products": [{"name": n, "price": p} for n, p in zip(names, prices, strict=False)]}
    if system.startswith(oracle.prompts.OBSERVE_SYSTEM) and (
        oracle.asked(prompt, "Instruction") == "the Add to cart buttons"
    ):
        lines = oracle.snapshot_lines(prompt)
        return {"elements": [
            {"element_id": line.id, "description": 'the "Add to cart" button',
             "method": "click", "arguments": []}
            for line in lines if line.role == "button" and line.name == "Add to cart"
        ]}
    return oracle.answer(request)


# --- recording and replaying the steps ---------------------------------------------------------


class Steps:
    """Runs the suite's steps on one page; replaying, judges each step three ways."""

    def __init__(self, ai: AIPage, recordings: Recordings, outcome: Outcome | None, test: str):
        self.ai = ai
        self.recordings = recordings
        self.outcome = outcome  # None: recording
        self.test = test

    # failures: the verified replay stops the test; a baseline only notes its first one
    def _note(self, kind: str, replay: str, ok: bool, why: str) -> None:
        if self.outcome is not None and not ok:
            self.outcome.failed[replay].setdefault(self.test, f"{kind}: {why}"[:400])

    def _run(self, kind: str, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except StagehandError as exc:
            self._note(kind, "verified", False, str(exc).splitlines()[0])
            raise Failed from None

    def check(self, kind: str, ok: bool, what: str) -> None:
        """The test's own assertion on what a step returned (verified replay)."""
        self._note(kind, "verified", ok, what)
        if not ok:
            raise Failed

    def _recording(self, kind: str, instruction: str, variables: Any = ()):
        return self.recordings.lookup(
            self.recordings.key(kind, instruction, self.ai.page.url, variables)
        )

    def act(self, instruction: str, variables: dict[str, str] | None = None) -> None:
        if self.outcome is not None:
            recording = self._recording("act", instruction, variables or {})
            ok = recording is not None and _blind_act(self.ai.page, recording)
            self._note("act", "blind", ok, f"{instruction!r}: its selector finds nothing usable")
        try:
            self._run("act", lambda: self.ai.act(instruction, variables=variables, timeout=5000))
        except Failed:  # acts were verified in the witness era as they are now
            self._note("act", "witness", False, f"{instruction!r} failed")
            raise

    def extract(self, instruction: str, schema: type[BaseModel]) -> Any:
        if self.outcome is not None:
            recording = self._recording("extract", instruction)
            outline = snapshot(self.ai.page).text
            gone = _gone(recording.data["value"] if recording else {}, outline)
            self._note("extract", "witness", not gone, f"words gone: {gone[:3]}")
        return self._run("extract", lambda: self.ai.extract(instruction, schema))

    def observe(self, instruction: str) -> list[Any]:
        if self.outcome is not None:
            recording = self._recording("observe", instruction)
            ok = recording is not None and all(_verifies(self.ai, a) for a in recording.actions)
            self._note("observe", "witness", ok, "a recorded element no longer verifies")
        return self._run("observe", lambda: self.ai.observe(instruction))

    def judge(self, claim: str) -> None:
        def step() -> None:
            verdict = self.ai.check(claim)
            if not verdict.passed:
                raise Failed(verdict.reasoning)

        try:
            step()
        except (StagehandError, Failed) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else "judged NO"
            self._note("assert", "verified", False, reason)
            self._note("assert", "witness", False, reason)  # the same judge in both eras
            raise Failed from None

    def agent(self, goal: str, variables: dict[str, str]) -> Any:
        agent = Agent(self.ai, allowed_origins=[_origin(self.ai.page.url)],
                      recordings=self.recordings)
        try:
            result = agent.execute(goal, output=Welcome, variables=variables, max_steps=12)
        except StagehandError as exc:
            self._note("agent", "verified", False, str(exc).splitlines()[0])
            if self.outcome is not None:
                recording = self._recording("agent", goal, variables)
                output = recording.data.get("output", {}) if recording else {}
                gone = _gone(output, snapshot(self.ai.page).text)
                acts_failed = "act " in str(exc) or "fill_form" in str(exc)
                if gone or acts_failed:
                    self._note("agent", "witness", False, f"words gone: {gone[:3]}")
            raise Failed from None
        if not result.success:
            self._note("agent", "verified", False, result.message)
            raise Failed
        return result.output


def _origin(url: str) -> str:
    return re.match(r"https?://[^/]+", url).group(0)


def _blind_act(page: Page, recording: Any) -> bool:
    element = recording.actions[0].element
    if element is None:
        return True
    target = page.locator(element.selectors[0])
    try:
        return target.count() >= 1 and target.first.is_enabled(timeout=500)
    except Exception:
        return False


def _verifies(ai: AIPage, recorded: Any) -> bool:
    try:
        resolved_action(ai.page, recorded, ai.steplog.variables, mask=ai.steplog.mask)
    except StagehandError:
        return False
    return True


def _gone(value: Any, outline: str) -> list[str]:
    """The previous word witness: words of the recorded value the page no longer shows."""
    shown = {w.casefold() for w in WORD.findall(without_ids(outline))}
    words = {w.casefold() for w in WORD.findall(json.dumps(value))} - {"origin"}
    keys = {w.casefold() for w in WORD.findall(" ".join(_keys(value)))}
    return sorted(words - keys - shown)


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return list(value) + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def open_ai(page: Page, base_url: str, recordings: Recordings, client: Any) -> AIPage:
    steplog = StepLog()
    has_model = client is not None
    return AIPage(
        page, client, steplog=steplog, base_url=base_url,
        resolver=RecordingResolver(page, ModelResolver(page, client, steplog), recordings,
                                   steplog, has_model=has_model, model=oracle.MODEL),
        evaluator=Evaluator(page, client, steplog, recordings=recordings),
        recorder=StepRecorder(page, recordings, steplog, has_model=has_model,
                              model=oracle.MODEL),
    )


def run_suite(browser: Browser, base_url: str, store_dir: Path, mode: str, client: Any,
              mutation: Mutation | None, outcome: Outcome | None, only: str | None) -> None:
    store = RecordingStore(store_dir)
    try:
        for test in mutation.tests if mutation is not None else Suite.TESTS:
            if only and test != only:
                continue
            context = browser.new_context()
            page = context.new_page()
            page.set_default_timeout(20000)
            if mutation is not None:
                page.route("**/*", mutation.apply)
            recordings = Recordings(store, TEST_FILE, mode)
            steps = Steps(open_ai(page, base_url, recordings, client), recordings, outcome, test)
            try:
                getattr(Suite(steps), test)()
            except Failed:
                if outcome is None:
                    raise
            finally:
                context.close()
    finally:
        store.close()


# --- mutations --------------------------------------------------------------------------------


@dataclass
class Mutation:
    """A build of the shop: text replacements in the responses whose path ends as given."""

    name: str
    kind: str  # "benign" or "regression"
    edits: list[tuple[str, str, str]]  # (path suffix, old, new)
    tests: tuple[str, ...] = Suite.TESTS  # a regression: the tests that read what it breaks
    applied: set[int] = field(default_factory=set)

    def apply(self, route: Route) -> None:
        request = route.request
        path = request.url.split("?")[0]
        mine = [(i, old, new) for i, (suffix, old, new) in enumerate(self.edits)
                if path.endswith(suffix)]
        if not mine or request.resource_type not in ("document", "script", "stylesheet"):
            route.fallback()
            return
        try:
            response = route.fetch()
            body = response.text()
            for index, old, new in mine:
                if old in body:
                    body = body.replace(old, new)
                    self.applied.add(index)
            route.fulfill(response=response, body=body)
        except PlaywrightError:
            pass  # the test's page closed while this response was on its way


PAGES = ("/", "/inventory", "/cart", "/checkout", "/checkout/overview", "/signup")
JS, CSS = "/static/shop.js", "/static/shop.css"
DATA = "/static/products.js"


def everywhere(old: str, new: str) -> list[tuple[str, str, str]]:
    """A rename in every page, script and style sheet (ids and classes are shared)."""
    return [(suffix, old, new) for suffix in (*PAGES, JS, CSS)]


def benign(name: str, *edits: tuple[str, str, str]) -> Mutation:
    return Mutation(name, "benign", list(edits))


def regression(name: str, *edits: tuple[str, str, str]) -> Mutation:
    return Mutation(name, "regression", list(edits))


MUTATIONS = [
    # benign: restyled, renamed, wrapped, moved, reworded where no test reads
    benign("product card classes restyled", *everywhere('"inventory-item"', '"tile"'),
           *everywhere("product-price", "tile-price")),
    benign("cart row classes restyled", *everywhere("cart-item", "basket-row"),
           *everywhere("item-price", "basket-price")),
    benign("every element gets a utility class", *[(p, 'class="', 'class="u-2024 ')
                                                   for p in PAGES]),
    benign("cart badge id renamed", *everywhere("cart-count", "bag-count")),
    benign("cart total id and test id renamed", *everywhere("cart-total", "basket-total")),
    benign("add-to-cart test ids renamed", (JS, '"add-to-cart"', '"buy"')),
    benign("product name test id renamed", *everywhere("inventory-item-name", "product-title")),
    benign("login form ids renamed", *everywhere("user-name", "login-user"),
           *everywhere("login-password", "login-secret")),
    benign("checkout field ids renamed", *everywhere("first-name", "given-name"),
           *everywhere("postcode", "zip-code")),
    benign("summary totals test ids renamed", ("/checkout/overview", 'data-test="tax-label"',
                                               'data-test="tax-amount"'),
           ("/checkout/overview", 'data-test="total-label"', 'data-test="grand-total"')),
    benign("wrapper around the product list", ("/inventory", '<ul class="inventory-list"',
                                               '<div class="grid-wrap"><ul class="inventory-list"'),
           ("/inventory", '<p class="empty-state"', '</div><p class="empty-state"')),
    benign("wrapper around the cart list", ("/cart", '<ul class="cart-list"',
                                            '<div class="cart-wrap"><ul class="cart-list"'),
           ("/cart", '<p class="empty-state"', '</div><p class="empty-state"')),
    benign("promo banner added at the top", *[(p, '<main', '<div class="promo" role="note">'
                                               'Free returns on every order</div><main')
                                              for p in PAGES]),
    benign("cart summary hint reworded", ("/cart", "Shipping and tax are calculated at checkout.",
                                          "Delivery and taxes are added at checkout.")),
    benign("cart heading reworded", ("/cart", "Your cart</h1>", "Your basket</h1>")),
    benign("catalogue heading reworded", ("/inventory", "Products</h1>", "All our gear</h1>")),
    benign("product descriptions reworded", (DATA, "A 24-litre daypack", "A roomy 24 L daypack"),
           (DATA, "A rechargeable front light", "A USB-rechargeable headlight")),
    benign("filter panel moved after the list", ("/inventory", '<aside class="filter-panel"',
                                                 '<aside style="order: 2" class="filter-panel"')),
    benign("log in button test id renamed",
           ("/", 'data-test="login-button"', 'data-test="sign-in"')),
    benign("footer copy reworded", *[(p, "All rights reserved.", "Made for the trail.")
                                     for p in PAGES]),
    benign("redesign (all of the above at once)", *[(p, "<head>", "<head>") for p in PAGES]),
    # regressions
    regression("Bike Light price wrong", (DATA, "price: 999,", "price: 1099,")),
    regression("sort by price broken (A to Z)", (JS, "lohi: (a, b) => a.price - b.price",
                                                 "lohi: (a, b) => a.name.localeCompare(b.name)")),
    regression("a product added to the catalogue", (DATA, "window.SHOP_PRODUCTS = [", (
        'window.SHOP_PRODUCTS = [{id: "spork", name: "Titanium Spork", category: '
        '"accessories", price: 599, description: "A spork.", details: "Light."},'))),
    regression("a product missing from the catalogue", (JS, "const cards = new Map(PRODUCTS",
                                                        "const cards = new Map(PRODUCTS.filter("
                                                        "(p) => p.id !== 't-shirt')")),
    regression("cart badge off by one", (JS, "badge.textContent = String(count);",
                                         "badge.textContent = String(count + 1);")),
    regression("add to cart buttons disabled", ("/inventory", 'class="btn cart-toggle"',
                                                'disabled class="btn cart-toggle"')),
    regression("tax and shipping in each other's fields", (
        JS, '$(".summary-tax").textContent = money(totals.tax);',
        '$(".summary-tax").textContent = totals.delivery ? money(totals.delivery) : "Free";'
        'const swapped = money(totals.tax);'), (
        JS, '$(".summary-shipping").textContent = totals.delivery ? money(totals.delivery) '
            ': "Free";', '')),
    regression("shipping error message missing", (JS, 'errors.push("Please choose a shipping '
                                                      'method")', "void 0")),
    regression("cart total wrong", (JS, '$("#cart-total").textContent = money(cart.total());',
                                    '$("#cart-total").textContent = money(cart.total() + 100);')),
    regression("cart quantity wrong", (JS, "input.value = String(quantity);",
                                       "input.value = String(quantity + 1);")),
    regression("tax rate wrong", (JS, "const TAX_RATE = 0.08;", "const TAX_RATE = 0.09;")),
    regression("express delivery price wrong", (JS, 'label: "Express delivery", price: 1499',
                                                'label: "Express delivery", price: 1599')),
    regression("welcome banner names the wrong person", (
        JS, "banner.textContent = `Welcome, ${welcome}! Your account is ready.`;",
        "banner.textContent = `Welcome, ${welcome.split(' ')[0]}! Your account is ready.`;")),
    regression("welcome banner missing", (JS, "banner.hidden = false;", "banner.hidden = true;")),
    regression("two product names swapped", (DATA, 'name: "Baby Onesie"', 'name: "Bike Lite"'),
               (DATA, 'name: "Bike Light"', 'name: "Baby Onesie"'),
               (DATA, 'name: "Bike Lite"', 'name: "Bike Light"')),
    regression("order total wrong", (JS, '$(".summary-total").textContent = money(totals.total);',
                                     '$(".summary-total").textContent = money(totals.total - 1);')),
    regression("item total shows the tax", (
        JS, '$(".summary-subtotal").textContent = money(totals.items);',
        '$(".summary-subtotal").textContent = money(totals.tax);')),
    regression("checkout button disabled", (JS, "checkout.disabled = cart.count() === 0;",
                                            "checkout.disabled = true;")),
    regression("catalogue prices a cent off", (
        JS, '$(".product-price", card).textContent = money(product.price);',
        '$(".product-price", card).textContent = money(product.price + 1);')),
    regression("cart line price wrong", (JS, "$(\".item-price\", row).textContent = "
                                             "money(product.price);",
                                         "$(\".item-price\", row).textContent = "
                                         "money(product.price + 1);")),
]

# The tests that read what each regression breaks: only they are replayed against it.
TARGETS = {
    "Bike Light price wrong": "catalogue cart",
    "sort by price broken (A to Z)": "catalogue",
    "a product added to the catalogue": "catalogue",
    "a product missing from the catalogue": "catalogue",
    "cart badge off by one": "catalogue",
    "add to cart buttons disabled": "cart",
    "tax and shipping in each other's fields": "checkout",
    "shipping error message missing": "shipping_is_required",
    "cart total wrong": "cart",
    "cart quantity wrong": "cart",
    "tax rate wrong": "checkout",
    "express delivery price wrong": "checkout",
    "welcome banner names the wrong person": "sign_up",
    "welcome banner missing": "sign_up",
    "two product names swapped": "catalogue",
    "order total wrong": "checkout",
    "item total shows the tax": "checkout",
    "cart line price wrong": "cart",
    "checkout button disabled": "checkout",
    "catalogue prices a cent off": "catalogue",
}
for _mutation in MUTATIONS:
    if _mutation.name in TARGETS:
        _mutation.tests = tuple(f"test_{name}" for name in TARGETS[_mutation.name].split())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="mutation names (substrings) to run")
    parser.add_argument("--test", help="one test of the suite")
    parser.add_argument("--jobs", type=int, default=3, help="replaying processes (default 3)")
    args = parser.parse_args()
    chosen = [i for i, m in enumerate(MUTATIONS)
              if not args.only or any(o in m.name for o in args.only)]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as work:
        recorded = Path(work) / "recorded"
        with serve_shop() as shop, ScriptedModelServer(default=bench_answer) as server, \
                sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=system_chromium_path())
            config = ModelConfig(oracle.MODEL, base_url=server.openai_base_url,
                                 api_key=oracle.PLACEHOLDER_KEY, max_retries=0)
            with create_client(config) as client:
                run_suite(browser, shop.url, recorded, "auto", client, None, None, args.test)
            browser.close()
            print(f"recorded the suite ({len(Suite.TESTS)} tests) with the scripted shop "
                  f"oracle: {server.calls} answers", flush=True)
        # Replays mostly wait on the browser: a few processes share the machine well.
        groups = [chosen[n :: args.jobs] for n in range(args.jobs)]
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(args.jobs, mp_context=spawn) as pool:
            futures = [pool.submit(replay_group, group, recorded, args.test) for group in groups]
            results = dict(item for future in futures for item in future.result())
    rows = [(MUTATIONS[i], results[i]) for i in chosen]
    report(rows, time.monotonic() - started)
    return 0


def replay_group(indexes: list[int], recorded: Path, only: str | None) -> list[tuple[int, Outcome]]:
    """Replay the suite offline against each of these mutations, in a browser of its own."""
    results = []
    with serve_shop() as shop, sync_playwright() as playwright, \
            tempfile.TemporaryDirectory() as work:
        browser = playwright.chromium.launch(executable_path=system_chromium_path())
        for index in indexes:
            mutation = MUTATIONS[index]
            store = Path(work) / f"m{index}"
            shutil.copytree(recorded, store)  # heals written by one replay stay there
            shop.variant = "redesign" if "redesign" in mutation.name else "classic"
            outcome = Outcome()
            run_suite(browser, shop.url, store, "offline", None, mutation, outcome, only)
            results.append((index, outcome))
            failed = outcome.failed["verified"]
            verdict = "FAILED " + ", ".join(sorted(failed)) if failed else "passed"
            lines = [f"{mutation.kind:10} {mutation.name:45} {verdict}"]
            lines += [f"{'':13}{test}: {why}" for test, why in failed.items()]
            print("\n".join(lines), flush=True)
        browser.close()
    return results


def report(rows: list[tuple[Mutation, Outcome]], seconds: float) -> None:
    replays = ("verified", "blind", "witness")
    print()
    print(f"{'mutation':46} {'kind':10} " + " ".join(f"{r:>9}" for r in replays))
    for mutation, outcome in rows:
        cells = ["FAIL" if outcome.failed[r] else "pass" for r in replays]
        print(f"{mutation.name:46} {mutation.kind:10} " + " ".join(f"{c:>9}" for c in cells))
    print()
    benign_rows = [o for m, o in rows if m.kind == "benign"]
    regressions = [o for m, o in rows if m.kind == "regression"]
    print(f"{len(rows)} mutations: {len(benign_rows)} benign, {len(regressions)} regressions "
          f"({seconds:.0f} s)")
    print(f"{'':28}" + " ".join(f"{r:>9}" for r in replays))
    false_passes = [sum(not o.failed[r] for o in regressions) for r in replays]
    false_failures = [sum(bool(o.failed[r]) for o in benign_rows) for r in replays]
    print(f"{'false passes (must be 0)':28}" + " ".join(f"{n:>9}" for n in false_passes))
    share = [f"{100 * n / max(1, len(benign_rows)):.0f}%" for n in false_failures]
    print(f"{'false failures (<= 5%)':28}" + " ".join(
        f"{f'{n} {s}':>9}" for n, s in zip(false_failures, share, strict=True)))
    kinds: dict[str, list[int]] = {}
    for mutation, outcome in rows:
        for why in outcome.failed["verified"].values():
            kinds.setdefault(why.split(":")[0], [0, 0])[mutation.kind == "regression"] += 1
    print("failing steps of the verified replay by kind (benign, regression): " + ", ".join(
        f"{kind} {b}/{r}" for kind, (b, r) in sorted(kinds.items())))


if __name__ == "__main__":
    sys.exit(main())
