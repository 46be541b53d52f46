"""Fixtures. Registered by the plugin after pytest-playwright, so they can extend its own."""

from __future__ import annotations

import pytest

from .browser import find_chromium
from .errors import BrowserNotFound
from .plugin import session_settings


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, pytestconfig) -> dict:
    """Playwright's launch options, plus a system Chromium when Playwright's is missing."""
    if "executable_path" in browser_type_launch_args or "channel" in browser_type_launch_args:
        return browser_type_launch_args
    try:
        choice = find_chromium(session_settings(pytestconfig).browser_executable_path)
    except BrowserNotFound as exc:
        pytest.fail(str(exc), pytrace=False)
    options = choice.launch_options()
    args = [*browser_type_launch_args.get("args", []), *options.pop("args", [])]
    merged = {**browser_type_launch_args, **options}
    if args:
        merged["args"] = args
    return merged
