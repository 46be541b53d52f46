"""Commands beside the pytest plugin:

    python -m pytest_stagehand export tests/test_checkout.py [-o DIR] [-- pytest args]
    python -m pytest_stagehand merge shard-1/ shard-2/ ... [--into .]

export: the tests run once, offline (recordings only, no model), and each module that ran
is written as `<module>_playwright.py` (see export.py). merge: several shards' workspaces
folded into the repository's recordings (see merge.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_stagehand.errors import RecordingFileError
from pytest_stagehand.recordings.merge import MergeReport, merge
from pytest_stagehand.reporting.terminal import summary_lines


def export(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_stagehand export",
        description="Write test modules as plain pytest-playwright modules.",
        epilog="Arguments after -- go to pytest.",
    )
    parser.add_argument("tests", nargs="+", help="test modules (or directories) to export")
    parser.add_argument(
        "-o", "--out", type=Path, default=None,
        help="directory for the modules (default: the first test module's directory)",
    )  # fmt: skip
    ours, extra = argv, []
    if "--" in argv:
        at = argv.index("--")
        ours, extra = argv[:at], argv[at + 1 :]
    arguments = parser.parse_args(ours)
    first = Path(arguments.tests[0])
    out = arguments.out or (first if first.is_dir() else first.parent)
    return int(pytest.main([
        *arguments.tests, "--ai-cache=offline", f"--ai-export={out.resolve()}",
        "-p", "no:randomly", *extra,
    ]))  # fmt: skip


def merge_lines(report: MergeReport) -> list[str]:
    """What `merge` prints: files written, each shard's steps, the run summary, conflicts."""
    lines = [f"merged {len(report.runs)} shard summaries; wrote {len(report.written)} file(s)"]
    lines += [f"  {path}" for path in report.written]
    for run in report.runs:
        steps = run["steps"]
        tests = len({step["test"] for step in steps})
        shard = run.get("shard") or "?"
        lines.append(f"shard {shard}: {len(steps)} AI steps in {tests} test(s)")
    lines += summary_lines(
        [step for run in report.runs for step in run["steps"]],
        [entry for run in report.runs for entry in run.get("unused", [])],
        [error for run in report.runs for error in run.get("recording_errors", [])],
        [warning for run in report.runs for warning in run.get("warnings", [])],
    )
    if report.conflicts:
        lines.append(f"conflicts ({len(report.conflicts)}), the repository's version kept:")
        lines += [f"  {conflict}" for conflict in report.conflicts]
    return lines


def merge_command(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_stagehand merge",
        description="Fold several shards' recordings, heals and usage into this repository.",
    )
    parser.add_argument("dirs", nargs="+", type=Path, help="a shard's workspace or artifact")
    parser.add_argument(
        "--into", type=Path, default=Path("."), help="the repository (default: .)"
    )
    options = parser.parse_args(argv)
    missing = [str(d) for d in options.dirs if not d.is_dir()]
    if missing:
        parser.error(f"not a directory: {', '.join(missing)}")
    try:
        report = merge(options.dirs, options.into)
    except RecordingFileError as exc:
        print(f"pytest-stagehand merge: {exc}", file=sys.stderr)
        return 2
    print("\n".join(merge_lines(report)))
    return 1 if report.conflicts else 0


COMMANDS = {"export": export, "merge": merge_command}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m pytest_stagehand {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])

