"""Secrets in every form a page gives them: as typed, URL-encoded, HTML-escaped,
JSON-escaped, upper- and lower-cased. None reaches a prompt, a recording, a report or an
error message; and masking them does not stop a step from replaying."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from pydantic import BaseModel
from scripted_answers import choose
from test_agent import agent_requests, call, done
from test_agent import script as script  # the fixture
from test_evaluator import judged
from test_report import CONFTEST

from pytest_stagehand.actions.settle import PAGE_CHANGES
from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.browser.covering import OVERLAY_ID, overlaid
from pytest_stagehand.browser.watch import PageWatches
from pytest_stagehand.errors import CacheError
from pytest_stagehand.events import StepLog
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.judge import Evaluator
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.recordings.format import Recording, check_secrets, recordings_file
from pytest_stagehand.recordings.keys import step_key
from pytest_stagehand.recordings.store import Recordings, RecordingStore
from pytest_stagehand.reporting.evidence import page_screenshot
from pytest_stagehand.reporting.html import StepCapture

VALUE = 'Canary+Secret <"x">&y@Example.com'
EMAIL = "Canary+Secret@Example.com"

FORMS = {
    "as typed": VALUE,
    "URL-encoded": quote(VALUE, safe=""),
    "URL-encoded, path style": quote(VALUE),
    "form-encoded": quote_plus(VALUE),
    "URL-encoded, lower-case hex": re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(),
                                          quote(VALUE, safe="")),
    "HTML-escaped": html.escape(VALUE),
    "HTML-escaped, text only": html.escape(VALUE, quote=False),
    "JSON-escaped": json.dumps(VALUE)[1:-1],
    "upper-case": VALUE.upper(),
    "lower-case": VALUE.lower(),
    "upper-case, URL-encoded": quote(VALUE.upper(), safe=""),
}


def leaks(text: str) -> list[str]:
    """The forms of VALUE that `text` holds, in any case."""
    folded = text.lower()
    return [name for name, form in FORMS.items() if form.lower() in folded]


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_every_spelling_of_a_value_is_masked_as_its_placeholder(form):
    steplog = StepLog()
    steplog.add_secrets({"password": VALUE})
    assert steplog.mask(f"before {form} after") == "before %password% after"


def test_short_values_are_masked_only_as_whole_tokens_in_any_case():
    steplog = StepLog()
    steplog.add_secrets({"pin": "ab1"})
    assert steplog.mask("AB1 cab1 ab1x ab1") == "%pin% cab1 ab1x %pin%"


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_recording_holding_any_form_of_a_value_is_refused(form):
    key = step_key("act", "open the profile", f"/profile?email={form}")
    with pytest.raises(CacheError, match="the value of variable 'password' appears in url"):
        check_secrets(Recording.of(key), {"password": VALUE})


def test_a_url_holding_a_value_is_keyed_by_its_placeholder_for_every_value(tmp_path):
    steplog = StepLog()
    recordings = Recordings(RecordingStore(tmp_path / "store"), tmp_path / "t.py",
                            mask=steplog.mask)
    steplog.add_secrets({"email": EMAIL})
    key = recordings.key("extract", "who", f"http://a/account.html?email={quote_plus(EMAIL)}")
    assert key.url == "/account.html?email=%email%"
    other = StepLog()
    other.add_secrets({"email": "someone.else@example.org"})
    again = Recordings(recordings.store, recordings.test_file, mask=other.mask).key(
        "extract", "who", "http://b/account.html?email=someone.else%40example.org"
    )
    assert again == key  # the next run, with another value, finds the same recording
    recordings.store.close()


# --- every artifact: terminal, JUnit, Allure, evidence, the raised error ----------------

ARTIFACTS_TEST = f"""
import pytest
from conftest import Exchange, Heal, call
from pytest_stagehand.errors import ActionFailed

FORMS = {list(FORMS.values())!r}
VALUE = FORMS[0]

def test_secret(steplog):
    steplog.add_secrets({{"password": VALUE}})
    for form in FORMS:
        with steplog.step("act", f"open {{form}}", f"http://shop/a?p={{form}}") as step:
            step.cache, step.element, step.method = "healed", f"link {{form}}", "click"
            step.selector, step.arguments = f"a[href*='{{form}}']", [form]
            step.heal = Heal("model", f"#old-{{form}}", f"#new-{{form}}")
            step.calls = [call()]
            step.exchanges = [Exchange("act", f"page {{form}}", f"answer {{form}}")]
            step.result = form
    with pytest.raises(ActionFailed) as caught, steplog.step("act", "open the profile"):
        raise ActionFailed(f"Could not click on http://shop/a?p={{FORMS[1]}}")
    assert "%password%" in str(caught.value)
    with steplog.step("act", "open the orders"):  # fails the test: pytest and JUnit show it
        raise ActionFailed(f"Could not click on http://shop/a?p={{FORMS[2]}}")
