"""Replay with verification, and model-free healing, on a real page in Chromium.

The element a step was recorded on is remembered in a JavaScript variable
(`window.__truth`), which the healer cannot see; every check compares identity with it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from unittest.mock import ANY

import pytest
from playwright.sync_api import Locator, Page, expect
from scripted_answers import choose, recorded_ai_page

from pytest_stagehand.errors import HealFailed
from pytest_stagehand.heal.identity import (
    Identity,
    identity_of,
    looked_at,
    looked_at_all,
    namesakes,
    recorded_element,
)
from pytest_stagehand.heal.meaning import best_match, similarity, verify
from pytest_stagehand.heal.resolve import light_hits, resolve
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import inspect, snapshot

RENAME_IDS_AND_CLASSES = """() => {
  for (const el of document.querySelectorAll("body *")) {
    if (el.id) el.id = "v2-" + el.id;
    if (el.dataset.testid) el.dataset.testid = "v2-" + el.dataset.testid;
    if (el.classList.length) el.className = [...el.classList].map((c) => "x" + c).join(" ");
  }
  for (const label of document.querySelectorAll("label[for]")) {
    label.htmlFor = "v2-" + label.htmlFor;
  }
}"""
ADD_WRAPPER = """() => {
  const form = document.querySelector("#login-form");
  const wrapper = document.createElement("div");
  wrapper.className = "form-body";
  wrapper.append(...form.children);
  form.append(wrapper);
}"""
MOVE = """() => document.querySelector("#top").append(window.__truth)"""
TWEAK_TEXT = """() => { window.__truth.textContent = "Log In!"; }"""
ADD_DECOY = """() => {
  const decoy = document.createElement("button");
  decoy.className = "btn btn-primary";
  decoy.textContent = "Log in";
  document.querySelector("#news").append(decoy);
}"""
MUTATIONS = {
    "renamed ids and classes": RENAME_IDS_AND_CLASSES,
    "wrapper added": ADD_WRAPPER,
    "element moved": MOVE,
    "text tweaked": TWEAK_TEXT,
    "decoy added": ADD_DECOY,
}


@pytest.fixture
def account(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("heal/account.html"))
    return page


def record(page: Page, role: str, name: str, index: int = 0) -> RecordedElement:
    """What the act pipeline records for an element, and remember which element it was."""
    page_snapshot = snapshot(page)
    refs = [r for r in page_snapshot.elements.values() if (r.role, r.name) == (role, name)]
    refs[index].locator(page).evaluate("el => { window.__truth = el; }")
    return recorded_element(page, page_snapshot, refs[index])


def is_truth(locator: Locator) -> bool:
    return locator.evaluate("el => el === window.__truth")


def test_an_unchanged_page_replays_the_first_selector_without_a_heal(account):
    element = record(account, "button", "Log in")
    resolution = resolve(account, element, wait_ms=0)
    assert resolution.heal is None and resolution.element == element
    assert is_truth(resolution.locator)


def test_a_selector_that_now_hits_another_element_is_not_used(account):
    element = record(account, "button", "Log in")
    assert element.selectors[0] == '[data-testid="login-button"]'
    account.evaluate("""() => {
        document.querySelector("#cancel").dataset.testid = "login-button";
        delete window.__truth.dataset.testid;
    }""")
    assert account.locator(element.selectors[0]).count() == 1  # blind replay would click Cancel

    resolution = resolve(account, element, wait_ms=0)
    assert is_truth(resolution.locator)
    assert resolution.heal.strategy == "locator"
    assert resolution.heal.before == '[data-testid="login-button"]'
    assert resolution.heal.after == resolution.element.selectors[0] == element.selectors[1]


def test_a_heal_says_what_changed(account):
    element = record(account, "button", "Log in")
    account.evaluate(ADD_WRAPPER)
    account.evaluate("""() => {
        for (const label of document.querySelectorAll("#login-form label")) {
            label.textContent = label.textContent === "Username" ? "Email" : "Passphrase";
        }
        window.__truth.className = "button primary";
    }""")
    resolution = resolve(account, element, wait_ms=0)
    assert is_truth(resolution.locator)
    # The same selector still finds it: only the list of changes says why it was healed.
    assert (resolution.heal.before, resolution.heal.after) == (element.selectors[0],) * 2
    assert resolution.heal.changed == ("surroundings", "position", "classes")


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_same_element_is_found_after(account, mutation):
    element = record(account, "button", "Log in")
    account.evaluate(MUTATIONS[mutation])
    assert is_truth(resolve(account, element, wait_ms=0).locator)
    match = best_match(Identity.of(element), account, snapshot(account))  # fingerprint alone
    assert match.element is not None, match.reason
    assert is_truth(match.element.locator(account))


def test_replay_waits_for_a_page_still_rendering(account):
    element = record(account, "button", "Log in")
    account.evaluate("""() => {
        const button = window.__truth, place = button.parentElement;
        button.remove();
        setTimeout(() => place.prepend(button), 300);
    }""")
    resolution = resolve(account, element, wait_ms=5000)
    assert resolution.heal is None and is_truth(resolution.locator)


def test_elements_in_nested_cross_origin_frames_replay_and_heal(page, pages_server):
    page.goto(pages_server.url("frames.html"))
    element = record(page, "button", "Verify card")
    assert len(element.frame_path) == 2
    resolution = resolve(page, element, wait_ms=0)
    assert resolution.heal is None and is_truth(resolution.locator)

    resolution.locator.evaluate("""button => {
        const wrapper = document.createElement("div");
        button.replaceWith(wrapper);
        wrapper.append(button);
        const decoy = document.createElement("section");
        decoy.setAttribute("aria-label", "Offers");
        decoy.innerHTML = "<p>New: instant checks</p><button>Verify card</button>";
        document.body.prepend(decoy);
    }""")
    healed = resolve(page, element, wait_ms=0)
    assert healed.heal.strategy == "fingerprint" and is_truth(healed.locator)
    assert healed.element.frame_path == element.frame_path


def test_when_every_selector_is_broken_the_fingerprint_heal_re_records_the_element(account):
    element = record(account, "button", "Log in")
    account.evaluate(RENAME_IDS_AND_CLASSES)  # test ids too
    account.evaluate(ADD_WRAPPER.replace("#login-form", "#v2-login-form"))
    account.evaluate(ADD_DECOY.replace("#news", "#v2-news"))  # role and text hit two now

    resolution = resolve(account, element, wait_ms=0)
    assert is_truth(resolution.locator)
    assert resolution.heal.strategy == "fingerprint" and resolution.heal.score >= 0.6
    assert resolution.element.selectors[0] == '[data-testid="v2-login-button"]'
    assert "div.form-body" in resolution.element.fingerprint.path  # the page as it is now

    again = resolve(account, resolution.element, wait_ms=0)  # the healed entry replays
    assert again.heal is None and is_truth(again.locator)


def test_a_row_inserted_above_does_not_fool_replay(account):
    element = record(account, "button", "Delete", index=1)  # the "Holiday plans" draft
    account.evaluate("""() => {
        const list = document.querySelector("#drafts ul");
        list.prepend(list.firstElementChild.cloneNode(true));
        list.firstElementChild.querySelector("span").textContent = "Shopping list";
    }""")
    assert element.distinct == "Holiday plans"  # what told it from the other "Delete"
    blind = next(s for s in element.selectors if account.locator(s).count() == 1)
    assert not is_truth(account.locator(blind))  # where blind replay would click

    resolution = resolve(account, element, wait_ms=0)
    assert is_truth(resolution.locator)
    assert resolution.heal.strategy == "fingerprint"


def test_two_equally_good_candidates_are_not_healed_to(account):
    element = record(account, "button", "Restore", index=0)  # two identical "Untitled" rows
    account.evaluate("""() => {
        const list = document.querySelector("#trash ul");
        const wrapper = document.createElement("div");
        list.replaceWith(wrapper);
        wrapper.append(list);
    }""")
    with pytest.raises(HealFailed) as caught:
        resolve(account, element, wait_ms=0)
    message = str(caught.value)
    assert 'button "Restore"' in message and "ambiguous" in message
    assert "→ 2 elements" in message  # what the role selector found, for the reader


def test_an_element_of_another_role_family_is_never_taken(account):
    element = record(account, "button", "Subscribe")
    account.evaluate("""() => {
        const label = document.createElement("label");
        label.innerHTML = '<input type="checkbox" id="subscribe" class="btn"> Subscribe';
        window.__truth.replaceWith(label);
    }""")
    checkbox = identity_of(account.locator("#subscribe"))
    assert similarity(Identity.of(element), checkbox) == 0.0
    with pytest.raises(HealFailed) as caught:
        resolve(account, element, wait_ms=0)
    message = str(caught.value)
    assert '#subscribe → checkbox "Subscribe", not the recorded element' in message
    assert 'no button "Subscribe"' in message


def test_a_link_redesigned_as_a_button_of_the_same_name_in_its_place_heals(account):
    """Both activate what they name: the role's family is kept, and a heal says so."""
    element = record(account, "button", "Subscribe")
    account.evaluate("""() => {
        const link = document.createElement("a");
        link.href = "#news"; link.id = "subscribe"; link.className = "btn btn-link";
        link.textContent = "Subscribe";
        window.__truth.replaceWith(link);
        window.__truth = link;
    }""")
    resolution = resolve(account, element, wait_ms=0, instruction="click Subscribe")
    assert is_truth(resolution.locator)
    assert resolution.heal is not None and resolution.element.fingerprint.role == "link"


