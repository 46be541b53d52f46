"""Benchmark: healing recorded elements on mutated pages, against blind replay.

Run: .venv/bin/python bench/bench_heal.py [--pages 12] [--targets 6] [--seed 7]

Generates pages (navigation, login form, product cards, settings, search, an orders table,
footer; random classes, ids and test ids), records interactive elements from a snapshot as
the act pipeline does, mutates each page, and replays every recording with `heal.resolve`.

Per mutation kind: cases; kept (the element kept its role and name); found (the recorded
element, directly or healed); healed; refused (HealFailed); wrong (another element);
found|kept (the heal rate the target is about). Beside it, blind replay on the same cases:
the snapshot's primary selector (test id, else CSS path) acted on without checking, and
Stagehand's way, the absolute XPath alone ("missing": no single hit, so it fails loudly).

The truth is the element object itself, held in a JavaScript variable (`window.__truth`)
that the healer cannot see. "removed" deletes the element: every answer but a refusal is
wrong there. Cards and rows move whole: a lone "Add to cart" taken out of its card is
indistinguishable from its look-alikes, and is (rightly) refused.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass

from playwright.sync_api import Page, sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.heal.meaning import HEAL_MARGIN, HEAL_THRESHOLD
from pytest_stagehand.heal.resolve import resolve
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import inspect, snapshot

INTERACTIVE = {"button", "link", "textbox", "searchbox", "checkbox", "combobox"}
PRODUCTS = [
    "Backpack", "Bike Light", "Bolt T-Shirt", "Fleece Jacket", "Onesie", "Red Hoodie",
    "Water Bottle", "Sunglasses", "Travel Mug", "Notebook",
]  # fmt: skip
STATUSES = ["Shipped", "Pending", "Delivered", "Cancelled", "Processing"]
BUTTON_STYLES = [("btn", "btn-primary"), ("button", "is-main"), ("ui-button",), ("c-btn", "c-blue")]

# --- pages -------------------------------------------------------------------------------


class Names:
    """Random ids, test ids and classes for one page, in one of several naming styles."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.button = rng.choice(BUTTON_STYLES)
        self.used: set[str] = set()

    def attrs(self, slug: str, classes: tuple[str, ...] = (), testid: float = 0.4) -> str:
        parts = []
        if self.rng.random() < 0.6 and slug not in self.used:
            self.used.add(slug)
            parts.append(f'id="{slug}"')
        if self.rng.random() < testid:
            parts.append(f'data-testid="{slug}-{self.rng.randrange(100)}"')
        if classes:
            parts.append(f'class="{" ".join(classes)}"')
        return " ".join(parts)


def nav(rng: random.Random, n: Names) -> str:
    links = rng.sample(["Home", "Products", "Pricing", "Blog", "About", "Contact", "Docs"], 4)
    items = "".join(
        f'<li class="nav-item"><a href="/{t.lower()}" {n.attrs("nav-" + t.lower())}>{t}</a></li>'
        for t in links
    )
    return f'<header class="top"><nav aria-label="Main"><ul class="nav">{items}</ul></nav></header>'


def login(rng: random.Random, n: Names) -> str:
    verb = rng.choice(["Log in", "Sign in"])
    return (
        f'<section class="panel" aria-label="Account"><h2>Welcome back</h2>'
        f'<form class="login-form" {n.attrs("login-form")}>'
        f'<div class="field"><label for="user">Username</label>'
        f'<input id="user" name="username" class="input"></div>'
        f'<div class="field"><label for="pass">Password</label>'
        f'<input id="pass" name="password" type="password" class="input"></div>'
        f'<label class="check"><input type="checkbox" name="remember"> Remember me</label>'
        f'<div class="actions"><button type="submit" {n.attrs("login", n.button)}>{verb}</button>'
        f'<a href="/forgot" {n.attrs("forgot")}>Forgot password?</a></div></form></section>'
    )


