"""Remote browsers (--ai-connect, --ai-cdp-url): the example suite replays through a real
`playwright run-server` and a real Chromium attached over CDP, both on 127.0.0.1; an
endpoint that cannot be reached fails the session once, before any test."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import processes
import pytest
from playwright.sync_api import Playwright
from test_examples import EXAMPLE_TESTS, RECORDINGS, copy_of_examples, outcome, run_offline

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.browser.remote import RemoteBrowser
from pytest_stagehand.errors import (
    BrowserNotFound,
    BrowserUnreachable,
    ConfigError,
    RemoteLaunchFailed,
)
from pytest_stagehand.settings import resolve

pytestmark = pytest.mark.timeout(600)


def chromium_path() -> str:
    try:
        choice = find_chromium(bundled=None)
    except BrowserNotFound as exc:
        pytest.skip(str(exc))
    assert choice.executable_path
    return choice.executable_path


def start_playwright_server(
    *options: str, **environment: str
) -> tuple[subprocess.Popen[str], str]:
    """`playwright run-server` on 127.0.0.1, as a grid node would run it; its ws endpoint."""
    process = processes.start(
        [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", "0",
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, **environment},
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until the server says where it listens
    if not line.startswith("Listening on ws://"):
        processes.end(process, processes.family(process.pid))
        pytest.fail(f"playwright run-server did not start: {line}")
    return process, line.split("Listening on ", 1)[1].strip()


def end_playwright_server(process: subprocess.Popen[str], endpoint: str) -> set[int]:
    """End the server and every browser it launched, and check that they have ended and
    its port is closed; the processes that had to be killed."""
    members = processes.family(process.pid)
    killed = processes.end(process, members)
    assert not processes.alive(members), f"left running: {processes.alive(members)}"
    assert not processes.listens("127.0.0.1", urlsplit(endpoint).port or 80), endpoint
    return killed


@contextlib.contextmanager
def running_playwright_server(*options: str, **environment: str) -> Iterator[str]:
    process, endpoint = start_playwright_server(*options, **environment)
    try:
        yield endpoint
    finally:
        end_playwright_server(process, endpoint)


@pytest.fixture
def playwright_server() -> Iterator[str]:
    """A Playwright server that launches the browser the client names (--unsafe), as
    there is no bundled browser here."""
    with running_playwright_server("--unsafe") as endpoint:
        yield endpoint


@pytest.fixture
def chromium_over_cdp(tmp_path: Path) -> Iterator[str]:
    """A Chromium started with --remote-debugging-port, as a cloud browser runs; its URL.
    When it is done, it and its helper processes have ended."""
    profile = tmp_path / "profile"
    process = processes.start(
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
        members = processes.family(process.pid)
        processes.end(process, members, signal.SIGTERM)
        assert not processes.alive(members), f"left running: {processes.alive(members)}"


# The whole example suite, downloads included. Through a Playwright server on two
# workers: each connection gets a browser of its own. Over CDP on one: workers attached to
# one Chromium see each other's pages, and one dismisses a dialog the other holds open.
WORKERS = ("-n", "2")
INVOICE = "invoice-1042.csv"  # what test_the_last_invoice_downloads downloads


def evidence_screenshots(evidence: Path) -> dict[str, int]:
    return {folder.name: len(list(folder.glob("*.png"))) for folder in evidence.iterdir()}


def assert_the_download_is_reported(evidence: Path, html: Path) -> None:
    """The invoice, fetched from the remote browser, is kept with the evidence as it is
    locally, and its step is in the HTML report."""
    logs = {
        folder: json.loads((folder / "actions.json").read_text())
        for folder in evidence.iterdir()
    }
    ((folder, log),) = [
        (folder, log) for folder, log in logs.items()
        if "::test_the_last_invoice_downloads" in log["test"]
    ]  # fmt: skip
    (kept,) = folder.glob(f"*-{INVOICE}")
    assert "1042,2026-03-12,$57.98" in kept.read_text()
    (step,) = [step for step in log["steps"] if step["kind"] == "download"]
    assert step["instruction"] == INVOICE and step["files"][0]["file"] == kept.name
    assert f"<b>download</b> {INVOICE}" in html.read_text()


@pytest.mark.long
def test_the_examples_replay_through_a_playwright_server(tmp_path: Path, playwright_server: str):
    copy = copy_of_examples(tmp_path)
    evidence, output, html = tmp_path / "evidence", tmp_path / "test-results", tmp_path / "r.html"

    run = run_offline(
        copy, "--ai-connect", playwright_server, "--browser-executable-path", chromium_path(),
        "--ai-screenshots=every-step", f"--ai-evidence={evidence}", f"--ai-report={html}",
        "--tracing=on", f"--output={output}", *WORKERS,
    )  # fmt: skip

    assert outcome(run) == {"passed": EXAMPLE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    shots = evidence_screenshots(evidence)
    assert len(shots) == EXAMPLE_TESTS and all(shots.values()), shots
    traces = list(output.glob("*/trace.zip"))  # recorded by the server, fetched back
    assert len(traces) == EXAMPLE_TESTS and all(t.stat().st_size > 0 for t in traces), traces
    assert_the_download_is_reported(evidence, html)


@pytest.mark.long
def test_the_examples_replay_through_chromium_over_cdp(tmp_path: Path, chromium_over_cdp: str):
    copy = copy_of_examples(tmp_path)
    committed = {path.name: path.read_text() for path in (copy / RECORDINGS).glob("*.json")}
    evidence, html = tmp_path / "evidence", tmp_path / "report.html"

    # No local browser can be launched: a path that does not exist is named for it.
    run = run_offline(
        copy, "--ai-cdp-url", chromium_over_cdp,
        "--ai-screenshots=every-step", f"--ai-evidence={evidence}", f"--ai-report={html}",
        STAGEHAND_BROWSER_PATH=str(tmp_path / "no-such-chromium"),
    )  # fmt: skip

    assert outcome(run) == {"passed": EXAMPLE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    shots = evidence_screenshots(evidence)
    assert len(shots) == EXAMPLE_TESTS and all(shots.values()), shots
    assert_the_download_is_reported(evidence, html)
    # The suite's one replay of the committed recordings on the classic shop, the one they
    # were recorded on: no model, nothing moved, every recording used, no file changed.
    assert "model calls: none" in run.stdout
    assert "healed" not in run.stdout
    assert "unused recordings" not in run.stdout
    after = {path.name: path.read_text() for path in (copy / RECORDINGS).glob("*.json")}
    assert after == committed


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


def test_a_playwright_server_is_ended_with_the_browser_it_launched(playwright: Playwright):
    """A server that has launched a browser ignores SIGTERM (it closes the browser and
    keeps listening): the tests end it with SIGINT, and nothing has to be killed."""
    process, endpoint = start_playwright_server("--unsafe")
    try:
        remote = RemoteBrowser(endpoint, "playwright", "--ai-connect")
        chromium = find_chromium(chromium_path()).launch_options()
        browser = remote.connect(playwright.chromium, chromium)
        browser.new_page().set_content("<h1>served remotely</h1>")
        started = processes.family(process.pid) - {process.pid}
        assert len(started) > 1, started  # the node server, the browser and its helpers
    finally:
        killed = end_playwright_server(process, endpoint)  # checks they have all ended
    assert killed == set()


def test_a_server_that_cannot_launch_a_browser_says_so_in_its_own_words(
    playwright: Playwright, tmp_path: Path
):
    """Reached, but with no browser of its own (its browsers folder is empty): the error
    quotes the server and names the fix, and is not taken for a network problem."""
    empty = tmp_path / "no-browsers"
    empty.mkdir()
    with running_playwright_server(PLAYWRIGHT_BROWSERS_PATH=str(empty)) as endpoint:
        remote = RemoteBrowser(endpoint, "playwright", "--ai-connect")
        with pytest.raises(RemoteLaunchFailed) as launch:
            remote.connect(playwright.chromium, {})
        with pytest.raises(RemoteLaunchFailed) as named:  # ignored without --unsafe
            remote.connect(playwright.chromium, {"executable_path": chromium_path()})

    message = str(launch.value)
    assert message.startswith(
        f"The Playwright server at {endpoint} (--ai-connect) answered, but could not launch a "
        f"browser. The server said: Executable doesn't exist at {empty}/"
    ), message
    assert "install the server's browsers where it runs (`playwright install chromium`" in message
    assert "`playwright run-server --unsafe`" in message and "cannot be reached" not in message
    assert "started with --unsafe (without it the server ignores the path" in str(named.value)


def test_nothing_listening_is_told_apart_from_a_server_that_is_not_playwrights(
    playwright: Playwright, pages_server
):
    """No connection at all, or an answer from something that is not a Playwright server
    (a web server's port): unreachable, with Playwright's reason."""
    port = closed_port()
    for endpoint, reason in [
        (f"ws://127.0.0.1:{port}/", "ECONNREFUSED"),
        (pages_server.url().replace("http", "ws", 1), "WebSocket error"),
    ]:
        remote = RemoteBrowser(endpoint, "playwright", "--ai-connect")
        with pytest.raises(BrowserUnreachable, match=reason) as unreachable:
            remote.connect(playwright.chromium, {})
        assert str(unreachable.value).startswith(
            f"The remote browser at {endpoint} (--ai-connect) cannot be reached: "
        )


def test_a_server_without_browsers_fails_each_test_with_the_servers_words(
    pytester: pytest.Pytester, tmp_path: Path
):
    pytester.makepyfile("def test_one(page): pass")
    empty = tmp_path / "no-browsers"
    empty.mkdir()
    with running_playwright_server(PLAYWRIGHT_BROWSERS_PATH=str(empty)) as endpoint:
        result = pytester.runpytest_subprocess("--ai-connect", endpoint)

    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert f"The Playwright server at {endpoint} (--ai-connect) answered, but could" in output
    assert "Executable doesn't exist at" in output and "cannot be reached" not in output


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
