"""act: instruction → snapshot → scripted model (real SDKs over HTTP) → Playwright.

The scripted model answers as a correct model would, with the ids of the snapshot it was
sent; every test then checks the page itself.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

import pytest
from playwright.sync_api import Page, expect
from scripted_answers import (
    NOT_FOUND,
    act_answer,
    choose,
    drag,
    observed,
    recorded_then_replayed,
    scripted_ai_page,
)

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.watch import PageWatch, PageWatches
from pytest_stagehand.errors import (
    ActionFailed,
    ElementNotFound,
    HealFailed,
    InvalidModelChoice,
    ModelRequired,
)
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.act import element_of


def watch_of(page: Page) -> PageWatch:
    """A watch of `page`, as an AIPage keeps one: what perform and settle read of it."""
    return PageWatches(page).current


USER = "standard_user"
SECRET = "secret_sauce"


def log_in(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(
        choose("textbox", "Username", "fill", ["%user%"]),
        choose("textbox", "Password", "fill", ["%password%"]),
        choose("textbox", "Password", "press", ["Enter"]),
    )
    return [
        ai.act("type %user% into the username field", variables={"user": USER}),
        ai.act("type %password% into the password field", variables={"password": SECRET}),
        ai.act("press Enter in the password field"),
    ]


# --- page state after each kind of action -----------------------------------------------


def test_login_with_variables_reaches_the_shop(ai, scripted_model):
    results = log_in(ai, scripted_model)
    assert ai.url.endswith("/shop.html")
    fill = results[1].actions[0]
    assert (fill.method, fill.arguments) == ("fill", ("%password%",))
    assert fill.element == 'textbox "Password"'
    assert fill.selector == '[data-test="password"]'
    assert results[1].success and results[1].cache == "off"
    assert results[1].usage.calls == 1
    step = ai.steplog.events[2]  # goto, user, password, Enter
    assert (step.kind, step.method, step.arguments) == ("act", "fill", ["%password%"])
    assert (step.element, step.selector) == ('textbox "Password"', '[data-test="password"]')
    assert step.cache == "off" and len(step.calls) == 1 and step.ok
    assert [x.purpose for x in step.exchanges] == ["act"]


def test_secrets_reach_the_page_but_no_prompt_log_step_or_action(ai, scripted_model, caplog):
    caplog.set_level(logging.DEBUG)
    results = log_in(ai, scripted_model)
    assert ai.url.endswith("/shop.html")  # so the page got the real values
    sent = json.dumps([request.body for request in scripted_model.requests])
    assert "%user%" in sent and "%password%" in sent
    # The snapshots after filling showed the user name (on the page, and as the field's
    # value): shown to the model as the placeholder it was given.
    assert 'textbox \\"Username\\" value=\\"%user%\\"' in sent
    steps = repr(ai.steplog.events)
    assert "exchanges=[Exchange(" in steps
    for secret in (USER, SECRET):
        assert secret not in sent
        assert secret not in caplog.text
        assert secret not in steps
        assert secret not in repr(results)  # the actions (what a cache records) keep %name%


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_adding_the_backpack_updates_the_cart_badge(page, scripted_model, pages_server, provider):
    with scripted_ai_page(page, scripted_model, provider=provider) as ai:
        ai.goto(pages_server.url("shop.html"))
        scripted_model.enqueue(choose("button", "Add to cart", after="Sauce Labs Backpack"))
        ai.act("add the backpack to the cart")
    assert page.get_by_test_id("shopping-cart-badge").inner_text() == "1"
    assert page.get_by_test_id("add-to-cart-sauce-labs-backpack").inner_text() == "Remove"
    assert scripted_model.last_request.provider == provider


def test_select_option_on_a_native_select(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(choose("combobox", "Country", "select_option", ["Germany"]))
    ai.act("choose Germany as the country")
    assert ai.locator("#country").input_value() == "de"


def test_check_uncheck_and_radio(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(
        choose("checkbox", "Insurance", "check"),
        choose("checkbox", "Gift wrap", "uncheck"),
        choose("radio", "Express (1–2 days)", "check"),
    )
    ai.act("tick insurance")
    ai.act("no gift wrap")
    ai.act("ship express")
    assert ai.get_by_label("Insurance").is_checked()
    assert not ai.get_by_label("Gift wrap").is_checked()
    assert ai.get_by_label("Express (1–2 days)").is_checked()
    assert not ai.get_by_label("Standard (5–7 days)").is_checked()


def test_custom_dropdown_takes_two_steps_with_only_the_new_options(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(
        choose("button", "Size Medium", two_step=True), choose("option", "Large")
    )
    result = ai.act("choose size Large")
    assert ai.locator("#size-button").inner_text() == "Large"
    assert [a.method for a in result.actions] == ["click", "click"]
    assert result.actions[1].element == 'option "Large"'
    second = scripted_model.requests[1].messages[-1]["content"]
    appeared = second.split("These elements appeared:\n")[1].split("\n\n")[0]
    assert 'option "Small"' in appeared and 'option "Large"' in appeared
    assert "First Name" not in second and "Country" not in second
    assert result.usage.calls == 2


@pytest.fixture
def recorded_here(page, browser, scripted_model, store, tmp_path, pages_server):
    """("auto", an AIPage recording on the test pages), then ("offline", one replaying)."""
    return recorded_then_replayed(
        page, browser, scripted_model, store, tmp_path / "test_it.py",
        base_url=pages_server.url(""),
    )  # fmt: skip


T = TypeVar("T")


def sent_to(page: Page, step: Callable[[], T]) -> tuple[T, list[str]]:
    """What `step` returns, and the scripts it sent `page` to evaluate."""
    sent: list[str] = []
    evaluate = page.evaluate
    page.evaluate = lambda script, *args: sent.append(script) or evaluate(script, *args)  # type: ignore[method-assign]
    try:
        return step(), sent
    finally:
        del page.evaluate


def test_a_replayed_fill_is_two_page_calls_the_settle_going_with_the_look(
    recorded_here, scripted_model
):
    for _, opened in recorded_here:
        with opened as ai:
            ai.goto("login.html")
            scripted_model.enqueue(choose("textbox", "Username", "fill", ["%user%"]))
            result, sent = sent_to(
                ai.page, lambda: ai.act("type %user% into the username", variables={"user": "ada"})
            )
            assert ai.get_by_label("Username").input_value() == "ada"
    assert result.cache == "hit"
    assert len(sent) == 2  # the settle and the look in one call, then the fill
    # Each calls what the page's document holds, given it as it was created: the settle,
    # the look and the fill are not sent again (about 40 KB a step).
    assert [len(script) < 2_000 for script in sent] == [True, True]


def test_an_observed_fill_is_two_page_calls_as_a_replayed_one_is(ai, scripted_model):
    # An Action verifies its element before acting, as a recorded step does: its settle
    # goes with that look, and need not wait out the quiet our last fill broke.
    ai.goto("login.html")
    scripted_model.enqueue(observed(("textbox", "Username", "fill", ["%user%"])))
    [username] = ai.observe("the username field")
    ai.act(username, variables={"user": "ada"})
    _, sent = sent_to(ai.page, lambda: ai.act(username, variables={"user": "grace"}))
    assert ai.get_by_label("Username").input_value() == "grace"
    assert len(sent) == 2  # the settle and the look in one call, then the fill


# A page still loading as the step starts, which drops what it was opened with from its
# address as it finishes (JupyterLab drops its ?reset): the step is recorded at the address
# the page settles at.
FINISHES_LOADING = """() => {
  document.body.append("Loading...");
  setTimeout(() => {
    history.replaceState(null, "", location.pathname);
    document.body.insertAdjacentHTML("beforeend", "<button onclick='document.title = 1'>Save");
  }, 50);
}"""


def test_a_step_is_replayed_at_the_address_the_page_settles_at(recorded_here, scripted_model):
    for mode, opened in recorded_here:
        with opened as ai:
            ai.goto("login.html?reset")
            ai.evaluate(FINISHES_LOADING)
            if mode == "auto":  # recorded once it has loaded, replayed while it loads
                ai.wait_for_url("**/login.html")
            scripted_model.enqueue(choose("button", "Save"))
            result = ai.act("click Save")
            assert ai.title() == "1" and ai.url.endswith("/login.html")
    assert result.cache == "hit" and scripted_model.calls == 1


# The size button opens its options only once a request answers, as a dropdown that loads
# them does: the click changes nothing as it is handled, so a replay that looks at once
# finds no option yet.
OPENS_AFTER_A_REQUEST = """(() => {
  const button = document.getElementById("size-button");
  button.addEventListener("click", (event) => {
    if (!event.isTrusted) return;
    event.stopImmediatePropagation();
    fetch("size-options").then(() => button.click());
  }, true);
})()"""


@pytest.mark.parametrize("late", [False, True], ids=["options at once", "after a request"])
def test_a_custom_dropdown_recorded_in_two_steps_replays_offline(
    recorded_here, scripted_model, late
):
    for mode, opened in recorded_here:
        with opened as ai:
            ai.goto("forms.html")
            if late and mode == "offline":
                ai.route("**/size-options", lambda route: route.fulfill(body="[]"))
                ai.evaluate(OPENS_AFTER_A_REQUEST)
            scripted_model.enqueue(
                choose("button", "Size Medium", two_step=True), choose("option", "Large")
            )
            result = ai.act("choose size Large")
            assert ai.locator("#size-button").inner_text() == "Large"
            assert [a.element for a in result.actions] == ['button "Size Medium"', 'option "Large"']
    assert result.cache == "hit"  # the offline run's: no model, no heal
    assert scripted_model.calls == 2  # the recording run's alone


def test_the_second_step_may_only_choose_what_appeared(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(
        choose("button", "Size Medium", two_step=True),
        act_answer("e1"),  # the page heading: on the page, but not among the options
        choose("option", "Small"),
    )
    ai.act("choose size Small")
    assert ai.locator("#size-button").inner_text() == "Small"
    feedback = scripted_model.requests[2].messages[-1]["content"]
    assert "no element 'e1' among the elements shown" in feedback


def test_fields_in_same_and_cross_origin_frames(ai, scripted_model):
    ai.goto("frames.html")
    scripted_model.enqueue(
        choose("textbox", "Display name", "fill", ["Grace"]),
        choose("checkbox", "Public profile", "check"),
        choose("textbox", "Card number", "fill", ["4242 4242 4242 4242"]),
    )
    ai.act("set the display name to Grace")
    ai.act("make the profile public")
    result = ai.act("enter the card number 4242 4242 4242 4242")
    profile = ai.frame_locator("#profile")
    assert profile.get_by_label("Display name").input_value() == "Grace"
    assert profile.get_by_label("Public profile").is_checked()
    card = ai.frame_locator("#payments").frame_locator("iframe").get_by_label("Card number")
    assert card.input_value() == "4242 4242 4242 4242"
    assert len(result.actions[0].frame_path) == 2  # page → payments → card details


def test_button_in_shadow_dom(ai, scripted_model):
    ai.goto("act/widgets.html")
    scripted_model.enqueue(choose("button", "Subscribe"))
    ai.act("subscribe")
    assert ai.locator("subscribe-box").get_attribute("data-subscribed") == "yes"
    assert ai.get_by_role("status").inner_text() == "Subscribed"


def test_hover_shows_the_tooltip(ai, scripted_model):
    ai.goto("act/widgets.html")
    scripted_model.enqueue(choose("button", "Account", "hover"))
    assert not ai.get_by_role("tooltip").is_visible()
    ai.act("hover over the account button")
    assert ai.get_by_role("tooltip").is_visible()


def test_drag_and_drop_a_card(ai, scripted_model):
    ai.goto("act/widgets.html")
    scripted_model.enqueue(drag(("button", "Write tests"), ("region", "Done")))
    result = ai.act("move the card 'Write tests' to Done")
    assert ai.locator("#done #card-a").count() == 1
    assert result.actions[0].arguments == ("#done",)  # the drop target, replayable


def test_scroll_an_element_by_pixels_and_the_page_to_the_end(ai, scripted_model):
    ai.goto("act/widgets.html")
    scripted_model.enqueue(choose("log", "Messages", "scroll", ["300"]))
    ai.act("scroll the messages down 300 pixels")
    assert ai.locator("#messages").evaluate("box => box.scrollTop") == 300
    ai.goto("act/long-list.html")
    scripted_model.enqueue(act_answer(None, "scroll", ["100%"]))
    result = ai.act("scroll to the bottom of the page")
    at_end = "innerHeight + scrollY >= document.scrollingElement.scrollHeight - 1"
    assert ai.evaluate(at_end)
    assert result.actions[0].selector is None


# The page reacts to a click at once, then keeps changing every 20 ms for 100 ms (well
# inside the quiet window, even on a loaded machine), then shows a "Done" button.
REACTS_FOR_A_WHILE = (
    "<button onclick=\"let n = 0; document.body.append(n); const t = setInterval(() => {"
    " document.body.append(++n); if (n === 5) { clearInterval(t); document.title = 'done';"
    " document.body.insertAdjacentHTML('beforeend', '<button>Done</button>'); }"
    " }, 20)\">Load</button>"
)


def test_the_next_step_reads_the_settled_page(ai, scripted_model):
    ai.page.set_content(REACTS_FOR_A_WHILE)
    scripted_model.enqueue(choose("button", "Load"), choose("button", "Done"))
    ai.act("click load")
    # The next step settles the page before its snapshot: the button the reaction ends
    # with is there for the model to choose (choose fails on a snapshot without it).
    result = ai.act("click done")
    assert result.actions[0].element == 'button "Done"'
    assert ai.title() == "done"


def test_act_settled_returns_once_the_dom_is_quiet(ai, scripted_model):
    ai.page.set_content(REACTS_FOR_A_WHILE)
    scripted_model.enqueue(choose("button", "Load"))
    ai.act("click load", settled=True)
    assert ai.title() == "done"  # read at once: act returned only once the DOM was quiet


def test_act_does_not_wait_for_the_page_to_react(ai, scripted_model):
    # As in Playwright, an action returns without a fixed wait for the page's reaction.
    # The settle primitive watches the DOM through window.__stagehandDomQuiet, installing
    # it when missing; the click removes it, so a settle after the action would put it back.
    ai.page.set_content(
        "<button onclick=\"delete window.__stagehandDomQuiet;"
        " document.body.append('clicked')\">Load</button>"
    )
    scripted_model.enqueue(choose("button", "Load"))
    ai.act("click load")
    assert ai.evaluate("document.body.textContent").endswith("clicked")
    assert ai.evaluate("window.__stagehandDomQuiet === undefined")


class SlowHandler(BaseHTTPRequestHandler):
    served = threading.Event()  # set once the slow answer is ready to be sent

    def do_GET(self):
        time.sleep(0.4)
        SlowHandler.served.set()
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", "6")
        self.end_headers()
        self.wfile.write(b"loaded")

    def log_message(self, *args):
        pass


@pytest.fixture
def slow_url():
    SlowHandler.served.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/slow"
    server.shutdown()
    server.server_close()


def test_act_waits_for_requests_the_action_started(ai, scripted_model, slow_url):
    ai.page.set_content(
        f"<button onclick=\"fetch('{slow_url}').then(r => r.text())"
        ".then(t => { setTimeout(() => { document.title = t; }, 0); })\">Load</button>"
    )
    scripted_model.enqueue(choose("button", "Load"))
    ai.act("click load")
    assert SlowHandler.served.is_set()  # act returned only once the request was answered
    expect(ai.page).to_have_title("loaded")  # the page's reaction, as Playwright waits


def test_settling_a_page_that_never_rests_stops_at_the_cap(page):
    page.set_content("<script>setInterval(() => document.body.append('.'), 10)</script>")
    started = time.monotonic()
    settle(watch_of(page), cap=0.3)
    # Well under the default cap (SETTLE_CAP_S, 3 s), with room for a loaded CI machine.
    assert time.monotonic() - started < 2.0


# --- replay -------------------------------------------------------------------------------


def test_an_action_from_a_result_replays_with_no_model(ai, scripted_model):
    ai.goto("shop.html")
    scripted_model.enqueue(choose("button", "Add to cart", after="Sauce Labs Bike Light"))
    action = ai.act("add the bike light to the cart").actions[0]
    calls = scripted_model.calls
    ai.goto("shop.html")  # a fresh cart: the button adds the bike light again
    replayed = ai.act(action)
    assert scripted_model.calls == calls
    assert replayed.actions == [action] and replayed.usage.calls == 0
    assert ai.get_by_test_id("add-to-cart-sauce-labs-bike-light").inner_text() == "Remove"


def test_an_action_is_verified_like_a_recorded_step_before_it_replays(ai, scripted_model):
    ai.goto("shop.html")
    scripted_model.enqueue(choose("button", "Add to cart", after="Sauce Labs Bike Light"))
    action = ai.act("add the bike light to the cart").actions[0]
    button = ai.get_by_test_id("add-to-cart-sauce-labs-bike-light")
    assert button.inner_text() == "Remove"  # the same element now means another thing
    with pytest.raises(HealFailed, match=r'(?s)button "Add to cart" was not found safely.*Remove'):
        ai.act(action)
    assert button.inner_text() == "Remove"  # not clicked: the bike light stays in the cart


PAYEES = """<section><h2>Payees</h2>
<button onclick="document.title = 'sent to Alice'">Send to Alice</button>
<button onclick="document.title = 'sent to Alicia'">Send to Alicia</button>
<button>Add payee</button></section>"""


def test_an_element_beside_the_recorded_one_when_recorded_is_never_healed_onto(ai, scripted_model):
    ai.page.set_content(PAYEES)
    scripted_model.enqueue(choose("button", "Send to Alice"))
    action = ai.act("send the money to Alice").actions[0]
    # Alike by its letters first, then its neighbours of the same role.
    assert element_of(action).model_dump()["rivals"] == ["Send to Alicia", "Add payee"]

    alice_gone = "\n".join(line for line in PAYEES.splitlines() if "Alice<" not in line)
    ai.page.set_content(alice_gone)
    with pytest.raises(HealFailed, match=r"(?s)Send to Alicia.*was refused: another name"):
        ai.act(action)
    assert ai.page.title() == ""  # Alicia was not paid


def test_an_action_that_cannot_replay_fails_clearly(ai):
    ai.goto("forms.html")
    with pytest.raises(ActionFailed, match=r"Could not replay click.*#nothing-here"):
        ai.act(Action("click", selector="#nothing-here"), timeout=200)


# --- errors -------------------------------------------------------------------------------


def test_nothing_matching_is_element_not_found_naming_instruction_and_url(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(NOT_FOUND, NOT_FOUND)  # nor on the screenshot (vision fallback)
    with pytest.raises(ElementNotFound) as error:
        ai.act("open the admin panel")
    assert "'open the admin panel'" in str(error.value)
    assert ai.url in str(error.value)
    assert scripted_model.calls == 2 and scripted_model.last_request.images
    assert ai.steplog.events[-1].ok is False


def test_an_unknown_id_gets_one_retry_then_invalid_model_choice(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(act_answer("e999"), act_answer("e998"))
    with pytest.raises(InvalidModelChoice, match="no element 'e998'"):
        ai.act("click login")
    assert scripted_model.calls == 2
    feedback = scripted_model.requests[1].messages[-1]["content"]
    assert "there is no element 'e999' in the snapshot" in feedback
    assert ai.locator("#user-name").input_value() == ""  # nothing was done


def test_a_method_the_element_cannot_take_is_corrected_after_feedback(ai, scripted_model):
    ai.goto("login.html")
    scripted_model.enqueue(
        choose("button", "Login", "fill", ["standard_user"]),
        choose("textbox", "Username", "fill", ["standard_user"]),
    )
    ai.act("type standard_user as the user name")
    assert ai.locator("#user-name").input_value() == "standard_user"
    feedback = scripted_model.requests[1].messages[-1]["content"]
    assert 'button "Login" is not a text field' in feedback


def test_select_option_on_a_custom_dropdown_is_refused_with_advice(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(
        choose("button", "Size Medium", "select_option", ["Large"]),
        choose("button", "Size Medium", "select_option", ["Large"]),
    )
    with pytest.raises(InvalidModelChoice, match=r"not a native <select>.*two_step"):
        ai.act("choose size Large")


def test_a_failed_action_gets_a_fresh_snapshot_and_one_more_question(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(
        choose("button", "Continue"),  # disabled: Playwright cannot click it
        choose("checkbox", "I accept the terms and conditions", "check"),
    )
    # The disabled button fails when its timeout runs out; the checkbox needs no wait, and
    # 2 s is room enough for it on a loaded machine.
    result = ai.act("accept the terms", timeout=2000)
    assert ai.get_by_label("I accept the terms and conditions").is_checked()
    retry = scripted_model.requests[1].messages[-1]["content"]
    assert "A previous attempt failed" in retry and "Snapshot:" in retry
    assert result.usage.calls == 2


def test_an_action_failing_twice_is_action_failed(ai, scripted_model):
    ai.goto("forms.html")
    scripted_model.enqueue(choose("button", "Continue"), choose("button", "Continue"))
    with pytest.raises(ActionFailed, match=r"Could not 'continue'.*after a fresh look"):
        ai.act("continue", timeout=200)
    assert scripted_model.calls == 2


def test_a_two_step_click_that_opens_nothing_is_element_not_found(ai, scripted_model):
    ai.goto("shadow.html")
    scripted_model.enqueue(choose("button", "Follow all", two_step=True))
    with pytest.raises(ElementNotFound, match="showed nothing new"):
        ai.act("choose a team in the follow menu")


def test_no_model_is_model_required_saying_how_to_configure_one(page, pages_server):
    ai = AIPage(page, None)
    ai.goto(pages_server.url("login.html"))
    with pytest.raises(ModelRequired, match=r"OPENAI_API_KEY.*--ai-model"):
        ai.act("click login")