"""


def test_no_form_of_a_value_reaches_any_report(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\naddopts = -p no:playwright\n")
    pytester.makepyfile(ARTIFACTS_TEST)
    result = pytester.runpytest_subprocess(
        "-v", "--junitxml=junit.xml", "--alluredir=allure", "--ai-evidence=ev",
    )
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "ActionFailed: Could not click on http://shop/a?p=%password%" in output
    written = [p for p in pytester.path.rglob("*") if p.is_file() and p.suffix != ".py"]
    assert {p.name for p in written} >= {"junit.xml", "actions.json"}
    assert any(p.name.endswith("-result.json") for p in written)
    assert leaks(output) == []
    for path in written:
        assert leaks(path.read_text(errors="replace")) == [], path


# --- end to end: a value that comes back in a URL, upper-cased, encoded in a link -------


class Account(BaseModel):
    signed_in_as: str
    orders: int


@dataclass
class Run:
    ai: AIPage
    store: RecordingStore


@contextmanager
def run(page, server, store_dir: Path, test_file: Path, mode: str) -> Iterator[Run]:
    """One test run, wired as the ai_page fixture wires it (the scripted model's client
    only when the mode may call a model)."""
    steplog = StepLog()
    store = RecordingStore(store_dir)
    recordings = Recordings(store, test_file, mode, mask=steplog.mask)
    has_model = mode != "offline"
    config = ModelConfig("openai/scripted", base_url=server.openai_base_url, max_retries=0)
    with create_client(config) as client:
        client_or_none = client if has_model else None
        resolver = RecordingResolver(page, ModelResolver(page, client_or_none, steplog),
                                     recordings, steplog, has_model=has_model)
        ai = AIPage(
            page, client_or_none, steplog=steplog, resolver=resolver,
            evaluator=Evaluator(page, client_or_none, steplog, recordings=recordings),
            recorder=StepRecorder(page, recordings, steplog, has_model=has_model),
        )
        yield Run(ai, store)
    store.flush()
    store.close()


def sign_in_and_read(ai: AIPage, pages_server) -> Account:
    ai.goto(pages_server.url("secrets/signin.html"))
    ai.act("type %email% into the email field", variables={"email": EMAIL})
    ai.act("click sign in")
    account = ai.extract("who is signed in and how many orders", schema=Account)
    ai.assert_that("the page welcomes the user back")
    return account


def test_a_value_the_page_echoes_is_masked_everywhere_and_still_replays(
    page, scripted_model, pages_server, tmp_path
):
    test_file = tmp_path / "test_account.py"
    scripted_model.enqueue(
        choose("textbox", "Email", "fill", ["%email%"]),
        choose("button", "Sign in"),
        # A correct model copies what it sees: the value as its placeholder.
        {"signed_in_as": "%email%", "orders": 3},
        judged("YES", "It says welcome back.",
               {"kind": "page_text", "text": "Welcome back, %email%", "present": True}),
    )
    with run(page, scripted_model, tmp_path / "store", test_file, "auto") as first:
        assert sign_in_and_read(first.ai, pages_server).orders == 3
        assert "email=Canary%2BSecret%40Example.com" in page.url  # the page got the value
        events = repr(first.ai.steplog.events)
    assert scripted_model.calls == 4
    sent = json.dumps([request.body for request in scripted_model.requests])
    assert "%email%" in sent
    committed = recordings_file(test_file).read_text()
    assert "account.html?email=%email%" in committed
    assert '"Welcome back, %email%"' in committed  # the judge's check was recorded
    for text in (sent, events, committed):
        assert not [form for form in (EMAIL, quote_plus(EMAIL), EMAIL.upper(), EMAIL.lower(),
                                      quote(EMAIL, safe="")) if form.lower() in text.lower()]

    # Offline, with no model: every step replays, the extract's words and the judge's
    # check hold on the page read through the same mask.
    with run(page, scripted_model, tmp_path / "store", test_file, "offline") as second:
        account = sign_in_and_read(second.ai, pages_server)
        assert [e.cache for e in second.ai.steplog.events if e.kind != "goto"] == ["hit"] * 4
    assert account.orders == 3
    assert scripted_model.calls == 4


# --- Playwright traces hold what was typed: the run says so, once ------------------------

TRACED_TESTS = """
def test_one(ai_page):
    ai_page.steplog.add_secrets({"password": "hunter2-s3cr3t"})

def test_two(ai_page):
    ai_page.steplog.add_secrets({"password": "hunter2-s3cr3t"})

def test_without_variables(ai_page):
    pass
