"""pytest wiring: options, ini keys, markers and fixtures. Thin by design."""

from __future__ import annotations

import uuid
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_stagehand.browser.remote import RemoteBrowser
from pytest_stagehand.errors import (
    BrowserUnreachable,
    ConfigError,
    MissingApiKey,
    ModelError,
    show_briefly,
)
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.openai_client import EndpointModes
from pytest_stagehand.model.usage import SharedSpend, UsageLedger
from pytest_stagehand.recordings.format import write_json
from pytest_stagehand.recordings.shard import module_of, select_shard
from pytest_stagehand.recordings.store import FlushReport, Held, RecordingStore
from pytest_stagehand.reporting import export, report, terminal
from pytest_stagehand.reporting import html as html_report
from pytest_stagehand.settings import OPTIONS, Settings, cache_root, resolve

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
                            metavar=option.name.upper(), help=option.help)
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
        model = model_config(settings, config.rootpath)
        if model is not None:
            model.check_credentials()  # a configured model without a key fails once, here
    except (ConfigError, MissingApiKey) as exc:
        raise pytest.UsageError(f"pytest-stagehand: {exc}") from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[EXPLICIT_KEY] = explicit
    config.stash[RUN_KEY] = run = RecordingRun(config)
    config.pluginmanager.register(run, "stagehand-recording-run")
    html_report.register(config, settings)  # --ai-report
    export.register(config, settings, salt=run.id)  # --ai-export
    # Imported after pytest-playwright's plugin, so its fixtures can extend Playwright's.
    config.pluginmanager.import_plugin("pytest_stagehand.plugin.fixtures")
    if config.pluginmanager.has_plugin("playwright-asyncio"):  # its `page` is async
        config.pluginmanager.import_plugin("pytest_stagehand.plugin.async_fixtures")


def session_settings(config: pytest.Config) -> Settings:
    return config.stash[SETTINGS_KEY]


# --- recordings: merged into the committed files once, at the end of the session ---


RUN_KEY = pytest.StashKey["RecordingRun"]()