def products(rng: random.Random, n: Names) -> str:
    cards = []
    for name in rng.sample(PRODUCTS, rng.randint(3, 5)):
        slug = name.lower().replace(" ", "-")
        cards.append(
            f'<li class="card"><h3>{name}</h3><p class="desc">The {name.lower()} you need, '
            f"now ${rng.randint(5, 60)}.99</p>"
            f'<button type="button" {n.attrs("add-" + slug, n.button)}>Add to cart</button> '
            f'<a href="/p/{slug}" class="more">Details</a></li>'
        )
    grid = f'<ul class="grid">{"".join(cards)}</ul>'
    return f'<section class="products"><h2>Products</h2>{grid}</section>'


def settings(rng: random.Random, n: Names) -> str:
    return (
        f'<section class="settings"><h2>Settings</h2>'
        f'<label class="check"><input type="checkbox" name="email" {n.attrs("email")}> '
        f"Email notifications</label>"
        f'<label for="lang">Language</label><select id="lang" name="language">'
        f"<option>English</option><option>Deutsch</option></select>"
        f'<div class="actions"><button type="button" {n.attrs("save", n.button)}>Save changes'
        f'</button><button type="button" {n.attrs("reset", ("btn", "btn-light"))}>Reset</button>'
        f"</div></section>"
    )


def search(rng: random.Random, n: Names) -> str:
    return (
        f'<form role="search" class="search"><input type="search" aria-label="Search products" '
        f'placeholder="Search…" {n.attrs("q")}>'
        f'<button type="submit" {n.attrs("go", n.button)}>Search</button></form>'
    )


def orders(rng: random.Random, n: Names) -> str:
    rows = "".join(
        f"<tr><td>#{number}</td><td>{rng.choice(STATUSES)}</td><td>"
        f'<button type="button" class="link">View</button> '
        f'<button type="button" class="link danger">Cancel</button></td></tr>'
        for number in rng.sample(range(1000, 9999), rng.randint(2, 4))
    )
    return (
        '<section class="orders"><h2>Recent orders</h2><table class="table"><thead><tr>'
        f"<th>Order</th><th>Status</th><th>Actions</th></tr></thead><tbody>{rows}</tbody>"
        "</table></section>"
    )


def footer(rng: random.Random, n: Names) -> str:
    links = "".join(f'<a href="/{t.lower()}">{t}</a> ' for t in ("Privacy", "Terms", "Help"))
    return f'<footer class="bottom">{links}<p>© 2025 Example Inc.</p></footer>'


def base_page(rng: random.Random) -> str:
    names = Names(rng)
    middle = [login, products, settings, search, orders]
    chosen = rng.sample(middle, rng.randint(3, len(middle)))
    body = "".join(widget(rng, names) for widget in chosen)
    return (
        f"<!doctype html><html><head><title>Page</title></head><body>{nav(rng, names)}"
        f'<main class="content">{body}</main>{footer(rng, names)}</body></html>'
    )


# --- mutations (JavaScript; `window.__truth` is the recorded element) ----------------------

