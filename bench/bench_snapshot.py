"""Benchmark: our snapshot vs Playwright's AI snapshot and Stagehand v3's, on the same tab.

Run: .venv/bin/python bench/bench_snapshot.py [--runs 5] [--only table]

Stagehand 3.7.3 (npm; `PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install
@browserbasehq/stagehand@3.7.3` into bench/.npm, or the folder named by STAGEHAND_NPM) is
attached over CDP to the same Chromium and takes its hybrid accessibility-tree snapshot
(`page.snapshot()`, what its act/observe prompts carry) of the same tab; without it its
columns read "-".

For generated pages (a 1,500-row table; product catalogues of about 10k and 50k elements;
TodoMVC with 200 todos; a practice app of about 2,900 elements), prints per contender the
median time of `--runs` runs (contenders rotated within each run), our script's time inside
the page alone (ms per 1,000 elements), for its walk of the page and for all of it, what
taking one element's description, and all of them, from the page costs afterwards, o200k
tokens (bpe-openai, which ships the o200k table; else characters / 4) and the ratios, and
coverage: how many of the interactive elements Playwright's AI snapshot lists (role and
name) are in ours.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import time
import urllib.request
from collections import Counter
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.prompts.chunks import count_tokens, token_counter
from pytest_stagehand.snapshot.outline import _script, snapshot

INTERACTIVE = {
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
    "switch", "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "treeitem", "gridcell",
}  # fmt: skip
# `- role "name" [...] [ref=e5]` in Playwright's YAML; `e5 role "name" ...` in ours.
PLAYWRIGHT_LINE = re.compile(r'^(\w+)(?: "((?:[^"\\]|\\.)*)")?.*\[ref=\w+\]')
OUR_LINE = re.compile(r'^e\d+ (\w+)(?: "((?:[^"\\]|\\.)*)")?')
STAGEHAND_NPM = Path(os.environ.get("STAGEHAND_NPM", Path(__file__).parent / ".npm"))
ORIGIN = "http://bench.local"


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


def todomvc(todos: int) -> str:
    """TodoMVC's markup and the CSS that matters here: delete buttons only on hover."""
    items = "".join(
        f'<li class="{"completed" if i % 4 == 0 else ""}"><div class="view">'
        f'<input class="toggle" type="checkbox"{" checked" if i % 4 == 0 else ""}>'
        f"<label>Todo number {i}: {'water the plants' if i % 2 else 'call the bank'}</label>"
        f'<button class="destroy"></button></div><input class="edit" value="Todo number {i}"></li>'
        for i in range(todos)
    )
    return f"""<!doctype html><html><head><title>TodoMVC</title><style>
    .todo-list li .edit, .todo-list li .destroy {{ display: none; }}
    .todo-list li:hover .destroy {{ display: block; }}
    .destroy::after {{ content: "×"; }}
    .toggle-all {{ opacity: 0; }}
    .todo-list label, .filters a {{ cursor: pointer; }}
    </style></head><body><section class="todoapp">
    <header class="header"><h1>todos</h1>
    <input class="new-todo" placeholder="What needs to be done?"></header>
    <section class="main"><input id="toggle-all" class="toggle-all" type="checkbox">
    <label for="toggle-all">Mark all as complete</label><ul class="todo-list">{items}</ul></section>
    <footer class="footer"><span class="todo-count"><strong>{todos}</strong> items left</span>
    <ul class="filters"><li><a class="selected" href="#/">All</a></li>
    <li><a href="#/active">Active</a></li><li><a href="#/completed">Completed</a></li></ul>
    <button class="clear-completed">Clear completed</button></footer></section>
    <footer class="info"><p>Double-click to edit a todo</p><p>Part of <a href="/">TodoMVC</a></p>
    </footer></body></html>"""


