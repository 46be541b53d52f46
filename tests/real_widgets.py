"""Third-party UIs as released on npm, served on 127.0.0.1 for tests and benchmarks.

The packages are pinned in tests/real/package.json (two releases of one UI under an npm
alias, e.g. `jquery-ui-1.12`, are a real redesign). `./dev test` installs them; `install()`
does it here too, once per machine, so a benchmark run on its own finds them. Host pages
in tests/real/pages load the widgets from /node_modules/... exactly as an app would: the
widgets' code and markup are theirs, never an imitation written here.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

from servers import PagesServer

REAL = Path(__file__).parent / "real"
NODE_MODULES = REAL / "node_modules"
_STAMP = NODE_MODULES / ".installed"


class WidgetsMissing(RuntimeError):
    """npm is not installed, so the third-party UIs cannot be."""


def install() -> Path:
    """Install the pinned packages (npm ci) unless the lock file is already installed."""
    lock = REAL / "package-lock.json"
    if _STAMP.exists() and _STAMP.stat().st_mtime >= lock.stat().st_mtime:
        return NODE_MODULES
    npm = shutil.which("npm")
    if npm is None:
        raise WidgetsMissing(
            "npm is needed to install the third-party UIs in tests/real/package.json: "
            "run ./dev test (it installs npm), or install Node.js and npm."
        )
    with open(REAL / ".install.lock", "w") as lock_file:  # xdist workers install once
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        if not (_STAMP.exists() and _STAMP.stat().st_mtime >= lock.stat().st_mtime):
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                cwd=REAL,
                check=True,
            )
            _STAMP.touch()
    return NODE_MODULES


class RealWidgetsServer(PagesServer):
    """tests/real over HTTP: host pages at /pages/..., the packages at /node_modules/..."""

    def __init__(self) -> None:
        install()
        super().__init__(root=REAL)
