"""Benchmark: the size of the HTML report (--ai-report), projected to a 200-test suite.

Run: .venv/bin/python bench/bench_report.py [--tests 200]

Target (issue 18): one file that stays reasonable for a suite of 200 tests.

One test of the example shop is driven with plain Playwright (log in, add two products,
open the cart, check out: 8 steps), and after each step the report's own capture
(`html_report.StepCapture`, a half-scale JPEG of the viewport and the chosen element's
box) runs, beside the baseline: a full-size PNG of the viewport, what `--ai-screenshots=
every-step` keeps. The report is then rendered for N copies of that test with every
screenshot made distinct per test (no sharing across tests: the worst case), and its size
printed beside the size the baseline screenshots would make.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.app.server import serve_shop
from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.browser.watch import PageWatches
from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.reporting.html import StepCapture, TestResult, render

# (instruction, the element it chose, what Playwright does, with what)
STEPS = [
    ("type the user name", '[data-test="username"]', "fill", "standard_user"),
    ("type the password", '[data-test="password"]', "fill", "secret_sauce"),
    ("click log in", '[data-test="login-button"]', "click", None),
    ("add the backpack", '[data-test="add-to-cart-backpack"]', "click", None),
    ("add the bike light", '[data-test="add-to-cart-bike-light"]', "click", None),
    ("open the cart", '[data-test="shopping-cart-link"]', "click", None),
    ("click checkout", '[data-test="checkout"]', "click", None),
    ("type the first name", '[data-test="firstName"]', "fill", "Ada"),
]


class TimedCapture(StepCapture):
    """The report's capture, timed: what the report adds to each step."""

    times_ms: list[float]

    def step_finished(self, event: StepEvent) -> None:
        begin = time.perf_counter()
        super().step_finished(event)
        self.times_ms.append((time.perf_counter() - begin) * 1000)


def one_test(page: Page, url: str) -> tuple[TimedCapture, list[int], list[float]]:
    steplog = StepLog("bench")
    watches = PageWatches(page, steplog)
    capture = TimedCapture(lambda: watches.current, steplog.mask)
    capture.times_ms = []
    steplog.listeners.append(capture)
    page.goto(url)
    png_sizes, png_ms = [], []
    for instruction, selector, method, value in STEPS:
        with steplog.step("act", instruction) as event:
            getattr(page.locator(selector), method)(*([value] if value else []))
            event.selector = selector
        begin = time.perf_counter()
        png = page.screenshot()
        png_ms.append((time.perf_counter() - begin) * 1000)
        png_sizes.append(len(base64.b64encode(png)))
    return capture, png_sizes, png_ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=200)
    tests = parser.parse_args().tests
    chromium = find_chromium().launch_options()
    with serve_shop(variant="classic") as shop, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        capture, png_sizes, png_ms = one_test(page, shop.url)
        browser.close()
    shots = [capture.shots[step["shot"]["id"]] for step in capture.steps]
    jpeg_sizes = [len(shot) for shot in shots]
    results, table = [], {}
    for number in range(tests):  # every screenshot distinct per test: no sharing
        steps = []
        for step in capture.steps:
            own = f"{step['shot']['id']}-{number}"
            table[own] = capture.shots[step["shot"]["id"]]
            steps.append({**step, "shot": {**step["shot"], "id": own}})
        results.append(TestResult(f"tests/test_shop.py::test_{number}", steps=steps))
    report = render(results, table)
    per_step_png = statistics.mean(png_sizes) / 1024
    per_step_jpeg = statistics.mean(jpeg_sizes) / 1024
    baseline_mib = sum(png_sizes) * tests / 1024 / 1024
    report_mib = len(report.encode()) / 1024 / 1024
    print(f"steps per test: {len(STEPS)}, distinct screenshots per test: {len(capture.shots)}")
    print(f"screenshot per step (base64):   report JPEG {per_step_jpeg:6.1f} KiB   "
          f"full PNG {per_step_png:6.1f} KiB   ratio {per_step_jpeg / per_step_png:.2f}")
    print(f"time per step (median):         report capture "
          f"{statistics.median(capture.times_ms):5.1f} ms (box + JPEG)   "
          f"full PNG {statistics.median(png_ms):5.1f} ms")
    print(f"report for {tests} tests:        {report_mib:6.1f} MiB   "
          f"with full PNGs {baseline_mib:6.1f} MiB   ratio {report_mib / baseline_mib:.2f}")


if __name__ == "__main__":
    main()