def test_verify_needs_the_same_role_name_test_id_and_surroundings(account):
    login = Identity.of(record(account, "button", "Log in"))
    assert verify(login, identity_of(account.locator("#login")))
    assert not verify(login, identity_of(account.locator("#cancel")))  # another name
    assert not verify(login, identity_of(account.locator("#login-form")))  # another role
    account.evaluate("() => { window.__truth.dataset.testid = 'other'; }")
    assert not verify(login, identity_of(account.locator("#login")))


def test_verify_tells_apart_look_alikes_by_their_surroundings(account):
    quarterly = Identity.of(record(account, "button", "Delete", index=0))
    holiday = identity_of(account.locator("#drafts li:nth-of-type(2) button"))
    markup = [replace(i.fingerprint, containers=()) for i in (quarterly, holiday)]
    assert markup[0] == markup[1]  # same tag, classes, path, name...
    assert not verify(quarterly, holiday)  # ...but another item of the list


def test_a_time_told_relative_to_now_beside_an_element_is_not_where_it_is(page: Page):
    """JupyterLab's file browser shows "3m ago" beside each file: two minutes later the
    same file in the same list is the same file. Another number there is another row."""
    page.set_content(
        "<ul><li><button>notes.txt</button> <span>3m ago</span></li>"
        "<li><button>todo.txt</button> <span>1h ago</span></li></ul>"
    )
    notes = Identity.of(record(page, "button", "notes.txt"))
    page.locator("span").first.evaluate("el => el.textContent = '5m ago'")
    assert verify(notes, identity_of(page.get_by_role("button", name="notes.txt")))
    page.locator("span").first.evaluate("el => el.textContent = 'order 5'")
    assert verify(notes, identity_of(page.get_by_role("button", name="notes.txt"))) is False


