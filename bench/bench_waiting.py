"""Benchmark: waiting costs nothing when the page is ready.

Run: .venv/bin/python bench/bench_waiting.py [--reps 15] [--rounds 3] [--before 0657f19]

Target (issue 15): a step whose target is already on the page takes no longer than in the
release before waiting was added (ratio about 1.0): the wait adds one round trip (the
page's change mark) before each step and nothing else while the page has what the step
looks for.

Both versions run in this one invocation, side by side: the release before waiting
(`git archive` of --before into a temporary folder) and this checkout, each in its own
subprocess with its own package on the path, in alternating rounds so a busy machine slows
both alike. In each, on a local login page served on 127.0.0.1, four steps are recorded
once with a scripted model (a local server that answers from the snapshot it is sent: no
real model) and then replayed offline with no model, each repetition with fresh
recordings and the default wait timeout:

- act:         "type Ada into the username field" (fill; the element is there);
- extract:     "the logo text" (read again from the page);
- observe:     "the remember me checkbox";
- assert_that: "the page heading reads Swag Labs" (the recorded check, run again);
- act (model): the same act with no recordings: the scripted model answers at once.

Prints, per step, the median milliseconds before and now and their ratio.

--before must be laid out in folders as this checkout is (0657f19 or later): this script
runs the same steps on both and imports the package's modules where they are now. The
release before waiting (5cda541, flat modules) can no longer be run by it; the default is
the first release laid out in folders.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("act", "extract", "observe", "assert_that", "act (model)")


# --- the measuring subprocess: runs against whichever package is first on its path ------


def _answer(request) -> dict:
    """What a correct model answers on the login page, read from the prompt it was sent."""
    text = request.text
    start = max(text.rfind("Snapshot:\n"), 0)
    outline = re.split(r"\n\n(?:Instruction|Claim|Extract):", text[start:])[0]

    def element(role: str, name: str) -> str:
        return re.search(rf'\b(e\d+) {role} "{re.escape(name)}"', outline)[1]

    if "Claim:" in text:
        return {"verdict": "YES", "reasoning": "The heading reads Swag Labs.",
                "check": {"kind": "page_text", "text": "Swag Labs", "present": True}}
    if "Extract:" in text:
        return {"text": "Swag Labs"}
    if "remember me checkbox" in text:
        return {"elements": [{"element_id": element("checkbox", "Remember me"),
                              "description": "Remember me", "method": "check",
                              "arguments": []}]}
    return {"found": True, "element_id": element("textbox", "Username"), "method": "fill",
            "arguments": ["Ada"], "description": "Username", "two_step": False}


def measure(reps: int) -> dict[str, list[float]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from playwright.sync_api import sync_playwright
    from servers import PagesServer

    from pytest_stagehand.browser.launch import find_chromium
    from pytest_stagehand.events import StepLog
    from pytest_stagehand.model.client import ModelConfig
    from pytest_stagehand.model.providers import create_client
    from pytest_stagehand.page import AIPage
    from pytest_stagehand.pipelines.act import ModelResolver
    from pytest_stagehand.pipelines.judge import Evaluator
    from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
    from pytest_stagehand.recordings.store import Recordings, RecordingStore
    from pytest_stagehand.testing.scripted_model import ScriptedModelServer

    launch = find_chromium().launch_options()  # before sync_playwright: it asks Playwright
    pages = PagesServer().start()
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    with (
        tempfile.TemporaryDirectory() as folder,
        sync_playwright() as playwright,
        ScriptedModelServer(default=_answer) as scripted,
        create_client(ModelConfig("openai/scripted", base_url=scripted.openai_base_url,
                                  max_retries=0)) as client,
    ):
        browser = playwright.chromium.launch(**launch)
        page = browser.new_page()
        store = RecordingStore(Path(folder) / "store")
        test_file = Path(folder) / "test_bench.py"

        def ai_page(mode: str, model) -> AIPage:
            steplog = StepLog()
            recordings = Recordings(store, test_file, mode)
            has = model is not None
            return AIPage(
                page, model, steplog=steplog, base_url=pages.url(),
                resolver=RecordingResolver(page, ModelResolver(page, model, steplog),
                                           recordings, steplog, has_model=has),
                evaluator=Evaluator(page, model, steplog, recordings=recordings),
                recorder=StepRecorder(page, recordings, steplog, has_model=has),
            )

        def steps(ai: AIPage) -> dict[str, float]:
            took = {}
            for name, run in (
                ("act", lambda: ai.act("type Ada into the username field")),
                ("extract", lambda: ai.extract("the logo text")),
                ("observe", lambda: ai.observe("the remember me checkbox")),
                ("assert_that", lambda: ai.assert_that("the page heading reads Swag Labs")),
            ):
                start = time.perf_counter()
                run()
                took[name] = time.perf_counter() - start
            return took

        recording = ai_page("auto", client)
        recording.goto("login.html")
        steps(recording)
        for _ in range(reps):
            ai = ai_page("offline", None)
            ai.goto("login.html")
            for name, seconds in steps(ai).items():
                times[name].append(seconds)
            model_only = AIPage(page, client, base_url=pages.url())
            start = time.perf_counter()
            model_only.act("type Ada into the username field")
            times["act (model)"].append(time.perf_counter() - start)
        browser.close()
        store.close()
    pages.close()
    return times


# --- the comparison ----------------------------------------------------------------------


def release_before(commit: str, into: Path) -> Path:
    """The package as it was at `commit`, unpacked into `into`."""
    archive = subprocess.run(
        ["git", "archive", commit, "pytest_stagehand"], cwd=ROOT, check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_version(package_root: Path, reps: int, script: str = __file__) -> Any:
    """What `script --measure` prints (JSON) when run with the package at `package_root`."""
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    done = subprocess.run(
        [sys.executable, script, "--measure", "--reps", str(reps)],
        env=env, check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


VERSIONS = ("before", "now")


def alternating(before: str, rounds: int, reps: int, script: str = __file__) -> Iterator[Any]:
    """(version, what `script --measure` printed) for the release `before` and this
    checkout, each in its own process, in `rounds` rounds that alternate which goes first."""
    with tempfile.TemporaryDirectory() as folder:
        versions = {"before": release_before(before, Path(folder)), "now": ROOT}
        for round_number in range(rounds):
            order = list(versions) if round_number % 2 == 0 else list(reversed(versions))
            for version in order:
                yield version, run_version(versions[version], reps, script)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=15, help="repetitions per round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--before", default="0657f19",
                        help="a release laid out in folders (0657f19 or later)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.reps)))
        return
    times: dict[str, dict[str, list[float]]] = {v: {s: [] for s in STEPS} for v in VERSIONS}
    for version, took in alternating(args.before, args.rounds, args.reps):
        for step, values in took.items():
            times[version][step].extend(values)
    print(f"Waiting costs nothing when the page is ready: {args.rounds} rounds x {args.reps} "
          f"reps, before = {args.before}, now = this checkout (default wait timeout)\n")
    print(f"{'step (target present)':<24}{'before ms':>11}{'now ms':>10}{'ratio':>8}")
    for step in STEPS:
        before = statistics.median(times["before"][step]) * 1000
        now = statistics.median(times["now"][step]) * 1000
        print(f"{step:<24}{before:>11.1f}{now:>10.1f}{now / before:>8.2f}")


if __name__ == "__main__":
    main()
