"""cua: the agent on the providers' computer-use tools, driven by a scripted model (the real
openai and anthropic SDKs over HTTP: the Responses API and the Messages API's beta tool).

Nothing here is a model: each scripted answer is the action a correct computer-use model
would take on the screenshot it was sent, at the point where the control is drawn. Every
test checks the page too, not only what the agent says.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from pydantic import BaseModel
from scripted_answers import TEST_WAIT_MS, scripted_ai_page
from test_secrets import show

from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.agent.cua.actions import Unsupported, gemini_action, playwright_keys
from pytest_stagehand.agent.cua.screen import Screen
from pytest_stagehand.agent.cua.sessions import KEPT_SCREENSHOTS
from pytest_stagehand.errors import ConfigError, HealFailed, ModelRefused, SafetyCheckPending
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.judge import Recordings
from pytest_stagehand.recordings.store import RecordingStore
from pytest_stagehand.settings import resolve
from pytest_stagehand.testing.scripted_model import (
    Broken,
    ComputerCall,
    Fault,
    FunctionCall,
    Refusal,
    ScriptedModelServer,
    ScriptedRequest,
)

GOAL = "add the backpack to the cart and report how many items the cart holds"
BACKPACK = "add-to-cart-sauce-labs-backpack"
PROVIDERS = ("anthropic", "openai")


class Cart(BaseModel):
    items: int


# --- a correct computer-use model's answers, in each wire format ----------------------


def click(provider: str, x: float, y: float) -> ComputerCall:
    if provider == "anthropic":
        return ComputerCall({"action": "left_click", "coordinate": [round(x), round(y)]})
    return ComputerCall({"type": "click", "button": "left", "x": round(x), "y": round(y)})


def typing(provider: str, text: str) -> ComputerCall:
    if provider == "anthropic":
        return ComputerCall({"action": "type", "text": text})
    return ComputerCall({"type": "type", "text": text})


def screenshot(provider: str) -> ComputerCall:
    if provider == "anthropic":
        return ComputerCall({"action": "screenshot"})
    return ComputerCall({"type": "screenshot"})


def done(success: bool, output: Any = None, reasoning: str = "finished") -> FunctionCall:
    return FunctionCall("done", {"success": success, "reasoning": reasoning, "output": output})


def centre(page: Page, test_id: str, scale: float = 1.0) -> tuple[float, float]:
    """Where a control is drawn in a screenshot `scale` times the viewport's size."""
    box = page.get_by_test_id(test_id).bounding_box()
    assert box is not None
    return (box["x"] + box["width"] / 2) * scale, (box["y"] + box["height"] / 2) * scale


def png_size(image: bytes) -> tuple[int, int]:
    return struct.unpack(">II", image[16:24])


def badge(page: Page) -> str:
    return page.get_by_test_id("shopping-cart-badge").inner_text()


def computer_requests(server: ScriptedModelServer) -> list[ScriptedRequest]:
    return [r for r in server.requests if r.api in ("responses", "messages")]


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def ai(page: Page, scripted_model: ScriptedModelServer, pages_server, provider) -> Iterator[AIPage]:
    with scripted_ai_page(
        page, scripted_model, provider=provider, base_url=pages_server.url()
    ) as ai_page:
        ai_page.goto(pages_server.url("shop.html"))
        yield ai_page


# --- reaching a goal -------------------------------------------------------------------


def test_a_cua_run_reaches_the_goal_with_an_output(ai, scripted_model, provider):
    page = ai.page
    scripted_model.enqueue(click(provider, *centre(page, BACKPACK)), done(True, {"items": 1}))

    result = Agent(ai).execute(GOAL, output=Cart, mode="cua")

    assert result.success, result
    assert result.output == Cart(items=1)
    assert badge(page) == "1"  # the click landed on the backpack's button
    assert [step.tool for step in result.steps] == ["click"]
    # The click is kept as an action on the element under the point, replayable as one.
    [action] = result.actions
    assert action.method == "click" and action.selector is not None
    assert 'button "Add to cart"' in (action.element or "")
    first, second = computer_requests(scripted_model)
    if provider == "anthropic":
        assert first.headers["anthropic-beta"] == "computer-use-2025-01-24"
        computer = first.body["tools"][0]
        assert computer["type"] == "computer_20250124" and computer["name"] == "computer"
        assert (computer["display_width_px"], computer["display_height_px"]) == (1280, 720)
        [result_block] = [b for b in second.messages[-1]["content"] if b["type"] == "tool_result"]
        assert result_block["tool_use_id"].startswith("toolu_scripted_")
    else:
        computer = first.body["tools"][0]
        assert computer["type"] == "computer_use_preview"
        assert computer["environment"] == "browser"
        assert (computer["display_width"], computer["display_height"]) == (1280, 720)
        assert second.body["previous_response_id"] == "resp_scripted_1"
        [output] = [i for i in second.input if i.get("type") == "computer_call_output"]
        assert output["output"]["type"] == "computer_screenshot"
    # The goal and a screenshot went first; the screenshot after the click came back.
    assert GOAL in first.text and len(first.images) == 1
    assert png_size(second.images[-1]) == (1280, 720)