def test_when_something_was_made_beside_an_element_is_not_which_one_it_is(page: Page):
    """TiddlyWiki shows the minute a tiddler was made under its title: the tiddler a test
    makes shows another minute on each run. Another title is another tiddler."""
    page.set_content(
        "<main><article><h2>GettingStarted</h2><button>Edit this tiddler</button>"
        "<p>Welcome to TiddlyWiki and the TiddlyWiki community</p></article>"
        "<article><h2>Scratch</h2><button>Edit this tiddler</button>"
        "<p class=when>27th November 2026 at 12:31am</p><p>Draft notes for the week</p>"
        "</article></main>"
    )
    scratch = Identity.of(record(page, "button", "Edit this tiddler", index=1))
    edit = page.get_by_role("button", name="Edit this tiddler").nth(1)
    page.locator(".when").evaluate("el => el.textContent = '28th November 2026 at 9:05am'")
    assert verify(scratch, identity_of(edit))
    page.locator("article h2").nth(1).evaluate("el => el.textContent = 'Shopping'")
    assert verify(scratch, identity_of(edit)) is False


def test_a_clock_time_in_an_elements_description_is_not_what_it_does(page: Page):
    """A save button described "Last saved at 14:02" says "Last saved at 14:05" three
    minutes later, on the same page: the same button. Other words there are another one."""
    page.set_content(
        "<button aria-describedby=saved>Save</button> <span id=saved>Last saved at 14:02</span>"
    )
    save = Identity.of(record(page, "button", "Save"))
    page.locator("#saved").evaluate("el => el.textContent = 'Last saved at 2:05 pm'")
    assert verify(save, identity_of(page.get_by_role("button", name="Save")))
    page.locator("#saved").evaluate("el => el.textContent = 'Discards every draft'")
    assert verify(save, identity_of(page.get_by_role("button", name="Save"))) is False


# --- look-alikes that differ in meaning: never healed onto -------------------------------

REMOVE_TRUTH = "() => window.__truth.remove()"
# (recorded role, name, index among its look-alikes, change, the look-alike left behind)
LOOK_ALIKES = {
    "an amount": ("button", "Transfer $100", 0, REMOVE_TRUTH, "Transfer $1000"),
    "enable and disable": ("button", "Enable two-factor", 0, REMOVE_TRUTH, "Disable two-factor"),
    "archive and unarchive": ("button", "Archive", 0, REMOVE_TRUTH, "Unarchive"),
    "follow and unfollow": ("button", "Follow", 0, REMOVE_TRUTH, "Unfollow"),
    "show and hide": ("button", "Show details", 0, REMOVE_TRUTH, "Hide details"),
    "a negation": (
        "checkbox",
        "Email me about offers",
        0,
        REMOVE_TRUTH,
        "Do not email me about offers",
    ),
    "a qualifier added": (
        "button",
        "Subscribe to newsletter",
        0,
        REMOVE_TRUTH,
        "Subscribe to partner newsletter",
    ),
    "another form": (
        "button",
        "Save",
        0,
        "() => { document.querySelector('#profile').remove();"
        " document.querySelector('#newsletter').hidden = false; }",
        "Save",
    ),
    "another section": (
        "button",
        "Delete account",
        0,
        "() => { window.__truth.closest('section').remove();"
        " document.querySelector('#billing').hidden = false; }",
        "Delete account",
    ),
    "another row": (
        "button",
        "Cancel order",
        0,
        """() => {
            const row = window.__truth.closest("li"), next = row.cloneNode(true);
            next.querySelector("span").textContent = "Order 1002";
            row.replaceWith(next);
        }""",
        "Cancel order",
    ),
    "another person": ("button", "Send to Alice", 0, REMOVE_TRUTH, "Send to Alicia"),
    "the other direction": ("link", "Older posts", 0, REMOVE_TRUTH, "Newer posts"),
    "a word inside another": ("button", "Open", 0, REMOVE_TRUTH, "Reopen"),
    "one letter more": ("button", "Star", 0, REMOVE_TRUTH, "Start"),
    "a neighbour": ("button", "Pause", 0, REMOVE_TRUTH, "Resume"),
    "a dialog": ("button", "Confirm", 0, REMOVE_TRUTH, "Confirm"),
    "a frame": ("button", "Send", 0, REMOVE_TRUTH, "Send"),
}


