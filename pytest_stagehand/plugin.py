"""pytest wiring: options, ini keys, markers and fixtures. Thin by design."""

from __future__ import annotations

import pytest

from .errors import ConfigError
from .settings import OPTIONS, Settings, resolve

SETTINGS_KEY = pytest.StashKey[Settings]()
EXPLICIT_KEY = pytest.StashKey[frozenset]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stagehand", "pytest-stagehand: AI-driven browser tests")
    for option in OPTIONS:
        if option.is_flag:
            group.addoption(option.flag, dest=f"stagehand_{option.name}", action="store_true",
                            default=None, help=option.help)
        else:
            group.addoption(option.flag, dest=f"stagehand_{option.name}", default=None,
                            help=option.help)
        parser.addini(option.ini, option.help, default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "ai(**settings): per-test pytest-stagehand settings, e.g. "
        "@pytest.mark.ai(model='openai/gpt-4.1-mini', max_cost=0.10, cache='offline').",
    )
    cli = {o.name: config.getoption(f"stagehand_{o.name}") for o in OPTIONS}
    ini = {o.name: config.getini(o.ini) for o in OPTIONS}
    try:
        settings, explicit = resolve(cli, ini)
    except ConfigError as exc:
        raise pytest.UsageError(f"pytest-stagehand: {exc}") from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[EXPLICIT_KEY] = explicit
    # Imported after pytest-playwright's plugin, so its fixtures can extend Playwright's.
    config.pluginmanager.import_plugin("pytest_stagehand.fixtures")


def session_settings(config: pytest.Config) -> Settings:
    return config.stash[SETTINGS_KEY]