RENAME = """(seed) => {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648).toString(36);
  const ids = new Map(), classes = new Map();
  const renamed = (map, old) => {
    if (!map.has(old)) map.set(old, "k" + rnd());
    return map.get(old);
  };
  for (const el of document.querySelectorAll("body *")) {
    if (el.id) el.id = renamed(ids, el.id);
    if (el.classList.length) {
      el.className = [...el.classList].map((c) => renamed(classes, c)).join(" ");
    }
  }
  for (const label of document.querySelectorAll("label[for]")) {
    label.htmlFor = renamed(ids, label.htmlFor);
  }
}"""
WRAP = """(seed) => {
  const wrap = (el, tag) => { const w = document.createElement(tag); w.className = "wrapper";
                              el.replaceWith(w); w.append(el); };
  const parent = window.__truth.parentElement;
  if (parent !== document.body) wrap(parent, "div");
  if (seed % 2) wrap(window.__truth, "span");
}"""
MOVE = """(seed) => {
  const t = window.__truth;
  const block = t.closest("li, tr") || t;          // a card or row moves whole
  if (seed % 3 === 0 && block !== t && block.parentElement.firstElementChild !== block) {
    block.parentElement.prepend(block);            // reordered within its list
  } else if (seed % 3 === 1) {
    const main = document.querySelector("main");   // its whole section moved elsewhere
    const section = t.closest("main > *");
    if (section && main.firstElementChild !== section) main.prepend(section);
    else if (section) main.append(section);
    else document.body.prepend(t.closest("body > *"));
  } else {
    const target = [...document.querySelectorAll("main > *, footer")].find((s) => !s.contains(t));
    (target || document.body).append(block);       // moved into another section
  }
}"""
TWEAK = """(seed) => {
  const t = window.__truth;
  const own = ["INPUT", "SELECT", "TEXTAREA"].includes(t.tagName) ? (t.labels && t.labels[0]) : t;
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node, i = 0; (node = texts.nextNode()); i++) {
    if (own && own.contains(node)) continue;
    if (i % 2 === 0 && node.textContent.trim()) {     // other texts reworded
      node.textContent = node.textContent.replace(/\\b(the|now|you)\\b/, "our") + " ";
    }
  }
  if (!own || !own.textContent.trim()) return;
  if (seed % 3 === 0) own.lastChild.textContent += " now";  // a new name
  else own.lastChild.textContent = own.lastChild.textContent.toUpperCase();  // in capitals
}"""
DECOY = """(seed) => {
  const t = window.__truth;
  const item = t.closest("li, tr");
  if (item && seed % 2) {                           // a new card or row before it, same button
    const copy = item.cloneNode(true);
    for (const e of copy.querySelectorAll("[id], [data-testid]")) {
      e.removeAttribute("id");
      e.removeAttribute("data-testid");
    }
    const heading = copy.querySelector("h3, td");
    if (heading) heading.textContent = "New arrival " + seed;
    else copy.append(" New");                       // near, not exact: one word differs
    item.before(copy);
    return;
  }
  const copy = t.cloneNode(true);                   // the same control in a promo banner
  copy.removeAttribute("id"); copy.removeAttribute("data-testid");
  const banner = document.createElement("section");
  banner.className = "promo";
  banner.innerHTML = "<p>Limited offer: 20% off everything this week.</p>";
  banner.append(copy);
  document.querySelector("main").prepend(banner);
}"""
REMOVE = """(seed) => { window.__truth.remove(); }"""

MUTATIONS: dict[str, list[str]] = {
    "renamed ids+classes": [RENAME],
    "wrapper added": [WRAP],
    "moved": [MOVE],
    "text tweaked": [TWEAK],
    "decoy added": [DECOY],
    "renamed+wrapper": [RENAME, WRAP],
    "moved+decoy": [MOVE, DECOY],
    "all five": [RENAME, WRAP, MOVE, TWEAK, DECOY],
    "removed": [REMOVE],
}


# --- running -----------------------------------------------------------------------------


@dataclass
class Target:
    html: str
    selector: str  # the snapshot's own selector: what a tool without checks replays
    element: RecordedElement


def targets(page: Page, rng: random.Random, pages: int, per_page: int) -> list[Target]:
    found = []
    for _ in range(pages):
        html = base_page(rng)
        page.set_content(html)
        page_snapshot = snapshot(page)
        refs = [
            ref
            for ref in page_snapshot.elements.values()
            if ref.role in INTERACTIVE and ref.name and not ref.frame_path
        ]
        for ref in rng.sample(refs, min(per_page, len(refs))):
            found.append(Target(html, ref.selector, recorded_element(page, page_snapshot, ref)))
    return found


def is_truth(page: Page, selector: str) -> bool:
    return page.locator(selector).first.evaluate("el => el === window.__truth")


def blind(page: Page, selector: str | None) -> str:
    """What acting on a recorded selector without checking would hit.

    Several hits fail loudly (Playwright's strict mode), so they count as missing.
    """
    if selector is None or page.locator(selector).count() != 1:
        return "missing"
    return "right" if is_truth(page, selector) else "wrong"


MARK = """() => {
  const t = window.__truth;
  if (t.isConnected) t.setAttribute("data-bench-truth", "");
  return t.isConnected;
}"""


