"""Prove that pytest-stagehand's Allure results render: run a small suite of AI steps with
--alluredir, build the HTML report with the allure CLI, serve it on 127.0.0.1 and check in
Chromium that the test, its nested AI steps, their parameters and attachments show.

    python scripts/allure_check.py [--keep DIR]

Needs the `allure` CLI on PATH (`npm install -g allure-commandline`; it runs on Java).
The suite opens StepLog steps directly, so no model and no web page are involved. Exit
status 0 when everything shows; with --keep, DIR holds the results, the report and a
screenshot of the rendered test.
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect, sync_playwright

from pytest_stagehand.browser.launch import find_chromium

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
SECRET = "hunter2-s3cr3t"
SUITE = f'''
import os

import pytest
from pytest_stagehand.reporting import report
from pytest_stagehand.events import Exchange, Heal
from pytest_stagehand.plugin.hooks import session_settings
from pytest_stagehand.calls import CallUsage


def test_checkout(request):
    steplog = report.start_test(request.node, session_settings(request.config),
                                screenshot=lambda: {PNG!r})
    password = os.environ["SHOP_PASSWORD"]  # as secrets come: not in the source
    steplog.add_secrets(password)
    with steplog.step("agent", "buy the cheapest item") as agent:
        with steplog.step("act", "type %password% into the password field") as step:
            step.cache, step.element, step.method = "hit", 'textbox "Password"', "fill"
            step.arguments = [password]
        with steplog.step("act", "open the menu") as step:
            step.cache, step.element, step.method = "healed", 'link "Menu"', "click"
            step.heal = Heal("fingerprint", "#menu", "[data-test=menu]", 0.91)
            step.calls = [CallUsage("openai/gpt-4.1-mini", "act", 700, 7, 0, 0.4, 0.0002)]
            step.exchanges = [Exchange("act", "PROMPT TEXT", "ANSWER TEXT")]
        agent.result = "bought the socks"
    assert False, "the cart is empty"
'''


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """Allure's report loads its data with fetch, so it needs http, not file://."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def build_report(work: Path, allure: str) -> Path:
    (work / "test_shop.py").write_text(SUITE)
    results, html = work / "allure-results", work / "allure-report"
    subprocess.run(
        [sys.executable, "-m", "pytest", "test_shop.py", f"--alluredir={results}",
         "--ai-screenshots=every-step", "-p", "no:cacheprovider", "-q"],
        cwd=work, check=False, capture_output=True, env={**os.environ, "SHOP_PASSWORD": SECRET},
    )
    if not list(results.glob("*-result.json")):
        raise SystemExit(f"pytest wrote no Allure results into {results}")
    subprocess.run([allure, "generate", str(results), "-o", str(html), "--clean"],
                   check=True, capture_output=True)
    return html


def check_rendered(page: Page, url: str) -> None:
    """Open the test in the suites view and look for what a reviewer needs to see."""
    page.goto(f"{url}/index.html#suites")
    page.get_by_text("test_shop", exact=True).click()
    page.get_by_text("test_checkout", exact=True).click()
    body = page.locator(".test-result")
    expect(body.get_by_text("the cart is empty").first).to_be_visible()
    body.get_by_text("agent: buy the cheapest item").click()
    expect(body.get_by_text("bought the socks", exact=True)).to_be_visible()
    body.get_by_text("act: open the menu").click()
    for text in ('link "Menu"', "click", "healed", "#menu → [data-test=menu] (fingerprint, 0.91)",
                 "1 call, 700 in / 7 out tokens, $0.0002", "act answer", "screenshot on failure"):
        expect(body.get_by_text(text, exact=True)).to_be_visible()
    body.get_by_text("act prompt", exact=True).click()
    expect(body.get_by_text("PROMPT TEXT", exact=True)).to_be_visible()
    body.get_by_text("act: type %password% into the password field").click()
    expect(body.get_by_text("***", exact=True)).to_be_visible()
    if SECRET in page.content():
        raise AssertionError("the secret is visible in the report")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep results, report and a screenshot here")
    args = parser.parse_args()
    allure = shutil.which("allure")
    if allure is None:
        print("allure CLI not found: npm install -g allure-commandline", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="allure-check-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        html = build_report(work, allure)
        launch = find_chromium().launch_options()  # outside sync_playwright: it starts one
        with served(html) as url, sync_playwright() as p:
            browser = p.chromium.launch(**launch)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            try:
                check_rendered(page, url)
            finally:
                page.screenshot(path=work / "rendered.png", full_page=True)
                browser.close()
    except (AssertionError, PlaywrightError) as exc:
        print(f"FAILED: {exc}\n(see {work})", file=sys.stderr)
        return 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print("OK: the Allure report shows the test, its AI steps, parameters and attachments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
