"""extract and observe answers are recorded and replayed with no model, only while the
page still agrees with them; otherwise the model answers again (auto) or the step fails
clearly (offline)."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import BaseModel, HttpUrl
from scripted_answers import choose, choose_described, element_id, latest_snapshot, observed

from pytest_stagehand.errors import CacheMiss, HealFailed
from pytest_stagehand.events import StepLog
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.recordings.format import Recording, recordings_file
from pytest_stagehand.recordings.keys import step_key
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.reporting.records import step_line, step_record


class FirstOrder(BaseModel):
    number: str
    customer: str
    total: str


class FirstOrderWithStatus(FirstOrder):
    status: str


FIRST_ORDER = {"number": "#1001", "customer": "Ada Lovelace", "total": "$120.00"}


@pytest.fixture
def test_file(tmp_path):
    return tmp_path / "test_orders.py"


def use_recordings(ai, store, test_file, mode, *, has_model):
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, test_file, mode), ai.steplog, has_model=has_model,
        model="openai/scripted",
    )


def committed(store, test_file) -> dict:
    store.flush()
    return json.loads(recordings_file(test_file).read_text())


def test_an_extract_replays_offline_by_reading_its_values_again(
    ai, scripted_model, store, test_file
):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(FIRST_ORDER)
    assert ai.extract("the first order", schema=FirstOrder) == FirstOrder(**FIRST_ORDER)
    assert scripted_model.calls == 1
    assert ai.steplog.events[-1].cache == "miss"

    use_recordings(ai, store, test_file, "offline", has_model=False)
    assert ai.extract("the first order", schema=FirstOrder) == FirstOrder(**FIRST_ORDER)
    assert scripted_model.calls == 1  # no model call
    assert ai.steplog.events[-1].cache == "hit"

    (step,) = committed(store, test_file)["steps"]
    assert step["kind"] == "extract" and step["data"]["value"] == FIRST_ORDER
    reads = step["data"]["reads"]["fields"]
    assert reads["customer"]["element"]["fingerprint"]["text"] == "Ada Lovelace"
    assert reads["total"]["read"] == "text" and reads["total"]["pattern"] is None


def test_an_extract_the_page_no_longer_agrees_with_fails_offline(
    ai, scripted_model, store, test_file
):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(FIRST_ORDER)
    ai.extract("the first order", schema=FirstOrder)
    ai.page.evaluate("document.querySelector('tr[data-order=\"1001\"] td:nth-child(3)')"
                     ".textContent = '$99.00'")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(
        HealFailed, match=r"(?s)total: recorded '\$120\.00', the page now shows '\$99\.00'.*refresh"
    ):
        ai.extract("the first order", schema=FirstOrder)


def test_a_stale_extract_is_asked_again_and_recorded_as_a_heal(
    ai, scripted_model, store, test_file
):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(FIRST_ORDER)
    ai.extract("the first order", schema=FirstOrder)
    ai.page.evaluate("document.querySelector('tr[data-order=\"1001\"] td:nth-child(3)')"
                     ".textContent = '$99.00'")
    use_recordings(ai, store, test_file, "auto", has_model=True)  # the next run
    scripted_model.enqueue({**FIRST_ORDER, "total": "$99.00"})
    assert ai.extract("the first order", schema=FirstOrder).total == "$99.00"
    assert scripted_model.calls == 2
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal.strategy == "model"
    (step,) = committed(store, test_file)["steps"]
    assert step["data"]["value"]["total"] == "$99.00"
    assert [note["strategy"] for note in step["heals"]] == ["model"]


def test_a_changed_schema_is_not_filled_from_an_old_recording(
    ai, scripted_model, store, test_file
):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(FIRST_ORDER)
    ai.extract("the first order", schema=FirstOrder)
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(HealFailed, match="schema FirstOrderWithStatus changed"):
        ai.extract("the first order", schema=FirstOrderWithStatus)


def test_an_offline_extract_with_no_recording_names_the_step(ai, store, test_file):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(CacheMiss, match=r"the first order.*test_orders\.py"):
        ai.extract("the first order", schema=FirstOrder)


def test_variable_values_in_an_extracted_value_are_recorded_as_placeholders(
    ai, scripted_model, store, test_file
):
    ai.goto("table.html")
    ai.steplog.add_secrets({"customer": "Ada Lovelace"})
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(FIRST_ORDER)
    ai.extract("the first order", schema=FirstOrder)
    text = json.dumps(committed(store, test_file))
    assert "Ada Lovelace" not in text and "%customer%" in text


def test_observed_elements_replay_verified_and_heal_offline(ai, scripted_model, store, test_file):
    ai.goto("login.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(observed(("textbox", "Username", "fill", ["%user%"])))
    ai.observe("the username field")
    assert scripted_model.calls == 1

    # The page changes under the recording (test id and classes renamed, a wrapper added)
    # while the field keeps its role and name.
    ai.page.evaluate(
        """() => { const el = document.querySelector('#user-name');
                   el.dataset.test = 'login-user'; el.className = 'renamed';
                   const wrap = document.createElement('div');
                   el.replaceWith(wrap); wrap.append(el); }"""
    )
    use_recordings(ai, store, test_file, "offline", has_model=False)
    (replayed,) = ai.observe("the username field")
    assert scripted_model.calls == 1
    event = ai.steplog.events[-1]
    assert event.cache == "healed" and event.heal is not None
    ai.act(replayed, variables={"user": "standard_user"})
    assert ai.page.locator("#user-name").input_value() == "standard_user"
    (step,) = committed(store, test_file)["steps"]
    assert step["kind"] == "observe" and step["heals"]


def test_an_observed_control_keeps_the_glyph_beside_its_name(ai, scripted_model, store, test_file):
    """An observed "Download" showing the PDF glyph: offline, the same button showing the
    CSV glyph is another control."""
    ai.goto("table.html")
    ai.page.evaluate("""() => document.body.insertAdjacentHTML('beforeend',
        "<button id='dl'><i class='fa-solid fa-file-pdf'></i> Download</button>")""")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(observed(("button", "Download", "click", [])))
    ai.observe("the download button")
    (step,) = committed(store, test_file)["steps"]
    assert step["actions"][0]["element"]["fingerprint"]["attributes"]["icon"] == "file-pdf"

    ai.page.evaluate("document.querySelector('#dl i').className = 'fa-solid fa-file-csv'")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(HealFailed, match=r"another icon \(file-pdf vs file-csv\)"):
        ai.observe("the download button")


class OrderLink(BaseModel):
    number: str
    details: HttpUrl


def test_links_on_the_page_origin_follow_the_app_to_another_origin(
    ai, scripted_model, store, test_file, pages_server
):
    ai.goto("table.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(
        lambda request: {
            "number": "#1001",
            "details": element_id(request.text, "link", "View", after='cell "#1001"'),
        }
    )
    first = ai.extract("the first order's link", schema=OrderLink)
    assert str(first.details) == pages_server.url("orders/1001")

    ai.goto(pages_server.other_origin_url("table.html"))  # staging → production
    use_recordings(ai, store, test_file, "offline", has_model=False)
    replayed = ai.extract("the first order's link", schema=OrderLink)
    assert str(replayed.details) == pages_server.other_origin_url("orders/1001")
    (step,) = committed(store, test_file)["steps"]
    assert step["data"]["value"]["details"] == "%origin%/orders/1001"


def test_a_recording_is_masked_whole_before_it_is_stored():
    steplog = StepLog()
    steplog.add_secrets({"user": "locked_out_user"})
    key = step_key("assert", "the error says the user is locked out", "/login")
    recording = Recording.of(
        key, data={"check": {"context": "Usernames: standard_user, locked_out_user"}}
    )
    masked = recording.masked(steplog.mask)
    assert "locked_out_user" not in masked.model_dump_json()
    assert masked.data["check"]["context"] == "Usernames: standard_user, %user%"


# --- keys: scope and the uses of one step in a test -----------------------------------------


def test_a_scoped_observe_has_a_recording_of_its_own(ai, scripted_model, store, test_file):
    ai.goto("replay/cards.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(observed(("button", "Buy", "click", [])))
    (in_a,) = ai.observe("the buy button", scope="#a")
    scripted_model.enqueue(observed(("button", "Buy", "click", [])))
    (in_b,) = ai.observe("the buy button", scope="#b")  # not card a's, from the cache
    assert scripted_model.calls == 2
    assert "Card B" in in_b.context and "Card A" in in_a.context

    use_recordings(ai, store, test_file, "offline", has_model=False)
    (replayed,) = ai.observe("the buy button", scope="#b")
    ai.act(replayed)
    assert ai.page.evaluate("window.__clicks") == ["Buy"]
    assert "Card B" in replayed.context
    scopes = sorted(step.get("scope") for step in committed(store, test_file)["steps"])
    assert scopes == ["#a", "#b"]


def todo_resolver(ai, store, test_file, mode, *, has_model):
    ai.resolver = RecordingResolver(
        ai.page, ModelResolver(ai.page, ai.client, ai.steplog),
        Recordings(store, test_file, mode), ai.steplog, has_model=has_model,
    )


def add_todos(ai, items):
    for item in items:
        ai.act("type %item% into the new todo input", variables={"item": item})
        ai.page.locator("#new").press("Enter")


def test_each_use_of_a_step_in_a_test_replays_its_own_recording(
    ai, scripted_model, store, test_file
):
    """A to-do loop: the same step on the same page, with the list growing above the input.
    The typed values are no part of what identifies the input."""
    ai.goto("replay/todo.html")
    todo_resolver(ai, store, test_file, "auto", has_model=True)
    for _ in range(3):
        scripted_model.enqueue(choose("textbox", "New todo", "fill", ["%item%"]))
    add_todos(ai, ["Buy milk", "Walk the dog", "Call Ada"])
    assert scripted_model.calls == 3  # one recording per use, each asked once

    # The next run, on the same unchanged app, with other values: every use replays as it
    # was recorded, and nothing is healed.
    ai.goto("replay/todo.html")
    todo_resolver(ai, store, test_file, "offline", has_model=False)
    add_todos(ai, ["Water plants", "Pay rent", "Read a book"])
    assert ai.page.locator("#items li").all_inner_texts() == [
        "Water plants", "Pay rent", "Read a book"
    ]
    acts = [event for event in ai.steplog.events if event.kind == "act"][-3:]
    assert [event.cache for event in acts] == ["hit", "hit", "hit"]
    steps = committed(store, test_file)["steps"]
    assert [step.get("occurrence", 1) for step in steps] == [1, 2, 3]
    # The items typed before are in the input's surroundings, as placeholders; replay
    # matches them against the values the page shows now, and never requires them.
    contexts = [step["actions"][0]["element"]["context"] for step in steps]
    assert contexts[2] == "To do %item% %item% New todo Add Continue"


@pytest.mark.parametrize("method", ["check", "click"])
def test_a_recording_notes_the_control_that_stood_in_for_a_covered_one(
    ai, scripted_model, store, test_file, method
):
    """The dark-mode checkbox is invisible under its slider: the click goes to its label,
    and the recording and the step say so, for the reviewer of the file. (A replayed click
    learns what stands in for it with the lookup of its element.)"""
    ai.goto("heal/controls.html")
    todo_resolver(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(choose("checkbox", "Dark mode", method))
    ai.act("turn on dark mode")
    assert ai.locator("#dark-mode").is_checked()
    assert ai.steplog.events[-1].result.endswith('(clicked through label "Dark mode")')
    (step,) = committed(store, test_file)["steps"]
    assert step["actions"][0]["via"] == 'label "Dark mode"'

    ai.goto("heal/controls.html")  # the next run replays it, through the label again
    todo_resolver(ai, store, test_file, "offline", has_model=False)
    ai.act("turn on dark mode")
    assert ai.locator("#dark-mode").is_checked()
    assert ai.steplog.events[-1].cache == "hit"
    assert ai.steplog.events[-1].result.endswith('(clicked through label "Dark mode")')
    assert scripted_model.calls == 1


def step_line_shown(event) -> str:
    """A step's -v line without what differs between a recording run and a replay: the
    cache status and the time taken."""
    line = step_line(step_record(event, lambda text: text))
    return re.sub(r" \[\w+\] [\d.]+s$", "", line)


def test_a_nameless_elements_step_line_is_the_same_recorded_and_replayed(
    ai, scripted_model, store, test_file
):
    """The "Remember me" checkbox has no accessible name: the step line names it the same
    way when the model chose it and when the recording replays it."""
    ai.goto("unnamed.html")
    todo_resolver(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(choose_described("remember", "check"))
    ai.act("tick remember me")
    recorded = ai.steplog.events[-1]
    assert recorded.cache == "miss" and ai.locator("#remember").is_checked()

    ai.goto("unnamed.html")
    todo_resolver(ai, store, test_file, "offline", has_model=False)
    ai.act("tick remember me")
    replayed = ai.steplog.events[-1]
    assert replayed.cache == "hit" and ai.locator("#remember").is_checked()
    assert step_line_shown(replayed) == step_line_shown(recorded)
    assert step_line_shown(recorded) == '  stagehand act "tick remember me" → checkbox check'
    assert scripted_model.calls == 1


# --- observe: a set is queried again ------------------------------------------------------


def every_add_to_cart_button(request) -> dict:
    ids = re.findall(r'\b(e\d+) button "Add to cart"', latest_snapshot(request.text))
    return {
        "elements": [
            {"element_id": found, "description": 'button "Add to cart"', "method": "click",
             "arguments": []}
            for found in ids
        ]
    }


def record_buttons(ai, scripted_model, store, test_file):
    ai.goto("replay/shop.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(every_add_to_cart_button)
    assert len(ai.observe("the Add to cart buttons")) == 6
    use_recordings(ai, store, test_file, "offline", has_model=False)


def test_a_recorded_set_replays_as_the_elements_the_page_shows_now(
    ai, scripted_model, store, test_file
):
    record_buttons(ai, scripted_model, store, test_file)
    assert len(ai.observe("the Add to cart buttons")) == 6
    assert ai.steplog.events[-1].cache == "hit"
    assert "not as recorded" not in ai.steplog.events[-1].result

    use_recordings(ai, store, test_file, "offline", has_model=False)
    ai.page.evaluate(
        "const list = document.querySelector('.products');"
        "const card = list.children[1].cloneNode(true);"
        "card.querySelector('h2').textContent = 'Water Bottle'; list.append(card);"
    )
    buttons = ai.observe("the Add to cart buttons")
    assert len(buttons) == 7  # a count assertion on the result can fail
    assert "Water Bottle" in buttons[-1].context
    assert "6 elements recorded, 7 on the page now" in ai.steplog.events[-1].result
    assert scripted_model.calls == 1


def test_a_reordered_set_is_returned_in_the_page_order_and_reported(
    ai, scripted_model, store, test_file
):
    record_buttons(ai, scripted_model, store, test_file)
    ai.page.evaluate(
        "const list = document.querySelector('.products');"
        "[...list.children].reverse().forEach((row) => list.append(row));"
    )
    buttons = ai.observe("the Add to cart buttons")
    assert "Red Hoodie" in buttons[0].context
    assert "element 1 was near 'Backpack" in ai.steplog.events[-1].result
    ai.act(buttons[0])  # verified, and the one it says
    assert ai.page.locator(".product", has_text="Red Hoodie").locator("button").inner_text() == (
        "Remove"
    )
