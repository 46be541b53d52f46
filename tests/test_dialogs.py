"""Native dialogs: the one a step opens is held, shown to the model in place of the page,
answered by the next act step, recorded and replayed offline; one no step answers is
dismissed and logged."""

from __future__ import annotations

import pytest
from scripted_answers import TEST_WAIT_MS, choose
from verbs import committed_steps, page_answer, use_recordings

from pytest_stagehand.browser.dialogs import DIALOG_HOLD_S
from pytest_stagehand.page import AIPage
from pytest_stagehand.recordings.format import recordings_file
from pytest_stagehand.reporting.evidence import StepScreenshots, page_screenshot
from pytest_stagehand.reporting.html import StepCapture

NAME = "Ada Lovelace's report"  # a variable value: never in a prompt or a recording


@pytest.fixture
def test_file(tmp_path):
    return tmp_path / "test_drafts.py"


def status(ai) -> str:
    return ai.page.text_content("#status")


def delete_and_rename(ai) -> None:
    ai.goto("verbs/dialogs.html")
    ai.act("click the Delete draft button")
    ai.act("accept the confirmation")
    assert status(ai) == "Draft deleted"
    ai.act("click the Rename draft button")
    ai.act("type %name% into the prompt and accept it", variables={"name": NAME})
    assert status(ai) == f"Renamed to {NAME}"


def delete_and_rename_enqueued(scripted_model) -> None:
    """The scripted model's answers to `delete_and_rename`, as a correct model answers."""
    scripted_model.enqueue(
        choose("button", "Delete draft"),
        page_answer('[dialog] confirm "Delete the draft for good?"', "accept_dialog"),
        choose("button", "Rename draft"),
        page_answer('[dialog] prompt "New name for the draft:"', "accept_dialog", ["%name%"]),
    )


