"""Runs of a copy of the example suite (examples/), for the tests of the run's reports:
offline, with no model configured anywhere, on the redesigned shop (so steps heal), with
one extra test that fails after logging in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SECRETS = ("secret_sauce", "standard_user", "locked_out_user")  # the login variables' values

FAILING_TEST = '''

def test_the_catalogue_has_a_sale(ai_page, log_in):
    log_in()
    assert ai_page.locator("text=SALE").count() == 1, "no sale banner on the catalogue"
'''


def example_copy(tmp_path: Path, *modules: str, failing: bool = True) -> Path:
    """A copy of examples/ with only `modules` (and their recordings), plus a failing test
    appended to the first one."""
    copy = tmp_path / "examples"
    shutil.copytree(
        EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", ".stagehand", ".pytest_cache")
    )
    for test in copy.glob("test_*.py"):
        if test.stem not in modules:
            test.unlink()
    if failing:
        first = copy / f"{modules[0]}.py"
        first.write_text(first.read_text() + FAILING_TEST)
    return copy


def run_pytest(
    copy: Path, *arguments: str, module: str = "pytest", **environment: str
) -> subprocess.CompletedProcess[str]:
    """`python -m <module>` in the copy's parent, offline, with no model configured."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OPENAI_", "ANTHROPIC_", "STAGEHAND_", "SHOP_", "PYTEST_"))
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update(environment)
    command = [sys.executable, "-m", module, *arguments]
    return subprocess.run(
        command, cwd=copy.parent, env=env, capture_output=True, text=True, timeout=540
    )


def offline(copy: Path) -> list[str]:
    """The pytest arguments of an offline run of the copy."""
    return [
        "--ignore", str(copy / "app"), "--ai-cache=offline",
        "--ai-cache-dir", str(copy.parent / "store"), "-p", "no:cacheprovider", "-p", "no:randomly",
    ]  # fmt: skip
