"""Step events → what people read: -v step lines, the terminal summary, Allure steps,
evidence folders and JUnit properties.

The `ai_page` fixture calls `start_test(item, settings, page_screenshot(acting, secrets))` and
records its steps in the StepLog it gets back; the plugin's hooks do the rest. Every
reporter works from `step_record`, which masks the test's secrets in every string, so
no reporter can leak one by forgetting to.

Kept whole: every writer works from `step_record`, the one place secrets are masked, so
none can leak one by forgetting to.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from allure_commons.model2 import Parameter, Status, StatusDetails, TestStepResult
from allure_commons.reporter import AllureReporter
from allure_commons.types import AttachmentType
from allure_commons.utils import uuid4

from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.calls import CallUsage
from pytest_stagehand.events import StepEvent, StepLog, each_text
from pytest_stagehand.model.usage import UsageTotals
from pytest_stagehand.settings import Settings

__all__ = [
    "STEPS_KEY",
    "AllureSteps",
    "EvidenceWriter",
    "SessionSummary",
    "StepScreenshots",
    "TerminalStepPrinter",
    "TestSteps",
    "complete_report",
    "session_summary",
    "start_test",
    "step_record",
]

Screenshot = Callable[[], bytes | None]
Mask = Callable[[str], str]
Record = dict[str, Any]

# The test's step records travel on its teardown report, which xdist ships to the controller.
REPORT_ATTR = "stagehand_steps"
SLOWEST = 5


# --- records: the one masked, serialisable form of a step -------------------------------


def step_record(event: StepEvent, mask: Mask) -> Record:
    """A step as plain JSON data, every string masked (heals and usage included)."""
    record = {
        "kind": event.kind,
        "instruction": event.instruction,
        "url": event.url,
        "started": datetime.fromtimestamp(event.started, UTC).isoformat(),
        "duration_s": round(event.duration_s, 4),
        "cache": event.cache,
        "heal": asdict(event.heal) if event.heal else None,
        "element": event.element,
        "selector": event.selector,
        "method": event.method,
        "arguments": list(event.arguments),
        "result": event.result,
        "unchecked": event.unchecked,
        "last_snapshot": event.last_snapshot,
        "ok": event.ok,
        "error": event.error,
        "calls": [asdict(call) for call in event.calls],
    }
    return each_text(record, mask)


def usage_of(records: Iterable[Record]) -> UsageTotals:
    totals = UsageTotals()
    for record in records:
        for call in record["calls"]:
            totals.add(CallUsage(**call))
    return totals


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def describe_usage(totals: UsageTotals) -> str:
    tokens = f"{totals.input_tokens:,} in / {totals.output_tokens:,} out tokens"
    if totals.cached_tokens:
        tokens += f" ({totals.cached_tokens:,} cached)"
    cost = f"${totals.cost_usd:.4f}"
    if totals.unpriced_calls:
        cost += f" + {totals.unpriced_calls} unpriced"
    parts = [_plural(totals.calls, "call"), tokens, cost]
    if totals.memo_hits:
        parts.append(_plural(totals.memo_hits, "memo hit"))
    return ", ".join(parts)


def describe_heal(heal: Record) -> str:
    score = f", {heal['score']:.2f}" if heal["score"] is not None else ""
    changed = f"; changed: {', '.join(heal['changed'])}" if heal.get("changed") else ""
    decided = f"; decided by: {', '.join(heal['decided_by'])}" if heal.get("decided_by") else ""
    return f"{heal['before']} → {heal['after']} ({heal['strategy']}{score}{changed}{decided})"


def step_line(record: Record) -> str:
    """One -v line: what was asked, what it hit, how, whether it was replayed, how long."""
    parts = [f'stagehand {record["kind"]} "{record["instruction"]}"']
    if record["element"]:
        parts.append(f"→ {record['element']}")
    if record["method"]:
        parts.append(record["method"])
    if record["cache"] != "none":
        parts.append(f"[{record['cache']}]")
    parts.append(f"{record['duration_s']:.2f}s")
    if not record["ok"]:
        parts.append(f"FAILED: {record['error']}")
    return "  " + " ".join(parts)


def junit_properties(records: list[Record]) -> list[tuple[str, object]]:
    """Usage figures per test, for --junitxml (as pytest's record_property would)."""
    usage = usage_of(records)
    cache = Counter(record["cache"] for record in records)
    return [
        ("stagehand_steps", len(records)),
        ("stagehand_model_calls", usage.calls),
        ("stagehand_input_tokens", usage.input_tokens),
        ("stagehand_output_tokens", usage.output_tokens),
        ("stagehand_cached_tokens", usage.cached_tokens),
        ("stagehand_cost_usd", round(usage.cost_usd, 6)),
        ("stagehand_cache_hits", cache["hit"]),
        ("stagehand_cache_misses", cache["miss"]),
        ("stagehand_cache_healed", cache["healed"]),
    ]


# --- listeners ------------------------------------------------------------------------


class StepScreenshots:
    """Takes a screenshot after every step (--ai-screenshots=every-step), before the
    reporters after it in the StepLog see the event."""

    def __init__(self, screenshot: Screenshot) -> None:
        self._screenshot = screenshot

    def step_started(self, event: StepEvent) -> None:
        pass

    def step_finished(self, event: StepEvent) -> None:
        if event.screenshot is None:
            event.screenshot = _try_screenshot(self._screenshot)


def page_screenshot(
    acting: Callable[[], PageWatch], secrets: Callable[[], Mapping[str, str]] = dict
) -> Screenshot:
    """A screenshot of the page the steps act on (`acting`'s: the tab a step opened, once
    it did) for evidence, with the test's `secrets` (StepLog.secrets) covered, and none while a held
    dialog blocks it: the call would wait until the dialog expired, and so take the next
    step's answer away."""

    def screenshot() -> bytes | None:
        watch = acting()
        if watch.blocked:
            return None
        with overlaid(watch.page, secrets()):
            return watch.page.screenshot()

    return screenshot


def _try_screenshot(screenshot: Screenshot) -> bytes | None:
    # Evidence is best effort: a closed or crashed page must not hide the test's own error.
    try:
        return screenshot()
    except Exception:
        return None


class TerminalStepPrinter:
    """With -v, one line per AI step as it finishes, written past pytest's capture."""

    def __init__(self, config: pytest.Config, mask: Mask) -> None:
        self._terminal = config.pluginmanager.get_plugin("terminalreporter")
        self._capture = config.pluginmanager.get_plugin("capturemanager")
        self._mask = mask

    def step_started(self, event: StepEvent) -> None:
        pass

    def step_finished(self, event: StepEvent) -> None:
        uncaptured = self._capture.global_and_fixture_disabled() if self._capture else nullcontext()
        with uncaptured:
            self._terminal.write_line(step_line(step_record(event, self._mask)))


class AllureSteps:
    """Each AI step as an Allure step (nested like the steps themselves), with its
    element, method, cache status, heal and usage as parameters, the prompts and answers
    as text attachments and its screenshot, if any."""

    def __init__(self, reporter: AllureReporter, mask: Mask) -> None:
        self._reporter = reporter
        self._mask = mask
        self._open: dict[int, str] = {}  # id(event) → Allure step uuid

    def step_started(self, event: StepEvent) -> None:
        uuid = self._open[id(event)] = uuid4()
        step = TestStepResult(name=self._mask(f"{event.kind}: {event.instruction}"),
                              start=int(event.started * 1000))
        self._reporter.start_step(None, uuid, step)

    def step_finished(self, event: StepEvent) -> None:
        uuid = self._open.pop(id(event))
        record = step_record(event, self._mask)
        step = self._reporter.get_item(uuid)
        step.name = f"{record['kind']}: {record['instruction']}"
        step.parameters = [Parameter(name=n, value=v) for n, v in _allure_parameters(record)]
        for exchange in event.exchanges:
            for part, text in (("prompt", exchange.prompt), ("answer", exchange.answer)):
                self._reporter.attach_data(uuid4(), self._mask(text),
                                           name=self._mask(f"{exchange.purpose} {part}"),
                                           attachment_type=AttachmentType.TEXT)
        if record["last_snapshot"]:
            self._reporter.attach_data(uuid4(), record["last_snapshot"],
                                       name="page when the wait ran out",
                                       attachment_type=AttachmentType.TEXT)
        if event.screenshot:
            self.attach_screenshot(event.screenshot, "screenshot")
        self._reporter.stop_step(
            uuid,
            stop=int((event.started + event.duration_s) * 1000),
            status=Status.PASSED if record["ok"] else Status.FAILED,
            statusDetails=None if record["ok"] else StatusDetails(message=record["error"]),
        )

    def attach_screenshot(self, png: bytes, name: str) -> None:
        """Attach to the innermost open step, or the test when none is open."""
        self._reporter.attach_data(uuid4(), png, name=name, attachment_type=AttachmentType.PNG)


def _allure_parameters(record: Record) -> list[tuple[str, str]]:
    named = [
        ("element", record["element"]),
        ("method", record["method"]),
        ("arguments", ", ".join(record["arguments"])),
        ("selector", record["selector"]),
        ("cache", record["cache"] if record["cache"] != "none" else None),
        ("heal", describe_heal(record["heal"]) if record["heal"] else None),
        ("result", record["result"]),
        ("usage", describe_usage(usage_of([record])) if record["calls"] else None),
        ("url", record["url"]),
    ]
    return [(name, value) for name, value in named if value]


class EvidenceWriter:
    """A folder per test: `actions.json` (the steps, timings, cache status, usage),
    `NNN-<kind>.png` screenshots numbered by step, and `SHA256SUMS` (checkable with
    `sha256sum -c`). Rewritten after every step, each file atomically, so a crash leaves
    the log up to the last finished step and never half a file."""

    def __init__(self, folder: Path, nodeid: str, mask: Mask) -> None:
        self.folder = folder
        self._nodeid = nodeid
        self._mask = mask
        self._steps: list[Record] = []
        self._failure: Record | None = None
        self._sums: dict[str, str] = {}
        shutil.rmtree(folder, ignore_errors=True)  # a folder from an earlier run would mislead
        folder.mkdir(parents=True)

    def step_started(self, event: StepEvent) -> None:
        pass

    def step_finished(self, event: StepEvent) -> None:
        record = step_record(event, self._mask)
        number = len(self._steps) + 1
        record["screenshot"] = (
            self._write_png(f"{number:03d}-{event.kind}.png", event.screenshot)
            if event.screenshot
            else None
        )
        if event.files:  # a download: kept with the evidence
            record["files"] = [
                self._write_file(f"{number:03d}-{event.instruction}", path)
                for path in event.files
            ]
        self._steps.append(record)
        self._write_log("running")

    def add_failure_screenshot(self, png: bytes) -> None:
        self._failure = self._write_png(f"{len(self._steps) + 1:03d}-failure.png", png)

    def finish(self, outcome: str) -> None:
        self._write_log(outcome)

    def _write_file(self, name: str, path: str) -> Record:
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        return self._write_png(safe, Path(path).read_bytes())

    def _write_png(self, name: str, png: bytes) -> Record:
        self._write(name, png)
        return {"file": name, "sha256": self._sums[name]}

    def _write_log(self, outcome: str) -> None:
        log = {
            "test": self._mask(self._nodeid),
            "outcome": outcome,
            "steps": self._steps,
            "failure_screenshot": self._failure,
            "cache": dict(Counter(step["cache"] for step in self._steps)),
            "usage": usage_of(self._steps).to_dict(),
        }
        self._write("actions.json", json.dumps(log, indent=2).encode())
        sums = "".join(f"{digest}  {name}\n" for name, digest in sorted(self._sums.items()))
        _write_atomic(self.folder / "SHA256SUMS", sums.encode())

    def _write(self, name: str, data: bytes) -> None:
        _write_atomic(self.folder / name, data)
        self._sums[name] = hashlib.sha256(data).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.",
                                     suffix=".tmp", delete=False) as tmp:
        tmp.write(data)
        tmp.flush()
        os.fsync(tmp.fileno())
    os.replace(tmp.name, path)


