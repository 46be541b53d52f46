"""Export to plain Playwright: a test module that runs with no plugin (`--ai-export=DIR`).

A recordings file holds each step once, keyed by instruction and page, not the order in
which tests take them. So the export replays the tests (offline: no model) and notes, per
test, the top-level steps in order with the recording each one used; the controller then
writes `<module>_playwright.py` with each step as the Playwright call on its best recorded
locator, each recorded check as an `expect(...)`, and the instruction as a comment.
Variable values are never written: each variable is a constant read from the environment
(`VAR_<NAME>`); a name that took two values in the run gets two constants.

The recording is read by `export_operations`, and the module written by
`playwright_module`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Generator, Mapping
from pathlib import Path

import pytest

from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.recordings.format import Recording
from pytest_stagehand.recordings.keys import StepKey
from pytest_stagehand.recordings.store import RecordingStore
from pytest_stagehand.reporting.playwright_module import render_module
from pytest_stagehand.reporting.records import Record
from pytest_stagehand.settings import Settings
from pytest_stagehand.snapshot.outline import origin_of

REPORT_ATTR = "stagehand_export"
TAP_KEY = pytest.StashKey["StepTap"]()
PLUGIN_NAME = "stagehand-export"
SUFFIX = "_playwright"


# --- what a run tells: each test's top-level steps and the recordings they used -----------


class StepTap:
    """The session's recording store as one test sees it, noting which recording each of
    the test's top-level steps looked up (or re-recorded, when it healed), and a keyed
    digest of each variable's value, so two values of one name are told apart unseen."""

    def __init__(self, store: RecordingStore, salt: str, base_url: str | None = None) -> None:
        self._store = store
        self._salt = salt.encode()
        self.base_url = base_url
        self.steplog: StepLog | None = None
        self.steps: list[Record] = []
        self._depth = 0

    # the store, as Recordings uses it
    def lookup(self, test_file: Path, key: StepKey) -> Recording | None:
        recording = self._store.lookup(test_file, key)
        self._note(recording)
        return recording

    def put(
        self, test_file: Path, recording: Recording, variables: Mapping[str, object] | None = None
    ) -> None:
        self._store.put(test_file, recording, variables)
        self._note(recording)

    def _note(self, recording: Recording | None) -> None:
        """The first recording a step uses is its own; a later put of it is its heal."""
        if recording is None or not self._depth:
            return
        step = self._current
        if "recording" not in step or step["key"] == recording.key.digest:
            step["recording"] = recording.model_dump(mode="json")
            step["key"] = recording.key.digest

    @property
    def _current(self) -> Record:
        return self.steps[-1]

    # the step listener
    def step_started(self, event: StepEvent) -> None:
        if self._depth == 0:
            step = {"kind": event.kind, "instruction": event.instruction, "url": event.url}
            self.steps.append(step)
        elif event.kind == "act" and self._current["kind"] == "agent":
            # Where each of the agent's actions ran: a new page between two of them must
            # load (its scripts run) before plain Playwright acts on it.
            self._current.setdefault("action_urls", []).append(event.url)
        self._depth += 1

    def step_finished(self, event: StepEvent) -> None:
        self._depth -= 1
        if self._depth:
            return
        step = self._current
        step.update(ok=event.ok, selector=event.selector, method=event.method,
                    arguments=list(event.arguments))
        if event.kind in ("goto", "tab"):
            step["path"] = _relative(event.instruction, self.base_url)
        values = self.steplog.variables if self.steplog else {}
        step["values"] = {
            name: hmac.new(self._salt, value.encode(), hashlib.sha256).hexdigest()[:16]
            for name, value in values.items()
        }


def _relative(url: str, base_url: str | None) -> str:
    """A URL on the base URL's origin as the path goto takes with pytest-playwright's base_url."""
    origin = origin_of(base_url or "")
    if origin and origin_of(url) == origin:
        return url[len(origin) :] or "/"
    return url


def tapped(item: pytest.Item, store: RecordingStore) -> RecordingStore:
    """The store the test's recordings go through: tapped when the run exports."""
    exporter = item.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if exporter is None:
        return store
    tap = item.stash[TAP_KEY] = StepTap(store, exporter.salt)
    return tap  # type: ignore[return-value]  # the store's interface, as Recordings uses it


def attach(item: pytest.Item, steplog: StepLog, base_url: str | None) -> None:
    tap = item.stash.get(TAP_KEY, None)
    if tap is not None:
        tap.steplog, tap.base_url = steplog, base_url
        steplog.listeners.append(tap)


# --- the recording format, read in one place ------------------------------------------------


# --- Python from operations ----------------------------------------------------------------


# --- the plugin: ships each test's steps to the controller, which writes the modules ---------


class Exporter:
    def __init__(self, config: pytest.Config, directory: Path, salt: str) -> None:
        self._config = config
        self.directory = directory
        self.salt = salt
        self.tests: dict[str, Record] = {}  # nodeid → test, in order of completion
        self.failed: set[str] = set()
        self.written: list[tuple[Path, int]] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        tap = item.stash.get(TAP_KEY, None)
        if tap is not None and report.when == "teardown":
            name = getattr(item, "originalname", item.name)
            setattr(report, REPORT_ATTR, {"file": str(item.path), "name": name,
                                          "order": _order(item), "steps": tap.steps})
            del item.stash[TAP_KEY]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        payload = getattr(report, REPORT_ATTR, None)
        if payload and report.nodeid not in self.failed:
            self.tests[report.nodeid] = payload

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        by_file: dict[str, dict[str, Record]] = {}
        for test in sorted(self.tests.values(), key=lambda t: (t["file"], t["order"])):
            by_file.setdefault(test["file"], {}).setdefault(test["name"], test)  # one per name
        self.directory.mkdir(parents=True, exist_ok=True)
        for file, tests in by_file.items():
            path = self.directory / f"{Path(file).stem}{SUFFIX}.py"
            source = _shown(Path(file), self._config.rootpath)
            path.write_text(render_module(source, list(tests.values())), encoding="utf-8")
            self.written.append((path, len(tests)))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(self._config, "workerinput"):
            return
        for path, count in self.written:
            terminalreporter.write_line(f"pytest-stagehand export: {path} ({count} tests)")
        for nodeid in sorted(self.failed):
            terminalreporter.write_line(f"pytest-stagehand export: not exported (failed): {nodeid}")


def _order(item: pytest.Item) -> int:
    return item.location[1] or 0


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def register(config: pytest.Config, settings: Settings, salt: str) -> None:
    if settings.export_dir:
        directory = config.rootpath / Path(settings.export_dir).expanduser()
        config.pluginmanager.register(Exporter(config, directory, salt), PLUGIN_NAME)
