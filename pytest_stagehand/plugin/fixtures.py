"""Fixtures. Registered by the plugin after pytest-playwright, so they can extend its own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserType, Page

from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.browser.launch import find_chromium, playwright_chromium_path
from pytest_stagehand.browser.remote import RemoteBrowser
from pytest_stagehand.browser.watch import PageWatches
from pytest_stagehand.errors import (
    BrowserNotFound,
    BrowserUnreachable,
    ConfigError,
    MissingApiKey,
    RemoteLaunchFailed,
)
from pytest_stagehand.heal.resolve import watch_documents
from pytest_stagehand.model.client import ModelClient, ModelConfig
from pytest_stagehand.model.openai_client import EndpointModes
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.model.usage import UsageLedger
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.judge import Evaluator
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.plugin.hooks import (
    ENDPOINT_MODES_KEY,
    EXPLICIT_KEY,
    SECRETS_TRACED,
    STORE_KEY,
    model_config,
    recording_store,
    session_settings,
    tracing,
    usage_ledger,
)
from pytest_stagehand.recordings.store import Recordings, RecordingStore
from pytest_stagehand.reporting import evidence, export, report, trace
from pytest_stagehand.reporting import html as html_report
from pytest_stagehand.settings import Settings


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict,
    pytestconfig: pytest.Config,
    browser_name: str,
    connect_options: dict | None,
    browser_type: BrowserType,
) -> dict:
    """Playwright's launch options, plus a system Chromium when Playwright's is missing
    (the session's own Playwright says whether its build is installed).

    A remote browser's server has its own: only a path given explicitly is sent there
    (--ai-connect), and a browser attached over CDP is not launched at all.
    """
    settings = session_settings(pytestconfig)
    remote = RemoteBrowser.of(settings, connect_options)
    if (
        browser_name != "chromium"
        or "executable_path" in browser_type_launch_args
        or "channel" in browser_type_launch_args
        or (remote and (remote.protocol == "cdp" or not settings.browser_executable_path))
    ):
        return browser_type_launch_args
    try:
        bundled = playwright_chromium_path(browser_type)
        choice = find_chromium(settings.browser_executable_path, bundled=bundled)
    except BrowserNotFound as exc:
        problem = str(exc)
    else:
        return _merged_launch_options(browser_type_launch_args, choice.launch_options())
    pytest.fail(problem, pytrace=False)


def _merged_launch_options(given: dict, ours: dict) -> dict:
    args = [*given.get("args", []), *ours.pop("args", [])]
    merged = {**given, **ours}
    if args:
        merged["args"] = args
    return merged


@pytest.fixture(scope="session")
def launch_browser(
    launch_browser: Callable[..., Browser],
    browser_type: BrowserType,
    browser_type_launch_args: dict,
    pytestconfig: pytest.Config,
    connect_options: dict | None,
) -> Callable[..., Browser]:
    """A connection to --ai-connect / --ai-cdp-url, or to pytest-playwright's own
    `connect_options` (launch options sent as its server reads them); else its launcher."""
    remote = RemoteBrowser.of(session_settings(pytestconfig), connect_options)
    if remote is None:
        return launch_browser

    def connect(**kwargs: Any) -> Browser:
        try:
            return remote.connect(browser_type, {**browser_type_launch_args, **kwargs})
        except (BrowserUnreachable, RemoteLaunchFailed) as exc:
            problem = str(exc)
        pytest.fail(problem, pytrace=False)

    return connect


# --- the AI page and its model (issue 4) -------------------------------------------------


@pytest.fixture(scope="session")
def ai_usage(pytestconfig: pytest.Config) -> Iterator[UsageLedger]:
    """Usage and cost of this session's model calls; stops calls once the run (all xdist
    workers) spent --ai-max-cost."""
    ledger = usage_ledger(pytestconfig)
    yield ledger
    if ledger.shared is not None:
        ledger.shared.close()


def session_client(
    pytestconfig: pytest.Config, config: ModelConfig, ai_usage: UsageLedger
) -> ModelClient:
    """A client for `config` that shares the session's ledger and what the session learned
    of its endpoints."""
    modes = pytestconfig.stash.setdefault(ENDPOINT_MODES_KEY, EndpointModes())
    return create_client(config, ai_usage, modes)


@pytest.fixture(scope="session")
def ai_model_client(
    pytestconfig: pytest.Config, ai_usage: UsageLedger
) -> Iterator[ModelClient | None]:
    """The session's model client (--ai-model, --ai-base-url, ini keys, environment), or
    None when no model may be called (none configured, or --ai-cache=offline)."""
    config = model_config(session_settings(pytestconfig), pytestconfig.rootpath)
    if config is None:
        yield None
        return
    with session_client(pytestconfig, config, ai_usage) as client:
        yield client


def _marker_arguments(item: pytest.Item) -> dict[str, Any]:
    """@pytest.mark.ai arguments of the test, its class and module; the closest wins."""
    arguments: dict[str, Any] = {}
    for marker in reversed(list(item.iter_markers("ai"))):
        arguments.update(marker.kwargs)
    return arguments


def _test_budget(item: pytest.Item) -> float | None:
    """@pytest.mark.ai(max_cost=...) is the test's own budget, even when --ai-max-cost
    (the session's budget) is given on the command line."""
    marked = _marker_arguments(item)
    if "max_cost" not in marked:
        return None
    return Settings().with_marker({"max_cost": marked["max_cost"]}, frozenset()).max_cost


@pytest.fixture
def ai_settings(request: pytest.FixtureRequest) -> Settings:
    """This test's settings: the session's, with @pytest.mark.ai(...) applied."""
    config = request.config
    try:
        return session_settings(config).with_marker(
            _marker_arguments(request.node), config.stash[EXPLICIT_KEY]
        )
    except ConfigError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def ai_recording_store(pytestconfig: pytest.Config) -> Iterator[RecordingStore]:
    """The store this session's recordings go to; merged into __stagehand__/*.json at the
    end of the session (by the xdist controller when distributed). One that cannot be
    opened or written holds them in memory until then (RecordingStore.fault)."""
    store = pytestconfig.stash[STORE_KEY] = recording_store(pytestconfig)
    yield store
    store.close()


@pytest.fixture
def ai_recordings(
    request: pytest.FixtureRequest, ai_settings: Settings, ai_recording_store: RecordingStore
) -> Recordings:
    """This test module's recorded steps, under the test's cache mode (--ai-cache)."""
    return Recordings(
        export.tapped(request.node, ai_recording_store),
        request.node.path,
        ai_settings.cache,
        share_origins=not ai_settings.cache_per_origin,
    )


@pytest.fixture
def ai_page(
    page: Page,
    request: pytest.FixtureRequest,
    ai_settings: Settings,
    ai_model_client: ModelClient | None,
    ai_usage: UsageLedger,
    ai_recordings: Recordings,
    base_url: str | None,
) -> Iterator[AIPage]:
    """pytest-playwright's `page` with act, observe and extract; goto honours --base-url."""
    with open_ai_page(
        page, request, ai_settings, ai_model_client, ai_usage, ai_recordings, base_url
    ) as opened:
        yield opened


@contextmanager
def open_ai_page(
    page: Page,
    request: pytest.FixtureRequest,
    ai_settings: Settings,
    ai_model_client: ModelClient | None,
    ai_usage: UsageLedger,
    ai_recordings: Recordings,
    base_url: str | None,
) -> Iterator[AIPage]:
    """The AIPage of a test on `page` (a sync Page, or the async face's bridge of one),
    with its reports, and what is closed after it: one set-up for both faces."""
    config = model_config(ai_settings, request.config.rootpath)
    client, own_client = ai_model_client, None
    if config != (ai_model_client.config if ai_model_client else None):
        try:  # the marker names another model: a client for this test only
            client = own_client = (
                session_client(request.config, config, ai_usage) if config else None
            )
        except MissingApiKey as exc:
            pytest.fail(str(exc), pytrace=False)
    # The screenshots cover the values the test registers with its steplog, later on, of
    # the page the steps act on, as the pages' watches (owned by this test) know it.
    screenshot = evidence.page_screenshot(lambda: watches.acting, lambda: steplog.secrets)
    steplog = report.start_test(request.node, ai_settings, screenshot)
    watches = PageWatches(page, steplog, watch_documents)
    trace.attach(request.config, page.context.tracing, steplog)  # --tracing
    html_report.attach(request.node, ai_settings, lambda: watches.acting, steplog)  # --ai-report
    export.attach(request.node, steplog, base_url)  # --ai-export
    recordings = replace(ai_recordings, mask=steplog.mask)  # a secret in a URL keys as %name%
    watch = watches.of(page)
    resolver = RecordingResolver(
        watch,
        ModelResolver(watch, client, steplog, ai_settings.prompt_budget),
        recordings,
        steplog,
        has_model=client is not None,
        model=ai_settings.model,
    )
    evaluator = Evaluator(
        watch, client, steplog, inputs=ai_settings.judge_inputs, recordings=recordings,
        prompt_budget=ai_settings.prompt_budget,
    )
    recorder = StepRecorder(
        page, recordings, steplog, has_model=client is not None, model=ai_settings.model
    )
    ai_usage.begin_test(request.node.nodeid, _test_budget(request.node))
    try:
        yield AIPage(page, client, steplog=steplog, base_url=base_url, resolver=resolver,
                     evaluator=evaluator, recorder=recorder, vision=ai_settings.vision,
                     wait_timeout=ai_settings.wait_timeout,
                     prompt_budget=ai_settings.prompt_budget, watches=watches)
    finally:
        watches.of(page).dialogs.log_expired()
        ai_usage.end_test()
        if own_client is not None:
            own_client.close()
        if steplog.variables and tracing(request.config):
            request.node.stash[SECRETS_TRACED] = True  # the summary says so, once


# --- the agent (issue 7) -------------------------------------------------------------------


@pytest.fixture
def agent(
    request: pytest.FixtureRequest,
    ai_page: AIPage,
    ai_settings: Settings,
    ai_recordings: Recordings,
    ai_usage: UsageLedger,
) -> Iterator[Agent]:
    """An agent on `ai_page`: `agent.execute("goal", output=Model)` reaches a goal in steps,
    navigating only within --ai-allowed-origins (default: the base URL's origin), in
    --ai-agent-mode (dom, or cua with --ai-cua-model)."""
    with open_agent(request, ai_page, ai_settings, ai_recordings, ai_usage) as opened:
        yield opened


@contextmanager
def open_agent(
    request: pytest.FixtureRequest,
    ai_page: AIPage,
    ai_settings: Settings,
    ai_recordings: Recordings,
    ai_usage: UsageLedger,
) -> Iterator[Agent]:
    """The agent of a test on `ai_page`, and its computer-use client: both faces'."""
    cua_client = None
    config = model_config(ai_settings, request.config.rootpath)
    if ai_settings.cua_model and config is not None:
        try:
            cua = replace(config, model=ai_settings.cua_model)
            cua_client = session_client(request.config, cua, ai_usage)
        except MissingApiKey as exc:
            pytest.fail(str(exc), pytrace=False)
    try:
        yield Agent(
            ai_page,
            allowed_origins=ai_settings.allowed_origins,
            recordings=replace(ai_recordings, mask=ai_page.steplog.mask),
            mode=ai_settings.agent_mode,
            cua_client=cua_client,
        )
    finally:
        if cua_client is not None:
            cua_client.close()


# --- end of agent section ------------------------------------------------------------------


# --- the evaluator (issue 6) -------------------------------------------------------------


@pytest.fixture
def evaluator(ai_page: AIPage) -> Evaluator:
    """The judge behind `ai_page`: ask(question, answer=None, screenshot=False) and
    ask_many([...]) (one model call), besides assert_that(claim) and check(claim)."""
    return ai_page.evaluator


# --- end of evaluator section ------------------------------------------------------------