def test_a_run_stopped_by_max_steps_still_ends_in_done(ai, scripted_model, provider):
    page = ai.page
    scripted_model.enqueue(
        screenshot(provider),
        click(provider, *centre(page, BACKPACK)),
        done(False, {"items": 1}, "ran out of steps"),
    )

    result = Agent(ai).execute(GOAL, max_steps=3, output=Cart, mode="cua")

    assert result.status == "max_steps" and not result.success
    assert result.output == Cart(items=1)  # what was gathered is kept
    assert badge(page) == "1"
    last = computer_requests(scripted_model)[-1]
    assert last.body["tool_choice"]["name"] == "done"  # only done was offered in the end
    assert "Only done is available now" in last.text


def test_an_action_offered_after_the_last_step_is_not_done(ai, scripted_model, provider):
    page = ai.page
    scripted_model.enqueue(screenshot(provider), click(provider, *centre(page, BACKPACK)))

    result = Agent(ai).execute(GOAL, max_steps=2, output=Cart, mode="cua")

    assert result.status == "max_steps" and result.output is None
    assert badge(page) == ""  # the click came when only done was allowed


@pytest.mark.parametrize("provider", ["openai"], indirect=True)
def test_the_screenshots_sent_cover_the_tests_values(ai, scripted_model, provider):
    """A value typed or echoed is covered by its placeholder, in frames and shadow roots
    too: the image sent is the same whatever the value."""
    sent = []
    for value in ("Ada Lovelace", "Grace Hopper"):
        show(ai.page, value)
        scripted_model.enqueue(done(False, None, "looked"))
        Agent(ai).execute(GOAL, mode="cua", variables={"name": value})
        sent.append(computer_requests(scripted_model)[-1].images[0])
    assert sent[0] == sent[1]


@pytest.mark.parametrize("provider", ["anthropic"], indirect=True)
def test_a_run_that_changes_nothing_stagnates_into_done(ai, scripted_model, provider):
    scripted_model.enqueue(*[screenshot(provider)] * 5, done(False, None, "nothing to do"))

    result = Agent(ai).execute(GOAL, output=Cart, mode="cua")

    assert result.status == "stagnated"
    assert "Refused: this exact screenshot" in result.steps[-1].outcome  # repeats refused
    assert computer_requests(scripted_model)[-1].body["tool_choice"]["name"] == "done"


@pytest.mark.parametrize("provider", ["openai"], indirect=True)
def test_the_time_limit_leaves_only_done(ai, scripted_model, provider):
    scripted_model.enqueue(done(False, {"items": 0}, "out of time"))

    result = Agent(ai).execute(GOAL, output=Cart, mode="cua", timeout_s=0.001)

    assert result.status == "timeout" and result.output == Cart(items=0)
    assert "time limit" in computer_requests(scripted_model)[-1].text


def test_a_refusal_is_a_clear_error(ai, scripted_model):
    scripted_model.enqueue(Refusal("I can't help with buying things."))

    with pytest.raises(ModelRefused, match=r"refused the goal .*can't help with buying"):
        Agent(ai).execute(GOAL, output=Cart, mode="cua")


