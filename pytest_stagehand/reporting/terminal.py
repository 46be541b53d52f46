"""The terminal: `-v` step lines as steps finish, and the session summary (usage, cache
outcomes, unchecked steps, slowest steps) at the end of the run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import pytest

from pytest_stagehand.events import StepEvent
from pytest_stagehand.reporting.records import (
    REPORT_ATTR,
    Mask,
    Record,
    describe_heal,
    describe_usage,
    step_line,
    step_record,
    usage_of,
)

SLOWEST = 5


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


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


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
        if is_worker(self._config) or not (
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
