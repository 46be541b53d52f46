"""Shared by the tests of dialogs, tabs and files: recording act steps with a scripted
model, then replaying them offline with none."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from scripted_answers import Answer, act_answer

from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.replay import RecordingResolver
from pytest_stagehand.recordings.format import recordings_file
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.testing.scripted_model import ScriptedRequest


def use_recordings(ai, store, test_file, mode: str, *, has_model: bool) -> None:
    """Act steps of `ai` through the test's recordings, in cache `mode`."""
    ai.resolver = RecordingResolver(
        ai.page, ModelResolver(ai.page, ai.client if has_model else None, ai.steplog),
        Recordings(store, test_file, mode), ai.steplog, has_model=has_model,
        model="openai/scripted",
    )


def committed_steps(store, test_file) -> list[dict[str, Any]]:
    store.flush()
    return json.loads(recordings_file(test_file).read_text())["steps"]


def page_answer(expected: str, method: str, arguments: Sequence[str] = ()) -> Answer:
    """An act answer with no element (a dialog, a tab), given only when the prompt shows
    `expected`: what a correct model needs to see before it answers so."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        if expected not in request.text:
            raise AssertionError(f"the scripted model sees no {expected!r} in its prompt")
        return act_answer(None, method, arguments)

    return answer
