"""pytest wiring: options, ini keys, markers and fixtures. Thin by design."""

from __future__ import annotations

import uuid
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from . import report
from .cache import RecordingStore
from .errors import ConfigError, MissingApiKey, StoreError
from .llm import ModelConfig
from .settings import OPTIONS, Settings, cache_root, resolve

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
    # Imported after pytest-playwright's plugin, so its fixtures can extend Playwright's.
    config.pluginmanager.import_plugin("pytest_stagehand.fixtures")


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
        self.rootpath = config.rootpath
        self.summary = report.session_summary(config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["stagehand_run"] = self.id  # xdist: the workers join this run

    def complete_files(self) -> set[Path]:
        return set() if self.filtered else self.files

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if items:
            self.filtered = True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Reports name files relative to the rootdir; recordings are keyed absolute.
        self.files.add((self.rootpath / report.fspath).resolve())
        if getattr(report, TRACED_ATTR, False) and TRACE_WARNING not in self.summary.warnings:
            self.summary.warnings.append(TRACE_WARNING)


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


def recording_store(config: pytest.Config) -> RecordingStore:
    """The session's store; a corrupt one is moved aside (said once, in the summary).
    Raises StoreError when it cannot be opened."""
    store = RecordingStore(recordings_dir(config), config.stash[RUN_KEY].id)
    if store.moved_aside is not None:
        report.session_summary(config).warnings.append(
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
    try:
        recording_store(config).close()
    except StoreError as exc:
        report.session_summary(config).warnings.append(str(exc))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput") or RUN_KEY not in config.stash:
        return  # xdist workers leave the merge to the controller
    settings = session_settings(config)
    if settings.cache == "off" or not recordings_dir(config).exists():
        return
    run = config.stash[RUN_KEY]
    if session.shouldfail or session.shouldstop:
        run.filtered = True  # -x or --maxfail stopped early: modules may have run in part
    summary = report.session_summary(config)
    try:
        store = recording_store(config)
        try:
            flushed = store.flush(
                run.complete_files(), prune=settings.prune and exitstatus == pytest.ExitCode.OK
            )
        finally:
            store.close()
    except StoreError as exc:  # named in the summary; the recordings wait in the store
        if str(exc) not in summary.warnings:
            summary.warnings.append(str(exc))
        return
    summary.unused = [
        f"{_relative(u.file, config)}: {u.recording.key.describe()}" for u in flushed.unused
    ] + [
        f"{_relative(u.file, config)}: {u.recording.key.describe()} (pruned)"
        for u in flushed.pruned
    ]
    summary.recording_errors += [str(error) for error in flushed.errors]


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


# --- reports: step lines, terminal summary, Allure, evidence, JUnit (logic in report.py) ---


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    test_report = yield
    report.complete_report(item, test_report)
    if test_report.when == "teardown" and item.stash.get(SECRETS_TRACED, False):
        setattr(test_report, TRACED_ATTR, True)
    return test_report


def pytest_sessionstart(session: pytest.Session) -> None:
    # A plugin object, since pytest_runtest_logreport (where xdist workers' steps arrive)
    # is given no config to find the summary by.
    summary = report.session_summary(session.config)
    session.config.pluginmanager.register(summary, "stagehand-summary")
    if not hasattr(session.config, "workerinput") and RUN_KEY in session.config.stash:
        _check_store(session.config)


# --- end of reports section ---
