"""The one masked, serialisable form of a step, which every report is written from, and
the lines people read for it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from pytest_stagehand.calls import CallUsage
from pytest_stagehand.events import StepEvent, each_text
from pytest_stagehand.model.usage import UsageTotals

Screenshot = Callable[[], bytes | None]


Mask = Callable[[str], str]


Record = dict[str, Any]


# The test's step records travel on its teardown report, which xdist ships to the controller.
REPORT_ATTR = "stagehand_steps"


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
