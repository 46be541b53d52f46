"""`python -m pytest_stagehand export tests/test_checkout.py`: plain Playwright modules.

The tests run once, offline (recordings only, no model), and each module that ran is
written as `<module>_playwright.py` (see export.py). Arguments after `--` go to pytest.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_stagehand", epilog="Arguments after -- go to pytest."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export", help="write test modules as plain pytest-playwright modules"
    )
    export.add_argument("tests", nargs="+", help="test modules (or directories) to export")
    export.add_argument(
        "-o", "--out", type=Path, default=None,
        help="directory for the modules (default: the first test module's directory)",
    )  # fmt: skip
    argv = list(sys.argv[1:] if argv is None else argv)
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


if __name__ == "__main__":
    sys.exit(main())
