"""Step events: the one record of what each AI step did, for every report.

Pipelines open a step, fill in what happened, and close it; reporters (terminal,
Allure, evidence files, JUnit properties) listen. Values of variables (secrets) are
masked here as a last line of defence, though pipelines never put them in.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal, Protocol

from .usage import CallUsage

StepKind = Literal["act", "observe", "extract", "assert", "agent", "goto"]
CacheStatus = Literal["hit", "miss", "healed", "refreshed", "off", "none"]
MASK = "***"


@dataclass
class Heal:
    """How a recorded step was repaired, so a reviewer can judge it."""

    strategy: Literal["locator", "fingerprint", "model", "rejudged"]
    before: str  # the recorded selector (or check) that no longer held
    after: str  # what replaced it
    score: float | None = None  # fingerprint similarity, when scored


@dataclass
class Exchange:
    """One prompt sent to a model and the answer, kept for attachments."""

    purpose: str
    prompt: str
    answer: str


@dataclass
class StepEvent:
    kind: StepKind
    instruction: str  # with %name% placeholders, never the values
    url: str = ""
    started: float = field(default_factory=time.time)
    duration_s: float = 0.0
    cache: CacheStatus = "none"
    heal: Heal | None = None
    element: str | None = None  # e.g. 'button "Log in"'
    selector: str | None = None
    method: str | None = None
    arguments: list[str] = field(default_factory=list)
    calls: list[CallUsage] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    result: str | None = None  # short summary: extracted value, verdict, agent status
    screenshot: bytes | None = None
    ok: bool = True
    error: str | None = None

    @property
    def cost_usd(self) -> float:
        return sum(call.cost_usd or 0.0 for call in self.calls)


class StepListener(Protocol):
    def step_started(self, event: StepEvent) -> None: ...

    def step_finished(self, event: StepEvent) -> None: ...


class StepLog:
    """The steps of one test, in order, with the secrets to mask in anything reported."""

    def __init__(self, nodeid: str = "", listeners: list[StepListener] | None = None) -> None:
        self.nodeid = nodeid
        self.events: list[StepEvent] = []
        self.listeners: list[StepListener] = list(listeners or [])
        self._secrets: set[str] = set()

    def add_secrets(self, values: object) -> None:
        for value in values if isinstance(values, list | tuple | set) else [values]:
            text = str(value)
            if text:
                self._secrets.add(text)

    def mask(self, text: str) -> str:
        # Longest first, so a secret containing another is masked whole.
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return text

    @contextmanager
    def step(self, kind: StepKind, instruction: str, url: str = "") -> Iterator[StepEvent]:
        event = StepEvent(kind=kind, instruction=self.mask(instruction), url=url)
        for listener in self.listeners:
            listener.step_started(event)
        begin = time.perf_counter()
        try:
            yield event
        except BaseException as exc:
            event.ok = False
            event.error = self.mask(f"{type(exc).__name__}: {exc}")
            raise
        finally:
            event.duration_s = time.perf_counter() - begin
            self._mask_event(event)
            self.events.append(event)
            for listener in self.listeners:
                listener.step_finished(event)

    def _mask_event(self, event: StepEvent) -> None:
        if not self._secrets:
            return
        event.arguments = [self.mask(a) for a in event.arguments]
        for name in ("element", "selector", "result", "error", "url"):
            value = getattr(event, name)
            if value:
                setattr(event, name, self.mask(value))
        for exchange in event.exchanges:
            exchange.prompt = self.mask(exchange.prompt)
            exchange.answer = self.mask(exchange.answer)