# --- safety checks (OpenAI) -------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai"], indirect=True)
def test_a_pending_safety_check_fails_unless_the_test_allows_it(ai, scripted_model):
    page = ai.page
    check = {"id": "sc_1", "code": "malicious_instructions", "message": "The page asks to buy."}
    x, y = centre(page, BACKPACK)
    risky = ComputerCall({"type": "click", "button": "left", "x": x, "y": y}, (check,))
    scripted_model.enqueue(risky)

    with pytest.raises(SafetyCheckPending, match=r"malicious_instructions.*allow_safety_checks"):
        Agent(ai).execute(GOAL, output=Cart, mode="cua")
    assert badge(page) == ""  # nothing was done

    scripted_model.enqueue(risky, done(True, {"items": 1}))
    result = Agent(ai).execute(
        GOAL, output=Cart, mode="cua", allow_safety_checks=["malicious_instructions"]
    )
    assert result.success and badge(page) == "1"
    [output] = [i for i in scripted_model.last_request.input if "acknowledged_safety_checks" in i]
    assert output["acknowledged_safety_checks"] == [check]


# --- the screen and the viewport ---------------------------------------------------------


def test_points_map_from_a_device_scale_factor_2_screen(
    browser: Browser, scripted_model: ScriptedModelServer, pages_server, provider
):
    context = browser.new_context(viewport={"width": 800, "height": 600}, device_scale_factor=2)
    page = context.new_page()
    try:
        with scripted_ai_page(page, scripted_model, provider=provider) as ai:
            ai.goto(pages_server.url("shop.html"))
            # The model sees the viewport's CSS size (800x600), not the device's 1600x1200.
            scripted_model.enqueue(
                click(provider, *centre(page, BACKPACK)), done(True, {"items": 1})
            )
            result = Agent(ai).execute(GOAL, output=Cart, mode="cua")
            assert result.success and badge(page) == "1"
            assert png_size(scripted_model.requests[0].images[0]) == (800, 600)
    finally:
        context.close()


def test_points_map_from_a_scaled_down_screenshot(
    browser: Browser, scripted_model: ScriptedModelServer, pages_server, provider
):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    try:
        with scripted_ai_page(page, scripted_model, provider=provider) as ai:
            ai.goto(pages_server.url("shop.html"))
            screen = Screen.of(page)
            assert (screen.display_width, screen.display_height) == (1280, 800)
            scale = 1280 / 1600
            # Where the button is drawn in the smaller screenshot: a point that, unmapped,
            # would land elsewhere on the page.
            scripted_model.enqueue(
                click(provider, *centre(page, BACKPACK, scale)), done(True, {"items": 1})
            )
            result = Agent(ai).execute(GOAL, output=Cart, mode="cua")
            assert result.success and badge(page) == "1"
            assert png_size(scripted_model.requests[0].images[0]) == (1280, 800)
    finally:
        context.close()


def test_key_names_map_to_playwright_names():
    assert playwright_keys(["CTRL", "A"]) == "Control+a"
    assert playwright_keys(["ctrl", "shift", "Tab"]) == "Control+Shift+Tab"
    assert playwright_keys(["Return"]) == "Enter"
    assert playwright_keys(["PAGE_DOWN"]) == "PageDown"


# --- recording and replay ------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RecordingStore]:
    store = RecordingStore(tmp_path / "store")
    yield store
    store.close()


def offline_agent(page: Page, store: RecordingStore, test_file: Path) -> Agent:
    """An agent with no model at all: it can only replay the recording."""
    offline = AIPage(page, None, wait_timeout=TEST_WAIT_MS)
    return Agent(offline, recordings=Recordings(store, test_file, "offline"))


@pytest.mark.parametrize("provider", ["openai"], indirect=True)
def test_a_click_is_recorded_on_the_element_and_replays_verified_where_it_moved(
    ai, scripted_model, store, tmp_path
):
    page = ai.page
    test_file = tmp_path / "test_shop.py"
    scripted_model.enqueue(click("openai", *centre(page, BACKPACK)), done(True, {"items": 1}))
    recorded = Agent(ai, recordings=Recordings(store, test_file, "auto")).execute(
        GOAL, output=Cart, mode="cua"
    )
    assert recorded.success and not recorded.replayed
    calls = scripted_model.calls

    # The backpack moves to the end of the list: its old point is now the bike light's
    # button. The replay follows the element, not the point, with no model.
    page.reload()
    page.evaluate("() => { const list = document.querySelector('.inventory'); "
                  "list.append(list.firstElementChild); }")  # fmt: skip
    result = offline_agent(page, store, test_file).execute(GOAL, output=Cart, mode="cua")

    assert (result.success, result.replayed) == (True, True)
    assert result.output == Cart(items=1)
    assert page.get_by_test_id(BACKPACK).inner_text() == "Remove"
    assert page.get_by_test_id("add-to-cart-sauce-labs-bike-light").inner_text() == "Add to cart"
    assert scripted_model.calls == calls

    # With the backpack gone, nothing is clicked in its place.
    page.reload()
    page.evaluate("() => document.querySelector('.inventory').firstElementChild.remove()")
    with pytest.raises(HealFailed, match="diverged"):
        offline_agent(page, store, test_file).execute(GOAL, output=Cart, mode="cua")
    assert badge(page) == ""


