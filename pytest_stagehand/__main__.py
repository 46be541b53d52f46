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
from pathlib import Path

import pytest

from pytest_stagehand.recordings import merge


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


COMMANDS = {"export": export, "merge": merge.main}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m pytest_stagehand {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