class RecordingRun:
    """Which test files ran whole, so unused recordings are only reported (or pruned)
    where every test had its chance to use them."""

    def __init__(self, config: pytest.Config) -> None:
        # One id per session, shared with its xdist workers (see RecordingStore).
        worker = getattr(config, "workerinput", {})
        self.id: str = worker.get("stagehand_run") or uuid.uuid4().hex
        args = [str(arg) for arg in config.args]
        self.filtered = bool(
            config.getoption("keyword", "")
            or config.getoption("markexpr", "")
            or config.getoption("lf", False)
            or config.getoption("stepwise", False)
            or any("::" in arg for arg in args)
        )
        self.files: set[Path] = set()
        self.partial: set[Path] = set()  # modules some of whose tests were deselected
        self.held = Held()  # what processes recorded while the working store failed them
        self.rootpath = config.rootpath
        self.summary = terminal.session_summary(config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["stagehand_run"] = self.id  # xdist: the workers join this run

    def complete_files(self) -> set[Path]:
        return set() if self.filtered else self.files - self.partial

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        # A module deselected whole (another shard's) never runs, so it is never counted.
        self.partial.update(self._path(module_of(item.nodeid)) for item in items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Reports name files relative to the rootdir; recordings are keyed absolute.
        self.files.add(self._path(report.fspath))
        if held := getattr(report, HELD_ATTR, None):
            self.held.add(Held.from_json(held))
        if getattr(report, TRACED_ATTR, False) and TRACE_WARNING not in self.summary.warnings:
            self.summary.warnings.append(TRACE_WARNING)

    def _path(self, relative: str) -> Path:
        return (self.rootpath / relative).resolve()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--ai-shard i/n: keep this shard's modules (after every other selection)."""
    shard = session_settings(config).shard
    if shard is None:
        return
    kept, others = select_shard(items, *shard)
    if others:
        config.hook.pytest_deselected(items=others)
        items[:] = kept


# --- secrets in Playwright traces: said once per run -----------------------------------

SECRETS_TRACED = pytest.StashKey[bool]()  # set by ai_page on a traced test with variables
TRACED_ATTR = "stagehand_secrets_traced"  # on the teardown report, so xdist ships it
TRACE_WARNING = (
    "Playwright traces (--tracing) were recorded while tests used variables: a trace holds "
    "what was typed and every page as it was, so the values are in it in clear. Treat "
    "test-results/ as secret, or run those tests without --tracing (see docs/security.md)."
)


def tracing(config: pytest.Config) -> bool:
    """Is pytest-playwright recording traces (--tracing on or retain-on-failure)?"""
    return config.getoption("tracing", "off") not in (None, "off")


def recordings_dir(config: pytest.Config) -> Path:
    return cache_root(session_settings(config), config.rootpath) / "recordings"


HELD_ATTR = "stagehand_held"  # on a teardown report: what the store could not take (Held)
STORE_KEY = pytest.StashKey[RecordingStore]()  # the session's store, as the tests use it
# What OpenAI-compatible endpoints accept, learned once for all of the session's clients.
ENDPOINT_MODES_KEY = pytest.StashKey[EndpointModes]()


def recording_store(config: pytest.Config) -> RecordingStore:
    """The session's store; a corrupt one is moved aside (said once, in the summary). One
    that cannot be opened holds what the run records in memory (RecordingStore.fault)."""
    store = RecordingStore(recordings_dir(config), config.stash[RUN_KEY].id)
    if store.moved_aside is not None:
        terminal.session_summary(config).warnings.append(
            f"the working store {store.directory} was corrupt: moved aside to "
            f"{store.moved_aside} and started afresh (committed recordings are unaffected; "
            "delete the moved copy once nothing in it is missed)."
        )
    return store


def _check_store(config: pytest.Config) -> None:
    """Open the store once before any test (and before xdist workers start), so a corrupt
    one is repaired by one process and a broken one is named in the summary."""
    if session_settings(config).cache == "off" or not recordings_dir(config).exists():
        return
    store = recording_store(config)
    store.close()
    if store.fault is not None:
        terminal.session_summary(config).warnings.append(
            f"{store.fault}\n{HELD_ADVICE}"
        )


HELD_ADVICE = (
    "This run goes on without it: what the model answers is kept in memory and written "
    "straight to the __stagehand__/*.json files at the end of the run."
)


def send_held(item: pytest.Item, test_report: pytest.TestReport) -> None:
    """Put on a test's teardown report what the store could not take during the test, so
    the controller (of xdist workers too) writes it to the files."""
    store = item.config.stash.get(STORE_KEY, None)
    if store is not None and test_report.when == "teardown":
        news = store.take_news()
        if news or news.fault:
            setattr(test_report, HELD_ATTR, news.to_json())


LAST_RUN = "last-run.json"  # in the cache dir: what `python -m pytest_stagehand merge` sums


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput") or RUN_KEY not in config.stash:
        return  # xdist workers leave the merge to the controller
    settings = session_settings(config)
    summary = terminal.session_summary(config)
    try:
        held = config.stash[RUN_KEY].held
        if settings.cache != "off" and (recordings_dir(config).exists() or held or held.fault):
            _flush(session, exitstatus, summary)
    finally:
        if settings.shard:
            summary.shard = "{}/{}".format(*settings.shard)
        path = cache_root(settings, config.rootpath) / LAST_RUN
        try:
            write_json(path, summary.to_dict())
        except OSError as exc:
            summary.warnings.append(f"could not write {path} for merging: {exc}")


def _flush(session: pytest.Session, exitstatus: int, summary: terminal.SessionSummary) -> None:
    config = session.config
    settings = session_settings(config)
    run = config.stash[RUN_KEY]
    if session.shouldfail or session.shouldstop:
        run.filtered = True  # -x or --maxfail stopped early: modules may have run in part
    if (own := config.stash.get(STORE_KEY, None)) is not None:
        run.held.add(own.take_news())  # held after the last test's report
    store = recording_store(config)
    try:
        flushed = store.flush(
            run.complete_files(),
            prune=settings.prune and exitstatus == pytest.ExitCode.OK,
            held=run.held,
        )
    finally:
        store.close()
    _say_held(summary, run.held, store, flushed)
    summary.unused = [
        f"{_relative(u.file, config)}: {u.recording.key.describe()}" for u in flushed.unused
    ] + [
        f"{_relative(u.file, config)}: {u.recording.key.describe()} (pruned)"
        for u in flushed.pruned
    ]
    summary.recording_errors += [str(error) for error in flushed.errors]
    summary.bases = {_relative(path, config): base for path, base in flushed.bases.items()}


def _say_held(
    summary: terminal.SessionSummary, held: Held, store: RecordingStore, flushed: FlushReport
) -> None:
    """Name the store's fault once, and where what the run held because of it went."""
    fault = held.fault or (str(store.fault) if store.fault else "")
    if not fault:
        return
    warning = next((w for w in summary.warnings if w.startswith(fault)), None)
    if warning is not None:
        summary.warnings.remove(warning)  # said at the start: now say how it ended
    kept = flushed.held - len(flushed.lost)
    said = [fault]
    if kept or not flushed.lost:
        said.append(
            "Nothing the model answered is lost: this run's recordings were written straight "
            f"to the __stagehand__/*.json files ({kept} kept in memory while the store failed)."
        )
    if flushed.lost:
        steps = "".join(f"\n  - {step}" for step in flushed.lost)
        said.append(
            "These steps could be kept neither in their file nor in the store, and a model "
            f"will be asked for them again:{steps}"
        )
    if store.fault is not None:  # the merge could not read or empty the store
        said.append(
            "Recordings other runs left in the store wait there until a run can use it."
        )
    summary.warnings.append("\n".join(said))


def _relative(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


# --- the model (issue 4): one place turns settings into a model configuration ---


def model_config(settings: Settings, rootdir: Path) -> ModelConfig | None:
    """How to reach the model `settings` name; None when no model may be called."""
    if settings.model is None or not settings.may_call_model:
        return None
    return ModelConfig(
        settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=settings.model_timeout,
        max_retries=settings.model_retries,
        memo_dir=cache_root(settings, rootdir) / "memo" if settings.memo else None,
    )


def usage_ledger(config: pytest.Config) -> UsageLedger:
    """The session's ledger; with --ai-max-cost its budget is the whole run's, the spend
    shared with the other xdist workers under the cache directory (by the run's id)."""
    settings = session_settings(config)
    shared = None
    if settings.max_cost is not None:
        spend_dir = cache_root(settings, config.rootpath) / "spend"
        shared = SharedSpend(spend_dir, config.stash[RUN_KEY].id)
    return UsageLedger(settings.max_cost, shared=shared)


# --- reports: step lines, terminal summary, Allure, evidence, JUnit (logic in report.py) ---


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    except ModelError as exc:  # message and advice first; the SDK chain only when asked for
        if item.config.get_verbosity() < 2 and not item.config.option.fulltrace:
            show_briefly(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    test_report = yield
    report.complete_report(item, test_report)
    send_held(item, test_report)
    if test_report.when == "teardown" and item.stash.get(SECRETS_TRACED, False):
        setattr(test_report, TRACED_ATTR, True)
    return test_report


@pytest.hookimpl(tryfirst=True)  # before xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    remote = RemoteBrowser.of(session_settings(config))
    if remote is not None and not hasattr(config, "workerinput"):
        try:
            remote.probe()  # once per session, not once per test
        except BrowserUnreachable as exc:
            raise pytest.UsageError(f"pytest-stagehand: {exc}") from None
    # A plugin object, since pytest_runtest_logreport (where xdist workers' steps arrive)
    # is given no config to find the summary by.
    summary = terminal.session_summary(session.config)
    session.config.pluginmanager.register(summary, "stagehand-summary")
    if not hasattr(session.config, "workerinput") and RUN_KEY in session.config.stash:
        _check_store(session.config)


# --- end of reports section ---