@pytest.fixture
def look_alikes(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("heal/lookalikes.html"))
    page.frame_locator("#composer").locator("button").wait_for()
    return page


@pytest.mark.parametrize("case", LOOK_ALIKES)
def test_a_look_alike_that_differs_in_meaning_is_never_healed_onto(look_alikes, case):
    role, name, index, change, near_miss = LOOK_ALIKES[case]
    element = record(look_alikes, role, name, index)
    look_alikes.evaluate(change)
    with pytest.raises(HealFailed) as caught:
        resolve(look_alikes, element, wait_ms=0)
    recorded, details = str(caught.value).split("\n", 1)
    assert f'{role} "{name}"' in recorded  # the recorded element
    assert f'{role} "{near_miss}"' in details  # and the near miss, for the reader


def test_a_control_keeping_its_id_but_taking_a_neighbours_name_is_the_models_call(page):
    page.set_content(
        '<div class="consent"><button id="accept">Accept</button>'
        '<button id="accept-everything">Accept all</button></div>'
    )
    element = record(page, "button", "Accept")
    assert element.rivals == ["Accept all"]
    page.evaluate("""() => {
        document.querySelector("#accept-everything").remove();
        window.__truth.textContent = "Accept all";
    }""")  # the markup keeps its id; its name now says what another control said
    with pytest.raises(HealFailed, match=r"another name \('Accept all' for 'Accept'\)"):
        resolve(page, element, wait_ms=0, instruction="accept the cookies")


CONTROL = '<main><section class="card"><h2>Studio</h2><button class="btn"{}>{}</button>'


def _replaced_in_place(page: Page, recorded: str, now: str, test_id: str = "") -> RecordedElement:
    """A button recorded alone in its card, then another name in its place."""
    marked = f' data-testid="{test_id}"' if test_id else ""
    page.set_content(CONTROL.format(marked, recorded))
    element = record(page, "button", recorded)
    page.set_content(CONTROL.format(marked, now))
    page.locator("button").evaluate("el => { window.__truth = el; }")
    return element


@pytest.mark.parametrize(
    ("instruction", "recorded", "now"),
    [
        ("send the money to Alice", "Send to Alice", "Send to Alicia"),
        ("pause the video", "Pause", "Resume"),
        ("assign it to me", "Assign to me", "Assign to team"),
        ("move the mail to the trash", "Move to trash", "Move to spam"),
    ],
)
def test_a_control_that_no_longer_says_what_the_step_calls_it_is_never_healed_onto(
    page, instruction, recorded, now
):
    """Alike in look and place, but the step calls it by a word its name no longer says,
    and nothing in the markup says it is the same control."""
    element = _replaced_in_place(page, recorded, now)
    with pytest.raises(HealFailed, match=rf"another name \('{now}' for '{recorded}'\)"):
        resolve(page, element, wait_ms=0, instruction=instruction)


@pytest.mark.parametrize(
    ("instruction", "recorded", "now"),
    [
        ("pause the video", "Pause", "Play"),
        ("subscribe to the channel", "Subscribe", "Subscribed"),
        ("follow Ada", "Follow", "Following"),
        ("click the toggle", "Email me about offers", "Do not email me about offers"),
        ("click the Continue button", "Continue", "Continue to delete"),
    ],
)
def test_a_toggle_that_flipped_is_never_healed_onto_though_it_kept_its_test_id(
    page, instruction, recorded, now
):
    """No list of opposites, states or negations: the name's words are its meaning."""
    element = _replaced_in_place(page, recorded, now, test_id="toggle")
    with pytest.raises(HealFailed, match=rf"another name \('{now}' for '{recorded}'\)"):
        resolve(page, element, wait_ms=0, instruction=instruction)


def test_a_kind_word_in_a_name_is_a_qualifier_there(page):
    """A step says "the Copy button"; a button's name "Copy link" says more than "Copy"."""
    element = _replaced_in_place(page, "Copy", "Copy link")
    with pytest.raises(HealFailed, match=r"another name \('Copy link' for 'Copy'\)"):
        resolve(page, element, wait_ms=0, instruction="click the Copy button")


@pytest.mark.parametrize(
    ("recorded", "now", "heals"),
    [
        ("Create account", "Register", False),
        ("Sign up", "Signup", True),
        ("Log in", "LOG IN!", True),
    ],
)
def test_a_control_reworded_under_its_test_id_is_the_models_call_but_respelled_heals(
    page, recorded, now, heals
):
    """A synonym is the model's call offline, whatever the markup keeps; spelling is not
    meaning (case, spaces, punctuation, words run together)."""
    element = _replaced_in_place(page, recorded, now, test_id="signup-submit")
    if not heals:
        with pytest.raises(HealFailed, match=rf"another name \('{now}' for '{recorded}'\)"):
            resolve(page, element, wait_ms=0, instruction=f'click "{recorded}"')
        return
    resolution = resolve(page, element, wait_ms=0, instruction=f'click "{recorded}"')
    assert is_truth(resolution.locator) and resolution.heal is not None