@pytest.mark.parametrize("provider", ["anthropic"], indirect=True)
def test_a_click_where_no_element_is_replays_only_on_the_same_element(
    ai, scripted_model, pages_server, store, tmp_path
):
    page = ai.page
    test_file = tmp_path / "test_board.py"
    ai.goto(pages_server.url("cua/canvas.html"))
    box = page.locator("#board").bounding_box()
    assert box is not None
    x, y = box["x"] + 290, box["y"] + 190  # the red square drawn on the canvas
    scripted_model.enqueue(click("anthropic", x, y), done(True, "Square hit"))
    goal = "click the red square on the board"
    recorded = Agent(ai, recordings=Recordings(store, test_file, "auto")).execute(goal, mode="cua")
    assert recorded.success and page.locator("#status").inner_text() == "Square hit"
    assert recorded.actions == []  # no element to replay with ai_page.act

    page.reload()
    result = offline_agent(page, store, test_file).execute(goal, mode="cua")
    assert (result.success, result.replayed) == (True, True)
    assert page.locator("#status").inner_text() == "Square hit"

    # A banner now covers the square: the replay refuses to click it.
    page.reload()
    page.evaluate("() => document.body.insertAdjacentHTML('beforeend', '<div id=ad>Ad</div>')")
    with pytest.raises(HealFailed, match=r"there is div#ad now, not canvas#board"):
        offline_agent(page, store, test_file).execute(goal, mode="cua")


# --- faults on the computer-use endpoints ---------------------------------------------------


@pytest.fixture
def patient(page: Page, scripted_model: ScriptedModelServer, pages_server, provider):
    """An AIPage whose client retries twice, quickly, and gives up on a slow answer."""
    server = scripted_model
    endpoint = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    config = ModelConfig(
        f"{provider}/scripted", base_url=endpoint, max_retries=2, backoff_base=0.01, timeout=2.0
    )
    with create_client(config) as client:
        ai_page = AIPage(page, client)
        ai_page.goto(pages_server.url("shop.html"))
        yield ai_page


def test_faults_are_retried_and_an_outage_ends_the_run_in_error(patient, scripted_model, provider):
    page = patient.page
    scripted_model.enqueue(
        Fault(429), Broken("not_json"), click(provider, *centre(page, BACKPACK)),
        Fault(500), done(True, {"items": 1}),
    )  # fmt: skip
    result = Agent(patient).execute(GOAL, output=Cart, mode="cua")
    assert result.success and badge(page) == "1"
    assert result.usage.retries == 3 and scripted_model.pending == 0

    scripted_model.enqueue(Fault(500), Fault(500), Fault(500))
    result = Agent(patient).execute(GOAL, output=Cart, mode="cua")
    assert result.status == "error" and "kept failing (HTTP 500" in result.message


def test_a_timeout_and_malformed_bodies_end_the_run_in_error(patient, scripted_model, provider):
    scripted_model.enqueue(Fault.timeout(6), Broken("truncated_body"), Broken("html"))
    result = Agent(patient).execute(GOAL, output=Cart, mode="cua")
    assert result.status == "error"
    assert "replies that are not answers" in result.message or "no answer within" in result.message


# --- settings ------------------------------------------------------------------------------


def test_the_mode_and_the_cua_model_are_settings():
    settings, _ = resolve({"agent_mode": "cua", "cua_model": "openai/computer-use-preview"}, {})
    assert (settings.agent_mode, settings.cua_model) == ("cua", "openai/computer-use-preview")
    marked = resolve({}, {})[0].with_marker({"agent_mode": "cua"}, frozenset())
    assert marked.agent_mode == "cua"
    with pytest.raises(ConfigError, match="must be one of dom, cua"):
        resolve({"agent_mode": "vision"}, {})
    google = resolve({"cua_model": "google/gemini-2.5-computer-use-preview-10-2025"}, {})[0]
    assert google.cua_model == "google/gemini-2.5-computer-use-preview-10-2025"
    with pytest.raises(ConfigError, match="is not valid: write provider/name"):
        resolve({"cua_model": "gemini-2.5-computer-use-preview-10-2025"}, {})


