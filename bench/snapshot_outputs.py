"""Snapshot outputs of the test pages and the benchmark's pages, to compare across a change.

Run: .venv/bin/python bench/snapshot_outputs.py OUT.json [--compare BEFORE.json]

A speed change to snapshot.js must not change what it says. This writes, for every page
under tests/pages and tests/real/pages (the third-party widgets; each page once its
outline has settled) and the generated pages of bench_snapshot.py, the snapshot's text, its elements
and the description of each of the first elements as a replay's look reads it (`inspect`);
with --compare, it says which pages differ from an earlier run's file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_snapshot import catalogue, table
from playwright.sync_api import sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.snapshot.outline import inspect, snapshot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from real_widgets import REAL, RealWidgetsServer  # noqa: E402
from servers import PagesServer  # noqa: E402

LOOKS = 40  # elements per page described one by one, as a replay's look does
SETTLE = 10  # snapshots at most until a page's outline stops changing


def outputs(page, server: PagesServer) -> dict:
    """What the snapshot and the looks say, the servers' ports (new each run) left out."""
    found = _outputs(page)
    text = json.dumps(found)
    for origin, name in ((server.origin, "ORIGIN"), (server.other_origin, "OTHER_ORIGIN")):
        text = text.replace(origin, name)
    return json.loads(text)


def settled(page) -> None:
    """Wait until a page's scripts have drawn it: two outlines alike in a row."""
    page.wait_for_load_state("networkidle")
    before = snapshot(page).text
    for _ in range(SETTLE):
        page.wait_for_timeout(100)  # a polling interval: what is awaited is the outline
        now = snapshot(page).text
        if now == before:
            return
        before = now


def _outputs(page) -> dict:
    snap = snapshot(page)
    elements = {key: repr(ref) for key, ref in snap.elements.items()}
    looks = {}
    for key, ref in list(snap.elements.items())[:LOOKS]:
        live = inspect(ref.locator(page), ref.frame_path)
        looks[key] = [live.count, repr(live.fingerprint), live.context]
    return {"text": snap.text, "elements": elements, "looks": looks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, help="an earlier run's file")
    args = parser.parse_args()
    server = PagesServer().start()
    found: dict[str, dict] = {}
    launch = find_chromium().launch_options()
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch)
        page = browser.new_page()
        for path in sorted((ROOT / "tests" / "pages").rglob("*.html")):
            name = str(path.relative_to(ROOT / "tests" / "pages"))
            page.goto(server.url(name))
            settled(page)
            found[name] = outputs(page, server)
        for name, html in (("table 1500", table(1500)), ("catalogue 400", catalogue(400))):
            page.set_content(html)  # at the last page's address: its origin is left out
            found[name] = outputs(page, server)
        real = RealWidgetsServer().start()
        for path in sorted((REAL / "pages").glob("*.html")):
            page.goto(real.url(f"pages/{path.name}"))
            settled(page)
            found[f"real/{path.name}"] = outputs(page, real)
        real.close()
        browser.close()
    server.close()
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True))
    print(f"{len(found)} pages written to {args.out}")
    if args.compare:
        before = json.loads(args.compare.read_text())
        names = sorted(set(before) | set(found))
        differ = [name for name in names if before.get(name) != found.get(name)]
        print(f"differ from {args.compare}: {', '.join(differ) if differ else 'none'}")


if __name__ == "__main__":
    main()
