"""Shared fixtures for the pytest-stagehand examples."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# --- example shop (examples/app) ------------------------------------------------------------
# Serves the example shop for the whole session and points pytest-playwright's `base_url`
# at it, so tests can `page.goto("/")`. `--base-url` (or the `base_url` ini key) wins and
# skips the local server. `SHOP_VARIANT=redesign` serves the redesigned markup.
if str(Path(__file__).resolve().parent.parent) not in sys.path:  # make `examples` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.app.server import ShopServer, serve_shop


@pytest.fixture(scope="session")
def shop() -> Iterator[ShopServer]:
    """The running example shop; set `shop.variant` to switch the markup mid-session."""
    with serve_shop() as server:
        yield server


@pytest.fixture(scope="session")
def base_url(pytestconfig: pytest.Config, request: pytest.FixtureRequest) -> str:
    given = pytestconfig.getoption("base_url", None) or pytestconfig.getini("base_url")
    if given:
        return given
    return request.getfixturevalue("shop").url


# --- end of example shop ---------------------------------------------------------------------
