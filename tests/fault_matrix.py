"""Model faults against every AI operation, on both wires: each case must end recovered
or in one of the plugin's typed errors, never in a raw Python exception.

A case is (wire, operation, fault, mode). "once": the fault, then a correct answer (a
retry or the repair must recover). "always": every call gets the fault (the step must end
in a typed error; for the agent, a run that reports the error). Used by
tests/test_llm.py (the matrix as tests) and bench/bench_faults.py (the counts).

Nothing here is a model: the scripted server answers what a correct model would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from playwright.sync_api import Page
from pydantic import BaseModel
from scripted_answers import choose, observed

from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.errors import StagehandError
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.page import AIPage
from pytest_stagehand.testing.scripted_model import (
    BROKEN_KINDS,
    Broken,
    Fault,
    Reply,
    ScriptedModelServer,
    ScriptedReply,
)

WIRES = ("openai", "anthropic")
OPERATIONS = ("act", "observe", "extract", "judge", "agent")
MODES = ("once", "always")
Outcome = Literal["recovered", "typed", "raw"]

# The client's timeout; a scripted timeout answers later than this. A good answer must come
# within it on a loaded CI machine too: 0.25 s was once too short there.
TIMEOUT_S = 1.0
PAGE = "<h1>Order</h1><p>Total: $5</p><button>Buy</button>"

# HTTP faults and bad answers the layer handled before, then replies that are no reply.
FAULTS: dict[str, ScriptedReply] = {
    "http_429": Fault(429),
    "http_500": Fault(500),
    "timeout": Fault.timeout(TIMEOUT_S * 4),
    "malformed_json_answer": '{"total": "$5", ',
    "truncated_answer": Reply('{"total": "$', finish_reason="length"),
    "answer_off_schema": {"unexpected": 1},
    **{f"broken_{kind}": Broken(kind) for kind in BROKEN_KINDS},
}


class Total(BaseModel):
    total: str


def _agent_done(request: Any) -> dict[str, Any]:
    """Look first, then report: a success claimed with nothing done is refused."""
    if "Waited" not in request.text:
        return {"thought": "Let the page settle.", "call": {"tool": "wait", "seconds": 0.1}}
    return {
        "thought": "The order page is shown.",
        "call": {"tool": "done", "success": True, "reasoning": "shown", "output": None},
    }


# What a correct model answers for each operation.
GOOD_ANSWERS: dict[str, Callable[[Any], Any]] = {
    "act": choose("button", "Buy"),
    "observe": observed(("button", "Buy", "click", ())),
    "extract": lambda _request: {"total": "$5"},
    "judge": lambda _request: {"verdict": "YES", "reasoning": "It says Total: $5.", "check": None},
    "agent": _agent_done,
}


def _run_operation(ai_page: AIPage, operation: str) -> str | None:
    """One step of `operation`; raises what the step raises. An agent run reports its
    failures instead: its message is returned, None when the run succeeded."""
    if operation == "act":
        ai_page.act("click the Buy button")
    elif operation == "observe":
        ai_page.observe("the Buy button")
    elif operation == "extract":
        ai_page.extract("the order total", schema=Total)
    elif operation == "judge":
        ai_page.assert_that("the order total is $5")
    else:
        result = Agent(ai_page).execute("open the order page", max_steps=2)
        return None if result.success else f"{result.status}: {result.message}"
    return None


@dataclass(frozen=True)
class Case:
    wire: str
    operation: str
    fault: str
    mode: str

    @property
    def name(self) -> str:
        return f"{self.wire}-{self.operation}-{self.fault}-{self.mode}"


@dataclass(frozen=True)
class Result:
    case: Case
    outcome: Outcome
    detail: str  # the error's type and first line, for a failing case


def cases(operations: tuple[str, ...] = OPERATIONS) -> list[Case]:
    return [
        Case(wire, operation, fault, mode)
        for wire in WIRES
        for operation in operations
        for fault in FAULTS
        for mode in MODES
    ]


@contextmanager
def fault_page(page: Page, server: ScriptedModelServer, wire: str) -> Iterator[AIPage]:
    """An AIPage on the scripted server with a short timeout, one retry and no backoff."""
    base_url = server.openai_base_url if wire == "openai" else server.anthropic_base_url
    config = ModelConfig(
        f"{wire}/scripted",
        base_url=base_url,
        timeout=TIMEOUT_S,
        max_retries=1,
        backoff_base=0.0,
        backoff_cap=0.0,
    )
    with create_client(config) as client:
        yield AIPage(page, client)


def run_case(ai_page: AIPage, server: ScriptedModelServer, case: Case) -> Result:
    """Play `case` on a fresh copy of the page and say how it ended."""
    good = GOOD_ANSWERS[case.operation]
    fault = FAULTS[case.fault]
    server.clear()  # nothing left over from the case before
    if case.mode == "once":
        server.enqueue(fault)
        server.default = good
    else:
        server.default = fault
    ai_page.page.set_content(PAGE)
    try:
        reported = _run_operation(ai_page, case.operation)
    except StagehandError as exc:
        return Result(case, "typed", _describe(exc))
    except Exception as exc:
        return Result(case, "raw", _describe(exc))
    if reported is not None:  # an agent run that ended and said why
        return Result(case, "typed", f"agent run {reported.splitlines()[0]}")
    return Result(case, "recovered", "")


def _describe(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def expected(case: Case) -> Outcome:
    """A fault once is recovered from (retry or repair); a fault on every call is typed."""
    return "recovered" if case.mode == "once" else "typed"