def evidence_folder(root: Path, nodeid: str) -> Path:
    """`tests/test_a.py::test_b[x]` → `tests_test_a.py__test_b_x_`; long ids get a hash."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", nodeid)
    if len(name) > 120:
        name = f"{name[:110]}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}"
    return root / name


# --- one test -------------------------------------------------------------------------


@dataclass
class TestSteps:
    """What the hooks need to know about one test's AI steps."""

    __test__ = False  # not a pytest test class, despite the name

    steplog: StepLog
    settings: Settings
    screenshot: Screenshot | None
    allure: AllureSteps | None
    evidence: EvidenceWriter | None
    outcome: str = "passed"

    def screenshot_failure(self) -> None:
        png = _try_screenshot(self.screenshot) if self.screenshot else None
        if png is None:
            return
        if self.allure:
            self.allure.attach_screenshot(png, "screenshot on failure")
        if self.evidence:
            self.evidence.add_failure_screenshot(png)


STEPS_KEY = pytest.StashKey[TestSteps]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def start_test(
    item: pytest.Item, settings: Settings, screenshot: Screenshot | None = None
) -> StepLog:
    """The StepLog for a test, wired to every report that is switched on.

    `settings` are the test's own (markers applied); `screenshot` returns a PNG of the
    page now (e.g. `page.screenshot`), for every-step and on-failure screenshots.
    """
    config = item.config
    steplog = StepLog(item.nodeid)
    allure_listener = config.pluginmanager.get_plugin("allure_listener")  # only with --alluredir
    allure = AllureSteps(allure_listener.allure_logger, steplog.mask) if allure_listener else None
    evidence = None
    if settings.evidence_dir:
        root = config.rootpath / Path(settings.evidence_dir).expanduser()
        evidence = EvidenceWriter(evidence_folder(root, item.nodeid), item.nodeid, steplog.mask)
    # The screenshot taker goes first, so the reporters after it see its screenshot.
    if screenshot and settings.screenshots == "every-step":
        steplog.listeners.append(StepScreenshots(screenshot))
    if (config.option.verbose > 0 and not _is_worker(config)
            and config.pluginmanager.has_plugin("terminalreporter")):
        steplog.listeners.append(TerminalStepPrinter(config, steplog.mask))
    steplog.listeners += [listener for listener in (allure, evidence) if listener]
    item.stash[STEPS_KEY] = TestSteps(steplog, settings, screenshot, allure, evidence)
    return steplog


