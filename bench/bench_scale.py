"""Benchmark: the example suite's offline replay on 1, 2 and 4 xdist workers, and through a
local `playwright run-server`, side by side.

Run: .venv/bin/python bench/bench_scale.py [--reps 1]

Each configuration replays the committed example recordings (`--ai-cache=offline`, no
model) on a fresh copy of examples/, in a subprocess, as CI would run it. Printed: wall time
(median of --reps), the speed-up against one worker, and the speed-up each added worker
brings (speed-up / workers: 1.0 would be perfect scaling). The remote rows connect to a
`playwright run-server` on 127.0.0.1 started here (--ai-connect), which launches the same
Chromium: the difference to the local rows is the cost of the protocol hop, not a network.
On a 2-core machine more than 2 workers cannot scale; the row shows what it costs instead.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_stagehand.browser.launch import find_chromium  # noqa: E402


@contextmanager
def playwright_server() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", "0",
         "--unsafe"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("Listening on "):
            raise SystemExit(f"playwright run-server did not start: {line}")
        yield line.split("Listening on ", 1)[1].strip()
    finally:
        # The node server too, not only its launcher; SIGINT, as a server that launched a
        # browser keeps running on SIGTERM.
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=30)


def replay(workers: int, *extra: str) -> tuple[float, str]:
    """Wall seconds of one offline replay of the example suite, and pytest's last line."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "examples"
        shutil.copytree(ROOT / "examples", copy, ignore=shutil.ignore_patterns(
            "__pycache__", ".stagehand", ".pytest_cache"))  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_",
               "STAGEHAND_", "SHOP_", "PYTEST_"))}  # fmt: skip
        env["PYTHONPATH"] = str(ROOT)
        command = [
            sys.executable, "-m", "pytest", str(copy), "--ignore", str(copy / "app"),
            "--ai-cache=offline", "--ai-cache-dir", str(Path(scratch) / "store"),
            "-p", "no:cacheprovider", "-q", "-n", str(workers) if workers > 1 else "0", *extra,
        ]  # fmt: skip
        started = time.perf_counter()
        run = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-300:]
    if run.returncode != 0:
        raise SystemExit(f"replay failed with {workers} worker(s) {extra}: {last}")
    return seconds, re.sub(r" in [\d.]+s.*", "", last)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="runs per configuration")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma separated")
    options = parser.parse_args()
    counts = [int(n) for n in options.workers.split(",")]
    chromium = find_chromium().executable_path
    print(f"example suite, offline replay; {os.cpu_count()} CPUs; median of {options.reps}")
    print(f"{'configuration':<26} {'wall s':>8} {'speed-up':>9} {'per worker':>11}  outcome")
    with playwright_server() as endpoint:
        remote = ["--ai-connect", endpoint]
        if chromium:  # the server has no browser of its own here: it launches this one
            remote += ["--browser-executable-path", chromium]
        configurations = [(f"local, {n} worker(s)", n, ()) for n in counts] + [
            (f"run-server, {n} worker(s)", n, tuple(remote)) for n in counts[:2]
        ]
        baseline = None
        for label, workers, extra in configurations:
            runs = [replay(workers, *extra) for _ in range(options.reps)]
            wall = statistics.median(seconds for seconds, _ in runs)
            baseline = baseline or wall
            speedup = baseline / wall
            print(f"{label:<26} {wall:>8.1f} {speedup:>8.2f}x {speedup / workers:>10.2f}x  "
                  f"{runs[-1][1]}")  # fmt: skip


if __name__ == "__main__":
    main()
