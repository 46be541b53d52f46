"""Benchmark: model faults against every AI operation, on both wires.

Run: .venv/bin/python bench/bench_faults.py [--operations act,extract]

Plays the fault matrix of tests/fault_matrix.py (HTTP 429 and 500, timeouts, malformed,
cut-off and off-schema answers, and status-200 replies that are no reply: not JSON, cut
off, an HTML page, an error object, no choices, null content, missing fields, an empty
body), each once (then a correct answer) and on every call, through the real openai and
anthropic SDKs against the scripted model server, on a real Chromium page.

Prints per operation and per fault: cases, recovered, typed error, raw exception; then
the totals. Raw exceptions must be 0; a fault once must be recovered from, a fault on
every call must end in a typed error ("unexpected" counts the cases that did not).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fault_matrix
from playwright.sync_api import sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.testing.scripted_model import ScriptedModelServer

OUTCOMES = ("recovered", "typed", "raw")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", default=",".join(fault_matrix.OPERATIONS))
    args = parser.parse_args()
    operations = tuple(args.operations.split(","))
    logging.disable(logging.WARNING)  # every retry logs a warning: the table says it all

    results: list[fault_matrix.Result] = []
    launch_options = find_chromium().launch_options()  # asks Playwright, so outside the block
    started = time.perf_counter()
    with sync_playwright() as playwright, ScriptedModelServer() as server:
        browser = playwright.chromium.launch(**launch_options)
        page = browser.new_page()
        for wire in fault_matrix.WIRES:
            with fault_matrix.fault_page(page, server, wire) as ai_page:
                for case in fault_matrix.cases(operations):
                    if case.wire == wire:
                        results.append(fault_matrix.run_case(ai_page, server, case))
        browser.close()
    elapsed = time.perf_counter() - started

    _table("operation", results, lambda r: f"{r.case.operation} ({r.case.wire})")
    _table("fault", results, lambda r: r.case.fault)
    totals = Counter(r.outcome for r in results)
    unexpected = [r for r in results if r.outcome != fault_matrix.expected(r.case)]
    print(
        f"\ncases {len(results)}, recovered {totals['recovered']}, typed error "
        f"{totals['typed']}, raw exception {totals['raw']} (must be 0); "
        f"unexpected {len(unexpected)}; {elapsed:.1f}s"
    )
    for result in unexpected:
        print(f"  unexpected: {result.case.name}: {result.outcome} ({result.detail})")
    return 1 if totals["raw"] or unexpected else 0


def _table(title: str, results: list[fault_matrix.Result], group) -> None:
    counts: dict[str, Counter] = defaultdict(Counter)
    for result in results:
        counts[group(result)][result.outcome] += 1
    print(f"\n{title:<36} {'cases':>6} {'recovered':>10} {'typed':>6} {'raw':>4}")
    for name, outcome in counts.items():
        cells = " ".join(f"{outcome[o]:>{w}}" for o, w in zip(OUTCOMES, (10, 6, 4), strict=True))
        print(f"{name:<36} {sum(outcome.values()):>6} {cells}")


if __name__ == "__main__":
    sys.exit(main())
