"""Shared fixtures. Each section belongs to one part of the plugin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from servers import PagesServer

from pytest_stagehand.scripted_model import ScriptedModelServer

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


# --- end of pages server section ---------------------------------------------------------
