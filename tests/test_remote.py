"""Remote browsers (--ai-connect, --ai-cdp-url): the example suite replays through a real
`playwright run-server` and a real Chromium attached over CDP, both on 127.0.0.1; an
endpoint that cannot be reached fails the session once, before any test."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_examples import copy_of_examples, outcome, run_offline

from pytest_stagehand.browser import find_chromium
from pytest_stagehand.errors import BrowserNotFound, ConfigError
from pytest_stagehand.settings import resolve

pytestmark = pytest.mark.timeout(600)


def chromium_path() -> str:
    try:
        choice = find_chromium(bundled=None)
    except BrowserNotFound as exc:
        pytest.skip(str(exc))
    assert choice.executable_path
    return choice.executable_path


@pytest.fixture
def playwright_server() -> Iterator[str]:
    """`playwright run-server` on 127.0.0.1, as a grid node would run it; its ws endpoint."""
    process = subprocess.Popen(
        [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", "0",
         "--unsafe"],  # lets the client name the browser binary (no bundled browser here)
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # blocks until the server says where it listens
        assert line.startswith("Listening on ws://"), line
        yield line.split("Listening on ", 1)[1].strip()
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the node server too, not only its launcher
        process.wait(timeout=30)


@pytest.fixture
def chromium_over_cdp(tmp_path: Path) -> Iterator[str]:
    """A Chromium started with --remote-debugging-port, as a cloud browser runs; its URL."""
    profile = tmp_path / "profile"
    process = subprocess.Popen(
        [chromium_path(), "--headless", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", *find_chromium(chromium_path()).args, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    port_file = profile / "DevToolsActivePort"  # Chromium writes its port here
    try:
        while not (port_file.exists() and port_file.read_text().strip()):
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.1)  # returns early only if Chromium exits
            assert process.poll() is None, "Chromium exited before it listened"
        port = port_file.read_text().split()[0]
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


# A remote browser is proven on a whole shop visit (log in, search, sort, cart, checkout);
# the rest of the example suite (dialogs, vision, computer use...) runs locally in
# test_examples: through a remote browser it took minutes more and proved nothing more.
REMOTE_EXAMPLES = ("test_login.py", "test_checkout.py", "test_shopping.py")
REMOTE_TESTS = 7


def evidence_screenshots(evidence: Path) -> dict[str, int]:
    return {folder.name: len(list(folder.glob("*.png"))) for folder in evidence.iterdir()}


def test_the_examples_replay_through_a_playwright_server(tmp_path: Path, playwright_server: str):
    copy = copy_of_examples(tmp_path)
    evidence, output = tmp_path / "evidence", tmp_path / "test-results"

    run = run_offline(
        copy, "--ai-connect", playwright_server, "--browser-executable-path", chromium_path(),
        "--ai-screenshots=every-step", f"--ai-evidence={evidence}",
        "--tracing=on", f"--output={output}",
        only=REMOTE_EXAMPLES,
    )  # fmt: skip

    assert outcome(run) == {"passed": REMOTE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    shots = evidence_screenshots(evidence)
    assert len(shots) == REMOTE_TESTS and all(shots.values()), shots
    traces = list(output.glob("*/trace.zip"))  # recorded by the server, fetched back
    assert len(traces) == REMOTE_TESTS and all(t.stat().st_size > 0 for t in traces), traces


def test_the_examples_replay_through_chromium_over_cdp(tmp_path: Path, chromium_over_cdp: str):
    copy = copy_of_examples(tmp_path)
    evidence = tmp_path / "evidence"

    # No local browser can be launched: a path that does not exist is named for it.
    run = run_offline(
        copy, "--ai-cdp-url", chromium_over_cdp,
        "--ai-screenshots=every-step", f"--ai-evidence={evidence}",
        STAGEHAND_BROWSER_PATH=str(tmp_path / "no-such-chromium"),
        only=REMOTE_EXAMPLES,
    )  # fmt: skip

    assert outcome(run) == {"passed": REMOTE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    shots = evidence_screenshots(evidence)
    assert len(shots) == REMOTE_TESTS and all(shots.values()), shots


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once the socket is closed


@pytest.mark.parametrize(
    ("option", "scheme"), [("--ai-connect", "ws"), ("--ai-cdp-url", "http")]
)
def test_an_unreachable_browser_fails_the_session_once(
    pytester: pytest.Pytester, option: str, scheme: str
):
    pytester.makepyfile(
        """
        def test_one(page): pass
        def test_two(page): pass
        """
    )
    endpoint = f"{scheme}://127.0.0.1:{closed_port()}"

    result = pytester.runpytest_subprocess(option, endpoint)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert errors.count(f"The remote browser at {endpoint} ({option}) cannot be reached") == 1
    assert "passed" not in result.stdout.str() and "error" not in result.stdout.str().lower()


def test_remote_browser_options_are_checked():
    with pytest.raises(ConfigError, match="must be a URL starting with ws or wss://"):
        resolve({"connect": "http://grid:4444"}, {}, env={})
    with pytest.raises(ConfigError, match="give one of them"):
        resolve({"connect": "ws://grid:3000", "cdp_url": "http://cdp:9222"}, {}, env={})
    settings, _ = resolve({}, {"connect": "wss://grid.example/playwright"}, env={})
    assert settings.connect == "wss://grid.example/playwright"
    settings, _ = resolve({}, {}, env={"STAGEHAND_CDP_URL": "http://127.0.0.1:9222"})
    assert settings.cdp_url == "http://127.0.0.1:9222"


def test_pytest_playwrights_own_connect_options_are_honoured(
    pytester: pytest.Pytester, playwright_server: str
):
    pytester.makeconftest(
        f"""
        import pytest

        @pytest.fixture(scope="session")
        def connect_options():
            return {{"ws_endpoint": "{playwright_server}"}}
        """
    )
    pytester.makepyfile(
        """
        def test_page(page):
            page.set_content("<h1>served remotely</h1>")
            assert page.inner_text("h1") == "served remotely"
        """
    )

    # The server has no browser of its own here: it launches the one named, which it can
    # only do if the launch options reach it in the spelling it reads.
    result = pytester.runpytest_subprocess("--browser-executable-path", chromium_path())

    result.assert_outcomes(passed=1)
