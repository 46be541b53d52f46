"""Steps wait for what they look for, as Playwright's locators and expect do: a submenu that
appears after the hover, content that loads after a click, a claim that comes true later.
Each flow is recorded with a scripted model and replayed offline; the waiting is on page
changes, so a model is asked again only about a page that changed."""

from __future__ import annotations

import pytest
from scripted_answers import (
    NOT_FOUND,
    act_answer,
    element_id,
    latest_snapshot,
    recorded_ai_page,
)

from pytest_stagehand.errors import AIAssertionError, HealFailed, InvalidArgument, WaitTimeout
from pytest_stagehand.pipelines.waiting import DEFAULT_TIMEOUT_MS
from pytest_stagehand.testing.scripted_model import ScriptedRequest

HELLO = "Hello World!"
CLAIM = "the page says Hello World!"


@pytest.fixture
def recorded_page(page, scripted_model, store, tmp_path, pages_server):
    """`recorded_page(mode)`: an AIPage on `page` whose act, extract, observe and claims
    replay and record in `mode`, with the scripted model ("auto") or no model ("offline")."""
    test_file = tmp_path / "test_waiting_flows.py"

    def make(mode: str):
        return recorded_ai_page(
            page, scripted_model, store, test_file, mode, base_url=pages_server.url(),
            wait_timeout=DEFAULT_TIMEOUT_MS,
        )

    return make


# --- what a correct model answers: it reads the page it was sent -------------------------


def shown(request: ScriptedRequest, role: str, name: str) -> bool:
    return f'{role} "{name}"' in latest_snapshot(request.text)


def click_when_shown(role: str, name: str, method: str = "click"):
    """The element when the snapshot shows it; "not found" while it does not."""

    def answer(request: ScriptedRequest) -> dict:
        if not shown(request, role, name):
            return NOT_FOUND
        return act_answer(element_id(request.text, role, name), method)

    return answer


def extract_hello(request: ScriptedRequest) -> dict:
    return {"text": HELLO if shown(request, "heading", HELLO) else ""}


def on_the_menu_page(request: ScriptedRequest) -> dict:
    """Whatever the menu page's tests ask: hover Products, click Laptops, list the links."""
    if "the links of the Products menu" in request.text:
        return menu_links(request)
    if "hover over Products" in request.text:
        return click_when_shown("button", "Products", "hover")(request)
    return click_when_shown("link", "Laptops")(request)


def menu_links(request: ScriptedRequest) -> dict:
    names = [name for name in ("Laptops", "Phones") if shown(request, "link", name)]
    return {
        "elements": [
            {
                "element_id": element_id(request.text, "link", name),
                "description": f'link "{name}"',
                "method": "click",
                "arguments": [],
            }
            for name in names
        ]
    }


def on_the_loading_page(request: ScriptedRequest) -> dict:
    """Whatever the loading page's tests ask: click Start, extract or judge the message."""
    if "Claim:" in request.text:
        return judge_hello(request)
    if "Extract:" in request.text:
        return extract_hello(request)
    return click_when_shown("button", "Start")(request)


def judge_hello(request: ScriptedRequest) -> dict:
    page = request.text.rsplit("Claim:", 1)[0]  # what the judge sees of the page
    if f'heading "{HELLO}"' in page:
        return {
            "verdict": "YES",
            "reasoning": f"The page shows the heading {HELLO}.",
            "check": {"kind": "page_text", "text": HELLO, "present": True},
        }
    return {"verdict": "NO", "reasoning": "The page shows no Hello World! yet.", "check": None}


# --- act waits for its element -----------------------------------------------------------


def test_act_waits_for_the_submenu_that_appears_after_the_hover(recorded_page, scripted_model):
    """The submenu is built 0.36 s after the hover: the next act finds nothing at first,
    and looks again when it appears, recorded and replayed offline."""
    scripted_model.default = on_the_menu_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/menu.html")
        ai.act("hover over Products")
        ai.act("click Laptops in the Products menu")
        assert ai.locator("#shown").inner_text() == "Laptops"
        assert [event.ok for event in ai.steplog.events] == [True, True, True]  # one step each
        asked = scripted_model.calls

    with recorded_page("offline") as ai:
        ai.goto("waiting/menu.html")
        ai.act("hover over Products")
        ai.act("click Laptops in the Products menu")
        assert ai.locator("#shown").inner_text() == "Laptops"
        assert [event.cache for event in ai.steplog.events[1:]] == ["hit", "hit"]
    assert scripted_model.calls == asked  # no model offline


def click_load_then_save(request: ScriptedRequest) -> dict:
    return click_when_shown("button", "Save" if "click save" in request.text else "Load")(request)


