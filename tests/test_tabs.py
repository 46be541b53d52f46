"""Tabs and popups: a step that opens a page makes it the page the next steps act on;
`pages` lists them; switching back works in English (recorded, replayed offline) and by
index."""

from __future__ import annotations

import pytest
from scripted_answers import TEST_WAIT_MS, choose
from test_agent import Script, agent_requests, call, done
from verbs import committed_steps, page_answer, use_recordings

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.perform import perform
from pytest_stagehand.agent.agent import Agent
from pytest_stagehand.browser.watch import PageWatches
from pytest_stagehand.errors import ActionFailed
from pytest_stagehand.page import AIPage
from pytest_stagehand.recordings.store import Recordings as AgentRecordings
from pytest_stagehand.reporting.evidence import page_screenshot
from pytest_stagehand.reporting.html import StepCapture


@pytest.fixture
def test_file(tmp_path):
    return tmp_path / "test_shop.py"


def help_and_back(ai) -> None:
    ai.goto("verbs/tabs.html")
    ai.act("open the help centre")  # a target=_blank link
    assert ai.page.title() == "Help centre"
    ai.act("show the returns policy")  # on the new tab
    assert ai.page.text_content("#answer") == "Returns are free for 30 days"
    ai.act("switch back to the Shop tab")
    assert ai.page.title() == "Shop"
    ai.act("say thanks")
    assert ai.page.text_content("#status") == "Thanks noted"


