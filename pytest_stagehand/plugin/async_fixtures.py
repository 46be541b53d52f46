"""The async face's fixtures, registered instead of the sync ones when pytest-playwright-
asyncio provides `page`.

The names are the sync ones (`ai_page`, `agent`, `evaluator`), as pytest-playwright-asyncio
keeps pytest-playwright's (`page`, `context`, `browser`): the two Playwright plugins
refuse to load in one run, so a run is sync or async as a whole and a fixture name means
one thing in it. The set-up is the sync fixtures' own (fixtures.open_ai_page, open_agent),
run in a greenlet over a bridge of the async page.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio

from pytest_stagehand.async_face import AsyncAgent, AsyncAIPage, AsyncEvaluator
from pytest_stagehand.browser.bridge import Bridge, greenlet_spawn
from pytest_stagehand.browser.remote import RemoteBrowser
from pytest_stagehand.errors import BrowserUnreachable, RemoteLaunchFailed
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.model.usage import UsageLedger
from pytest_stagehand.plugin.fixtures import open_agent, open_ai_page
from pytest_stagehand.plugin.hooks import session_settings
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.settings import Settings


@pytest.fixture(scope="session")
def launch_browser(
    launch_browser: Callable[..., Any],
    browser_type: Any,
    browser_type_launch_args: dict,
    pytestconfig: pytest.Config,
    connect_options: dict | None,
) -> Callable[..., Awaitable[Any]]:
    """A connection to --ai-connect / --ai-cdp-url (the sync face's, through the bridge),
    else pytest-playwright-asyncio's launcher."""
    remote = RemoteBrowser.of(session_settings(pytestconfig), connect_options)
    if remote is None:
        return launch_browser

    async def connect(**kwargs: Any) -> Any:
        bridge = Bridge(asyncio.get_running_loop())
        options = {**browser_type_launch_args, **kwargs}
        try:
            browser = await greenlet_spawn(remote.connect, bridge.wrap(browser_type), options)
        except (BrowserUnreachable, RemoteLaunchFailed) as exc:
            problem = str(exc)
        else:
            return browser.async_object
        pytest.fail(problem, pytrace=False)

    return connect


@pytest_asyncio.fixture(loop_scope="session")
async def ai_page(
    page: object,
    request: pytest.FixtureRequest,
    ai_settings: Settings,
    ai_model_client: ModelClient | None,
    ai_usage: UsageLedger,
    ai_recordings: Recordings,
    base_url: str | None,
) -> AsyncIterator[AsyncAIPage]:
    """pytest-playwright-asyncio's `page` with `await act/observe/extract/...`."""
    bridge = Bridge(asyncio.get_running_loop())
    opened = open_ai_page(
        bridge.wrap(page), request, ai_settings, ai_model_client, ai_usage, ai_recordings,
        base_url,
    )
    core = await greenlet_spawn(opened.__enter__)
    try:
        yield AsyncAIPage(core, bridge)
    finally:
        await greenlet_spawn(opened.__exit__, None, None, None)


@pytest_asyncio.fixture(loop_scope="session")
async def agent(
    request: pytest.FixtureRequest,
    ai_page: AsyncAIPage,
    ai_settings: Settings,
    ai_recordings: Recordings,
    ai_usage: UsageLedger,
) -> AsyncIterator[AsyncAgent]:
    """An agent on the async `ai_page`: `await agent.execute("goal", output=Model)`."""
    opened = open_agent(request, ai_page.core, ai_settings, ai_recordings, ai_usage)
    core = await greenlet_spawn(opened.__enter__)
    try:
        yield AsyncAgent(core, ai_page.bridge)
    finally:
        await greenlet_spawn(opened.__exit__, None, None, None)


@pytest.fixture
def evaluator(ai_page: AsyncAIPage) -> AsyncEvaluator:
    """The judge behind the async `ai_page`: `await evaluator.ask(...)`."""
    return ai_page.evaluator