def test_a_replay_right_after_our_click_waits_for_the_page_it_started(
    recorded_page, scripted_model
):
    """Load re-renders the panel: a placeholder Save at once, the real one 60 ms later.
    The replayed Save, right after the replayed Load, does not take the placeholder for a
    healed element: the recorded element does not verify at once, so the step waits for
    the page to settle, and finds the recorded one, not healed."""
    scripted_model.default = click_load_then_save
    with recorded_page("auto") as ai:
        ai.goto("waiting/rerender.html")
        ai.act("click load")
        ai.act("click save")
        assert ai.locator("#saved").inner_text() == "saved"

    with recorded_page("offline") as ai:
        ai.goto("waiting/rerender.html")
        ai.act("click load")
        result = ai.act("click save")
        assert result.cache == "hit"  # "healed" had it looked at the placeholder
        assert ai.locator("#saved").inner_text() == "saved"


def test_a_model_is_asked_again_only_when_the_page_changed(recorded_page, scripted_model):
    """With a page that never shows the element, the model answers once, not in a loop;
    the step fails at its timeout, saying how long it waited, with the last snapshot."""
    scripted_model.default = on_the_menu_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/menu.html")
        with pytest.raises(Exception, match=r"(?s)No element matches.*Waited 600 ms"):
            ai.act("click Laptops in the Products menu", timeout=600)
        assert scripted_model.calls == 2  # once on the text, once on the screenshot: no loop
        event = ai.steplog.events[-1]
        assert not event.ok and 'button "Products"' in event.last_snapshot


def test_a_replay_whose_element_never_appears_fails_at_the_timeout(recorded_page, scripted_model):
    scripted_model.default = on_the_menu_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/menu.html?delay=100")
        ai.act("hover over Products")
        ai.act("click Laptops in the Products menu")

    with recorded_page("offline") as ai:
        ai.goto("waiting/menu.html?delay=100")  # no hover: the submenu never comes
        ai.page.mouse.move(600, 400)
        with pytest.raises(HealFailed, match="Waited 500 ms"):
            ai.act("click Laptops in the Products menu", timeout=500)
        assert "Laptops" not in ai.steplog.events[-1].last_snapshot


def test_a_replay_waits_for_a_page_that_rewrites_its_address_once_loaded(
    recorded_page, scripted_model
):
    """The app drops the ?reset it was opened with once it has loaded (JupyterLab does),
    after the step began: the step was recorded on the address it settled on, and its
    replay, begun on the first one, waits for the page to get there, not a CacheMiss."""
    scripted_model.default = click_when_shown("button", "Save")
    with recorded_page("auto") as ai:
        ai.goto("waiting/address.html?reset")
        ai.act("click save")
        assert ai.locator("#status").inner_text() == "saved"
        asked = scripted_model.calls

    with recorded_page("offline") as ai:
        ai.goto("waiting/address.html?reset")
        assert ai.page.url.endswith("?reset")  # the step begins before the app has loaded
        ai.act("click save")
        assert ai.locator("#status").inner_text() == "saved"
        assert ai.steplog.events[-1].cache == "hit"
    assert scripted_model.calls == asked


def test_a_step_recorded_before_its_page_rewrote_its_address_replays_after(
    recorded_page, scripted_model
):
    """Recorded at once on /address.html?early&reset, before the app dropped the query;
    replayed once it has: the recording of the address the document was loaded at."""
    scripted_model.default = click_when_shown("button", "Save")
    with recorded_page("auto") as ai:
        ai.goto("waiting/address.html?early&reset")
        ai.act("click save")
        assert ai.locator("#status").inner_text() == "saved"
        asked = scripted_model.calls

    with recorded_page("offline") as ai:
        ai.goto("waiting/address.html?early&reset")
        ai.page.wait_for_url("**/waiting/address.html")
        ai.act("click save")
        assert ai.locator("#status").inner_text() == "saved"
        assert ai.steplog.events[-1].cache == "hit"
    assert scripted_model.calls == asked


def test_a_replay_waits_for_its_element_to_render_inside_a_frame(recorded_page, scripted_model):
    """The Pay button renders in the payment iframe 1.5 s after it loads, and nothing
    changes in the page's own document then: the wait looks at the frame's document too,
    when the model is asked and when the recording is replayed."""
    scripted_model.default = click_when_shown("button", "Pay $20")
    with recorded_page("auto") as ai:
        ai.goto("waiting/checkout.html?delay=1500")
        ai.act("click Pay")
        assert ai.page.frame_locator("#payment").locator("#status").inner_text() == "Paid"
        asked = scripted_model.calls

    with recorded_page("offline") as ai:
        ai.goto("waiting/checkout.html?delay=1500")
        ai.act("click Pay")
        assert ai.page.frame_locator("#payment").locator("#status").inner_text() == "Paid"
        assert ai.steplog.events[-1].cache == "hit"
    assert scripted_model.calls == asked