def complete_report(item: pytest.Item, report: pytest.TestReport) -> None:
    """Called for each phase's report: screenshot a failure; at teardown, add the usage
    properties and the step records to the report and close the evidence."""
    steps = item.stash.get(STEPS_KEY, None)
    if steps is None:
        return
    if report.failed:
        steps.outcome = "failed" if report.when == "call" else "error"
        if report.when == "call" and steps.settings.screenshots != "off":
            steps.screenshot_failure()
    elif report.skipped and steps.outcome == "passed":
        steps.outcome = "skipped"
    if report.when != "teardown":
        return
    del item.stash[STEPS_KEY]  # frees the screenshots held by the events
    records = [step_record(event, steps.steplog.mask) for event in steps.steplog.events]
    report.user_properties.extend(junit_properties(records))
    setattr(report, REPORT_ATTR, records)
    if steps.evidence:
        steps.evidence.finish(steps.outcome)


# --- the session ------------------------------------------------------------------------


class SessionSummary:
    """Every test's steps, gathered on the controller from each test's teardown report
    (so xdist workers' steps count too), rendered as the "pytest-stagehand" section.

    The cache sets `unused` (descriptions of recordings no test used) before the
    terminal summary is written.
    """

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self.steps: list[Record] = []  # each with its "test"
        self.unused: list[str] = []
        self.recording_errors: list[str] = []  # corrupt committed files, named
        self.shard: str | None = None  # "2/3" in a sharded run
        self.bases: dict[str, dict[str, str]] = {}  # recordings files written, as they were
        self.warnings: list[str] = []  # said once per run: a store moved aside, traces

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        records: list[Record] = getattr(report, REPORT_ATTR, [])
        self.steps.extend({**record, "test": report.nodeid} for record in records)
        # From an xdist worker (which has `node` set): no live lines were shown, so show
        # them now, naming the test, as other tests' lines may have come in between.
        if records and getattr(report, "node", None) and self._config.option.verbose > 0:
            terminal = self._config.pluginmanager.get_plugin("terminalreporter")
            for record in records:
                terminal.write_line(f"{step_line(record)} ({report.nodeid})")

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if _is_worker(self._config) or not (
            self.steps or self.unused or self.recording_errors or self.warnings
        ):
            return
        terminalreporter.write_sep("=", "pytest-stagehand")
        if self.shard:
            terminalreporter.write_line(
                f"shard {self.shard}: merge the shards' workspaces with "
                "python -m pytest_stagehand merge"
            )
        for line in self.lines():
            terminalreporter.write_line(line)

    def lines(self) -> list[str]:
        return summary_lines(self.steps, self.unused, self.recording_errors, self.warnings)

    def to_dict(self) -> dict[str, Any]:
        """What `python -m pytest_stagehand merge` needs to sum several shards' runs."""
        return {
            "version": 1,
            "shard": self.shard,
            "steps": self.steps,
            "unused": self.unused,
            "recording_errors": self.recording_errors,
            "warnings": self.warnings,
            "written": self.bases,
        }