def role_and_name(page: Page) -> tuple[str, str] | None:
    """The truth's role and name now, read through a marker removed before any replay."""
    if not page.evaluate(MARK):
        return None
    fingerprint = inspect(page.locator("[data-bench-truth]")).fingerprint
    page.evaluate("() => window.__truth.removeAttribute('data-bench-truth')")
    return fingerprint and (fingerprint.role, " ".join(fingerprint.name.split()).casefold())


@dataclass(frozen=True)
class Outcome:
    kept: bool
    ours: str  # direct, healed, refused or wrong
    blind: str  # right, wrong or missing
    xpath: str


def run_case(page: Page, target: Target, scripts: list[str], seed: int) -> Outcome:
    page.set_content(target.html)
    page.locator(target.selector).evaluate("el => { window.__truth = el; }")
    for script in scripts:
        page.evaluate(script, seed)
    recorded = target.element.fingerprint
    kept = role_and_name(page) == (recorded.role, " ".join(recorded.name.split()).casefold())
    xpath = next((s for s in target.element.selectors if s.startswith("xpath=")), None)
    blind_outcomes = blind(page, target.selector), blind(page, xpath)
    try:
        resolution = resolve(page, target.element, wait_ms=0)
    except HealFailed:
        return Outcome(kept, "refused", *blind_outcomes)
    if not resolution.locator.evaluate("el => el === window.__truth"):
        return Outcome(kept, "wrong", *blind_outcomes)
    return Outcome(kept, "healed" if resolution.heal else "direct", *blind_outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--targets", type=int, default=6, help="recorded elements per page")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    begin = time.perf_counter()
    launch_options = find_chromium().launch_options()  # asks Playwright, so outside the block
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options)
        page = browser.new_page()
        recorded = targets(page, rng, args.pages, args.targets)
        results: dict[str, list[Outcome]] = {}
        for name, scripts in MUTATIONS.items():
            results[name] = [
                run_case(page, target, scripts, rng.randrange(1, 2**30)) for target in recorded
            ]
        browser.close()
    print_table(results)
    print(
        f"\n{len(recorded)} recorded elements on {args.pages} pages, seed {args.seed}; "
        f"heal threshold {HEAL_THRESHOLD}, margin {HEAL_MARGIN}; "
        f"{time.perf_counter() - begin:.0f} s"
    )


def print_table(results: dict[str, list[Outcome]]) -> None:
    header = (
        f"{'mutation':<20} {'cases':>5} {'kept':>5} {'found':>6} {'healed':>6} {'refused':>7} "
        f"{'wrong':>5} {'found|kept':>10} │ {'blind wrong':>11} {'missing':>7} │ "
        f"{'xpath wrong':>11}"
    )
    print(header)
    print("─" * len(header))
    totals: Counter[str] = Counter()
    for name, outcomes in results.items():
        ours = Counter(o.ours for o in outcomes)
        blind_counts = Counter(o.blind for o in outcomes)
        kept = [o for o in outcomes if o.kept]
        found_kept = sum(o.ours in ("direct", "healed") for o in kept)
        cases = len(outcomes)
        if name != "removed":
            totals.update(
                cases=cases,
                kept=len(kept),
                found_kept=found_kept,
                wrong=ours["wrong"],
                blind_wrong=blind_counts["wrong"],
            )
        print(
            f"{name:<20} {cases:>5} {len(kept):>5} {ours['direct'] + ours['healed']:>6} "
            f"{ours['healed']:>6} {ours['refused']:>7} {_pct(ours['wrong'], cases):>5} "
            f"{_pct(found_kept, len(kept)):>10} │ {_pct(blind_counts['wrong'], cases):>11} "
            f"{_pct(blind_counts['missing'], cases):>7} │ "
            f"{_pct(sum(o.xpath == 'wrong' for o in outcomes), cases):>11}"
        )
    print("─" * len(header))
    print(
        f"{'all but removed':<20} {totals['cases']:>5} {totals['kept']:>5} {'':>6} {'':>6} "
        f"{'':>7} {_pct(totals['wrong'], totals['cases']):>5} "
        f"{_pct(totals['found_kept'], totals['kept']):>10} │ "
        f"{_pct(totals['blind_wrong'], totals['cases']):>11}"
    )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


if __name__ == "__main__":
    main()