def test_dialogs_are_answered_by_act_recorded_and_replayed_offline(
    ai, scripted_model, store, test_file
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    delete_and_rename_enqueued(scripted_model)
    delete_and_rename(ai)
    assert scripted_model.calls == 4
    assert all(NAME not in request.text for request in scripted_model.requests)

    use_recordings(ai, store, test_file, "offline", has_model=False)
    delete_and_rename(ai)  # the same outcomes with no model
    assert scripted_model.calls == 4
    steps = committed_steps(store, test_file)
    answers = {step["instruction"]: step["actions"] for step in steps}
    assert answers["accept the confirmation"][0]["method"] == "accept_dialog"
    typed = answers["type %name% into the prompt and accept it"][0]
    assert typed["method"] == "accept_dialog" and typed["arguments"] == ["%name%"]
    assert NAME not in recordings_text(store, test_file)
    assert [dialog.outcome for dialog in ai.dialogs.seen] == ["accepted"] * 4  # two runs


def recordings_text(store, test_file) -> str:
    store.flush()
    return recordings_file(test_file).read_text()


def test_a_dismissed_confirmation_takes_the_pages_cancel_path(ai, scripted_model):
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(
        choose("button", "Delete draft"),
        page_answer('[dialog] confirm "Delete the draft for good?"', "dismiss_dialog"),
    )
    ai.act("click the Delete draft button")
    ai.act("cancel the confirmation")
    assert status(ai) == "Draft kept"


def test_an_answer_given_before_the_dialog_opens_is_kept_for_it(ai, scripted_model):
    """As Playwright's page.once("dialog", ...): the answer first, then the step."""
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(
        page_answer('button "Delete draft"', "accept_dialog"),
        choose("button", "Delete draft"),
    )
    ai.act("accept the next confirmation")
    ai.act("click the Delete draft button")
    assert status(ai) == "Draft deleted"


def test_a_dialog_no_step_answers_is_dismissed_and_logged(ai, scripted_model):
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(choose("button", "Delete draft"))
    ai.act("click the Delete draft button")
    assert ai.dialogs.pending is not None
    text = ai.extract()  # not an answer: the dialog is dismissed first, as Playwright would
    assert "Draft kept" in text
    (logged,) = [event for event in ai.steplog.events if event.kind == "dialog"]
    assert logged.instruction == "confirm 'Delete the draft for good?'"
    assert logged.result.startswith("dismissed")
    assert ai.dialogs.seen[-1].outcome == "dismissed"


def test_a_held_dialog_never_hangs_a_plain_playwright_call(ai, scripted_model):
    """A raw Playwright call the held dialog blocks gets the page back after the hold."""
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(choose("button", "Save draft"))
    ai.act("click the Save draft button")
    assert ai.dialogs.pending is not None
    assert ai.page.evaluate("document.getElementById('status').textContent") == (
        "Saved and acknowledged"
    )
    assert ai.dialogs.seen[-1].outcome == "dismissed"
    ai.goto("verbs/dialogs.html")  # the next step logs it first
    logged, goto = ai.steplog.events[-2:]
    assert (logged.kind, goto.kind) == ("dialog", "goto")
    assert logged.result == f"dismissed: no step answered it in {DIALOG_HOLD_S:g} s"


def with_evidence(ai) -> StepCapture:
    """The listeners of --ai-screenshots=every-step and --ai-report, which read the page
    after every step."""
    capture = StepCapture(lambda: ai.watches.acting, ai.steplog.mask)
    ai.steplog.listeners += [StepScreenshots(page_screenshot(lambda: ai.watches.acting)), capture]
    return capture


@pytest.mark.timeout(60)  # a listener blocked by the held dialog waited for its expiry
def test_evidence_of_every_step_leaves_the_held_dialog_to_the_next_step(ai, scripted_model):
    capture = with_evidence(ai)
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(
        choose("button", "Delete draft"),
        page_answer('[dialog] confirm "Delete the draft for good?"', "accept_dialog"),
    )
    ai.act("click the Delete draft button")
    ai.act("accept the confirmation")
    assert status(ai) == "Draft deleted"
    assert ai.dialogs.seen[-1].outcome == "accepted"
    goto, opened, answered = [e for e in ai.steplog.events if e.kind in ("goto", "act")]
    assert opened.screenshot is None  # the page was blocked: nothing to show
    assert goto.screenshot and answered.screenshot
    assert [bool(step.get("shot")) for step in capture.steps] == [True, False, True]


@pytest.mark.timeout(60)  # the expiry's own step, logged inside Playwright's loop, hung it
def test_a_held_dialog_expires_with_evidence_taken_after_every_step(ai, scripted_model):
    capture = with_evidence(ai)
    ai.goto("verbs/dialogs.html")
    scripted_model.enqueue(choose("button", "Save draft"))
    ai.act("click the Save draft button")
    assert ai.page.evaluate("document.getElementById('status').textContent") == (
        "Saved and acknowledged"
    )
    ai.goto("verbs/dialogs.html")
    logged = next(event for event in ai.steplog.events if event.kind == "dialog")
    assert logged.result == f"dismissed: no step answered it in {DIALOG_HOLD_S:g} s"
    assert logged.screenshot  # taken after the dialog was dismissed
    assert [bool(step.get("shot")) for step in capture.steps] == [True, False, True, True]


# --- the test's own handlers win over the plugin --------------------------------------


def test_the_tests_own_once_handler_answers_the_prompt_an_act_opens(ai, scripted_model):
    ai.goto("verbs/dialogs.html")
    ai.page.once("dialog", lambda dialog: dialog.accept("hello"))
    scripted_model.enqueue(choose("button", "Rename draft"))
    ai.act("click the Rename draft button")
    assert status(ai) == "Renamed to hello"
    assert ai.dialogs.pending is None
    assert ai.dialogs.seen[-1].outcome == "left to the test"

    # Spent on that prompt, the test's once leaves the next one to the plugin again.
    scripted_model.enqueue(
        choose("button", "Delete draft"),
        page_answer('[dialog] confirm "Delete the draft for good?"', "accept_dialog"),
    )
    ai.act("click the Delete draft button")
    ai.act("accept the confirmation")
    assert status(ai) == "Draft deleted"


def test_the_tests_own_permanent_handler_answers_every_dialog_until_removed(
    ai, scripted_model
):
    ai.goto("verbs/dialogs.html")
    answered = []

    def answer(dialog) -> None:
        answered.append(dialog.message)
        dialog.dismiss() if dialog.type == "confirm" else dialog.accept("by the test")

    ai.page.on("dialog", answer)
    scripted_model.enqueue(choose("button", "Delete draft"), choose("button", "Rename draft"))
    ai.act("click the Delete draft button")
    assert status(ai) == "Draft kept"
    ai.act("click the Rename draft button")
    assert status(ai) == "Renamed to by the test"
    assert answered == ["Delete the draft for good?", "New name for the draft:"]

    ai.page.remove_listener("dialog", answer)  # the plugin's again: held for the next step
    scripted_model.enqueue(
        choose("button", "Delete draft"),
        page_answer('[dialog] confirm "Delete the draft for good?"', "accept_dialog"),
    )
    ai.act("click the Delete draft button")
    assert ai.dialogs.pending is not None
    ai.act("accept the confirmation")
    assert status(ai) == "Draft deleted"
    assert len(answered) == 2


def test_the_tests_own_context_handler_answers_the_prompt(ai, scripted_model):
    """The context's handlers run before the page's: the one that ran is still seen."""
    ai.goto("verbs/dialogs.html")
    ai.page.context.once("dialog", lambda dialog: dialog.accept("from the context"))
    scripted_model.enqueue(choose("button", "Rename draft"))
    ai.act("click the Rename draft button")
    assert status(ai) == "Renamed to from the context"


def test_an_aipage_made_on_a_page_another_drove_holds_and_answers_its_dialogs(
    ai, scripted_model, pages_server
):
    """Each AIPage keeps its own watch of the page: the one the test made later takes the
    page's dialogs, and the earlier one, taking no step, dismisses none of them."""
    delete_and_rename_enqueued(scripted_model)
    ai.goto("verbs/dialogs.html")
    later = AIPage(ai.page, ai.client, base_url=pages_server.url(), wait_timeout=TEST_WAIT_MS)
    delete_and_rename(later)
    assert [dialog.outcome for dialog in later.dialogs.seen] == ["accepted"] * 2
    assert ai.dialogs.seen == []