def practice_app() -> str:
    """A practice site of about 2,900 elements: menus, a long form, a data table, an article."""
    menu = "".join(
        f'<li class="menu-item"><a href="/section/{m}">Section {m}</a><ul class="submenu">'
        + "".join(f'<li><a href="/section/{m}/{k}">Topic {m}.{k}</a></li>' for k in range(6))
        + "</ul></li>"
        for m in range(10)
    )
    fields = "".join(
        f'<div class="form-group"><label for="f{i}">Field {i}</label>'
        + (
            f'<select id="f{i}" class="form-control">'
            + "".join(f"<option>Choice {c}</option>" for c in range(8))
            + "</select>"
            if i % 4 == 0
            else f'<input id="f{i}" class="form-control" type="{("text", "email", "tel")[i % 3]}"'
            f' placeholder="Enter field {i}">'
        )
        + f'<small class="form-text">Help for field {i}.</small></div>'
        for i in range(100)
    )
    radios = "".join(
        f'<label class="radio-inline"><input type="radio" name="plan" value="p{i}">'
        f" Plan {i}</label>"
        for i in range(6)
    )
    rows = "".join(
        f"<tr><td>{i}</td><td>User {i}</td><td>user{i}@example.com</td><td>${i * 7 % 500}</td>"
        f'<td><a href="/users/{i}/edit">edit</a> <a href="/users/{i}/delete">delete</a></td></tr>'
        for i in range(200)
    )
    article = "".join(
        f"<h3>Chapter {c}</h3>"
        + "".join(
            f"<p>Paragraph {p} of chapter {c} explains a <em>practice</em> topic with "
            f'<a href="/ref/{c}/{p}">a reference</a> and <code>code {p}</code>.</p>'
            for p in range(8)
        )
        for c in range(12)
    )
    return f"""<!doctype html><html><head><title>Practice app</title><style>
    .submenu {{ display: none; }} .menu-item:hover .submenu {{ display: block; }}
    </style></head><body>
    <header><nav aria-label="Main"><ul class="menu">{menu}</ul></nav></header>
    <main><h1>Practice app</h1>
    <section aria-label="Sign up"><h2>Sign up</h2><form>{fields}
    <fieldset><legend>Plan</legend>{radios}</fieldset>
    <label><input type="checkbox" name="terms"> I accept the terms</label>
    <button type="submit">Register</button></form></section>
    <section aria-label="Users"><h2>Users</h2><table><thead><tr><th>#</th><th>Name</th>
    <th>Email</th><th>Due</th><th>Action</th></tr></thead><tbody>{rows}</tbody></table></section>
    <article><h2>Guide</h2>{article}</article></main>
    <footer><p>© Practice</p><a href="/about">About</a></footer></body></html>"""


