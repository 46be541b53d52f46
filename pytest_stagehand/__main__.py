"""Commands: `python -m pytest_stagehand merge DIR...` (see merge.py)."""

from __future__ import annotations

import sys

from . import merge

COMMANDS = {"merge": merge.main}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m pytest_stagehand {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
