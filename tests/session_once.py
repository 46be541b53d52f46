"""Work that several tests read and none changes, done once per session even across
pytest-xdist workers: the first worker to ask does it, the others wait for its result."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    import fcntl
except ImportError:  # Windows: each worker does the work itself
    fcntl = None


def once_per_session(
    factory: pytest.TempPathFactory, name: str, produce: Callable[[Path], Any]
) -> tuple[Path, Any]:
    """The folder `produce` worked in and what it returned (as JSON gives it back)."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None or fcntl is None:
        folder = factory.mktemp(name)
        return folder, json.loads(json.dumps(produce(folder)))
    root = factory.getbasetemp().parent / f"once-{run_id}"
    root.mkdir(exist_ok=True)
    folder, saved = root / name, root / f"{name}.json"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not saved.exists():
            folder.mkdir()
            saved.write_text(json.dumps(produce(folder)))
    return folder, json.loads(saved.read_text())
