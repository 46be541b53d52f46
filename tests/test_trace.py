"""AI steps as groups in pytest-playwright's trace: a run of the example suite with
`--tracing on`, read back from the trace zip (JSON lines) as the trace viewer reads it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from example_runs import SECRETS, example_copy, offline, run_pytest

from pytest_stagehand.actions.direct import DIRECT_CALL
from pytest_stagehand.events import Heal, StepEvent
from pytest_stagehand.reporting.records import step_record
from pytest_stagehand.reporting.trace import outcome_title

pytestmark = pytest.mark.timeout(600)


def trace_calls(trace_zip: Path) -> list[dict]:
    """Every call in the trace, in order: its id, parent, title (groups) or method."""
    calls = {}
    with zipfile.ZipFile(trace_zip) as archive:
        names = [n for n in archive.namelist() if n.endswith(".trace")]
        for name in names:
            for line in archive.read(name).decode().splitlines():
                event = json.loads(line)
                if event["type"] == "before":
                    calls[event["callId"]] = {
                        "id": event["callId"],
                        "parent": event.get("parentId"),
                        "title": event.get("title"),
                        "method": event.get("method"),
                        "params": event.get("params", {}),
                    }
    return list(calls.values())


def test_ai_steps_are_named_groups_around_their_playwright_actions(tmp_path: Path):
    copy = example_copy(tmp_path, "test_login")
    out = tmp_path / "results"
    run = run_pytest(
        copy, str(copy), *offline(copy), "--tracing", "on", "--output", str(out),
        "-k", "logs_in_and_sees", SHOP_VARIANT="redesign",
    )  # fmt: skip
    assert "1 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    (trace_zip,) = out.glob("*/trace.zip")
    calls = trace_calls(trace_zip)
    by_id = {call["id"]: call for call in calls}
    groups = [c for c in calls if c["method"] == "tracingGroup" and c["parent"] is None]

    assert [g["title"] for g in groups] == [
        f"goto: {groups[0]['title'].removeprefix('goto: ')}",
        "act: type %user% into the username field",
        "act: type %password% into the password field",
        "act: click the log in button",
        "assert: the catalogue shows all 8 products",
    ]
    assert groups[0]["title"].startswith("goto: http://127.0.0.1:")

    def children(group: dict) -> list[dict]:
        return [c for c in calls if c["parent"] == group["id"]]

    goto, user, password, login, claim = groups
    assert "goto" in [c["method"] for c in children(goto)]
    # The input the step gave the page is nested in its group (the fields and the button
    # were ready: typed and clicked directly), then the outcome naming the element.
    for group in (user, password):
        scripts = [c["params"].get("expression", "") for c in children(group)]
        assert sum(DIRECT_CALL in script for script in scripts) == 1  # types, with execCommand
    assert children(user)[-1]["title"] == '→ textbox "Username" · fill · cache hit'
    assert [c["method"] for c in children(login)].count("mouseClick") == 1
    outcome = children(login)[-1]["title"]
    assert outcome.startswith('→ button "Log in" · click · cache healed · healed ')
    assert '[data-test="login-button"] → [data-test="sign-in-button"] (fingerprint' in outcome
    assert children(claim)[-1]["title"].startswith(
        "→ YES: The recorded check holds. · cache healed · healed #result-count → "
        "#listing-bar__count (fingerprint, "
    )
    # No value of a variable in any title (Playwright's own fill parameters are its own).
    titles = " ".join(c["title"] or "" for c in calls)
    assert not any(secret in titles for secret in SECRETS)
    assert all(by_id.get(c["parent"]) is not None for c in calls if c["parent"])


def test_the_outcome_title_masks_and_says_what_failed():
    event = StepEvent("act", "type %password% into the password field", cache="healed")
    event.element, event.method, event.ok = 'textbox "hunter22"', "fill", False
    event.heal = Heal("fingerprint", "#pw", "[data-test=pw]", 0.8, ("id",))
    event.error = "TimeoutError: hunter22 not found"
    title = outcome_title(step_record(event, lambda text: text.replace("hunter22", "***")))
    assert title == (
        '→ textbox "***" · fill · cache healed · healed #pw → [data-test=pw] '
        "(fingerprint, 0.80; changed: id) · FAILED: TimeoutError: *** not found"
    )
