"""Finding a Chromium: explicit path > Playwright's build > system install > clear error."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import uuid
from pathlib import Path

import pytest

from pytest_stagehand.browser import launch as browser
from pytest_stagehand.browser.launch import OFFLINE_FLAGS, find_chromium
from pytest_stagehand.errors import BrowserNotFound


@pytest.fixture
def fake_chromium(tmp_path):
    path = tmp_path / "chromium"
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_playwright_build_is_preferred_and_needs_no_extra_options():
    choice = find_chromium(bundled="/opt/ms-playwright/chrome")
    assert choice.source == "playwright"
    assert choice.launch_options() == {}


def test_system_chromium_is_used_when_playwright_build_is_missing(monkeypatch, fake_chromium):
    monkeypatch.setenv("PATH", str(fake_chromium.parent))
    choice = find_chromium(bundled=None)
    assert choice.source == "system"
    options = choice.launch_options()
    assert options["executable_path"] == str(fake_chromium)
    # The flags that keep a system Chromium from stalling on a closed network.
    for flag in ("--disable-background-networking", "--disable-component-update", "--disable-sync"):
        assert flag in options["args"]


def test_explicit_path_overrides_everything(fake_chromium):
    choice = find_chromium(str(fake_chromium), bundled="/opt/ms-playwright/chrome")
    assert choice.source == "option"
    assert choice.executable_path == str(fake_chromium)
    assert set(OFFLINE_FLAGS) <= set(choice.args)


def test_explicit_path_that_does_not_exist_says_how_to_fix(tmp_path):
    with pytest.raises(BrowserNotFound) as error:
        find_chromium(str(tmp_path / "nope"))
    message = str(error.value)
    assert "does not exist" in message
    assert "apt-get install -y chromium" in message
    assert "playwright install chromium" in message


def test_no_browser_anywhere_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(browser, "USUAL_PATHS", ())
    with pytest.raises(BrowserNotFound, match="No Chromium found"):
        find_chromium(bundled=None)


@pytest.mark.skipif(os.geteuid() != 0, reason="root-only flag")
def test_root_gets_no_sandbox(fake_chromium):
    assert "--no-sandbox" in find_chromium(str(fake_chromium)).args


def test_plugin_launches_the_browser_it_found(page, browser_type_launch_args):
    page.set_content("<button>Ready</button>")
    assert page.get_by_role("button", name="Ready").is_visible()
    if "executable_path" in browser_type_launch_args:
        assert "--disable-background-networking" in browser_type_launch_args["args"]


def test_bad_browser_option_fails_the_session_with_the_hint(pytester):
    pytester.makepyfile("def test_x(page):\n    pass\n")
    result = pytester.runpytest_subprocess("--browser-executable-path=/nowhere/chrome")
    result.stdout.fnmatch_lines(["*/nowhere/chrome*does not exist*"])
    assert result.ret != 0


def test_other_browsers_are_not_handed_a_chromium_binary(pytester):
    pytester.makepyfile(
        "def test_args(browser_type_launch_args, browser_name):\n"
        "    assert browser_name == 'firefox'\n"
        "    assert 'executable_path' not in browser_type_launch_args\n"
    )
    result = pytester.runpytest_subprocess("--browser", "firefox")
    result.assert_outcomes(passed=1)


def test_the_sessions_own_playwright_says_where_its_build_is(browser_type, monkeypatch):
    # The session runs a Playwright already: asking it saves starting a second driver.
    def second_driver():
        raise AssertionError("a second Playwright was started to find the browser")

    monkeypatch.setattr("playwright.sync_api.sync_playwright", second_driver)
    path = browser.playwright_chromium_path(browser_type)
    installed = os.path.exists(browser_type.executable_path)
    assert path == (browser_type.executable_path if installed else None)


@pytest.mark.skipif(sys.platform != "linux", reason="reads the command line from /proc")
def test_a_system_chromium_builds_no_address_bar_popups_and_keeps_playwrights_features(
    browser_type, browser_type_launch_args
):
    """The popups are pages of the browser's own UI, loaded for every context's window
    (one renderer each). Chromium honours the last --disable-features only: the one that
    leaves them out must carry the list Playwright gives first."""
    if "executable_path" not in browser_type_launch_args:
        pytest.skip("Playwright's own headless build has no address bar")
    marker = f"--window-name=stagehand-{uuid.uuid4()}"  # finds this browser's process
    options = {**browser_type_launch_args, "args": [*browser_type_launch_args["args"], marker]}
    browser = browser_type.launch(**options)
    try:
        context = browser.new_context()
        context.new_page().set_content("<p>ready</p>")
        targets = browser.new_browser_cdp_session().send(
            "Target.getTargets", {"filter": [{}]}
        )["targetInfos"]
        assert not [t["url"] for t in targets if "omnibox" in t["url"]], targets
        (command,) = [  # the browser's own process, not a helper it started
            line for line in _command_lines()
            if marker in line and not any(arg.startswith("--type=") for arg in line)
        ]  # fmt: skip
    finally:
        browser.close()
    given = [arg.split("=", 1)[1].split(",") for arg in command if
             arg.startswith("--disable-features=")]  # fmt: skip
    assert len(given) == 2, given  # Playwright's, then ours
    assert set(given[0]) < set(given[-1])
    assert {"WebUIOmniboxPopup", "WebUIOmniboxAimPopup"} <= set(given[-1])


def _command_lines() -> list[list[str]]:
    """Every process's command line (Linux: /proc)."""
    lines = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit():
                lines.append((entry / "cmdline").read_bytes().decode().split("\0"))
    return lines