# An icon-only button, then another icon in its place: (recorded, now, its icon, the new one).
ICONS = [
    ('<svg width="16" height="16"><use href="#trash"/></svg>',
     '<svg width="16" height="16"><use href="#archive"/></svg>', "trash", "archive"),
    ('<img src="/icons/edit.svg" width="16" height="16">',
     '<img src="/icons/delete.svg" width="16" height="16">', "edit", "delete"),
    ('<i class="fa-solid fa-trash"></i>', '<i class="fa-solid fa-box-archive"></i>',
     "trash", "box archive"),
    ('<span class="mdi mdi-heart"></span>', '<span class="mdi mdi-heart-off"></span>',
     "heart", "heart off"),
    ('<span data-icon="lock"></span>', '<span data-icon="unlock"></span>', "lock", "unlock"),
    ('<i class="ph ph-bell"></i>', '<i class="ph ph-bell-slash"></i>', "bell", "bell slash"),
    ('<ion-icon name="heart"></ion-icon>', '<ion-icon name="heart-outline"></ion-icon>',
     "heart", "heart outline"),
    ('<svg viewBox="0 0 24 24"><path d="M6 7h12M9 7V4h6v3m-8 0 1 13h8l1-13"/></svg>',
     '<svg viewBox="0 0 24 24"><path d="M4 7h16v4H4zM6 11v9h12v-9M10 15h4"/></svg>',
     "drawn [0-9a-f]{6}", "drawn [0-9a-f]{6}"),
]  # fmt: skip


@pytest.mark.parametrize("test_id", ["", "row-action"])
@pytest.mark.parametrize(("recorded", "now", "icon", "other"), ICONS)
def test_an_icon_only_control_with_another_icon_in_its_place_is_never_healed_onto(
    page, recorded, now, icon, other, test_id
):
    """Its icon is its name: "edit" healed onto "delete" would delete. Under a kept test
    id too, as the selector's own check already refuses another icon."""
    marked = f' data-testid="{test_id}"' if test_id else ""
    page.set_content(CONTROL.format(marked, recorded))
    element = record(page, "button", "")
    assert re.fullmatch(icon, element.fingerprint.attributes["icon"])
    page.set_content(CONTROL.format(marked, now))
    with pytest.raises(HealFailed, match=rf"another icon \({icon} vs {other}\)"):
        resolve(page, element, wait_ms=0, instruction="click the icon")


def test_an_inline_svg_icon_restyled_keeps_its_drawing_and_heals(page):
    """An icon drawn inline names no glyph: its shapes are what it is, not its styling."""
    drawing = '<path d="M6 7h12M9 7V4h6v3m-8 0 1 13h8l1-13"/>'
    icon = f'<svg class="h-5 w-5" viewBox="0 0 24 24">{drawing}</svg>'
    page.set_content(CONTROL.format("", icon))
    element = record(page, "button", "")
    page.set_content(
        '<main><section class="card"><h2>Studio</h2><button class="icon-button">'
        f'<svg class="size-6 text-red" width="24" viewBox="0 0 24 24">{drawing}</svg></button>'
    )
    page.locator("button").evaluate("el => { window.__truth = el; }")
    resolution = resolve(page, element, wait_ms=0, instruction="click the bin")
    assert is_truth(resolution.locator)  # verified as the same icon where it was

def test_a_recording_with_no_icon_still_verifies_where_the_page_shows_one(page):
    """Recordings made before icon fonts were read have none: no reason to heal."""
    page.set_content(CONTROL.format("", '<i class="fa fa-trash"></i>'))
    element = record(page, "button", "")
    fingerprint = replace(element.fingerprint, attributes={})
    older = element.model_copy(update={"fingerprint": fingerprint})
    resolution = resolve(page, older, wait_ms=0)
    assert resolution.heal is None and is_truth(resolution.locator)

def test_an_icon_only_control_restyled_around_the_same_icon_heals(page):
    page.set_content(
        '<main><section class="card"><h2>Studio</h2>'
        '<button class="btn icon-only"><i class="fa fa-trash"></i></button>'
    )
    element = record(page, "button", "")
    assert element.fingerprint.attributes["icon"] == "trash"  # "icon-only" is no glyph
    page.set_content(
        '<main><section class="card"><h2>Studio</h2><span class="tools">'
        '<button class="button-v2 sm"><i class="fa fa-fw fa-trash"></i></button></span>'
    )
    page.locator("button").evaluate("el => { window.__truth = el; }")
    assert 'button hint="icon trash' in snapshot(page).text  # what the model reads
    resolution = resolve(page, element, wait_ms=0, instruction="click the trash icon")
    assert is_truth(resolution.locator) and resolution.heal is not None

CARD = (
    '<main><h1>Accounts</h1><section class="card"><h2>{who}</h2>'
    '<p>{about}</p><button class="{style}">Delete</button></section></main>'
)


LONG = "Premium member since 2020 with priority support and free delivery on every order"


