"""Benchmark: the example suite replayed offline against the same suite in plain Playwright.

Run: .venv/bin/python bench/bench_suite.py [--rounds 3] [-k EXPRESSION]

Target (issue 37): the plugin's offline replay at most 1.1x the plain suite's time.

The plain suite is the example suite's own export (`python -m pytest_stagehand export`:
each module written as `<module>_playwright.py`, its recorded locators and actions in
plain Playwright), which is the suite a user would otherwise write by hand. On a copy of
examples/, the export runs once (not timed); then, in each round, in alternating order:

- plugin: `pytest <the example modules> --ai-cache=offline` (the recordings, no model);
- plain:  `pytest <the exported modules> -p no:stagehand` (pytest-playwright alone).

Both run the same tests (those that pass in both), on the same shop served by the
examples' conftest, the same Chromium, each in a fresh Python process: the wall time is
what a user waits for. `suite_probe.py` is loaded in both to split the time: start-up
(the process starting to the first test), the tests, and the end (the last test to the
process gone); and in the plugin's run, its parts of a step (settle, lookup, verify,
action, after-action, report). Medians over the rounds. The machine may be shared with
other work: the order alternates so that load falls on both alike, and the figures are
noisy; read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_stagehand.browser.launch import find_chromium

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# What the exported modules type where the tests' variables were (the examples' values).
VALUES = {"VAR_USER": "standard_user", "VAR_USER_2": "locked_out_user",
          "VAR_PASSWORD": "secret_sauce", "VAR_LIST": "Birthday ideas"}  # fmt: skip
# The exported modules' conftest: the browser the plugin's run finds for itself.
CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {{**browser_type_launch_args, **{options!r}}}
"""
PARTS = ["settle", "lookup", "verify", "action", "after-action", "report"]


def environment(work: Path, probe: Path) -> dict[str, str]:
    """Offline: no model configured, no pytest options from outside. Python writes and
    reuses its bytecode, as on a user's machine: with PYTHONDONTWRITEBYTECODE set, the plugin's
    run would compile its own modules (and pytest rewrite their asserts) in every process,
    while the plain suite's dependencies come compiled from their install."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OPENAI_", "ANTHROPIC_", "STAGEHAND_", "SHOP_", "PYTEST_"))
        and name != "PYTHONDONTWRITEBYTECODE"
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), env.get("PYTHONPATH", "")])
    env["BENCH_SUITE_PROBE"] = str(probe)
    photo = work / "ada.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n")
    return {**env, **VALUES, "VAR_PHOTO": str(photo)}


def run(work: Path, arguments: list[str], module: str = "pytest") -> tuple[float, dict[str, Any]]:
    """`python -m <module> <arguments>` in `work`: its wall time and what the probe saw."""
    probe = work / "probe.json"
    probe.unlink(missing_ok=True)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", module, *arguments, "-p", "suite_probe", "-p", "no:cacheprovider",
         "-p", "no:randomly", "-q"],
        cwd=work, env=environment(work, probe), capture_output=True, text=True,
    )  # fmt: skip
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments[:3])}... failed:\n{done.stdout[-3000:]}")
    seen = json.loads(probe.read_text())
    seen["phases"]["started"] = started
    seen["phases"]["exited"] = started + wall
    return wall, seen


def passed(seen: dict[str, Any]) -> set[str]:
    """The tests that ran whole, as `module::test[params]` with no _playwright suffix."""
    return {
        nodeid.split("/")[-1].replace("_playwright.py", ".py")
        for nodeid, phases in seen["tests"].items()
        if set(phases) == {"setup", "call", "teardown"}
    }


def per_test(seen: dict[str, Any]) -> dict[str, float]:
    """Each test's setup, call and teardown, in seconds, by its name in `passed`."""
    return {
        nodeid.split("/")[-1].replace("_playwright.py", ".py"): sum(phases.values())
        for nodeid, phases in seen["tests"].items()
    }


