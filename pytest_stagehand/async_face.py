"""The async face: `await ai_page.act(...)` over pytest-playwright-asyncio's async page.

Each method runs the sync core's own method in a greenlet (bridge.py), so a step does
exactly what its sync twin does: the same pipelines, recordings, reports and budgets.
What a method gives back is Playwright's async objects again (pages, responses,
downloads' `.download`), never the bridge's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pytest_stagehand.actions.action import ActResult
from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.browser.bridge import Bridge, Synced, run_core
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.judge import Evaluator


def given_back(bridge: Bridge, value: Any) -> Any:
    """A core result as an async test uses it: bridged objects back to Playwright's."""
    if isinstance(value, Synced):
        return value.async_object
    if isinstance(value, list):
        return [given_back(bridge, item) for item in value]
    if isinstance(value, ActResult) and value.downloads:
        return dataclasses.replace(value, downloads=[
            dataclasses.replace(saved, download=given_back(bridge, saved.download))
            for saved in value.downloads
        ])
    return value


def _awaited(core_method: Any) -> Any:
    """An async method running `core_method` of the face's core object in a greenlet."""
    spawned = run_core(core_method)

    async def method(self: _Face, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # a failed assertion points at the test's line
        bridge = self.bridge
        args, kwargs = bridge.wrap(args), {k: bridge.wrap(v) for k, v in kwargs.items()}
        result = await spawned(self.core, *args, **kwargs)
        return given_back(bridge, result)

    method.__name__ = core_method.__name__
    method.__doc__ = core_method.__doc__
    return method


class _Face:
    def __init__(self, core: Any, bridge: Bridge) -> None:
        self.core = core
        self.bridge = bridge


class AsyncEvaluator(_Face):
    """The judge behind the async `ai_page`: `await evaluator.ask(...)`, as the sync one."""

    core: Evaluator
    assert_that = _awaited(Evaluator.assert_that)
    check = _awaited(Evaluator.check)
    ask = _awaited(Evaluator.ask)
    ask_many = _awaited(Evaluator.ask_many)


class AsyncAIPage(_Face):
    """`await ai_page.act/extract/observe/assert_that/...` on pytest-playwright-asyncio's
    `page`; anything else is that async page's own (`ai_page.locator(...)`)."""

    core: AIPage
    goto = _awaited(AIPage.goto)
    act = _awaited(AIPage.act)
    download = _awaited(AIPage.download)
    upload = _awaited(AIPage.upload)
    observe = _awaited(AIPage.observe)
    extract = _awaited(AIPage.extract)
    assert_that = _awaited(AIPage.assert_that)
    wait_for = _awaited(AIPage.wait_for)
    check = _awaited(AIPage.check)
    switch_to = _awaited(AIPage.switch_to)

    @property
    def page(self) -> Any:
        """The async Playwright page the steps act on (it follows the tabs steps open)."""
        return given_back(self.bridge, self.core.page)

    @property
    def pages(self) -> list[Any]:
        """The open pages of the browser context, in the order they opened."""
        return given_back(self.bridge, self.core.pages)

    @property
    def dialogs(self) -> Any:
        """The native dialogs of the page acted on: `.pending`, `.seen`."""
        return self.core.dialogs

    @property
    def evaluator(self) -> AsyncEvaluator:
        return AsyncEvaluator(self.core.evaluator, self.bridge)

    @property
    def steplog(self) -> Any:
        return self.core.steplog

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)

    def __repr__(self) -> str:
        return f"<AsyncAIPage url={self.page.url!r}>"


class AsyncAgent(_Face):
    """`await agent.execute("goal", output=Model)` on the async `ai_page`."""

    core: Agent
    execute = _awaited(Agent.execute)