@pytest.mark.ai(
    model="openai/scripted", base_url="http://127.0.0.1:9/v1", agent_mode="cua",
    cua_model="anthropic/scripted",
)  # fmt: skip
def test_the_agent_fixture_runs_in_the_mode_and_with_the_cua_model_set(agent, ai_page):
    assert agent.mode == "cua"
    assert agent.cua_client is not None and agent.cua_client is not ai_page.client
    assert agent.cua_client.config.model == "anthropic/scripted"
    assert agent.cua_client.config.endpoint == "http://127.0.0.1:9/v1"


# --- Google's Gemini computer use (the optional `google` extra) ----------------------------

GEMINI = "google/scripted-gemini-computer-use"


def gemini_call(name: str, **args: Any) -> ComputerCall:
    """A Gemini predefined function call, as the model sends it."""
    return ComputerCall({"name": name, "args": args})


def normalised(page: Page, test_id: str) -> tuple[int, int]:
    """Where a control is drawn in Gemini's 0-999 grid over the screenshot."""
    x, y = centre(page, test_id)
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    return round(x * 1000 / width), round(y * 1000 / height)


def function_responses(request: ScriptedRequest) -> list[dict[str, Any]]:
    return [
        part["functionResponse"]
        for content in request.body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]


@pytest.fixture
def gemini(page: Page, scripted_model: ScriptedModelServer, pages_server) -> Iterator[AIPage]:
    """An AIPage whose computer-use model is Gemini, through the real google-genai SDK."""
    pytest.importorskip(
        "google.genai",
        reason="Gemini computer use needs the google extra: pip install 'pytest-stagehand[google]'",
    )
    config = ModelConfig(
        GEMINI, base_url=scripted_model.google_base_url, max_retries=2, backoff_base=0.01,
        timeout=5.0,
    )  # fmt: skip
    with create_client(config) as client:
        ai_page = AIPage(page, client)
        ai_page.goto(pages_server.url("shop.html"))
        yield ai_page


def test_a_gemini_run_reaches_the_goal_with_an_output(gemini, scripted_model):
    page = gemini.page
    x, y = normalised(page, BACKPACK)
    scripted_model.enqueue(gemini_call("click_at", x=x, y=y), done(True, {"items": 1}))

    result = Agent(gemini).execute(GOAL, output=Cart, mode="cua")

    assert result.success, result
    assert result.output == Cart(items=1)
    assert badge(page) == "1"  # the 0-999 point landed on the backpack's button
    [action] = result.actions
    assert action.method == "click" and 'button "Add to cart"' in (action.element or "")
    first, second = scripted_model.requests
    assert first.path.endswith(f"/models/{GEMINI.partition('/')[2]}:generateContent")
    computer, functions = first.body["tools"]
    assert computer["computerUse"]["environment"] == "ENVIRONMENT_BROWSER"
    assert functions["functionDeclarations"][0]["name"] == "done"
    assert GOAL in first.text and len(first.images) == 1
    # The click's function response carries the page's URL and the screenshot after it.
    [response] = function_responses(second)
    assert response["name"] == "click_at"
    assert response["response"]["url"] == page.url
    assert len(second.images) == 2  # the first screenshot, and the one after the click
    assert png_size(second.images[-1]) == (1280, 720)
    assert second.body["contents"][1]["role"] == "model"  # the model's turn sent back


def test_gemini_points_are_normalised_to_the_viewport():
    screen = Screen(width=1600, height=1000, display_width=1280, display_height=800)
    [click_at] = gemini_action("click_at", {"x": 500, "y": 250}, screen)
    assert screen.to_page(*click_at.point) == (800.0, 250.0)
    [drag] = gemini_action(
        "drag_and_drop", {"x": 0, "y": 0, "destination_x": 999, "destination_y": 500}, screen
    )
    assert screen.to_page(*drag.end) == pytest.approx((1598.4, 500.0))
    [scroll] = gemini_action(
        "scroll_at", {"x": 10, "y": 10, "direction": "up", "magnitude": 500}, screen
    )
    assert scroll.scroll == (0, -500.0)  # half the viewport's height
    typed = gemini_action(
        "type_text_at", {"x": 1, "y": 2, "text": "hi", "press_enter": False}, screen
    )
    assert [a.kind for a in typed] == ["click", "key", "key", "type"]
    with pytest.raises(Unsupported, match="between 0 and 999"):
        gemini_action("click_at", {"x": 1280, "y": 10}, screen)  # pixels, not the 0-999 grid


