"""Shared fixtures. Each section belongs to one part of the plugin."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from real_widgets import RealWidgetsServer
from scripted_answers import scripted_ai_page
from servers import PagesServer
from session_once import once_per_session
from test_examples import copy_of_examples, run_offline

from pytest_stagehand.page import AIPage
from pytest_stagehand.recordings.store import RecordingStore
from pytest_stagehand.testing.scripted_model import ScriptedModelServer

# --- order --------------------------------------------------------------------------------


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `long` tests (a whole suite in a subprocess, minutes on a loaded machine) first,
    the rest in their order: with -n, one started last keeps one worker busy while the
    others have nothing left to run."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


# --- scripted model server (llm layer) ---------------------------------------------------
# A scripted stand-in for OpenAI/Anthropic on 127.0.0.1: tests point the real SDKs at it.
# No real model is ever called.


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModelServer]:
    """A started scripted model server; script it with `enqueue(...)`, inspect `requests`."""
    with ScriptedModelServer() as server:
        yield server


# --- end of scripted model server section ------------------------------------------------


# --- pages server (snapshot) -------------------------------------------------------------
# tests/pages served over HTTP on two 127.0.0.1 ports (two origins, for cross-origin frames).


@pytest.fixture(scope="session")
def pages_server() -> Iterator[PagesServer]:
    """Static server for tests/pages: `.url(path)` and `.other_origin_url(path)`."""
    server = PagesServer().start()
    yield server
    server.close()


@pytest.fixture(scope="session")
def real() -> Iterator[RealWidgetsServer]:
    """tests/real served over HTTP: third-party widgets from npm and their host pages."""
    server = RealWidgetsServer().start()
    yield server
    server.close()


# --- end of pages server section ---------------------------------------------------------


# --- an AI page and recordings for in-process tests ------------------------------------


@pytest.fixture
def store(tmp_path) -> Iterator[RecordingStore]:
    """A working store of recordings of the test's own."""
    store = RecordingStore(tmp_path / "store")
    yield store
    store.close()


@pytest.fixture
def ai(page, scripted_model, pages_server) -> Iterator[AIPage]:
    """An AI page on the test pages, its model the scripted one."""
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        yield ai_page


# --- the example suite on the redesigned shop (recordings, heal) ------------------------


@pytest.fixture(scope="session")
def examples_on_the_redesign(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A copy of examples/ replayed offline once on the redesigned shop, so its recordings
    healed, and that run. Read-only: the heal test and the shard test both compare with it."""

    def replay(folder: Path) -> dict[str, object]:
        run = run_offline(copy_of_examples(folder), SHOP_VARIANT="redesign")
        return {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr}

    folder, run = once_per_session(tmp_path_factory, "examples-on-the-redesign", replay)
    return folder / "examples", subprocess.CompletedProcess([], **run)


# --- end of the example suite section ---------------------------------------------------
