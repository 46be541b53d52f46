"""Finding a Chromium: explicit path > Playwright's build > system install > clear error."""

from __future__ import annotations

import os
import stat

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
