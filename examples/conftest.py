"""Shared fixtures for the pytest-stagehand examples."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# --- example shop (examples/app) ------------------------------------------------------------
# Serves the example shop for the whole session and points pytest-playwright's `base_url`
# at it, so tests can `page.goto("/")`. `--base-url` (or the `base_url` ini key) wins and
# skips the local server. `SHOP_VARIANT=redesign` serves the redesigned markup.
if str(Path(__file__).resolve().parent.parent) not in sys.path:  # make `examples` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.app.server import ShopServer, serve_shop
from pytest_stagehand.page import AIPage


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


# --- the shop's accounts ---------------------------------------------------------------------
# Credentials come from the environment in a real suite; the example shop's demo account is
# the default. They are passed as variables (%user%, %password%): the model sees only the
# names, and no value is ever written to a prompt, a recording or a report.


@pytest.fixture(scope="session")
def credentials() -> dict[str, str]:
    return {
        "user": os.environ.get("SHOP_USER", "standard_user"),
        "password": os.environ.get("SHOP_PASSWORD", "secret_sauce"),
    }


@pytest.fixture
def log_in(ai_page: AIPage, credentials: dict[str, str]) -> Callable[..., None]:
    """Log in through the login form, in plain English: `log_in()` as the demo customer,
    `log_in(user="locked_out_user")` as another."""

    def log_in(user: str | None = None) -> None:
        ai_page.goto("/")
        ai_page.act(
            "type %user% into the username field",
            variables={"user": user or credentials["user"]},
        )
        ai_page.act(
            "type %password% into the password field",
            variables={"password": credentials["password"]},
        )
        ai_page.act("click the log in button")

    return log_in


@pytest.fixture
def shopper(ai_page: AIPage, log_in: Callable[..., None]) -> AIPage:
    """`ai_page`, logged in to the shop, on the product list."""
    log_in()
    return ai_page