"""


@pytest.mark.parametrize("tracing", ["on", "off"])
def test_a_traced_run_with_variables_warns_once_that_traces_hold_them(pytester, tracing):
    pytester.makepyfile(test_traced=TRACED_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tracing", tracing)
    result.assert_outcomes(passed=3)
    warned = result.stdout.str().count("warning: Playwright traces (--tracing) were recorded")
    assert warned == (1 if tracing == "on" else 0)


# --- pixels: every screenshot covers a value wherever the page shows it ---------------------

SHOWN = """<!doctype html><html><body style="font: 16px sans-serif">
<label>Name <input id="name"></label>
<p id="echo"></p>
<select id="choice" style="width: 200px"><option value="v">-</option></select>
<div id="host"></div>
<iframe srcdoc="<input id=inner>" style="width: 300px; height: 40px"></iframe>
<p id="short">Order 42</p><p id="longer">Room 1425</p>
</body></html>"""


def show(page, value: str) -> None:
    """`value` typed into a field, echoed in a text and a select's chosen option, in a shadow
    root and in a frame; in boxes whose size does not depend on it (a cover hides a value,
    not its length)."""
    page.set_content(SHOWN)
    page.fill("#name", value)
    page.evaluate(
        """value => {
            document.getElementById("echo").textContent = `Saved ${value}`;
            document.getElementById("choice").options[0].text = value;
            const shadow = document.getElementById("host").attachShadow({ mode: "open" });
            shadow.innerHTML = `<div>Hello ${value}</div><input value="${value}">`;
        }""",
        value,
    )
    page.frames[1].fill("#inner", value)


def covers(page) -> list[tuple[str, list[float]]]:
    """What the overlay drew: each cover's text and box."""
    return page.evaluate(
        """id => [...(document.getElementById(id)?.children || [])].map(c => [c.textContent,
            [c.style.left, c.style.top].map(parseFloat)])""",
        OVERLAY_ID,
    )


def test_report_screenshots_are_the_same_whatever_the_value(page):
    """The every-step and failure screenshot (evidence, Allure) and the HTML report's: the
    value in the field, the page's echo of it, a shadow root and a frame are all covered,
    so the image does not change with the value; uncovered, it would."""
    shots, captures, bare = [], [], []
    watch = PageWatches(page).current
    for value in ("Ada Lovelace", "Grace Hopper"):
        show(page, value)
        secrets = {value: "%name%"}
        shots.append(page_screenshot(lambda: watch, lambda secrets=secrets: secrets)())
        steplog = StepLog("t")
        steplog.add_secrets({"name": value})
        capture = StepCapture(lambda: watch, steplog.mask, lambda steplog=steplog: steplog.secrets)
        steplog.listeners.append(capture)
        with steplog.step("act", "look"):
            pass
        captures.append(list(capture.payload()["shots"].values()))
        bare.append(page_screenshot(lambda: watch)())
        assert covers(page) == []  # the overlay went with the screenshot
    assert shots[0] == shots[1]
    assert captures[0] == captures[1] and len(captures[0]) == 1
    assert bare[0] != bare[1]


def test_a_short_value_is_covered_only_as_a_whole_word(page):
    page.set_content(SHOWN)
    with overlaid(page, {"42": "%room%"}):
        drawn = covers(page)
    box = page.locator("#short").bounding_box()
    assert drawn == [["%room%", [box["x"] - 2, box["y"] - 2]]]  # not "Room 1425"
    assert covers(page) == []


def test_the_overlay_goes_even_when_the_screenshot_fails(page):
    show(page, "Ada Lovelace")
    with pytest.raises(RuntimeError), overlaid(page, {"Ada Lovelace": "%name%"}):
        assert len(covers(page)) == 5  # field, echo, select, shadow text and field
        assert page.frames[1].evaluate("id => !!document.getElementById(id)", OVERLAY_ID)
        raise RuntimeError("the screenshot failed")
    assert covers(page) == [] and page.frames[1].evaluate(
        "id => document.getElementById(id)", OVERLAY_ID
    ) is None


def test_a_covered_screenshot_is_no_change_of_the_page(page):
    """Steps wait for the page to stop changing: the overlay drawn and taken away for a
    screenshot must not wake them, or a waiting step would look again, and again."""
    show(page, "Ada Lovelace")
    changes = lambda: page.evaluate(f"{PAGE_CHANGES}.changes")  # noqa: E731
    before = changes()
    with overlaid(page, {"Ada Lovelace": "%name%"}, [["e1", 10, 10, 50, 20]]):
        assert len(covers(page)) == 7  # five covers, a mark and its label
    assert changes() == before
    page.evaluate("document.body.append('changed')")
    assert changes() == before + 1


def test_the_agent_screenshot_tool_sends_the_value_covered(ai, script, scripted_model):
    sent = []
    for value in ("Ada Lovelace", "Grace Hopper"):
        show(ai.page, value)
        script.steps(call("screenshot"), done(False))
        Agent(ai).execute("look at the page", variables={"name": value}, max_steps=3)
        sent.append(agent_requests(scripted_model)[-1].images[0])
    assert sent[0] == sent[1]