def summary_lines(
    steps: Sequence[Record],
    unused: Sequence[str] = (),
    recording_errors: Sequence[str] = (),
    warnings: Sequence[str] = (),
) -> list[str]:
    """The "pytest-stagehand" section: steps, model usage, cache, heals, unused, slowest."""
    lines: list[str] = []
    if steps:
        tests = len({step["test"] for step in steps})
        seconds = sum(step["duration_s"] for step in steps)
        lines.append(f"AI steps: {len(steps)} in {tests} test(s), {seconds:.2f}s")
        lines += _usage_lines(steps)
        lines += _cache_lines(steps)
        lines += _unchecked_lines(steps)
    if unused:
        lines.append(f"unused recordings ({len(unused)}):")
        lines += [f"  {entry}" for entry in unused]
    lines += [f"warning: {warning}" for warning in warnings]
    if recording_errors:
        lines.append("recordings files left untouched:")
        lines += [f"  {line}" for error in recording_errors for line in error.splitlines()]
    if steps:
        lines.append("slowest AI steps:")
        slowest = sorted(steps, key=lambda step: step["duration_s"], reverse=True)
        lines += [
            f"  {step['duration_s']:.2f}s {step['kind']} \"{step['instruction']}\" "
            f"({step['test']})"
            for step in slowest[:SLOWEST]
        ]
    return lines