def admin_portal() -> str:
    """A held-out page, written before the outline's format was tuned to the pages above:
    an admin portal of about 3,000 elements (breadcrumbs, a sidebar, an orders grid with
    pagination and per-row menus, a news feed with "Read more" links, a settings form, a
    footer of link lists). Its links point where real apps' do: slugs, query strings,
    other origins."""
    side = "".join(
        f'<li><a href="/admin/{slug}" class="{"on" if slug == "orders" else ""}">{label}</a></li>'
        for slug, label in [("dashboard", "Dashboard"), ("orders", "Orders"), ("customers",
        "Customers"), ("catalog/products", "Products"), ("reports?range=30d", "Reports"),
        ("settings", "Settings"), ("help", "Help centre")]
    )  # fmt: skip
    statuses = ["Paid", "Pending", "Refunded", "Shipped", "Cancelled"]
    names = ["Grace Hopper", "Alan Turing", "Ada Lovelace", "Linus Torvalds", "Barbara Liskov"]
    orders = "".join(
        f'<tr><td><input type="checkbox" aria-label="Select order #{10400 + i}"></td>'
        f'<td><a href="/admin/orders/{10400 + i}">#{10400 + i}</a></td>'
        f'<td><a href="/admin/customers/c_{i * 37 % 997:04d}">{names[i % 5]}</a></td>'
        f'<td>{i % 28 + 1} Mar 2026</td><td><span class="badge">{statuses[i % 5]}</span></td>'
        f"<td>€{(i * 53) % 900 + 12}.{i % 100:02d}</td>"
        f'<td><div class="menu"><button aria-haspopup="menu">Actions</button>'
        f'<ul role="menu" hidden>'
        f'<li role="menuitem">Refund</li><li role="menuitem">Print invoice</li></ul></div>'
        f'<a href="/admin/orders/{10400 + i}/invoice.pdf" download>Invoice</a></td></tr>'
        for i in range(250)
    )
    pager = "".join(f'<a href="?page={n}" aria-label="Page {n}">{n}</a>' for n in range(1, 11))
    news = "".join(
        f'<article class="post"><h3><a href="/blog/2026/{i:02d}/release-notes-{i}">Release notes'
        f" {i}: faster exports</a></h3><p>Posted by {names[i % 5]} on {i % 28 + 1} Feb 2026."
        f" Exports of large order lists now stream, and filters remember their state.</p>"
        f'<a href="/blog/2026/{i:02d}/release-notes-{i}#more" class="more">Read more</a>'
        f'<a href="https://social.example.com/share?u=/blog/{i}">Share</a></article>'
        for i in range(40)
    )
    settings = "".join(
        f'<div class="field"><label for="s{i}">{label}</label>'
        f'<input id="s{i}" name="{label.lower().replace(" ", "_")}" value="{value}"></div>'
        for i, (label, value) in enumerate([("Store name", "Tin Shop"), ("Support email",
        "help@tin.example"), ("Phone", "+44 20 7946 0000"), ("VAT number", "GB123456789"),
        ("Street", "1 Long Lane"), ("City", "London"), ("Postcode", "EC1A 1BB")])
    )  # fmt: skip
    footer = "".join(
        f"<section><h4>{title}</h4><ul>"
        + "".join(f'<li><a href="{href}">{text}</a></li>' for text, href in links)
        + "</ul></section>"
        for title, links in [
            ("Product", [("Pricing", "/pricing"), ("Changelog", "/changelog"),
                         ("Status", "https://status.example.com/")]),
            ("Company", [("About us", "/about"), ("Careers", "/jobs"), ("Press kit", "/press")]),
            ("Legal", [("Privacy", "/legal/privacy"), ("Terms", "/legal/terms"),
                       ("Cookie settings", "#cookies")]),
        ]
    )  # fmt: skip
    return f"""<!doctype html><html><head><title>Orders · Admin</title></head><body>
    <header><a href="/admin" aria-label="Home"><img alt="Tin Shop" src="data:,"></a>
    <form role="search"><input type="search" placeholder="Search orders, customers">
    <button>Search</button></form><button aria-label="Notifications (3)">🔔</button>
    <a href="/account">Signed in as Grace</a></header>
    <nav aria-label="Breadcrumb"><ol><li><a href="/admin">Admin</a></li>
    <li><a href="/admin/orders">Orders</a></li><li aria-current="page">All orders</li></ol></nav>
    <aside><nav aria-label="Sections"><ul>{side}</ul></nav></aside>
    <main><h1>Orders</h1><div class="filters"><label>Status <select><option>Any</option>
    {"".join(f"<option>{s}</option>" for s in statuses)}</select></label>
    <label>From <input type="date"></label><button>Apply</button>
    <a href="/admin/orders/export?format=csv">Export CSV</a></div>
    <table><thead><tr><th></th><th>Order</th><th>Customer</th><th>Date</th><th>Status</th>
    <th>Total</th><th></th></tr></thead><tbody>{orders}</tbody></table>
    <nav aria-label="Pagination">{pager}<a href="?page=2" rel="next">Next</a></nav>
    <section aria-label="News"><h2>What's new</h2>{news}</section>
    <section aria-label="Store settings"><h2>Settings</h2><form>{settings}
    <label><input type="checkbox" checked> Email me a daily summary</label>
    <button type="submit">Save changes</button></form></section></main>
    <footer>{footer}<p>© 2026 Tin Shop Ltd.</p></footer></body></html>"""


