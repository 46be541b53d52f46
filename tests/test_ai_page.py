"""The AIPage facade and the ai_page fixture, as a test author meets them."""

from __future__ import annotations

import textwrap

from scripted_answers import choose

from pytest_stagehand.page import AIPage


def test_playwright_stays_reachable(page, pages_server):
    ai = AIPage(page, None, base_url=pages_server.url("act/"))
    ai.goto("widgets.html")  # relative to the base URL
    assert ai.page is page
    assert ai.url == pages_server.url("act/widgets.html")
    assert ai.title() == "Widgets"
    assert ai.locator("h1").inner_text() == "Widgets"
    ai.goto(pages_server.url("login.html"))  # absolute URLs stay as they are
    assert ai.get_by_role("button", name="Login").is_visible()
    assert [(e.kind, e.instruction) for e in ai.steplog.events] == [
        ("goto", pages_server.url("act/widgets.html")),
        ("goto", pages_server.url("login.html")),
    ]


# --- the fixture, in a pytest run of its own -----------------------------------------------

INNER_CONFTEST = """
from pytest_stagehand.model.usage import PRICES

PRICES.register("openai/scripted", 1000.0, 1000.0)  # so a tiny budget runs out
"""

INNER_TESTS = """
import pytest

from pytest_stagehand.errors import BudgetExceeded


def test_session_model(ai_page, ai_model_client):
    assert ai_page.client is ai_model_client
    assert ai_model_client.config.model == "openai/scripted"
    ai_page.goto("login.html")
    ai_page.act("tick remember me")
    assert ai_page.locator("#remember").is_checked()


@pytest.mark.ai(model="openai/scripted-by-marker")
def test_marker_model(ai_page, ai_model_client):
    assert ai_page.client is not ai_model_client
    assert ai_page.client.config.model == "openai/scripted-by-marker"
    ai_page.goto("login.html")
    ai_page.act("tick remember me")
    assert ai_page.locator("#remember").is_checked()


@pytest.mark.ai(max_cost=0.001)
def test_marker_budget(ai_page):
    ai_page.goto("login.html")
    ai_page.act("tick remember me")
    with pytest.raises(BudgetExceeded, match="max_cost"):
        ai_page.act("tick remember me")
"""


def test_fixture_wiring_marker_model_and_per_test_budget(pytester, scripted_model, pages_server):
    scripted_model.default = choose("checkbox", "Remember me", "check")
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makepyfile(test_inner=INNER_TESTS)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider",
        "-o", "ai_model=openai/scripted",  # ini, so the marker may override it
        "--ai-base-url", scripted_model.openai_base_url,
        "--base-url", pages_server.url(),
        "--ai-cache", "off",  # every act asks the model: this is about which model and budget
    )
    result.assert_outcomes(passed=3)
    models = [request.model for request in scripted_model.requests]
    assert models == ["scripted", "scripted-by-marker", "scripted"]


def test_a_configured_model_without_a_key_fails_the_session_once(pytester, monkeypatch):
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "STAGEHAND_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    pytester.makepyfile(
        textwrap.dedent(
            """
            def test_a(ai_page):
                pass

            def test_b(ai_page):
                pass
            """
        )
    )
    result = pytester.runpytest_subprocess("--ai-model", "openai/gpt-4.1-mini")
    assert result.ret == 4  # a usage error: no test ran
    output = result.stdout.str() + result.stderr.str()
    assert output.count("No API key for openai/gpt-4.1-mini") == 1
    assert "OPENAI_API_KEY" in output
    offline = pytester.runpytest_subprocess(
        "--ai-model", "openai/gpt-4.1-mini", "--ai-cache", "offline", "--collect-only"
    )
    assert offline.ret == 0  # replaying recordings needs no key