def test_a_gemini_point_maps_through_a_scaled_down_screenshot(
    browser: Browser, scripted_model: ScriptedModelServer, pages_server
):
    pytest.importorskip("google.genai", reason="needs pytest-stagehand[google]")
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    config = ModelConfig(GEMINI, base_url=scripted_model.google_base_url, max_retries=0)
    try:
        with create_client(config) as client:
            ai = AIPage(page, client)
            ai.goto(pages_server.url("shop.html"))
            x, y = normalised(page, BACKPACK)
            scripted_model.enqueue(gemini_call("click_at", x=x, y=y), done(True, {"items": 1}))
            result = Agent(ai).execute(GOAL, output=Cart, mode="cua")
            assert result.success and badge(page) == "1"
            assert png_size(scripted_model.requests[0].images[0]) == (1280, 800)
    finally:
        context.close()


def test_a_gemini_safety_decision_fails_unless_the_test_allows_it(gemini, scripted_model):
    page = gemini.page
    x, y = normalised(page, BACKPACK)
    decision = {"decision": "require_confirmation", "explanation": "This adds to a cart."}
    risky = gemini_call("click_at", x=x, y=y, safety_decision=decision)
    scripted_model.enqueue(risky)

    with pytest.raises(SafetyCheckPending, match=r"require_confirmation: This adds to a cart"):
        Agent(gemini).execute(GOAL, output=Cart, mode="cua")
    assert badge(page) == ""  # nothing was done

    scripted_model.enqueue(risky, done(True, {"items": 1}))
    result = Agent(gemini).execute(
        GOAL, output=Cart, mode="cua", allow_safety_checks=["require_confirmation"]
    )
    assert result.success and badge(page) == "1"
    [response] = function_responses(scripted_model.last_request)
    assert response["response"]["safety_acknowledgement"] == "true"


def test_gemini_faults_are_retried_and_a_refusal_is_a_clear_error(gemini, scripted_model):
    page = gemini.page
    x, y = normalised(page, BACKPACK)
    scripted_model.enqueue(
        Fault(429), Broken("not_json"), gemini_call("click_at", x=x, y=y),
        Fault(500), done(True, {"items": 1}),
    )  # fmt: skip
    result = Agent(gemini).execute(GOAL, output=Cart, mode="cua")
    assert result.success and badge(page) == "1"
    assert result.usage.retries == 3 and scripted_model.pending == 0

    scripted_model.enqueue(Refusal("I can't help with buying things."))
    with pytest.raises(ModelRefused, match=r"refused the goal .*can't help with buying"):
        Agent(gemini).execute(GOAL, output=Cart, mode="cua")


def test_a_google_model_without_the_extra_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "google.genai", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"pip install 'pytest-stagehand\[google\]'"):
        create_client(ModelConfig(GEMINI, base_url="http://127.0.0.1:9"))


def test_gemini_navigation_stays_within_the_allowed_origins(gemini, scripted_model):
    page = gemini.page
    start = page.url
    scripted_model.enqueue(
        gemini_call("navigate", url="https://example.com/"), done(False, None, "not allowed")
    )

    result = Agent(gemini).execute(GOAL, output=Cart, mode="cua")

    assert page.url == start  # the page never left the shop
    assert result.steps[0].tool == "navigate" and not result.steps[0].ok
    assert "outside the allowed origins" in result.steps[0].outcome


def test_a_gemini_conversation_keeps_only_the_latest_screenshots(gemini, scripted_model):
    hovers = [gemini_call("hover_at", x=100 * i, y=500) for i in range(1, 5)]
    scripted_model.enqueue(*hovers, done(False, None, "only looked"))

    Agent(gemini).execute(GOAL, output=Cart, mode="cua")

    last = scripted_model.last_request
    assert len(last.images) == KEPT_SCREENSHOTS  # the first screenshot and the oldest dropped
    assert "(an older screenshot, no longer shown)" in last.text
    assert len(function_responses(last)) == 4  # every call still has its response