def test_observe_waits_for_elements_to_appear(recorded_page, scripted_model):
    scripted_model.default = on_the_menu_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/menu.html?delay=300")
        ai.act("hover over Products")
        found = ai.observe("the links of the Products menu")
        assert [action.description for action in found] == ['link "Laptops"', 'link "Phones"']

    with recorded_page("offline") as ai:
        ai.goto("waiting/menu.html?delay=300")
        ai.act("hover over Products")
        found = ai.observe("the links of the Products menu")
        assert [action.description for action in found] == ['link "Laptops"', 'link "Phones"']
        assert ai.steplog.events[-1].cache == "hit"


# --- extract and assert_that wait for content that loads ---------------------------------


def test_extract_and_assert_that_wait_for_a_5_second_load(recorded_page, scripted_model):
    """The classic dynamic loading page: Start, 5 s of "Loading...", then Hello World!"""
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html")
        ai.act("click Start")
        assert ai.assert_that(CLAIM, timeout=10_000).passed
        assert ai.extract("the message shown after loading") == HELLO

    with recorded_page("offline") as ai:
        ai.goto("waiting/loading.html")
        ai.act("click Start")
        assert ai.extract("the message shown after loading", timeout=10_000) == HELLO
        assert ai.assert_that(CLAIM).based_on == "recorded check"


def test_extract_asks_again_when_the_page_changes(recorded_page, scripted_model):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html?delay=400")
        ai.act("click Start")
        assert ai.extract("the message shown after loading") == HELLO
        assert ai.steplog.events[-1].cache == "miss"
    (answers,) = [
        [request.text for request in scripted_model.requests if "Extract:" in request.text]
    ]
    # every question but the last saw a page without the message; the empty answers were
    # not recorded: offline the step replays the message, read again from the page
    assert all(HELLO not in latest_snapshot(text) for text in answers[:-1])
    with recorded_page("offline") as ai:
        ai.goto("waiting/loading.html?delay=400")
        ai.act("click Start")
        assert ai.extract("the message shown after loading") == HELLO


def test_a_claim_that_never_holds_fails_at_its_timeout_with_the_reasoning(
    recorded_page, scripted_model
):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html")  # nobody clicks Start
        with pytest.raises(
            AIAssertionError, match=r"(?s)Verdict: NO.*no Hello World! yet.*Waited 700 ms"
        ):
            ai.assert_that(CLAIM, timeout=700)
        assert scripted_model.calls == 1  # the page never changed: the judge asked once


def test_a_recorded_check_is_polled_offline_until_it_holds_or_times_out(
    recorded_page, scripted_model
):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html?delay=300")
        ai.act("click Start")
        ai.assert_that(CLAIM)

    with recorded_page("offline") as ai:
        ai.goto("waiting/loading.html?delay=300")
        ai.act("click Start")
        verdict = ai.assert_that(CLAIM)
        assert verdict.based_on == "recorded check" and verdict.passed

    with recorded_page("offline") as ai:
        ai.goto("waiting/loading.html?delay=300")  # not started: the check never holds
        with pytest.raises(AIAssertionError, match=r"(?s)no longer holds.*Waited 400 ms"):
            ai.assert_that(CLAIM, timeout=400)


# --- wait_for: waiting without asserting -------------------------------------------------


def test_wait_for_returns_the_verdict_once_the_claim_holds(recorded_page, scripted_model):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html?delay=400")
        ai.act("click Start")
        verdict = ai.wait_for(CLAIM)
        assert verdict.passed and "heading Hello World!" in verdict.reasoning

    with recorded_page("offline") as ai:
        ai.goto("waiting/loading.html?delay=400")
        ai.act("click Start")
        assert ai.wait_for(CLAIM).based_on == "recorded check"


def test_wait_for_raises_a_timeout_with_the_judges_last_reasoning(recorded_page, scripted_model):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html")
        with pytest.raises(WaitTimeout, match=r"(?s)Waited 500 ms.*no Hello World! yet") as info:
            ai.wait_for(CLAIM, timeout=500)
        assert info.value.verdict.answer == "NO"


def test_a_negative_timeout_is_refused(recorded_page):
    with recorded_page("auto") as ai, pytest.raises(InvalidArgument, match="milliseconds"):
        ai.extract("anything", timeout=-1)


def test_no_waiting_with_timeout_0(recorded_page, scripted_model):
    scripted_model.default = on_the_loading_page
    with recorded_page("auto") as ai:
        ai.goto("waiting/loading.html")
        assert ai.extract("the message shown after loading", timeout=0) == ""
        assert ai.steplog.events[-1].last_snapshot is None


def test_the_wait_timeout_option_reaches_the_page(pytester, pages_server):
    pytester.makeini("[pytest]\nai_wait_timeout = 250\n")
    pytester.makepyfile(
        f"""
        import pytest

        def test_default(ai_page):
            assert ai_page.wait_timeout == 250

        @pytest.mark.ai(wait_timeout=0)
        def test_marker(ai_page):
            assert ai_page.wait_timeout == 0
            ai_page.goto({pages_server.url("waiting/loading.html")!r})
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ai-cache=off")
    result.assert_outcomes(passed=2)