def _unchecked_lines(steps: Sequence[Record]) -> list[str]:
    """Steps recorded with no way to replay them with no model: claims without a check,
    extracts with values the page does not show as answered."""
    lines = []
    for heading, verb, extracts in (
        ("claims with no recorded check", "judges", False),
        ("extracts with values only a model reads", "answers", True),
    ):
        unchecked = [
            step
            for step in steps
            if step.get("unchecked") and (step["kind"] == "extract") == extracts
        ]
        if unchecked:
            lines.append(
                f"{heading} ({len(unchecked)}): a model {verb} them on every run; offline they fail"
            )
            lines += [
                f"  {step['test']}: \"{step['instruction']}\" ({step['unchecked']})"
                for step in unchecked
            ]
    return lines


def _usage_lines(steps: Sequence[Record]) -> list[str]:
    usage = usage_of(steps)
    if not usage.calls:
        return ["model calls: none"]
    providers = sorted(usage.by_provider.items())
    lines = [f"model calls: {describe_usage(usage)}"]
    lines += [f"  {name}: {describe_usage(totals)}" for name, totals in providers]
    return lines


def _cache_lines(steps: Sequence[Record]) -> list[str]:
    counts = Counter(_cache_outcome(step) for step in steps)
    del counts["none"]
    lines = []
    if counts:
        order = ("hit", "miss", "healed", "refreshed", "off", "failed")
        lines.append("cache: " + ", ".join(f"{counts[s]} {s}" for s in order if counts[s]))
    lines += [
        f"  healed in {step['test']}: \"{step['instruction']}\" {describe_heal(step['heal'])}"
        for step in steps
        if step["heal"]
    ]
    return lines


def _cache_outcome(step: Record) -> str:
    """The step's cache status; "failed" for a step that failed before it had one (a
    model error on a miss), so the cache line counts every step that used the cache."""
    if step["cache"] == "none" and not step["ok"] and step["kind"] != "goto":
        return "failed"
    return step["cache"]



SUMMARY_KEY = pytest.StashKey[SessionSummary]()


def session_summary(config: pytest.Config) -> SessionSummary:
    """The session's summary; the plugin registers it, the cache fills in `unused`."""
    return config.stash.setdefault(SUMMARY_KEY, SessionSummary(config))