def test_a_new_tab_is_followed_and_left_in_english_and_replayed_offline(
    ai, scripted_model, store, test_file
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(
        choose("link", "Help centre"),
        choose("button", "Show returns policy"),
        page_answer('"Shop"', "switch_tab", ["Shop"]),
        choose("button", "Say thanks"),
    )
    help_and_back(ai)
    assert scripted_model.calls == 4
    # The new tab is a step of its own in the log; the switch back is the act's own doing.
    tabs = [(e.kind, e.instruction) for e in ai.steplog.events if e.kind != "act"][1:]
    assert tabs == [("tab", ai.pages[1].url)]
    switch_prompt = scripted_model.requests[2].text
    assert "Open tabs" in switch_prompt and '"Help centre"' in switch_prompt
    for tab in ai.pages[1:]:
        tab.close()

    use_recordings(ai, store, test_file, "offline", has_model=False)
    help_and_back(ai)
    assert scripted_model.calls == 4
    urls = {step["instruction"]: step["url"] for step in committed_steps(store, test_file)}
    assert urls["show the returns policy"].endswith("/verbs/help.html")  # the tab it ran on
    assert urls["say thanks"].endswith("/verbs/tabs.html")


def test_a_window_open_popup_becomes_the_page_and_pages_lists_it(ai, scripted_model):
    ai.goto("verbs/tabs.html")
    shop = ai.page
    scripted_model.enqueue(
        choose("button", "Open chat"),
        choose("textbox", "Message", "fill", ["Where is my order?"]),
        choose("button", "Send"),
    )
    ai.act("open the chat")
    assert ai.page is not shop and ai.page.title() == "Chat"
    assert ai.pages == [shop, ai.page]
    ai.act("type Where is my order? into the message field")
    ai.act("send it")
    assert ai.page.text_content("#sent") == "Sent: Where is my order?"
    assert [e.kind for e in ai.steplog.events] == ["goto", "act", "tab", "act", "act"]
    assert ai.steplog.events[2].instruction == ai.page.url
    assert shop.text_content("#status") == "Welcome"  # nothing was done on the old tab


def test_evidence_follows_the_steps_into_the_popup_they_opened(ai, scripted_model):
    """Screenshots and the outlined element come from the tab the steps act on, not the
    page the test began on."""
    ai.goto("verbs/tabs.html")
    shop = ai.page
    capture = StepCapture(lambda: ai.watches.acting, ai.steplog.mask)
    ai.steplog.listeners.append(capture)
    scripted_model.enqueue(
        choose("button", "Open chat"), choose("textbox", "Message", "fill", ["Hello"])
    )
    ai.act("open the chat")
    ai.act("type Hello into the message field")
    chat = ai.page
    assert ai.watches.acting.page is chat
    assert capture.steps[-1]["box"] == chat.locator("#message").bounding_box()
    assert page_screenshot(lambda: ai.watches.acting)() == chat.screenshot() != shop.screenshot()
    chat.close()
    assert ai.watches.acting.page is shop  # the tab it went on in has closed


def test_a_popup_that_closes_itself_hands_back_to_the_page_that_opened_it(ai, scripted_model):
    """A sign-in popup closes itself once consent is given: the next step acts on the page
    it was opened from, as a person's eyes go back to it."""
    ai.goto("verbs/signin.html")
    shop = ai.page
    scripted_model.enqueue(
        choose("button", "Sign in with Provider"),
        choose("button", "Allow"),
        choose("button", "Continue"),
    )
    ai.act("sign in with the provider")
    assert ai.page is not shop and ai.page.title() == "Provider"
    ai.act("allow access")
    ai.act("continue")
    assert ai.page is shop
    assert shop.text_content("#status") == "Signed in as Ada, continued"


def test_a_popup_that_closes_as_its_button_is_pressed_still_took_the_click(ai, scripted_model):
    """The window goes in the middle of the click (the press closes it): the click was
    made, and the step is done, not failed on a closed page."""
    ai.goto("verbs/signin.html")
    shop = ai.page
    scripted_model.enqueue(
        choose("button", "Sign in with Provider"), choose("button", "Allow at once")
    )
    ai.act("sign in with the provider")
    popup = ai.page
    ai.act("allow access at once")
    assert popup.is_closed()
    assert ai.steplog.events[-1].ok
    assert shop.text_content("#status") == "Signed in as Ada"


def test_switching_by_index_title_and_to_a_missing_tab(ai, scripted_model):
    ai.goto("verbs/tabs.html")
    scripted_model.enqueue(choose("link", "Help centre"))
    ai.act("open the help centre")
    assert ai.switch_to(0).title() == "Shop"
    assert ai.page.title() == "Shop"
    assert ai.switch_to("Help centre") is ai.pages[1]
    with pytest.raises(ActionFailed, match=r"no open tab is 'Checkout'.*'Shop'.*'Help centre'"):
        ai.switch_to("Checkout")
    assert ai.page.title() == "Help centre"  # unchanged


# --- the agent's switch_tab tool ---------------------------------------------------------


def test_the_agent_follows_a_new_tab_and_switches_back_and_replays_it_offline(
    page, ai, scripted_model, pages_server, store, tmp_path
):
    script = Script()
    scripted_model.default = script
    script.steps(
        call("act", instruction="open the help centre"),
        call("act", instruction="show the returns policy"),
        call("switch_tab", tab="Shop"),
        call("act", instruction="say thanks"),
        done(True, reasoning="read the policy, thanked the shop"),
    )
    script.add(
        "ActChoice",
        choose("link", "Help centre"),
        choose("button", "Show returns policy"),
        choose("button", "Say thanks"),
    )
    test_file = tmp_path / "test_shop.py"
    goal = "read the returns policy, then say thanks in the shop"
    ai.goto("verbs/tabs.html")
    result = Agent(ai, recordings=AgentRecordings(store, test_file, "auto")).execute(goal)
    assert result.success
    views = [request.text for request in agent_requests(scripted_model)]
    assert "Open tabs" in views[2] and '"Help centre"' in views[2]  # it saw the new tab
    assert ai.page.title() == "Shop"
    assert ai.page.text_content("#status") == "Thanks noted"
    assert ai.pages[1].text_content("#answer") == "Returns are free for 30 days"
    for tab in ai.pages[1:]:
        tab.close()

    calls = scripted_model.calls
    offline = AIPage(page, None, base_url=pages_server.url(), wait_timeout=TEST_WAIT_MS)
    offline.goto("verbs/tabs.html")
    replayed = Agent(offline, recordings=AgentRecordings(store, test_file, "offline")).execute(goal)
    assert (replayed.success, replayed.replayed) == (True, True)
    assert scripted_model.calls == calls
    assert offline.page.title() == "Shop"
    assert offline.page.text_content("#status") == "Thanks noted"
    assert offline.pages[1].text_content("#answer") == "Returns are free for 30 days"


# --- the test's own handlers win over the plugin --------------------------------------


def test_a_new_tabs_dialog_is_left_to_the_handler_the_test_set_on_it(ai, scripted_model):
    """The test's context.on("page") handler sets up every new page before the steps
    follow it there: its dialog handler, not the plugin, answers the prompt."""
    ai.goto("verbs/drafts-tab.html")
    ai.page.context.on("page", lambda tab: tab.once("dialog", lambda d: d.accept("hello")))
    scripted_model.enqueue(choose("link", "Open drafts"), choose("button", "Rename draft"))
    ai.act("open the drafts")
    assert ai.page.title() == "Drafts"
    ai.act("click the Rename draft button")
    assert ai.page.text_content("#status") == "Renamed to hello"
    assert ai.dialogs.pending is None  # not held for a step: the test's handler took it
    assert ai.dialogs.seen[-1].outcome == "left to the test"


@pytest.mark.parametrize("where", ["page", "context"])
def test_a_popup_the_tests_handler_closes_leaves_the_steps_on_the_opener(
    ai, scripted_model, where
):
    ai.goto("verbs/tabs.html")
    shop = ai.page
    if where == "page":
        shop.on("popup", lambda popup: popup.close())
    else:
        shop.context.on("page", lambda tab: tab.close())
    scripted_model.enqueue(choose("button", "Open chat"), choose("button", "Say thanks"))
    ai.act("open the chat")
    ai.act("say thanks")
    assert ai.page is shop
    assert shop.text_content("#status") == "Thanks noted"
    assert ai.pages == [shop]


# --- each owner's own watch: no page is found through another's --------------------------


def test_switch_tab_moves_the_page_that_acted_while_another_aipage_drives_it_too(
    ai, scripted_model
):
    """Two AIPages on one page each follow their own tabs: a switch_tab one of them acts
    is its own, not that of whichever AIPage happened to watch the page last."""
    ai.goto("verbs/tabs.html")
    shop = ai.page
    other = AIPage(shop, None)  # a second owner of the same page, made later
    scripted_model.enqueue(
        choose("link", "Help centre"), page_answer('"Shop"', "switch_tab", ["Shop"])
    )
    ai.act("open the help centre")
    assert ai.page.title() == "Help centre"
    ai.act("switch back to the Shop tab")
    assert ai.page is shop
    assert other.page is shop  # it took no step


def test_switch_tab_works_on_any_watched_page_without_an_aipage(page, pages_server):
    """perform's switch_tab reads the tabs of the watch it is given: no AIPage needed."""
    page.goto(pages_server.url("verbs/tabs.html"))
    watches = PageWatches(page)
    help_centre = page.context.new_page()
    help_centre.goto(pages_server.url("verbs/help.html"))
    perform(watches.current, Action("switch_tab", ("Help centre",)))
    assert watches.tabs.current is help_centre
    assert watches.current.page is help_centre  # adopted: a watch of its own
    assert watches.of(help_centre) is not watches.of(page)
