"""The example suite (examples/) heals on the redesigned shop, with no model; its committed
recordings hold no secret. That they replay as they are on the classic shop, with no model,
is checked on the replay over CDP (tests/test_remote.py): one run of the suite proves both.

Each test copies examples/ to a temporary directory and runs pytest on the copy in a
subprocess with no model configured at all (no key, no --ai-model, no STAGEHAND_*
variable), so a step that needed a model would fail with ModelRequired or CacheMiss, and
nothing the runs record touches the committed files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
RECORDINGS = "__stagehand__"
EXAMPLE_TESTS = 20
# The test ids the redesign changes on purpose (examples/app/templates): these two steps
# cannot replay on their first selector and heal onto the renamed element.
RENAMED_TEST_IDS = {
    "click the log in button": ('[data-test="login-button"]', '[data-test="sign-in-button"]'),
    "open the cart": ('[data-test="shopping-cart-link"]', '[data-test="header-cart"]'),
}

pytestmark = pytest.mark.timeout(600)


def copy_of_examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(
        EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", ".stagehand", ".pytest_cache")
    )
    return copy


def run_offline(
    copy: Path, *args: str, only: tuple[str, ...] = (), **environment: str
) -> subprocess.CompletedProcess[str]:
    """pytest on the copy's example tests (`only` these files, if given), offline, with no
    model configured anywhere; `args` go to pytest."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OPENAI_", "ANTHROPIC_", "STAGEHAND_", "SHOP_", "PYTEST_"))
    }
    env.update(environment)
    command = [
        sys.executable, "-m", "pytest", *([str(copy / name) for name in only] or [str(copy)]),
        "--ignore", str(copy / "app"),  # the shop's own smoke test: no AI steps
        "--ai-cache=offline", "--ai-cache-dir", str(copy.parent / "store"),
        "-p", "no:cacheprovider", "-q", *args,
    ]  # fmt: skip
    return subprocess.run(
        command, cwd=copy.parent, env=env, capture_output=True, text=True, timeout=540
    )


def outcome(run: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """How many tests passed, failed, errored... by pytest's last line. Warnings are left
    out: the run's own pytest may warn about the machine (a temporary folder it could not
    sweep), which says nothing of the tests."""
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    counts = re.findall(r"(\d+) (\w+)", last)
    return {kind: int(count) for count, kind in counts if kind not in ("warning", "warnings")}


def recordings(directory: Path) -> dict[str, dict[str, Any]]:
    """Every recorded step of every file, by file and (kind, instruction, url, variables)."""
    steps = {}
    for path in sorted((directory / RECORDINGS).glob("*.json")):
        for step in json.loads(path.read_text())["steps"]:
            key = (step["kind"], step["instruction"], step["url"], tuple(step["variables"]))
            steps[f"{path.name}: {key}"] = step
    return steps


def reported_heals(output: str, instructions: set[str]) -> list[tuple[str, str, str, str]]:
    """(instruction, before, after, strategy) of each "healed in" line of the summary."""
    heals = []
    for line in output.splitlines():
        if not line.startswith("  healed in "):
            continue
        text = line.split(': "', 1)[1]
        instruction = next(i for i in instructions if text.startswith(f'{i}" '))
        change = re.fullmatch(
            r"(.+) → (.+) \((\w+), [\d.]+(?:; changed: .+)?\)", text[len(instruction) + 2 :]
        )
        assert change, line
        heals.append((instruction, *change.groups()))
    return heals


def without_elements(value: Any) -> Any:
    """A recorded step with what a heal may change left out: the recorded elements (their
    selectors, fingerprint and surroundings) and the heal notes."""
    if isinstance(value, dict):
        return {
            key: without_elements(item)
            for key, item in value.items()
            if key not in ("element", "heals", "recorded_at")
        }
    if isinstance(value, list):
        return [without_elements(item) for item in value]
    return value


def test_the_committed_recordings_hold_no_secret_and_no_server_address():
    text = "\n".join(p.read_text() for p in sorted((EXAMPLES / RECORDINGS).glob("*.json")))
    assert text, "no committed recordings: run python examples/record.py"
    for secret in ("secret_sauce", "correct-horse-battery"):  # the examples' password values
        assert secret not in text
    assert "127.0.0.1" not in text  # recorded against a server on a random port
    # Who made each step is on record (the scripted shop oracle: see examples/README.md).
    assert all(step["model"] for step in recordings(EXAMPLES).values())


@pytest.mark.long
def test_the_examples_heal_on_the_redesigned_shop_offline(
    tmp_path: Path, examples_on_the_redesign: tuple[Path, subprocess.CompletedProcess[str]]
):
    committed = recordings(EXAMPLES)

    replayed, run = examples_on_the_redesign

    assert outcome(run) == {"passed": EXAMPLE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    assert "model calls: none" in run.stdout
    heals = reported_heals(run.stdout, {step["instruction"] for step in committed.values()})
    assert heals, run.stdout[-4000:]
    assert {strategy for *_, strategy in heals} == {"fingerprint"}  # no model was there
    for instruction, (before, after) in RENAMED_TEST_IDS.items():
        assert (instruction, before, after, "fingerprint") in heals

    # The heals were written to the copy's recordings: the same steps, doing the same
    # things, with elements re-recorded and a heal note for each step that healed.
    healed = recordings(replayed)
    assert healed.keys() == committed.keys()
    for key, step in healed.items():
        assert without_elements(step) == without_elements(committed[key]), key
    noted = {step["instruction"] for step in healed.values() if step["heals"]}
    assert noted == {instruction for instruction, *_ in heals}
    assert {note["strategy"] for step in healed.values() for note in step["heals"]} == {
        "fingerprint"
    }

    # Recorded heals replay: a second run on the redesign heals nothing more. It runs the
    # modules whose recordings healed: the others' recordings are the ones the first run
    # has just replayed on the redesign without a heal.
    modules = sorted({key.split(".json: ")[0] for key, step in healed.items() if step["heals"]})
    first = json.loads((replayed.parent / "store" / "last-run.json").read_text())
    tests = {s["test"] for s in first["steps"] if Path(s["test"].split("::")[0]).stem in modules}
    shutil.copytree(replayed.parent, tmp_path, dirs_exist_ok=True)  # the copy and its store
    only = tuple(f"{module}.py" for module in modules)
    again = run_offline(tmp_path / "examples", only=only, SHOP_VARIANT="redesign")
    assert outcome(again) == {"passed": len(tests)}, again.stdout[-4000:]
    assert "healed" not in again.stdout