@pytest.mark.parametrize(
    ("instruction", "recorded", "now", "about"),
    [
        ("remove the Backpack", "Backpack", "Bike Light", "Premium, since 2020"),
        ("delete Alice Smith's account", "Alice Smith", "Alicia Smith", "Premium, since 2020"),
        ("cancel Jon's order", "Order for Jon", "Order for Jan", "Premium, since 2020"),
        # So alike around it that the recorded selector's hit would verify by its words.
        ("delete Alice Smith's account", "Alice Smith", "Alicia Smith", LONG),
    ],
)
def test_a_heal_never_leaves_what_the_step_names(page, instruction, recorded, now, about):
    page.set_content(CARD.format(who=recorded, about=about, style="btn danger"))
    element = record(page, "button", "Delete")
    # The only card on the page, alike in all but what the step named: another card.
    page.set_content(CARD.format(who=now, about=about, style="btn danger"))
    with pytest.raises(HealFailed, match=r"the page no longer shows .*, which the step names"):
        resolve(page, element, wait_ms=0, instruction=instruction)


def test_a_card_that_keeps_what_the_step_names_heals(page):
    page.set_content(CARD.format(who="Backpack", about="Premium, since 2020", style="btn danger"))
    element = record(page, "button", "Delete")
    page.set_content(CARD.format(who="Backpack", about="Premium member, since 2020", style="c-btn"))
    page.locator("button").evaluate("el => { window.__truth = el; }")
    resolution = resolve(page, element, wait_ms=0, instruction="remove the Backpack")
    assert is_truth(resolution.locator) and resolution.heal is not None


# --- real redesigns: more signals than the name, and a margin -----------------------------


@pytest.fixture
def todo(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("heal/todo.html"))
    return page


def test_a_renamed_textbox_is_the_models_call_though_its_identifier_words_say_it(todo):
    element = record(todo, "textbox", "New Todo Input")
    # Another build of the same app: no aria-label (the name is now the placeholder),
    # another id and test id; the class words and the step's words still say "new todo".
    todo.evaluate("""() => {
        const input = window.__truth;
        input.removeAttribute("aria-label");
        input.id = "entry-7"; input.dataset.testid = "entry";
    }""")
    with pytest.raises(HealFailed, match=r"another name \('What needs to be done\?'"):
        resolve(todo, element, wait_ms=0, instruction="type Milk into the new todo input")


def test_a_renamed_element_is_not_taken_without_a_lead_over_the_runner_up(todo):
    element = record(todo, "textbox", "New Todo Input")
    # Both text boxes lose everything that tied one of them to the recording.
    todo.evaluate("""() => {
        for (const input of document.querySelectorAll("input")) {
            input.removeAttribute("aria-label"); input.removeAttribute("data-testid");
            input.id = ""; input.className = "field"; input.placeholder = "Type here";
            document.querySelector("main, body").append(input);
        }
    }""")
    with pytest.raises(HealFailed) as caught:
        resolve(todo, element, wait_ms=0, instruction="type Milk into the new todo input")
    assert 'textbox "New Todo Input"' in str(caught.value)


def test_a_row_control_two_shadow_roots_deep_is_known_by_its_rows_words(page, pages_server):
    page.goto(pages_server.url("heal/shadow-rows.html"))
    element = record(page, "checkbox", "Done", index=1)
    assert "Buy bread" in element.context and "bread" in element.distinct.casefold()
    page.evaluate("""() => {
        const list = document.querySelector("ul");
        const row = list.firstElementChild.cloneNode(true);
        row.querySelector("span").textContent = "Walk the dog";
        list.prepend(row);
    }""")
    resolution = resolve(page, element, wait_ms=0)
    assert is_truth(resolution.locator)


# --- the one-trip lookup of what recorded selectors hit --------------------------------


def test_the_one_trip_lookup_describes_elements_as_playwright_finds_them(account):
    element = record(account, "button", "Log in")
    hits = light_hits(account, element)
    looked_up = [
        (selector, hit) for selector, hit in zip(element.selectors, hits, strict=True) if hit
    ]
    assert looked_up[0][0] == '[data-testid="login-button"]'  # plain CSS: the browser's own
    assert any(selector.startswith("xpath=") for selector, _ in looked_up)
    for selector, hit in looked_up:
        assert hit == inspect(account.locator(selector))
    # read with it, for the click to come: nothing stands in for a plain visible button
    assert (hits[0].stand_in, looked_up[-1][1].stand_in) == ("", None)
    # Playwright's own syntax is left to Playwright
    assert all(hit is None for selector, hit in zip(element.selectors, hits, strict=True)
               if selector.startswith(("role=", "text=", "internal:")))


def test_a_role_selector_is_read_by_our_roles_where_a_plain_selector_confirms_it(account):
    element = record(account, "button", "Cancel")  # no test id: its role selector comes first
    assert element.selectors[0] == 'role=button[name="Cancel"s]'
    hits = light_hits(account, element)
    assert hits[0] == inspect(account.locator(element.selectors[0]))  # as Playwright sees it
    # confirmed by a recorded plain selector (its text, by XPath), which Playwright reads
    # as the browser does
    assert hits[0].kept.confirmed_by == 'xpath=//button[normalize-space()="Cancel"]'
    assert hits[0].kept.confirmed_by in element.selectors
    resolution = resolve(account, element, wait_ms=0)
    assert resolution.heal is None and resolution.kept == hits[0].kept._replace(key=ANY)
    assert is_truth(resolution.locator)


