"""The self-contained HTML report (--ai-report): a run of the example suite across two
xdist workers on the redesigned shop (so steps heal) with one failing test, rendered in
Chromium and read as a person would: open the failure, the healed step, the screenshot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from example_runs import SECRETS, example_copy, offline, run_pytest
from playwright.sync_api import Page, expect

from examples.app.server import serve_shop
from pytest_stagehand.browser.watch import PageWatches
from pytest_stagehand.events import Exchange, StepLog
from pytest_stagehand.reporting.html import SCALE, StepCapture, TestResult, render

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp_path = tmp_path_factory.mktemp("report")
    copy = example_copy(tmp_path, "test_login")
    report = tmp_path / "out" / "report.html"
    run = run_pytest(
        copy, str(copy), *offline(copy), "-n", "2", f"--ai-report={report}",
        SHOP_VARIANT="redesign",
    )  # fmt: skip
    assert "1 failed, 2 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    return report, run.stdout


def test_the_report_is_one_offline_file_with_no_secret(report_file: tuple[Path, str]):
    report, stdout = report_file
    text = report.read_text()
    size = report.stat().st_size
    printed = rf"pytest-stagehand report: .*report\.html \({size / 1024:,.0f} KiB, 3 tests"
    assert re.search(printed, stdout)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing fetched
    assert "<link" not in text and "@import" not in text
    assert not any(secret in text for secret in SECRETS)


def test_a_failed_test_opens_first_with_its_steps_heal_and_outlined_element(
    report_file: tuple[Path, str], page: Page
):
    report, _ = report_file
    page.goto(report.as_uri())
    tests = page.locator("details.test")
    expect(tests).to_have_count(3)
    failed = tests.first
    expect(failed).to_have_attribute("open", "")  # failures open first
    expect(failed.locator("summary").first).to_contain_text("FAILED")
    expect(failed.locator("summary").first).to_contain_text("test_the_catalogue_has_a_sale")
    expect(failed.locator(".failure")).to_contain_text("no sale banner on the catalogue")
    for passed in tests.all()[1:]:
        expect(passed).not_to_have_attribute("open", "")

    steps = failed.locator(".timeline > li")
    expect(steps).to_have_count(4)
    expect(steps.locator("summary")).to_contain_text([
        "goto", "type %user% into the username field", "type %password% into the password",
        "click the log in button",
    ])  # fmt: skip

    # The healed step: what it replaced and what changed. The workers share one store, so
    # the first tests to log in heal the step and later ones replay the healed recording.
    healed_test = tests.filter(has=page.locator("li.cache-healed")).first
    if healed_test.get_attribute("open") is None:
        healed_test.locator("summary").first.click()
    healed = healed_test.locator("li.cache-healed").first
    expect(healed.locator("summary")).to_contain_text("click the log in button")
    healed.locator("summary").click()
    heal = healed.locator(".heal")
    expect(heal.locator(".before")).to_contain_text('[data-test="login-button"]')
    expect(heal.locator(".after")).to_contain_text('[data-test="sign-in-button"]')
    expect(heal.locator("h4")).to_contain_text("Healed (fingerprint · score 0.")
    expect(heal.locator(".changed")).to_contain_text("test id")

    # The fill step: its screenshot, with the username field outlined where it is.
    filled = steps.nth(1)
    filled.locator("summary").click()
    image = filled.locator(".shot img")
    expect(image).to_have_attribute("src", re.compile(r"^data:image/jpeg;base64,"))
    loaded = "img => img.complete && img.naturalWidth > 0"
    page.wait_for_function(loaded, arg=image.element_handle())
    natural = image.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert natural == [int(1280 * SCALE), int(720 * SCALE)]
    shown = image.bounding_box()
    outline = filled.locator(".outline").bounding_box()
    assert shown and outline
    field = username_box(page)
    ratio = shown["width"] / 1280
    for key in ("x", "y", "width", "height"):
        origin = shown[key] if key in ("x", "y") else 0
        assert abs(outline[key] - origin - field[key] * ratio) <= 1.5, (key, outline, field)
    expect(filled.locator("dl")).to_contain_text("[data-test=\"username\"]")


def username_box(page: Page) -> dict[str, float]:
    """Where the redesigned shop shows the username field, at the tests' viewport."""
    with serve_shop(variant="redesign") as shop:
        other = page.context.new_page()
        other.set_viewport_size({"width": 1280, "height": 720})
        other.goto(shop.url)
        box = other.locator('[data-test="username"]').bounding_box()
        other.close()
    assert box
    return box