def pages() -> dict[str, str]:
    return {
        "table 1,500 rows": table(1500),
        "catalogue ~10k": catalogue(400),
        "catalogue ~50k": catalogue(2000),
        "TodoMVC 200 todos": todomvc(200),
        "practice app ~2.9k": practice_app(),
        "admin portal (held out)": admin_portal(),
    }


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


class Stagehand:
    """Stagehand's snapshot, taken by bench/stagehand_snapshot.cjs in a node process."""

    def __init__(self, cdp_port: int) -> None:
        self.process: subprocess.Popen[str] | None = None
        if not (STAGEHAND_NPM / "node_modules/@browserbasehq/stagehand").is_dir():
            return
        with urllib.request.urlopen(f"http://127.0.0.1:{cdp_port}/json/version") as response:
            ws_url = json.load(response)["webSocketDebuggerUrl"]
        script = Path(__file__).with_name("stagehand_snapshot.cjs")
        self.process = subprocess.Popen(
            ["node", str(script), ws_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "STAGEHAND_NPM": str(STAGEHAND_NPM)},
        )

    def snapshot(self, url: str) -> tuple[float, str]:
        assert self.process is not None and self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"url": url, "runs": 1}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["seconds"][0], answer["tree"]

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=30)


# The walk decides what the outline shows; naming, describing each element for the cache
# and the JSON answer come after it. Cut the script there to time the walk alone.
WALK_DONE = '  if (!hiddenScope) walk(scope, topItems, styleOf(scope).visibility === "visible");\n'


def in_page_ms(page: Page, source: str | None = None) -> tuple[float, float]:
    """Our script's time inside the page alone (no transfer, no Python): its walk, and all
    of it. `source`: another snapshot.js than this checkout's (bench_walk_ab)."""
    whole = source or _script()
    if WALK_DONE not in whole:
        raise SystemExit("bench_snapshot: snapshot.js no longer ends its walk where WALK_DONE says")
    walk_only = whole.replace(WALK_DONE, WALK_DONE + "  if (args.walkOnly) return null;\n")
    timed = """([source, args]) => {
        const run = (0, eval)(source);
        const start = performance.now();
        run(args);
        return performance.now() - start;
    }"""
    args = {"frames": [], "origin": ORIGIN, "walkOnly": True}
    return page.evaluate(timed, [walk_only, args]), page.evaluate(timed, [whole, args])


