"""observe: matching elements as Actions that act replays with no model call."""

from __future__ import annotations

import pytest
from scripted_answers import observed, scripted_ai_page

from pytest_stagehand.errors import InvalidModelChoice, ModelRequired
from pytest_stagehand.page import AIPage
from pytest_stagehand.prompts.texts import OBSERVE_ALL


@pytest.fixture
def ai(page, scripted_model, pages_server):
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        yield ai_page


def test_observed_actions_replay_through_act_with_no_model(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(
        observed(
            ("textbox", "Username", "fill", ["%user%"]),
            ("textbox", "Password", "fill", ["%password%"]),
            ("button", "Login", "click", []),
        )
    )
    username, password, login = ai.observe("the login form's fields and button")
    assert (username.method, username.arguments) == ("fill", ("%user%",))
    assert username.selector == '[data-test="username"]' and username.candidates
    assert username.description == 'textbox "Username"'
    assert login.element == 'button "Login"'
    calls = scripted_model.calls
    ai.act(username, variables={"user": "standard_user"})
    ai.act(password, variables={"password": "secret_sauce"})
    ai.act(login)
    assert scripted_model.calls == calls
    assert ai.url.endswith("/shop.html")


def test_without_an_instruction_it_asks_for_the_main_interactive_elements(ai, scripted_model):
    ai.goto("shop.html")
    scripted_model.enqueue(
        observed(("combobox", "Sort by", "select_option", ["Price (low to high)"]))
    )
    (sort,) = ai.observe()
    assert OBSERVE_ALL in scripted_model.last_request.text
    ai.act(sort)
    assert ai.locator("#sort").input_value() == "lohi"


def test_scope_limits_the_snapshot_to_part_of_the_page(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(observed(("checkbox", "Remember me", "check", [])))
    (remember,) = ai.observe("the remember me checkbox", scope="#login-form")
    prompt = scripted_model.last_request.text
    assert 'checkbox "Remember me"' in prompt
    assert "Forgot your password?" not in prompt and "Swag Labs" not in prompt
    ai.act(remember)
    assert ai.locator("#remember").is_checked()


def test_nothing_matching_is_an_empty_list(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue({"elements": []}, {"elements": []})  # nor on the screenshot
    assert ai.observe("the shopping cart") == []
    assert ai.steplog.events[-1].result == "nothing matched"
    assert scripted_model.calls == 2 and scripted_model.last_request.images


def test_an_unknown_id_gets_one_retry_then_invalid_model_choice(ai, scripted_model):
    ai.goto("login.html")
    bad = {"element_id": "e404", "description": "?", "method": "click", "arguments": []}
    scripted_model.enqueue({"elements": [bad]}, {"elements": [bad]})
    with pytest.raises(InvalidModelChoice, match=r"elements\[0\]: there is no element 'e404'"):
        ai.observe("the login button")
    assert scripted_model.calls == 2


def test_no_model_is_model_required(page, pages_server):
    ai = AIPage(page, None)
    ai.goto(pages_server.url("login.html"))
    with pytest.raises(ModelRequired):
        ai.observe()
