"""Allure steps: each AI step as an Allure step of the test, with its parameters and
screenshots (only with --alluredir)."""

from __future__ import annotations

from allure_commons.model2 import Parameter, Status, StatusDetails, TestStepResult
from allure_commons.reporter import AllureReporter
from allure_commons.types import AttachmentType
from allure_commons.utils import uuid4

from pytest_stagehand.events import StepEvent
from pytest_stagehand.reporting.records import (
    Mask,
    Record,
    describe_heal,
    describe_usage,
    step_record,
    usage_of,
)


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