def measure(page: Page, stagehand: Stagehand, label: str, runs: int, tokens) -> dict:
    elements = page.evaluate("document.querySelectorAll('*').length")
    times: dict[str, list[float]] = {
        "ours": [], "one": [], "all": [], "walk": [], "script": [], "pw": [], "sh": [],
    }  # fmt: skip
    texts = {"ours": "", "pw": "", "sh": ""}

    def ours() -> None:
        start = time.perf_counter()
        seen = snapshot(page)
        texts["ours"] = seen.text
        times["ours"].append(time.perf_counter() - start)
        # What a step then pays for the element it acts on (its description is taken from
        # the page when first asked for), and what a heal that compares them all pays.
        start = time.perf_counter()
        seen.elements[f"e{len(seen.elements)}"]
        times["one"].append(time.perf_counter() - start)
        start = time.perf_counter()
        list(seen.elements.values())
        times["all"].append(time.perf_counter() - start)
        walk, script = in_page_ms(page)
        times["walk"].append(walk / 1000)
        times["script"].append(script / 1000)

    def playwright() -> None:
        start = time.perf_counter()
        texts["pw"] = page.aria_snapshot(mode="ai", timeout=0)
        times["pw"].append(time.perf_counter() - start)

    def stagehands() -> None:
        seconds, texts["sh"] = stagehand.snapshot(page.url)
        times["sh"].append(seconds)

    contenders = [ours, playwright] + ([stagehands] if stagehand.process else [])
    for contender in contenders:  # warm up: scripts compiled, caches filled, then cleared
        contender()
    for values in times.values():
        values.clear()
    for run in range(runs):  # rotated, so no contender always goes first on a warm page
        for contender in contenders[run % len(contenders) :] + contenders[: run % len(contenders)]:
            contender()
    median = {key: statistics.median(values) if values else None for key, values in times.items()}
    counts = {key: tokens(text) if text else None for key, text in texts.items()}
    mine, reference = pairs(texts["ours"], OUR_LINE, ""), pairs(texts["pw"], PLAYWRIGHT_LINE, "- ")
    missing = reference - mine
    return {
        "label": label,
        "elements": elements,
        "median": median,
        "tokens": counts,
        "covered": sum((mine & reference).values()),
        "listed": sum(reference.values()),
        "missing": missing,
    }


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def seconds(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "-"


def table_rows(results: list[dict]) -> list[list[str]]:
    header = [
        "page", "elements", "ours s", "+1 el ms", "+all els s", "walk ms/1k", "script ms/1k",
        "pw s", "sh s", "ours/pw", "ours/sh", "ours tok", "pw tok", "sh tok", "tok/pw", "tok/sh",
        "coverage",
    ]  # fmt: skip
    rows = [header]
    for r in results:
        m, t = r["median"], r["tokens"]
        rows.append([
            r["label"],
            f"{r['elements']:,}",
            seconds(m["ours"]),
            f"{m['one'] * 1000:.1f}",
            seconds(m["all"]),
            f"{m['walk'] * 1e6 / r['elements']:.1f}",
            f"{m['script'] * 1e6 / r['elements']:.1f}",
            seconds(m["pw"]),
            seconds(m["sh"]),
            ratio(m["ours"], m["pw"]),
            ratio(m["ours"], m["sh"]),
            f"{t['ours']:,}",
            f"{t['pw']:,}",
            f"{t['sh']:,}" if t["sh"] else "-",
            ratio(t["ours"], t["pw"]),
            ratio(t["ours"], t["sh"]),
            f"{r['covered']:,}/{r['listed']:,}",
        ])  # fmt: skip
    return rows


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", help="pages whose label contains one of these (a,b,...)")
    args = parser.parse_args()
    wanted = args.only.split(",") if args.only else [""]
    chosen = {k: v for k, v in pages().items() if any(part in k for part in wanted)}
    tokens, tokenizer = count_tokens, token_counter()
    choice = find_chromium()
    options = choice.launch_options()
    port = free_port()
    options["args"] = [*options.get("args", []), f"--remote-debugging-port={port}"]
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(**options)
        page = browser.new_page()
        page.route(f"{ORIGIN}/**", lambda route: route.fulfill(
            body=chosen[route.request.url.removeprefix(f"{ORIGIN}/").replace("_", " ")],
            content_type="text/html; charset=utf-8",
        ))  # fmt: skip
        stagehand = Stagehand(port)
        try:
            for label in chosen:
                page.goto(f"{ORIGIN}/{label.replace(' ', '_')}", timeout=0)
                # Lay the page out first, as a browser does before anyone looks at it.
                page.evaluate("document.body.getBoundingClientRect()")
                results.append(measure(page, stagehand, label, args.runs, tokens))
                print(" | ".join(table_rows(results)[-1]), flush=True)  # progress
        finally:
            stagehand.close()
            browser.close()
    rows = table_rows(results)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    for r in results:
        for (role, name), count in r["missing"].most_common(5):
            print(f"  missing on {r['label']}: {role} {name!r} x{count}")
    print(
        f"\nmedian of {args.runs} runs, contenders rotated; tokens: {tokenizer}; pw = Playwright's"
        " AI snapshot, sh = Stagehand 3.7.3's; coverage = interactive (role, name) pairs of"
        " Playwright's snapshot found in ours; +1 el = taking one element's description from the"
        " page after the snapshot (a step's choice), +all els = every element's (a heal's); walk ="
        " our script's walk of the page alone, script = all of it (walk, names, each element"
        " described for the cache, JSON), inside the page."
        "\ntargets (issue 37): table at most 0.120 s, ~50k elements at most 0.5 s, tok/sh at"
        " most 0.45, coverage complete."
    )


if __name__ == "__main__":
    main()
