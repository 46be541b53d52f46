"""Evidence folders: every step and screenshot of a test written to disk, with checksums,
for the people who review a run after it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.events import StepEvent
from pytest_stagehand.reporting.records import Mask, Record, Screenshot, step_record, usage_of


class StepScreenshots:
    """Takes a screenshot after every step (--ai-screenshots=every-step), before the
    reporters after it in the StepLog see the event."""

    def __init__(self, screenshot: Screenshot) -> None:
        self._screenshot = screenshot

    def step_started(self, event: StepEvent) -> None:
        pass

    def step_finished(self, event: StepEvent) -> None:
        if event.screenshot is None:
            event.screenshot = try_screenshot(self._screenshot)


def page_screenshot(
    acting: Callable[[], PageWatch], secrets: Callable[[], Mapping[str, str]] = dict
) -> Screenshot:
    """A screenshot of the page the steps act on (`acting`'s: the tab a step opened, once
    it did) for evidence, with the test's `secrets` (StepLog.secrets) covered, and none
    while a held dialog blocks it: the call would wait until the dialog expired, and so take
    the next step's answer away."""

    def screenshot() -> bytes | None:
        watch = acting()
        if watch.blocked:
            return None
        with overlaid(watch.page, secrets()):
            return watch.page.screenshot()

    return screenshot


def try_screenshot(screenshot: Screenshot) -> bytes | None:
    # Evidence is best effort: a closed or crashed page must not hide the test's own error.
    try:
        return screenshot()
    except Exception:
        return None


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
