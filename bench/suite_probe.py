"""A pytest plugin for bench_suite.py: where a run's time goes, written as JSON.

Loaded with `-p suite_probe` (bench/ on PYTHONPATH) in both suites' runs; it writes to
the file named by BENCH_SUITE_PROBE:

- phases, in seconds of time.monotonic() (one clock for every process on the machine):
  when pytest configured, when the first test's setup began, when the last test's
  teardown ended, when the session finished;
- per test, its setup, call and teardown times;
- in the plugin's run, the time spent in the plugin's parts of a step, wrapped here by
  replacing the functions where the modules that call them hold them: settle (before a
  step reads the page), lookup (the recordings) and verify (the element's look, a
  recorded value read again; a replayed act's settle goes with its first look, in the
  same call, and is counted here), action (Playwright's action, or ours), after-action (what
  the action started), report (the step listeners, the test's report, the session's
  files), and the number of steps.

The wrappers cost a few microseconds a call: the same for every round of the plugin's run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from functools import wraps
from typing import Any

import pytest

_times: dict[str, Any] = {"phases": {}, "tests": defaultdict(dict), "parts": defaultdict(float)}
_depth: dict[str, int] = defaultdict(int)


def _timed(part: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """`original`, its time added to `part` (not twice where it calls itself, nested)."""

    @wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        _depth[part] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _depth[part] -= 1
            if not _depth[part]:
                _times["parts"][part] += time.perf_counter() - start

    return timed


def _wrap_everywhere(part: str, owner: Any, name: str) -> None:
    """Replace `owner.name` with its timed self in every plugin module that holds it."""
    original = getattr(owner, name)
    timed = _timed(part, original)
    setattr(owner, name, timed)
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("pytest_stagehand") and getattr(module, name, None) is original:
            setattr(module, name, timed)


def _settle_part(original: Callable[..., Any]) -> Callable[..., Any]:
    before, after = _timed("settle", original), _timed("after-action", original)

    @wraps(original)
    def settle(*args: Any, **kwargs: Any) -> Any:
        return (after if kwargs.get("after_action") else before)(*args, **kwargs)

    return settle


def _install() -> None:
    from pytest_stagehand import events
    from pytest_stagehand.actions import perform as actions
    from pytest_stagehand.actions import settle as settling
    from pytest_stagehand.pipelines import act as act_module
    from pytest_stagehand.pipelines import readback
    from pytest_stagehand.plugin import hooks as plugin
    from pytest_stagehand.recordings import store as cache
    from pytest_stagehand.reporting import evidence, export, terminal
    from pytest_stagehand.reporting import html as html_report
    from pytest_stagehand.reporting import report as report_module

    original, settle = settling.settle, _settle_part(settling.settle)
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("pytest_stagehand") and getattr(module, "settle", None) is (
            original
        ):
            module.settle = settle
    cache.Recordings.lookup = _timed("lookup", cache.Recordings.lookup)
    _wrap_everywhere("verify", act_module, "verified")
    _wrap_everywhere("verify", readback, "reread")
    _wrap_everywhere("action", actions, "perform")
    _wrap_everywhere("after-action", settling, "finish_started")
    for owner in (terminal.TerminalStepPrinter, evidence.EvidenceWriter,
                  evidence.StepScreenshots, export.StepTap, html_report.StepCapture):
        for name in ("step_started", "step_finished"):
            if hasattr(owner, name):
                setattr(owner, name, _timed("report", getattr(owner, name)))
    _wrap_everywhere("report", report_module, "complete_report")
    _wrap_everywhere("report", report_module, "start_test")
    _wrap_everywhere("report", plugin, "_flush")
    step = events.StepLog.step

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        _times["parts"]["steps"] += 1
        return step(self, *args, **kwargs)

    events.StepLog.step = counted


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    _times["phases"]["configured"] = time.monotonic()
    if config.pluginmanager.has_plugin("stagehand"):
        _install()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _times["phases"].setdefault("first test", time.monotonic())


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _times["tests"][report.nodeid][report.when] = report.duration
    if report.when == "teardown":
        _times["phases"]["last test"] = time.monotonic()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    _times["phases"]["finished"] = time.monotonic()
    with open(os.environ["BENCH_SUITE_PROBE"], "w", encoding="utf-8") as out:
        json.dump(_times, out)
