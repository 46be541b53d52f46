"""`python -m pytest_stagehand`: the commands beside the plugin (plugin/cli.py)."""

import sys

from pytest_stagehand.plugin.cli import main

if __name__ == "__main__":
    sys.exit(main())
