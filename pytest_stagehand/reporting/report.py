"""One test's AI steps wired to every report that is switched on: the StepLog a test
records into, the reporters listening to it, and what its teardown report carries.

The `ai_page` fixture calls `start_test(item, settings, page_screenshot(acting, secrets))` and
records its steps in the StepLog it gets back; the plugin's hooks call `complete_report`.
Every reporter works from `records.step_record`, which masks the test's secrets in every
string, so no reporter can leak one by forgetting to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_stagehand.events import StepLog
from pytest_stagehand.reporting.allure_steps import AllureSteps
from pytest_stagehand.reporting.evidence import (
    EvidenceWriter,
    StepScreenshots,
    evidence_folder,
    try_screenshot,
)
from pytest_stagehand.reporting.junit import junit_properties
from pytest_stagehand.reporting.records import REPORT_ATTR, Screenshot, step_record
from pytest_stagehand.reporting.terminal import TerminalStepPrinter, is_worker
from pytest_stagehand.settings import Settings


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
        png = try_screenshot(self.screenshot) if self.screenshot else None
        if png is None:
            return
        if self.allure:
            self.allure.attach_screenshot(png, "screenshot on failure")
        if self.evidence:
            self.evidence.add_failure_screenshot(png)


STEPS_KEY = pytest.StashKey[TestSteps]()


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
    if (config.option.verbose > 0 and not is_worker(config)
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
