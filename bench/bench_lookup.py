"""Benchmark: a replayed step's look at its recorded element on large pages, before and now.

Run: .venv/bin/python bench/bench_lookup.py [--reps 15] [--rounds 2] [--before 0657f19]

Before a replayed step acts, it reads what each recorded selector hits and describes that
element, to verify it against the recording. On a large
page what that read costs is what the page's size adds to a replayed step. For each page of
bench_snapshot.py, the middle one of the buttons and links whose role and name are unique
is recorded as a step records it (`recorded_element`), and then timed, median of the reps:

- resolve: the whole verified look (`heal.resolve`), Python included: the browser's own
  query for plain CSS and XPath selectors and our roles and names for a role selector
  ahead of them (`light_hits`; releases before 746535b left role selectors to
  Playwright's engine), Playwright's engine for the others, and the verification;
- light in page: `light_hits`' time inside the page alone;
- raw: Playwright finding the same element by its first selector and reading its tag in
  one round trip (`locator.evaluate`), the least a look at an element costs.

The release `--before` (`git archive` into a temporary folder) and this checkout each run
in their own process, in alternating rounds, and are printed side by side. `--before` must
be laid out in folders as this checkout is (0657f19 or later), since both run this script's
imports; releases from before the move (8ae32bc, the one this was written against) cannot.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter

from bench_snapshot import ORIGIN, pages
from bench_waiting import alternating

TIMED = ("resolve", "in page", "raw")


def serving(html: str):
    """A route handler answering every request with `html`."""
    return lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8")


def measure(reps: int) -> dict[str, dict[str, list[float]]]:
    from playwright.sync_api import sync_playwright

    from pytest_stagehand.actions.direct import is_plain
    from pytest_stagehand.browser import page_scripts
    from pytest_stagehand.browser.launch import find_chromium
    from pytest_stagehand.heal.identity import recorded_element
    from pytest_stagehand.heal.resolve import LIGHT_HITS, resolve
    from pytest_stagehand.snapshot.outline import describer, snapshot

    try:  # what light_hits asks the page
        from pytest_stagehand.snapshot.record import role_and_name
    except ImportError:  # a release that kept it in outline.py
        try:
            from pytest_stagehand.snapshot.outline import role_and_name
        except ImportError:  # a release whose look leaves role selectors to Playwright

            def role_and_name(selector: str) -> None:
                return None

    launch = find_chromium().launch_options()  # before sync_playwright: it asks Playwright
    times: dict[str, dict[str, list[float]]] = {}
    in_page = f"""(describe, selectors) => {{
        const start = performance.now();
        ({LIGHT_HITS})(describe, selectors);
        return performance.now() - start;
    }}"""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        page = browser.new_page()
        for label, html in pages().items():
            page.route(f"{ORIGIN}/**", serving(html))
            page.goto(f"{ORIGIN}/")
            snap = snapshot(page)
            names = Counter((ref.role, ref.name) for ref in snap.elements.values())
            unique = [ref for ref in snap.elements.values()
                      if ref.role in ("button", "link") and names[(ref.role, ref.name)] == 1]
            element = recorded_element(page, snap, unique[len(unique) // 2])
            took: dict[str, list[float]] = {name: [] for name in TIMED}
            for _ in range(reps + 1):  # the first gives the page its scripts: not counted
                start = time.perf_counter()
                resolve(page, element)
                took["resolve"].append(time.perf_counter() - start)
                asked = [s if is_plain(s) else role_and_name(s) or "" for s in element.selectors]
                took["in page"].append(
                    page_scripts.call(page, [describer()], in_page, asked) / 1000
                )
                start = time.perf_counter()
                page.locator(element.selectors[0]).evaluate("el => el.localName")
                took["raw"].append(time.perf_counter() - start)
            times[label] = {name: values[1:] for name, values in took.items()}
            page.unroute(f"{ORIGIN}/**")
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=15, help="repetitions per round")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    parser.add_argument("--before", default="0657f19",
                        help="a release laid out in folders (0657f19 or later)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.reps)))
        return
    times: dict[str, dict[str, dict[str, list[float]]]] = {"before": {}, "now": {}}
    for version, pages_took in alternating(args.before, args.rounds, args.reps, __file__):
        for label, took in pages_took.items():
            for name, values in took.items():
                times[version].setdefault(label, {}).setdefault(name, []).extend(values)
    ms = lambda version, label, name: statistics.median(times[version][label][name]) * 1000  # noqa: E731
    print(f"A replayed step's look at its element: {args.rounds} rounds x {args.reps} reps, "
          f"before = {args.before}, now = this checkout; milliseconds, median\n")
    header = ["page", "resolve before", "now", "light in page before", "now", "raw", "now/raw"]
    print(" | ".join(header))
    for label in times["now"]:
        now = ms("now", label, "resolve")
        raw = ms("now", label, "raw")
        print(" | ".join([
            label, f"{ms('before', label, 'resolve'):.1f}", f"{now:.1f}",
            f"{ms('before', label, 'in page'):.1f}", f"{ms('now', label, 'in page'):.1f}",
            f"{raw:.1f}", f"{now / raw:.2f}",
        ]))


if __name__ == "__main__":
    main()
