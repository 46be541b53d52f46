"""Benchmark: our snapshot vs Playwright's `page.aria_snapshot(mode="ai")`.

Run: .venv/bin/python bench/bench_snapshot.py

For generated pages of about 1k, 10k and 50k elements and a 1,500-row table, prints time
(median of a few runs), size in characters and estimated tokens for both, their ratios, and
how often the role and name of an interactive element agree with Playwright's.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import Counter
from collections.abc import Callable

from playwright.sync_api import Page, sync_playwright

from pytest_stagehand.browser import find_chromium
from pytest_stagehand.snapshot import estimate_tokens, snapshot

INTERACTIVE = {
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
    "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "treeitem", "gridcell",
}  # fmt: skip
OUR_RUNS = 5
PLAYWRIGHT_RUNS = 2
# `- role "name" [...] [ref=e5]` in Playwright's YAML; `[e5] role "name" ...` in ours.
PLAYWRIGHT_LINE = re.compile(r'^(\w+)(?: "((?:[^"\\]|\\.)*)")?.*\[ref=\w+\]')
OUR_LINE = re.compile(r'^\[e\d+\] (\w+)(?: "((?:[^"\\]|\\.)*)")?')


def card(i: int) -> str:
    """One product card: about 25 elements of everyday markup."""
    select = (
        f'<label>Size <select name="size-{i}"><option>S</option><option selected>M</option>'
        "<option>L</option></select></label>"
        if i % 3 == 0
        else ""
    )
    return f"""
    <div class="col"><section class="card" data-id="{i}">
      <h3>Product {i}</h3>
      <img alt="Photo of product {i}" src="data:," width="40" height="30">
      <p>Hand-made item number {i}, <b>limited</b> edition. <a href="/p/{i}">Details</a>.</p>
      <ul class="meta">
        <li><a href="/p/{i}/specs">Specs</a></li>
        <li><a href="/p/{i}/reviews">Reviews ({i % 17})</a></li>
        <li><span class="stock">In stock</span></li>
      </ul>
      <div class="row"><span class="price">${i % 90 + 9}.99</span>
        <button data-testid="add-{i}">Add to cart</button>
        <button aria-label="Favourite product {i}"><span class="icon">♥</span></button></div>
      <div class="row"><label>Qty <input type="number" name="qty-{i}" value="1"></label>{select}
        <input type="checkbox" id="cmp-{i}"><label for="cmp-{i}">Compare</label></div>
    </section></div>"""


def catalogue(cards: int) -> str:
    nav = "".join(f'<li><a href="/c/{c}">Category {c}</a></li>' for c in range(12))
    grid = "".join(card(i) for i in range(cards))
    return f"""<!doctype html><html><head><title>Catalogue</title></head><body>
    <header><nav aria-label="Categories"><ul>{nav}</ul></nav>
    <form role="search"><input type="search" aria-label="Search" placeholder="Search">
    <button>Go</button></form></header>
    <main><h1>All products</h1><div class="grid">{grid}</div></main>
    <footer><p>© Shop</p><a href="/terms">Terms</a></footer></body></html>"""


def table(rows: int) -> str:
    body = "".join(
        f'<tr><td>Item {i}</td><td><a href="/items/{i}">Open item {i}</a></td>'
        "<td><button>Delete</button></td></tr>"
        for i in range(rows)
    )
    return f"""<!doctype html><html><head><title>Items</title></head><body><h1>Items</h1>
    <table><thead><tr><th>Name</th><th>Link</th><th>Action</th></tr></thead>
    <tbody>{body}</tbody></table></body></html>"""


def timed(fn: Callable[[], str], runs: int) -> tuple[float, str]:
    times, result = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def pairs(text: str, pattern: re.Pattern[str], prefix: str) -> Counter[tuple[str, str]]:
    """(role, name) of each interactive line that carries a ref/id."""
    found: Counter[tuple[str, str]] = Counter()
    for raw in text.splitlines():
        line = raw.strip().removeprefix(prefix)
        if line.startswith("'") and line.endswith("'"):  # YAML-quoted line
            line = line[1:-1].replace("''", "'")
        match = pattern.match(line)
        if match and match[1] in INTERACTIVE:
            found[(match[1], (match[2] or "").replace('\\"', '"').replace("\\\\", "\\"))] += 1
    return found


def measure(page: Page, label: str, html: str) -> list[str]:
    page.set_content(html)
    # Lay the page out first, as a browser does before anyone looks at it, so neither side
    # pays for the first layout.
    page.evaluate("document.body.getBoundingClientRect()")
    elements = page.evaluate("document.querySelectorAll('*').length")
    ours_s, ours = timed(lambda: snapshot(page).text, OUR_RUNS)
    pw_s, theirs = timed(lambda: page.aria_snapshot(mode="ai", timeout=0), PLAYWRIGHT_RUNS)
    mine, reference = pairs(ours, OUR_LINE, ""), pairs(theirs, PLAYWRIGHT_LINE, "- ")
    agreement = sum((mine & reference).values()) / max(1, sum(reference.values()))
    return [
        label,
        f"{elements:,}",
        f"{ours_s:.3f}",
        f"{pw_s:.3f}",
        f"{pw_s / ours_s:.1f}x",
        f"{len(ours):,}",
        f"{len(theirs):,}",
        f"{estimate_tokens(ours):,}",
        f"{estimate_tokens(theirs):,}",
        f"{len(ours) / len(theirs):.2f}",
        f"{agreement:.1%} of {sum(reference.values()):,}",
    ]


def main() -> None:
    pages = [
        ("catalogue ~1k", catalogue(38)),
        ("catalogue ~10k", catalogue(400)),
        ("catalogue ~50k", catalogue(2000)),
        ("table 1,500 rows", table(1500)),
    ]
    header = [
        "page", "elements", "ours s", "pw s", "speed-up", "ours chars", "pw chars",
        "ours tok", "pw tok", "size ratio", "role+name agree",
    ]  # fmt: skip
    choice = find_chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(**choice.launch_options())
        page = browser.new_page()
        rows = [header] + [measure(page, label, html) for label, html in pages]
        browser.close()
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    print(
        f"\nmedian of {OUR_RUNS} runs (ours) and {PLAYWRIGHT_RUNS} (Playwright); tokens ~ chars/4."
        "\ntargets: table under 0.5 s, size ratio at most 1.00, agreement at least 99%."
    )


if __name__ == "__main__":
    main()
