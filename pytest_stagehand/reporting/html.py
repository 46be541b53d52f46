"""One self-contained HTML file for a run (`--ai-report=report.html`).

Each test's steps are captured where the test runs: after every step a scaled JPEG of the
page and the box of the element the step chose, with the step's masked record and its
model exchanges. The capture travels on the test's teardown report (so xdist workers'
tests arrive too); the controller writes one file: no server, no CDN, no script from
elsewhere. Screenshots are taken only when the report is asked for.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.reporting.records import (
    Mask,
    Record,
    describe_heal,
    describe_usage,
    step_record,
    usage_of,
)
from pytest_stagehand.settings import Settings

REPORT_ATTR = "stagehand_html"
CAPTURE_KEY = pytest.StashKey["StepCapture"]()
SCALE = 0.5  # of the viewport's CSS pixels: 1280x720 becomes 640x360
QUALITY = 50
BOX_TIMEOUT_MS = 500
FAILURE_CHARS = 6000
EXCHANGE_CHARS = 20000
STATUS_ORDER = ("failed", "error", "passed", "skipped")


# --- capture, where the test runs ------------------------------------------------------


class StepCapture:
    """A step listener: each finished step with a screenshot (the test's secrets covered)
    and the chosen element's box."""

    def __init__(
        self, acting: Callable[[], PageWatch], mask: Mask,
        secrets: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        self._acting = acting  # the watch of the page the steps act on now (watch.py)
        self.mask = mask
        self._secrets = secrets
        self._cdp: WeakKeyDictionary[Page, Any] = WeakKeyDictionary()  # a session per page
        self.steps: list[Record] = []
        self.shots: dict[str, str] = {}  # sha256 → base64 JPEG, each screenshot once
        self.failure: str | None = None
        self._open: dict[int, int] = {}  # id(event) → index in steps

    def step_started(self, event: StepEvent) -> None:
        self._open[id(event)] = len(self.steps)
        self.steps.append({"depth": len(self._open) - 1})

    def step_finished(self, event: StepEvent) -> None:
        index = self._open.pop(id(event))
        record = step_record(event, self.mask)
        record["exchanges"] = [
            {
                "purpose": self.mask(exchange.purpose),
                "prompt": self.mask(exchange.prompt)[:EXCHANGE_CHARS],
                "answer": self.mask(exchange.answer)[:EXCHANGE_CHARS],
            }
            for exchange in event.exchanges
        ]
        watch = self._acting()
        page = watch.page
        if not watch.blocked:  # a held dialog blocks the page: nothing to read yet
            record["box"] = self._box(page, event.selector)
            record["shot"] = self._screenshot(page)
        self.steps[index].update(record)

    def payload(self) -> Record:
        return {"steps": self.steps, "shots": self.shots, "failure": self.failure}

    def _box(self, page: Page, selector: str | None) -> dict[str, float] | None:
        """Where the chosen element is now, in viewport pixels, if it is still on the page."""
        if not selector:
            return None
        try:
            for frame in page.frames:
                found = frame.locator(selector)
                if found.count() == 1:
                    return found.bounding_box(timeout=BOX_TIMEOUT_MS)
        except PlaywrightError:
            pass  # the page navigated or closed under us: no outline
        return None

    def _capture(self, page: Page) -> tuple[str, int, int]:
        """The viewport as a base64 JPEG, scaled by SCALE where Chromium can, and its size."""
        try:
            width, height, x, y = page.evaluate("[innerWidth, innerHeight, scrollX, scrollY]")
            if page not in self._cdp:
                self._cdp[page] = page.context.new_cdp_session(page)
            data = self._cdp[page].send(
                "Page.captureScreenshot",
                {
                    "format": "jpeg",
                    "quality": QUALITY,
                    "clip": {"x": x, "y": y, "width": width, "height": height, "scale": SCALE},
                },
            )["data"]
            return data, width, height
        except PlaywrightError:
            size = page.viewport_size
            if size is None:
                raise
            # not Chromium: Playwright's own screenshot, unscaled
            png = page.screenshot(type="jpeg", quality=QUALITY)
            return base64.b64encode(png).decode(), size["width"], size["height"]

    def _screenshot(self, page: Page) -> Record | None:
        """The viewport as a scaled JPEG; best effort, like all evidence."""
        try:
            with overlaid(page, self._secrets()):
                data, width, height = self._capture(page)
        except PlaywrightError:
            return None
        digest = hashlib.sha256(data.encode()).hexdigest()[:16]
        self.shots[digest] = data
        return {"id": digest, "width": width, "height": height}


def attach(
    item: pytest.Item, settings: Settings, acting: Callable[[], PageWatch], steplog: StepLog
) -> None:
    """Capture the test's steps for the report, when one is asked for; `acting`: the
    watch of the page the steps act on now."""
    if settings.report:
        capture = StepCapture(acting, steplog.mask, lambda: steplog.secrets)
        item.stash[CAPTURE_KEY] = capture
        steplog.listeners.append(capture)


# --- the run: gathered on the controller, written once -----------------------------------


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, despite the name

    nodeid: str
    status: str = "passed"
    duration_s: float = 0.0
    failure: str | None = None
    steps: list[Record] = field(default_factory=list)


class HtmlReport:
    """The pytest plugin behind --ai-report: ships captures from workers, writes on the
    controller, and prints the file's size at the end."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self._config = config
        self.path = path
        self.tests: dict[str, TestResult] = {}
        self.shots: dict[str, str] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        capture = item.stash.get(CAPTURE_KEY, None)
        if capture is None:
            return report
        if report.failed and capture.failure is None:
            capture.failure = capture.mask(report.longreprtext)[-FAILURE_CHARS:]
        if report.when == "teardown":
            setattr(report, REPORT_ATTR, capture.payload())
            del item.stash[CAPTURE_KEY]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        test = self.tests.setdefault(report.nodeid, TestResult(report.nodeid))
        test.duration_s += report.duration
        if report.failed:
            if test.status not in ("failed", "error"):
                test.status = "failed" if report.when == "call" else "error"
            if test.failure is None:
                test.failure = report.longreprtext[-FAILURE_CHARS:]
        elif report.skipped and test.status == "passed":
            test.status = "skipped"
        payload = getattr(report, REPORT_ATTR, None)
        if payload:
            test.steps = payload["steps"]
            self.shots.update(payload["shots"])
            if payload["failure"]:
                test.failure = payload["failure"]  # the masked text, from the test's worker

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(render(list(self.tests.values()), self.shots), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(self._config, "workerinput") or not self.path.exists():
            return
        size = self.path.stat().st_size
        terminalreporter.write_line(
            f"pytest-stagehand report: {self.path} ({size / 1024:,.0f} KiB, "
            f"{len(self.tests)} tests, {len(self.shots)} screenshots)"
        )


def register(config: pytest.Config, settings: Settings) -> None:
    if settings.report:
        path = config.rootpath / Path(settings.report).expanduser()
        config.pluginmanager.register(HtmlReport(config, path), "stagehand-html-report")


# --- rendering --------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def render(tests: list[TestResult], shots: dict[str, str]) -> str:
    """The report: failures first, each test a <details>; screenshots filled in by a small
    inline script from one table, so a screenshot repeated across steps is stored once."""
    ordered = sorted(tests, key=lambda t: (STATUS_ORDER.index(t.status), t.nodeid))
    counts = {s: sum(t.status == s for t in tests) for s in STATUS_ORDER}
    steps = [step for test in tests for step in test.steps]
    usage = usage_of(steps)
    totals = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    body = "\n".join(_test(test) for test in ordered)
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return TEMPLATE.format(
        summary=_e(
            f"{len(tests)} tests: {totals or 'none'} · {len(steps)} AI steps · "
            f"{describe_usage(usage) if usage.calls else 'no model calls'} · {generated}"
        ),
        tests=body,
        shots=json.dumps(shots).replace("</", "<\\/"),
    )


def _test(test: TestResult) -> str:
    opened = " open" if test.status in ("failed", "error") else ""
    usage = usage_of([s for s in test.steps if "calls" in s])
    failure = f'<pre class="failure">{_e(test.failure)}</pre>' if test.failure else ""
    steps = "\n".join(_step(step, number) for number, step in enumerate(test.steps, 1))
    timeline = f'<ol class="timeline">{steps}</ol>' if steps else '<p class="none">No AI steps.</p>'
    return (
        f'<details class="test {test.status}"{opened} data-nodeid="{_e(test.nodeid)}">'
        f'<summary><span class="status">{test.status.upper()}</span> {_e(test.nodeid)}'
        f'<span class="meta">{len(test.steps)} steps · {test.duration_s:.2f}s · '
        f"${usage.cost_usd:.4f}</span></summary>{failure}{timeline}</details>"
    )


def _step(step: Record, number: int) -> str:
    if "kind" not in step:  # started, never finished (the worker crashed)
        return '<li class="step unfinished">step did not finish</li>'
    classes = f"step cache-{step['cache']} {'ok' if step['ok'] else 'failed'}"
    opened = "" if step["ok"] else " open"
    cache = f'<span class="cache">{_e(step["cache"])}</span>' if step["cache"] != "none" else ""
    element = f" → {_e(step['element'])}" if step["element"] else ""
    title = (
        f'<span class="n">{number}</span> <b>{_e(step["kind"])}</b> '
        f"{_e(step['instruction'])}{element} {cache}"
        f'<span class="meta">{step["duration_s"]:.2f}s</span>'
    )
    return (
        f'<li class="{classes}" style="margin-left:{step["depth"] * 2}em">'
        f"<details{opened}><summary>{title}</summary>"
        f'<div class="detail">{_shot(step)}<div class="facts">{_facts(step)}{_heal(step)}'
        f"{_exchanges(step)}{_last_snapshot(step)}</div></div></details></li>"
    )


def _shot(step: Record) -> str:
    shot = step.get("shot")
    if not shot:
        return '<div class="shot none">no screenshot</div>'
    outline = ""
    if box := step.get("box"):
        w, h = shot["width"], shot["height"]
        style = (
            f"left:{box['x'] / w:.4%};top:{box['y'] / h:.4%};"
            f"width:{box['width'] / w:.4%};height:{box['height'] / h:.4%}"
        )
        outline = f'<div class="outline" style="{style}" title="{_e(step["element"])}"></div>'
    return (
        f'<div class="shot"><img data-shot="{_e(shot["id"])}" alt="the page after step">'
        f"{outline}</div>"
    )


def _facts(step: Record) -> str:
    usage = usage_of([step])
    rows = [
        ("element", step["element"]),
        ("selector", step["selector"]),
        ("method", step["method"]),
        ("arguments", ", ".join(step["arguments"])),
        ("cache", step["cache"] if step["cache"] != "none" else None),
        ("result", step["result"]),
        ("error", step["error"]),
        ("url", step["url"]),
        ("model", describe_usage(usage) if usage.calls else None),
        ("time", f"{step['duration_s']:.2f}s"),
    ]
    cells = "".join(f"<dt>{name}</dt><dd>{_e(value)}</dd>" for name, value in rows if value)
    return f"<dl>{cells}</dl>"


def _heal(step: Record) -> str:
    heal = step["heal"]
    if not heal:
        return ""
    changed = ", ".join(heal.get("changed") or []) or "nothing noted"
    score = f" · score {heal['score']:.2f}" if heal["score"] is not None else ""
    return (
        f'<div class="heal"><h4>Healed ({_e(heal["strategy"])}{score})</h4>'
        f'<p class="before">before: <code>{_e(heal["before"])}</code></p>'
        f'<p class="after">after: <code>{_e(heal["after"])}</code></p>'
        f'<p class="changed">changed: {_e(changed)}</p>'
        f'<p class="summary">{_e(describe_heal(heal))}</p></div>'
    )


def _last_snapshot(step: Record) -> str:
    """What the page showed when a step that waited gave up: why it found nothing."""
    shown = step.get("last_snapshot")
    if not shown:
        return ""
    return (
        '<details class="last-snapshot"><summary>the page when the wait ran out</summary>'
        f"<pre>{_e(shown[:EXCHANGE_CHARS])}</pre></details>"
    )


def _exchanges(step: Record) -> str:
    parts = []
    for exchange in step.get("exchanges", []):
        parts.append(
            f'<details class="exchange"><summary>model call: {_e(exchange["purpose"])}</summary>'
            f'<h5>prompt</h5><pre>{_e(exchange["prompt"])}</pre>'
            f'<h5>answer</h5><pre>{_e(exchange["answer"])}</pre></details>'
        )
    return "".join(parts)


TEMPLATE = resources.files(__package__).joinpath("report_template.html").read_text(
    encoding="utf-8"
)