def items(*numbers: int) -> str:
    """A table of items, each row with its key, a link to open it and a Delete button."""
    return "<table><tbody>" + "".join(
        f"<tr><td>Item {n}</td><td><a href='#{n}'>Open item {n}</a></td>"
        f"<td><button>Delete</button></td></tr>" for n in numbers
    ) + "</tbody></table>"  # fmt: skip


def test_a_link_named_by_its_text_is_confirmed_by_its_text_where_the_rows_moved(page):
    """A role selector is read by our roles only where a plain selector confirms it: the
    link's own text, by XPath, still does once the rows above it went, where the paths
    find the next row's link."""
    page.set_content(items(*range(1, 31)))
    element = record(page, "link", "Open item 20")
    assert element.selectors[0] == 'role=link[name="Open item 20"s]'
    page.evaluate("document.querySelector('tr').remove()")
    hits = light_hits(page, element)
    assert hits[0] is not None
    assert hits[0].kept.confirmed_by == 'xpath=//a[normalize-space()="Open item 20"]'
    resolution = resolve(page, element, wait_ms=0)
    assert resolution.heal is None and is_truth(resolution.locator)


def test_a_row_look_alike_is_found_first_by_its_rows_key_in_the_browsers_own_xpath(page):
    """One of a table's look-alike buttons is recorded first by its row's key and its
    place in the row, as XPath: rows removed or sorted, it is the same button, found with
    no heal and no Playwright engine; the paths then find another row's button."""
    page.set_content(items(*range(1, 31)))
    element = record(page, "button", "Delete", index=19)
    assert element.selectors[0] == 'xpath=//tr[.//*[normalize-space()="Item 20"]]/td[3]/button[1]'
    page.set_content(items(30, 29, *range(1, 11), *range(12, 29)))  # another order, one gone
    page.locator("tr", has_text="Item 20").get_by_role("button").evaluate(
        "el => { window.__truth = el; }")  # fmt: skip
    assert light_hits(page, element)[0].count == 1
    assert not is_truth(page.locator(element.selectors[1]))  # the CSS path: another row's
    resolution = resolve(page, element, wait_ms=0)
    assert resolution.heal is None and is_truth(resolution.locator)


def test_a_look_at_the_first_selector_alone_reads_it_only_where_it_finds_its_element(account):
    """A look at the first selector alone (as a replayed step's first look is) holds its
    one element, its role selector confirmed; where it finds none, several (twins) or none
    confirmed, every selector is read, as a look at all of them reads them."""
    element = record(account, "button", "Cancel")
    assert element.selectors[0] == 'role=button[name="Cancel"s]'
    alone, every = light_hits(account, element, first=True), light_hits(account, element)
    assert len(alone) == 1 < len(every)
    assert alone[0] == every[0] and alone[0].stand_in == every[0].stand_in == ""
    assert alone[0].kept.confirmed_by == every[0].kept.confirmed_by != ""
    account.evaluate("""() => document.querySelector("#news").insertAdjacentHTML(
        "beforeend", '<button aria-label="Cancel">×</button>')""")
    alone, every = light_hits(account, element, first=True), light_hits(account, element)
    assert alone[0] is None and len(alone) == len(every) == len(element.selectors)
    assert [hit and hit.count for hit in alone] == [hit and hit.count for hit in every]


def test_a_role_selector_our_roles_find_twice_is_left_to_playwright(account):
    element = record(account, "button", "Cancel")
    # A twin named by its label: our roles and Playwright's engine both count two.
    account.evaluate("""() => document.querySelector("#news").insertAdjacentHTML(
        "beforeend", '<button aria-label="Cancel">×</button>')""")
    assert light_hits(account, element)[0] is None
    resolution = resolve(account, element, wait_ms=0)
    assert resolution.heal.strategy == "locator"  # the first selector hits two: healed, said
    assert resolution.heal.before == element.selectors[0]
    assert is_truth(resolution.locator)


def test_the_one_trip_lookup_counts_look_alikes_and_misses(account):
    element = record(account, "button", "Log in")
    shared = RecordedElement(
        selectors=["button", "#no-such-element", "xpath=//button"],
        frame_path=[],
        fingerprint=element.fingerprint,
    )
    counts = [hit.count for hit in light_hits(account, shared)]
    assert counts == [account.locator("button").count(), 0, account.locator("button").count()]
    assert counts[0] > 1


def test_a_plain_selector_on_a_page_with_shadow_roots_is_counted_by_playwright(account):
    element = record(account, "button", "Log in")
    # A look-alike with the same test id inside a shadow root: the browser's
    # querySelectorAll does not see it, Playwright's CSS does.
    account.evaluate("""() => {
        const host = document.createElement("div");
        host.attachShadow({ mode: "open" }).innerHTML =
            '<button data-testid="login-button">Log in</button>';
        document.querySelector("#news").append(host);
    }""")
    assert account.locator(element.selectors[0]).count() == 2
    assert light_hits(account, element)[0] is None
    resolution = resolve(account, element, wait_ms=0)
    assert resolution.locator.count() == 1 and is_truth(resolution.locator)


