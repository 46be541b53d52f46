"""Benchmark: snapshot.js at a git revision against the working copy, in one tab.

Run: .venv/bin/python bench/bench_walk_ab.py [--base HEAD] [--runs 15] [PAGE ...]

A change to the walk moves its time by a few percent, less than this machine's noise between
two runs of bench_snapshot. Here both versions run alternately on the same loaded page
(bench_snapshot's pages; PAGE picks them by a part of their label), after two warm-up
rounds, and each prints its median time inside the page per 1,000 elements: its walk alone
(cut where bench_snapshot cuts it) and the whole script; and its time to Python, the script
run by Playwright and its answer parsed there (what a change to the answer's size moves),
with the answer's size; then the ratio working copy / base; the fastest run of the whole
script of each; and the CPU time the page's main thread spent on the run to Python (CDP's
ThreadTime): on a machine other processes load, wall times grow several times over with
the load, the CPU time far less.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

from bench_snapshot import ORIGIN, in_page_ms, pages
from playwright.sync_api import CDPSession, Page, sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.browser.scripts import PART
from pytest_stagehand.snapshot.outline import TABLES, _script

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 2
SCRIPT = "pytest_stagehand/snapshot/js/snapshot.js"


def cpu_seconds(cdp: CDPSession) -> float:
    """CPU time the page's main thread has spent so far: unlike wall time, it does not grow
    when other processes take the machine's cores."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(metric["value"] for metric in metrics if metric["name"] == "ThreadTime")


def delivered(page: Page, source: str) -> tuple[float, int]:
    """Seconds from asking Playwright for the snapshot to its answer parsed in Python, and
    the answer's size in bytes."""
    start = time.perf_counter()
    answer = page.evaluate(source, {"frames": [], "origin": ORIGIN})
    json.loads(answer)
    return time.perf_counter() - start, len(answer.encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="git revision to compare against")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("pages", nargs="*", help="parts of page labels (default: all)")
    options = parser.parse_args()
    base = PART.sub(
        lambda marker: TABLES,
        subprocess.check_output(
            ["git", "-C", str(ROOT), "show", f"{options.base}:{SCRIPT}"], text=True
        ),
    ).rstrip("\n")  # its parts (tables.js) as this checkout has them
    versions = {"base": base, "work": _script()}
    chosen = {label: html for label, html in pages().items()
              if not options.pages or any(part in label for part in options.pages)}  # fmt: skip
    launch = find_chromium().launch_options()
    print(f"ms per 1,000 elements (inside the page; to Python: run and parsed there); base ="
          f" {options.base}, work = working copy; median of {options.runs} alternating runs")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        page = browser.new_page()
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
        for label, html in chosen.items():
            page.route(f"{ORIGIN}/**", lambda route, _request, html=html: route.fulfill(
                body=html, content_type="text/html; charset=utf-8"))  # fmt: skip
            page.goto(f"{ORIGIN}/", timeout=0)
            elements = page.evaluate("document.querySelectorAll('*').length")
            parts = ("walk", "all", "sent", "cpu")
            times: dict[str, list[float]] = {f"{v} {part}": [] for v in versions for part in parts}
            size = {}
            for run in range(options.runs + WARM_UP):
                order = list(versions) if run % 2 else list(reversed(versions))
                for version in order:
                    walk, whole = in_page_ms(page, versions[version])
                    cpu = cpu_seconds(cdp)
                    sent, size[version] = delivered(page, versions[version])
                    cpu = cpu_seconds(cdp) - cpu
                    if run >= WARM_UP:
                        times[f"{version} walk"].append(walk * 1000 / elements)
                        times[f"{version} all"].append(whole * 1000 / elements)
                        times[f"{version} sent"].append(sent * 1e6 / elements)
                        times[f"{version} cpu"].append(cpu * 1e6 / elements)
            m = {key: statistics.median(values) for key, values in times.items()}
            low = {key: min(values) for key, values in times.items()}
            print(f"{label:20} walk {m['base walk']:5.2f} -> {m['work walk']:5.2f}"
                  f" ({m['work walk'] / m['base walk']:.2f}x)   script {m['base all']:5.2f} ->"
                  f" {m['work all']:5.2f} ({m['work all'] / m['base all']:.2f}x)   to Python"
                  f" {m['base sent']:5.2f} -> {m['work sent']:5.2f}"
                  f" ({m['work sent'] / m['base sent']:.2f}x), {size['base'] / 1e3:,.0f} ->"
                  f" {size['work'] / 1e3:,.0f} KB; fastest script {low['base all']:5.2f}"
                  f" -> {low['work all']:5.2f}"
                  f" ({low['work all'] / low['base all']:.2f}x); page's CPU for it"
                  f" {m['base cpu']:5.2f} -> {m['work cpu']:5.2f}"
                  f" ({m['work cpu'] / m['base cpu']:.2f}x)")  # fmt: skip
            page.unroute(f"{ORIGIN}/**")
        browser.close()


if __name__ == "__main__":
    main()
