"""AI steps as named groups in pytest-playwright's trace (`--tracing on|retain-on-failure`).

`playwright show-trace` then lists each step in plain English, with the Playwright
actions it performed nested under it. A step's outcome (element, cache status, heal) is
known only when it ends, so it closes the group as a last child group: titles cannot be
changed once written. Every title is masked: no variable value reaches a trace title.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api._generated import Tracing

from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.reporting.records import Mask, Record, describe_heal, step_record

PACKAGE = str(Path(__file__).resolve().parent.parent)


def tracing_on(config: pytest.Config) -> bool:
    """Whether pytest-playwright records a trace of each test's context."""
    return config.getoption("tracing", "off") in ("on", "retain-on-failure")


def start_title(event: StepEvent) -> str:
    return f"{event.kind}: {event.instruction}"


def outcome_title(record: Record) -> str:
    """What the step did, e.g. `→ textbox "Username" · fill · cache hit`."""
    result = (record["result"] or "").strip().split("\n")[0]
    parts = [f"→ {record['element'] or result or 'done'}"]
    if record["method"]:
        parts.append(record["method"])
    if record["cache"] != "none":
        parts.append(f"cache {record['cache']}")
    if record["heal"]:
        parts.append(f"healed {describe_heal(record['heal'])}")
    if not record["ok"]:
        parts.append(f"FAILED: {record['error']}")
    return " · ".join(parts)


def _caller() -> dict[str, object] | None:
    """Where the test called the step: the first frame outside this package."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(PACKAGE) and not name.endswith("contextlib.py"):
            return {"file": name, "line": frame.f_lineno, "column": 0}
        frame = frame.f_back
    return None


class TraceGroups:
    """Opens a trace group when a step starts and closes it, outcome noted, when it ends."""

    def __init__(self, tracing: Tracing, mask: Mask) -> None:
        self._tracing = tracing
        self._mask = mask
        self._open = 0

    def step_started(self, event: StepEvent) -> None:
        if self._call(self._tracing.group, self._mask(start_title(event)), location=_caller()):
            self._open += 1

    def step_finished(self, event: StepEvent) -> None:
        if not self._open:
            return
        self._open -= 1
        title = outcome_title(step_record(event, self._mask))
        if self._call(self._tracing.group, title):
            self._call(self._tracing.group_end)
        self._call(self._tracing.group_end)

    @staticmethod
    def _call(method: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
        # A trace is evidence, best effort: a closed context must not hide the test's error.
        try:
            method(*args, **kwargs)
        except PlaywrightError:
            return False
        return True


def attach(config: pytest.Config, tracing: Tracing, steplog: StepLog) -> None:
    """Group the test's steps in its trace, when pytest-playwright is tracing."""
    if tracing_on(config):
        steplog.listeners.append(TraceGroups(tracing, steplog.mask))