def test_namesakes_are_read_in_one_look_as_each_alone_reads_them(page: Page, pages_server):
    page.goto(pages_server.url("shop.html"))
    outline = snapshot(page)
    buttons = [ref for ref in outline.elements.values() if ref.name == "Add to cart"]
    assert len(buttons) >= 3
    own, others = buttons[1], [ref for ref in buttons if ref != buttons[1]]
    seen = {(i.context, i.fingerprint.containers) for i in namesakes(page, outline, own)}
    alone = {(i.context, i.fingerprint.containers) for i in map(partial(looked_at, page), others)}
    assert seen == alone
    assert looked_at(page, own).context not in {context for context, _ in seen}


def test_a_heals_candidates_are_read_in_one_look_as_each_alone_reads_them(page: Page, pages_server):
    page.goto(pages_server.url("shop.html"))
    outline = snapshot(page)
    refs = list(outline.elements.values())
    assert len(refs) >= 5
    together = [(i.context, i.fingerprint.containers) for i in looked_at_all(page, refs)]
    alone = [(i.context, i.fingerprint.containers) for i in map(partial(looked_at, page), refs)]
    assert together == alone


def test_a_real_pages_candidates_keep_the_glyphs_beside_their_names_in_one_look(page: Page, real):
    """Ant Design's pager and table draw a glyph beside a name (the pager's "Next Page":
    right, a column's filter), which a snapshot leaves to a look at one element: the one
    look at a heal's candidates reads it as each look alone does."""
    page.goto(real.url("pages/antd.html"))
    page.get_by_role("listitem", name="Next Page").wait_for()
    refs = list(snapshot(page).elements.values())
    together = [i.fingerprint for i in looked_at_all(page, refs)]
    assert together == [i.fingerprint for i in map(partial(looked_at, page), refs)]
    assert ("Next Page", "right") in {(fp.name, fp.attributes.get("icon")) for fp in together}


# --- a row's look-alikes in a real grid: found by the row's key after rows moved ----------

PROMOTE_JOHNSON = "click Promote in the row of Katherine Johnson"


def real_grid(page: Page, real) -> None:
    """AG Grid's page, its rows shown."""
    page.goto(real.url("pages/ag-grid.html"))
    page.get_by_role("gridcell", name="Portland").wait_for()


def promote_johnson_recorded(page: Page, real, scripted_model, store, test_file) -> None:
    """Katherine Johnson's Promote, recorded on AG Grid's page as it loads; then the page
    loaded again, for the test to change before its replay."""
    real_grid(page, real)
    scripted_model.enqueue(choose("button", "Promote", after='gridcell "Mathematician"'))
    with recorded_ai_page(page, scripted_model, store, test_file, "auto") as ai:
        ai.act(PROMOTE_JOHNSON)
    expect(page.locator("#chosen")).to_have_text("Promoted: Katherine Johnson")
    real_grid(page, real)


def test_a_button_of_a_real_grids_row_is_found_by_its_rows_key_after_a_row_above_went(
    page: Page, real, scripted_model, store, tmp_path
):
    """AG Grid's own Promote buttons, one per row: recorded in Katherine Johnson's row,
    replayed offline after the grid's API removed the first row. Every path now finds the
    next person's button, refused by its row's key (the name, in the row's pinned part);
    the heal finds hers by the same key."""
    test_file = tmp_path / "test_grid.py"
    promote_johnson_recorded(page, real, scripted_model, store, test_file)
    page.evaluate("gridApi.applyTransaction({remove: [gridApi.getDisplayedRowAtIndex(0).data]})")
    expect(page.get_by_role("gridcell", name="Engineer")).to_have_count(0)
    asked = scripted_model.calls
    with recorded_ai_page(page, scripted_model, store, test_file, "offline") as ai:
        ai.act(PROMOTE_JOHNSON)
        [event] = ai.steplog.events
    expect(page.locator("#chosen")).to_have_text("Promoted: Katherine Johnson")
    assert scripted_model.calls == asked
    assert event.heal is not None and event.heal.strategy == "fingerprint"


def test_a_button_of_a_real_grids_row_whose_key_changed_is_refused(
    page: Page, real, scripted_model, store, tmp_path
):
    """The same row, cells and button, but the grid's API renamed the person it is for:
    its key, in the row's pinned part, says it is another row."""
    test_file = tmp_path / "test_grid.py"
    promote_johnson_recorded(page, real, scripted_model, store, test_file)
    page.evaluate("gridApi.getDisplayedRowAtIndex(3).setDataValue('name', 'Katherine Kelly')")
    expect(page.get_by_role("gridcell", name="Katherine Kelly")).to_have_count(1)
    renamed = "gone from row 'Katherine Johnson'; it remains only in row 'Katherine Kelly'"
    with (
        recorded_ai_page(page, scripted_model, store, test_file, "offline") as ai,
        pytest.raises(HealFailed, match=renamed),
    ):
        ai.act(PROMOTE_JOHNSON)
    expect(page.locator("#chosen")).to_have_text("No row chosen")
