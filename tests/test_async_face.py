"""The async face (pytest-playwright-asyncio): one recording serves a sync test and its
async twin, whichever recorded it. Each run is a pytest run of its own, as the two
Playwright plugins never load in one run: async ones in the async environment that
`./dev setup` makes (.venv-async), with pytest-playwright turned off."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from scripted_answers import choose
from test_examples import outcome
from test_remote import chromium_over_cdp, chromium_path, playwright_server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parent.parent
ASYNC_PYTHON = ROOT / ".venv-async" / "bin" / "python"

SYNC_TEST = """
def test_flow(ai_page):
    ai_page.goto("login.html")
    result = ai_page.act("tick remember me")
    assert ai_page.locator("#remember").is_checked()
    print("CACHE", result.cache)
"""

ASYNC_TEST = """
async def test_flow(ai_page):
    await ai_page.goto("login.html")
    result = await ai_page.act("tick remember me")
    assert await ai_page.locator("#remember").is_checked()
    print("CACHE", result.cache)
"""

ASYNC_RUN = [
    "-p", "no:playwright",
    "-o", "asyncio_mode=auto",
    "-o", "asyncio_default_fixture_loop_scope=session",
    "-o", "asyncio_default_test_loop_scope=session",
]  # fmt: skip


def _run(pytester: pytest.Pytester, source: str, face: list[str], *options: str):
    pytester.makepyfile(test_flow=source)
    shutil.rmtree(pytester.path / ".stagehand", ignore_errors=True)  # only the JSON carries
    if face is not ASYNC_RUN:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", *options)
    if not ASYNC_PYTHON.exists():
        pytest.fail(f"no async environment at {ASYNC_PYTHON}: run ./dev setup", pytrace=False)
    return pytester.run(
        ASYNC_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-s", *face, *options,
        timeout=300,
    )


def _steps(pytester: pytest.Pytester) -> list[dict]:
    document = json.loads((pytester.path / "__stagehand__" / "test_flow.json").read_text())
    return [
        {key: step[key] for key in ("kind", "instruction", "url", "variables", "actions")}
        for step in document["steps"]
    ]


@pytest.mark.parametrize(
    ("recorder", "replayer"),
    [((SYNC_TEST, []), (ASYNC_TEST, ASYNC_RUN)), ((ASYNC_TEST, ASYNC_RUN), (SYNC_TEST, []))],
    ids=["sync-records-async-replays", "async-records-sync-replays"],
)
def test_a_recording_replays_in_the_other_face(
    pytester, scripted_model, pages_server, recorder, replayer
):
    scripted_model.default = choose("checkbox", "Remember me", "check")
    base = ["--base-url", pages_server.url()]
    recorded = _run(pytester, *recorder, *base, "--ai-model", "openai/scripted",
                    "--ai-base-url", scripted_model.openai_base_url)
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["*CACHE miss*"])
    assert len(scripted_model.requests) == 1
    steps = _steps(pytester)

    output = pytester.path / "traces"
    replayed = _run(pytester, *replayer, *base, "--ai-cache=offline", "--tracing=on",
                    f"--output={output}")
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["*CACHE hit*"])
    assert len(scripted_model.requests) == 1  # no model: the other face's recording served
    assert _steps(pytester) == steps  # and it stays as it was
    (trace,) = output.glob("*/trace.zip")  # the step is a group in the trace, as in sync
    with zipfile.ZipFile(trace) as archive:
        assert '"title":"act: tick remember me"' in archive.read("trace.trace").decode()


def test_an_async_step_without_a_recording_fails_offline(pytester, pages_server):
    result = _run(pytester, ASYNC_TEST, ASYNC_RUN, "--base-url", pages_server.url(),
                  "--ai-cache=offline")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*tick remember me*"])


# --- the async example suite's browser events through remote browsers ---------------------
# The async face's own part in a remote browser is its connection (async_fixtures.py): past
# it, the async API is bridged to the sync core, which tests/test_remote.py replays the whole
# example suite through, over both kinds of connection. Here the async face replays, over
# each, the module of what the browser does around the page (dialogs, a new tab, a file
# chooser, a download): events the remote browser sends, which the bridge hands to the core.
# Every module of the async suite replays in CI's `./dev examples`, in a local browser.
BROWSER_EVENTS = "test_account.py"


def copy_of_both_suites(tmp_path: Path) -> Path:
    """examples/ and examples_async/ side by side (the async suite's recordings are a link
    to the sync suite's)."""
    skip = shutil.ignore_patterns("__pycache__", ".stagehand", ".pytest_cache")
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=skip)
    shutil.copytree(ROOT / "examples_async", tmp_path / "examples_async", ignore=skip,
                    symlinks=True)
    return tmp_path / "examples_async"


def assert_the_browser_events_replay(tmp_path: Path, *options: str) -> None:
    """The async suite's BROWSER_EVENTS module replays offline, every test passing."""
    suite = copy_of_both_suites(tmp_path)
    tests = len(re.findall(r"^async def test_", (suite / BROWSER_EVENTS).read_text(), re.M))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    run = subprocess.run(
        [str(ASYNC_PYTHON), "-m", "pytest", str(suite / BROWSER_EVENTS), "-q",
         "-p", "no:cacheprovider", "--ai-cache=offline", "--ai-cache-dir", str(tmp_path / "store"),
         *options],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540,
    )  # fmt: skip
    assert tests and outcome(run) == {"passed": tests}, run.stdout[-4000:] + run.stderr[-2000:]


@pytest.mark.long
@pytest.mark.timeout(600)
def test_the_async_browser_events_replay_through_a_playwright_server(tmp_path, playwright_server):  # noqa: F811
    assert_the_browser_events_replay(
        tmp_path, "--ai-connect", playwright_server, "--browser-executable-path",
        chromium_path(), "-n", "2",
    )


@pytest.mark.long
@pytest.mark.timeout(600)
def test_the_async_browser_events_replay_through_chromium_over_cdp(tmp_path, chromium_over_cdp):  # noqa: F811
    assert_the_browser_events_replay(tmp_path, "--ai-cdp-url", chromium_over_cdp)


# --- the test's own handlers on the async page -----------------------------------------------

HANDLER_TEST = """
async def test_own_handler(ai_page):
    await ai_page.goto("verbs/dialogs.html")
    answered = []

    async def answer(dialog):
        answered.append(dialog.message)
        await dialog.dismiss()

    ai_page.page.on("dialog", answer)
    await ai_page.act("click the Delete draft button")
    assert await ai_page.locator("#status").text_content() == "Draft kept"
    assert answered == ["Delete the draft for good?"]
    assert ai_page.dialogs.seen[-1].outcome == "left to the test"

    ai_page.page.remove_listener("dialog", answer)  # the plugin's again: held for the next step
    await ai_page.act("click the Delete draft button")
    assert ai_page.dialogs.pending is not None
    assert len(answered) == 1
"""


def test_the_async_tests_own_dialog_handler_wins_until_removed(
    pytester, scripted_model, pages_server
):
    scripted_model.enqueue(choose("button", "Delete draft"), choose("button", "Delete draft"))
    result = _run(pytester, HANDLER_TEST, ASYNC_RUN, "--base-url", pages_server.url(),
                  "--ai-model", "openai/scripted", "--ai-base-url", scripted_model.openai_base_url,
                  "--ai-cache=off")
    result.assert_outcomes(passed=1)