def split(seen: dict[str, Any]) -> dict[str, float]:
    """Start-up, tests and end of one run, in seconds."""
    p = seen["phases"]
    return {
        "start-up": p["first test"] - p["started"],
        "tests": p["last test"] - p["first test"],
        "end": p["exited"] - p["last test"],
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both runs (3)")
    parser.add_argument("-k", default="", help="only the tests this pytest -k expression picks")
    args = parser.parse_args()
    chromium = find_chromium()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as temp:
        work = Path(temp)
        copy = work / "examples"
        shutil.copytree(ROOT / "examples", copy, ignore=shutil.ignore_patterns(
            "__pycache__", ".stagehand", ".pytest_cache", "*_playwright.py"))  # fmt: skip
        out = copy / "exported"
        store = ["--ai-cache-dir", str(work / "store")]
        selected = ["-k", args.k] if args.k else []
        plugin_args = ["examples", "--ignore", str(copy / "app"), "--ignore", str(out),
                       "--ai-cache=offline", *store, *selected]  # fmt: skip
        print("exporting the example suite (not timed)...", flush=True)
        _, exported = run(work, ["export", "examples", "-o", str(out), "--", "--ignore",
                                 str(copy / "app"), *store, *selected], "pytest_stagehand")
        (out / "conftest.py").write_text(CONFTEST.format(options=chromium.launch_options()))
        plain_args = [str(out), "-p", "no:stagehand", *selected]
        _, plain_seen = run(work, plain_args)
        common = sorted(passed(exported) & passed(plain_seen))
        left_out = sorted(passed(exported) - set(common))
        plugin_ids = [f"examples/{test}" for test in common]
        plain_ids = [f"{out}/{test.replace('.py', '_playwright.py', 1)}" for test in common]
        plugin_args = [*plugin_ids, *plugin_args[1:]]
        plain_args = [*plain_ids, "-p", "no:stagehand"]
        print(f"{len(common)} tests in both suites"
              + (f"; not in the plain one: {', '.join(left_out)}" if left_out else ""))

        walls: dict[str, list[float]] = {"plugin": [], "plain": []}
        splits: dict[str, list[dict[str, float]]] = {"plugin": [], "plain": []}
        parts: list[dict[str, float]] = []
        tests: dict[str, list[dict[str, float]]] = {"plugin": [], "plain": []}
        for number in range(args.rounds):
            order = ["plugin", "plain"] if number % 2 == 0 else ["plain", "plugin"]
            for name in order:
                wall, seen = run(work, plugin_args if name == "plugin" else plain_args)
                walls[name].append(wall)
                splits[name].append(split(seen))
                tests[name].append(per_test(seen))
                if name == "plugin":
                    parts.append(seen["parts"])
            print(f"round {number + 1}: plugin {walls['plugin'][-1]:.2f} s, plain "
                  f"{walls['plain'][-1]:.2f} s, ratio "
                  f"{walls['plugin'][-1] / walls['plain'][-1]:.2f}x", flush=True)

    plugin, plain = median(walls["plugin"]), median(walls["plain"])
    print()
    print(f"{'medians over ' + str(args.rounds) + ' rounds':<28} {'plugin s':>9} "
          f"{'plain s':>9} {'extra s':>8} {'ratio':>7}")
    for phase in ("start-up", "tests", "end"):
        ours = median([s[phase] for s in splits["plugin"]])
        theirs = median([s[phase] for s in splits["plain"]])
        print(f"{phase:<28} {ours:>9.2f} {theirs:>9.2f} {ours - theirs:>8.2f} "
              f"{ours / theirs if theirs else 0:>6.2f}x")
    print(f"{'whole run (wall)':<28} {plugin:>9.2f} {plain:>9.2f} {plugin - plain:>8.2f} "
          f"{plugin / plain:>6.2f}x")
    paired = median([a / b for a, b in zip(walls["plugin"], walls["plain"], strict=True)])
    print(f"{'median of the rounds ratios':<28} {'':>9} {'':>9} {'':>8} {paired:>6.2f}x "
          f"{'ok' if paired <= 1.1 else 'MISS'} (<=1.1x)")
    extra = {
        test: median([t[test] for t in tests["plugin"]]) - median([t[test] for t in tests["plain"]])
        for test in common
    }
    print()
    print("the tests the plugin adds most to (median s, plugin - plain):")
    for test in sorted(extra, key=extra.get, reverse=True)[:6]:
        print(f"  {extra[test]:>6.2f} s  {test}")
    steps = median([p.get("steps", 0) for p in parts])
    print()
    print(f"the plugin's parts of its {steps:.0f} steps (median per run; each part's time "
          "includes the browser's):")
    for part in PARTS:
        total = median([p.get(part, 0.0) for p in parts])
        per_step = total / steps * 1000 if steps else 0.0
        print(f"  {part:<26} {total:>7.2f} s  {per_step:>7.1f} ms a step")
    print("The plain suite's steps are Playwright's calls alone: the action and its waits "
          "are in both; settle, lookup, verify and report are the plugin's own. A replayed "
          "act settles in its first look's call: that settle counts in verify.")


if __name__ == "__main__":
    main()
