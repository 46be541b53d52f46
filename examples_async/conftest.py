"""Shared fixtures for the async examples: the sync suite's shop and accounts, and its
log-in steps awaited. `__stagehand__` is the sync suite's: both replay one recording."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

if str(Path(__file__).resolve().parent.parent) not in sys.path:  # make `examples` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.conftest import base_url, credentials, shop  # noqa: F401  (fixtures)
from pytest_stagehand.async_face import AsyncAIPage


@pytest.fixture
def log_in(ai_page: AsyncAIPage, credentials: dict[str, str]) -> Callable[..., Awaitable[None]]:  # noqa: F811
    """`await log_in()` as the demo customer, `await log_in(user="locked_out_user")` as another."""

    async def log_in(user: str | None = None) -> None:
        await ai_page.goto("/")
        await ai_page.act(
            "type %user% into the username field",
            variables={"user": user or credentials["user"]},
        )
        await ai_page.act(
            "type %password% into the password field",
            variables={"password": credentials["password"]},
        )
        await ai_page.act("click the log in button")

    return log_in


@pytest.fixture
async def shopper(ai_page: AsyncAIPage, log_in: Callable[..., Awaitable[None]]) -> AsyncAIPage:
    """`ai_page`, logged in to the shop, on the product list."""
    await log_in()
    return ai_page