def test_rendering_escapes_page_text_and_keeps_each_screenshot_once():
    step = {
        "depth": 0, "kind": "act", "instruction": "click <b>buy</b>", "url": "/", "cache": "hit",
        "heal": None, "element": None, "selector": None, "method": "click", "arguments": [],
        "result": None, "ok": True, "error": None, "calls": [], "duration_s": 0.1,
        "exchanges": [], "box": None, "shot": {"id": "s1", "width": 1280, "height": 720},
    }  # fmt: skip
    waited = {**step, "ok": False, "last_snapshot": 'e1 button "Buy <now>"'}
    text = render([TestResult("t.py::test_a", steps=[step, step, waited])], {"s1": "QUJD"})
    assert "click &lt;b&gt;buy&lt;/b&gt;" in text and "<b>buy</b>" not in text
    assert text.count("QUJD") == 1
    assert text.count('data-shot="s1"') == 3
    # the step that waited in vain shows the page as it last looked, escaped
    assert text.count('class="last-snapshot"') == 1
    assert "Buy &lt;now&gt;" in text and "Buy <now>" not in text


def test_model_calls_show_masked_and_the_chosen_element_is_outlined(page: Page, tmp_path: Path):
    page.set_viewport_size({"width": 800, "height": 600})
    page.set_content(
        "<label>Password <input id=pw type=password style='margin:120px 0 0 200px'></label>"
    )
    steplog = StepLog("t.py::test_login")
    steplog.add_secrets({"password": "hunter2-s3cr3t"})
    watch = PageWatches(page).current
    capture = StepCapture(lambda: watch, steplog.mask)
    steplog.listeners.append(capture)
    with steplog.step("act", "type %password% into the password field") as event:
        page.fill("#pw", "hunter2-s3cr3t")
        event.element, event.selector, event.method = 'textbox "Password"', "#pw", "fill"
        event.exchanges.append(Exchange("act", "Page: textbox hunter2-s3cr3t [e3]", '{"id": "e3"}'))
    field = page.locator("#pw").bounding_box()
    report = tmp_path / "report.html"
    steps = capture.payload()["steps"]
    assert steps[0]["box"] == field
    report.write_text(render([TestResult("t.py::test_login", steps=steps)], capture.shots))
    assert "hunter2-s3cr3t" not in report.read_text()

    page.goto(report.as_uri())
    page.locator("details.test > summary").click()
    step = page.locator(".timeline > li").first
    step.locator("summary").first.click()
    step.locator(".exchange > summary").click()
    expect(step.locator(".exchange pre").first).to_have_text("Page: textbox %password% [e3]")
    expect(step.locator(".exchange pre").last).to_have_text('{"id": "e3"}')
    image, outline = step.locator(".shot img"), step.locator(".outline")
    expect(image).to_have_attribute("src", re.compile(r"^data:image/jpeg;base64,"))
    shown, drawn = image.bounding_box(), outline.bounding_box()
    assert shown and drawn
    ratio = shown["width"] / 800
    assert abs(drawn["x"] - shown["x"] - field["x"] * ratio) <= 1.5
    assert abs(drawn["y"] - shown["y"] - field["y"] * ratio) <= 1.5
    assert field["x"] > 200 and field["y"] > 120  # the input's margins: not the page's corner
