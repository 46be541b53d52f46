"""Benchmark: a recorded element gone, a look-alike of another name left beside it.

Run: .venv/bin/python bench/bench_near_names.py

Each case is a pair of controls of one role whose names are alike but mean different
things ("Send to Alice" and "Send to Alicia", "Older posts" and "Newer posts", "Pay now"
and "Pay later"). The first is recorded as the act pipeline records it, then removed; the
second stays. Any element a replay acts on then is wrong: the only right outcome is a
refusal (HealFailed). Each pair is played in a card of its own (with a heading) and in a
flat toolbar of all the pairs (nothing around an element to go by).

Three replays of the same recording, side by side:
- ours: `heal.resolve`, as a replay does;
- without rivals: the same, with the recording's `rivals` (the names of the elements most
  like it when it was recorded) dropped, as recordings made before them were;
- blind: the recorded absolute XPath acted on unchecked, as Stagehand's cached act does.

A second table plays the step that names what it is about ("remove the Backpack") on a
page whose only card is then replaced by another, alike in every word but that one
("Bike Light"): ours, the same heal with the named-words rule switched off, and blind.

A third table plays each control replaced in its place by another name after it was
recorded (so the recording has no rival of that name): the pairs above with the step
"click <name>", a set of 30 steps in their own words ("pause the video", "ship to home"),
toggles that kept their test id and now say another state ("Pause" became "Play"), and
controls reworded under a kept test id ("Submit" became "Send"): offline, another name is
the model's call, so any element acted on is wrong there too. Beside them, 8 respellings
(same words: case, spaces, punctuation, words run together) must still heal. Ours, the
same heal without the rule that a name keeps its words (`meaning.spelling_of` switched off), and
blind.

A fourth table plays icon-only buttons (no name: the icon says what they do) replaced in
their place by another icon, in image, sprite, icon-font and markup-named forms, and the
same icon in a restyled button, which must heal: ours, the same heal without the icon
rule (`meaning._same_icon` switched off), and blind. Its pairs were written after the rule,
with four icon libraries it did not read then (Ionicons, Phosphor, Feather, Lucide);
reading them came after.

The pairs come in two sets: those written before `rivals` existed (the probe that found
wrong heals among them), and a held-out set written afterwards, before it was run (it
found "Pause" healed onto "Resume", which led to the neighbours among the rivals).
"""

from __future__ import annotations

import time
from collections import Counter
from unittest.mock import patch

from playwright.sync_api import Page, sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.heal import meaning as heal
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.heal.resolve import resolve
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import snapshot

FIRST = [
    ("button", "Increase quantity", "Decrease quantity"),
    ("button", "Log in", "Log out"),
    ("button", "Accept all cookies", "Reject all cookies"),
    ("button", "Next", "Previous"),
    ("button", "Yes", "No"),
    ("button", "Pay $10.00", "Pay $100.00"),
    ("button", "Approve", "Disapprove"),
    ("button", "Lock", "Unlock"),
    ("button", "Mute", "Unmute"),
    ("button", "Upload", "Download"),
    ("button", "Import", "Export"),
    ("button", "Sign up", "Sign out"),
    ("button", "Select all", "Deselect all"),
    ("checkbox", "Include VAT", "Exclude VAT"),
    ("button", "Max", "Min"),
    ("checkbox", "Keep me signed in", "Don't keep me signed in"),
    ("button", "Transfer 100 EUR", "Transfer 1,000 EUR"),
    ("link", "Open item 3", "Open item 33"),
    ("button", "Delete row 7", "Delete row 17"),
    ("link", "Page 2", "Page 12"),
    ("button", "Save draft", "Discard draft"),
    ("button", "Allow notifications", "Block notifications"),
    ("button", "Show password", "Hide password"),
    ("button", "Expand all", "Collapse all"),
    ("button", "Pin", "Unpin"),
    ("button", "Star", "Unstar"),
    ("radio", "Private", "Public"),
    ("button", "Enable sync", "Disable sync"),
    ("button", "Add to cart", "Remove from cart"),
    ("button", "Start", "Stop"),
    ("button", "Buy 1", "Buy 10"),
    ("button", "Send to Alice", "Send to Alicia"),
    ("button", "Delete", "Undelete"),
    ("button", "Confirm", "Cancel"),
    ("button", "Zoom in", "Zoom out"),
    ("link", "Older posts", "Newer posts"),
    ("button", "Move up", "Move down"),
    ("button", "Refund $5", "Refund $50"),
    ("button", "Grant admin", "Revoke admin"),
    ("button", "Visible", "Invisible"),
    ("radio", "Monthly", "Yearly"),
    ("button", "Open", "Reopen"),
    ("button", "2 adults", "12 adults"),
    ("button", "Apply discount", "Remove discount"),
    ("checkbox", "I agree", "I disagree"),
]
HELD_OUT = [
    ("button", "Reply", "Reply all"),
    ("button", "Pause", "Resume"),
    ("button", "Copy", "Copy link"),
    ("button", "Edit", "Audit"),
    ("button", "Merge", "Unmerge"),
    ("button", "Assign to me", "Assign to team"),
    ("button", "Send now", "Send later"),
    ("button", "Check in", "Check out"),
    ("button", "Mark as read", "Mark as unread"),
    ("button", "Pay now", "Pay later"),
    ("button", "Save", "Save as"),
    ("button", "Sort ascending", "Sort descending"),
    ("button", "Move to trash", "Move to spam"),
    ("button", "Lock screen", "Unlock screen"),
    ("button", "Hide row", "Hide rows"),
    ("button", "Rate 4 stars", "Rate 5 stars"),
    ("button", "Go live", "Go offline"),
    ("button", "Join call", "Join audio"),
    ("button", "Invite Bob", "Invite Rob"),
    ("button", "Approve PR 12", "Approve PR 21"),
    ("button", "Turn on", "Turn off"),
    ("button", "Clear filter", "Clear filters"),
    ("button", "Load more", "Load less"),
    ("button", "Publish", "Unpublish"),
    ("button", "Restart", "Restore"),
    ("button", "Add note", "Add notes"),
    ("button", "Top up £10", "Top up £100"),
    ("button", "Call Jon", "Call Jan"),
    ("button", "Share", "Shared"),
    ("link", "Link account", "Unlink account"),
]
SETS = {"written before": FIRST, "held out": HELD_OUT}
LAYOUTS = ("cards", "toolbar")
# (the step, the title of the only card when recorded, the title of the card there now)
REPLACED = [
    ("remove the Backpack", "Backpack", "Bike Light"),
    ("delete Alice Smith's account", "Alice Smith", "Alicia Smith"),
    ("cancel Jon's order", "Order for Jon", "Order for Jan"),
    ("delete Project Apollo", "Project Apollo", "Project Artemis"),
    ("unsubscribe from the Weekly digest", "Weekly digest", "Daily digest"),
    ("leave the Marketing team", "Marketing team", "Sales team"),
    ("refund Maria's payment", "Payment from Maria", "Payment from Mario"),
    ("remove the Red Hoodie", "Red Hoodie", "Blue Hoodie"),
    ("close the Berlin office", "Berlin office", "Bern office"),
    ("delete the draft to Priya", "Draft to Priya", "Draft to Priyanka"),
]
# (role, recorded name, the name in its place now, the step), written before the rule on
# the step's words was run on them. Its state and opposite words were added afterwards.
IN_PLACE = [
    ("button", "Archive", "Archived", "archive the thread"),
    ("button", "Like", "Liked", "like the post"),
    ("button", "Connect", "Connected", "connect the printer"),
    ("button", "Download PDF", "Download CSV", "download the PDF"),
    ("button", "Ship to home", "Ship to store", "ship to home"),
    ("button", "Pay with card", "Pay with PayPal", "pay with card"),
    ("link", "Men", "Women", "open the Men section"),
    ("button", "Approve", "Approved", "approve the request"),
    ("button", "Retry", "Retrying", "retry the upload"),
    ("button", "Call Mom", "Call Tom", "call Mom"),
    ("radio", "Express delivery", "Standard delivery", "choose express delivery"),
    ("checkbox", "Gift wrap", "Gift card", "add gift wrap"),
    ("button", "Print label", "Print invoice", "print the label"),
    ("button", "Watch trailer", "Watch movie", "watch the trailer"),
    ("button", "Save to favorites", "Save to cart", "save it to favorites"),
    ("button", "Sign", "Design", "sign the contract"),
    ("button", "Resend code", "Send code", "resend the code"),
    ("button", "Translate", "Translated", "translate the page"),
    ("link", "Monday", "Sunday", "open Monday"),
    ("button", "Dark mode", "Light mode", "switch to dark mode"),
    ("button", "Reply to Ann", "Reply to Anna", "reply to Ann"),
    ("button", "Forward", "Backward", "forward the email"),
    ("button", "Report bug", "Report abuse", "report a bug"),
    ("button", "Follow topic", "Follow author", "follow the topic"),
    ("button", "Accept invite", "Accept offer", "accept the invite"),
    ("button", "Kick", "Pick", "kick the player"),
    ("button", "Shuffle", "Shuffled", "shuffle the playlist"),
    ("button", "Install", "Installed", "install the app"),
    ("button", "Claim reward", "Claim refund", "claim the reward"),
    ("button", "Add to wishlist", "Add to cart", "add it to the wishlist"),
]
# Toggles that kept their test id: the name now says another state.
TOGGLES = [
    ("button", "Pause", "Play", "pause the video"),
    ("button", "Subscribe", "Subscribed", "subscribe to the channel"),
    ("button", "Mute", "Unmute", "mute the sound"),
    ("button", "Follow", "Following", "follow Ada"),
    ("button", "Show details", "Hide details", "show the details"),
    ("button", "Expand", "Collapse", "expand the section"),
]
# (role, recorded name, name now, the step, test id kept or ""): the same control reworded,
# which offline is the model's call (a synonym), never a heal's.
REWORDED = [
    ("button", "Continue", "Continue to payment", "continue", "continue"),
    ("button", "Search", "Search products", "search", "search"),
    ("button", "Submit", "Send", "submit the form", "submit-button"),
    ("button", "Next", "Next step", "go to the next step", "next"),
    ("button", "Save", "Save changes", "save the settings", "save"),
    ("button", "Create account", "Register", 'click "Create account"', "signup-submit"),
    ("button", "Log in", "Sign in", "click the log in button", "login-button"),
]
# The same words respelled: the same control, to heal.
RESPELLED = [
    ("button", "Sign up", "Signup", "sign up", ""),
    ("button", "Add to cart", "Add To Cart", "add the hoodie to the cart", ""),
    ("button", "Log out", "Logout", "log out", "logout"),
    ("button", "Check out", "Checkout", "check out", ""),
    ("button", "E-mail me", "Email me", "email me", "notify"),
    ("link", "Help Center", "Help center", "open the help center", ""),
    ("button", "Save", "SAVE", "save the settings", "save"),
    ("button", "Log in", "Log in →", "click the log in button", "login-button"),
]

# Icon-only buttons (no name; the icon says what they do), each replaced in its place by
# another icon. Written after the icon rule, with libraries it was not written for
# (Ionicons, Phosphor, Feather, Lucide): those show what it does not read.
ICON_PAIRS = [
    ('<svg width="16" height="16"><use href="/sprite.svg#icon-edit"/></svg>',
     '<svg width="16" height="16"><use href="/sprite.svg#icon-delete"/></svg>'),
    ('<img src="/img/download.png" width="16" height="16" alt="">',
     '<img src="/img/upload.png" width="16" height="16" alt="">'),
    ('<span class="glyph" style="background-image: url(/i/star.svg)"></span>',
     '<span class="glyph" style="background-image: url(/i/star-outline.svg)"></span>'),
    ('<i class="fa-solid fa-thumbs-up"></i>', '<i class="fa-solid fa-thumbs-down"></i>'),
    ('<i class="bi bi-volume-up"></i>', '<i class="bi bi-volume-mute"></i>'),
    ('<span class="mdi mdi-eye"></span>', '<span class="mdi mdi-eye-off"></span>'),
    ('<span class="glyphicon glyphicon-plus"></span>',
     '<span class="glyphicon glyphicon-minus"></span>'),
    ('<span data-icon="expand"></span>', '<span data-icon="collapse"></span>'),
    ('<span class="icon-next"></span>', '<span class="icon-prev"></span>'),
    ('<span class="material-symbols-outlined">visibility</span>',
     '<span class="material-symbols-outlined">visibility_off</span>'),
    ('<ion-icon name="heart"></ion-icon>', '<ion-icon name="heart-outline"></ion-icon>'),
    ('<i class="ph ph-bell"></i>', '<i class="ph ph-bell-slash"></i>'),
    ('<i data-feather="trash-2"></i>', '<i data-feather="archive"></i>'),
    ('<i data-lucide="copy"></i>', '<i data-lucide="clipboard"></i>'),
    # drawn inline, no glyph named (written with the rule for such icons)
    ('<svg viewBox="0 0 24 24"><path d="M12 5v14M5 12h14"/></svg>',
     '<svg viewBox="0 0 24 24"><path d="M5 12h14"/></svg>'),
]  # fmt: skip
# The same icon, the button around it restyled: must heal.
ICON_FAIR = [
    ('<i class="fa fa-trash"></i>', '<span class="tools"><i class="fa fa-fw fa-trash"></i></span>'),
    ('<svg width="16" height="16"><use href="/sprite.svg#icon-edit"/></svg>',
     '<svg class="sm" width="16" height="16"><use href="/sprite.svg?v=2#icon-edit"/></svg>'),
    ('<img src="/img/download.png?v=1" width="16" height="16" alt="">',
     '<img src="/img/download.png?v=2" width="16" height="16" alt="">'),
    ('<i class="bi bi-gear"></i>', '<i class="bi bi-gear" aria-hidden="true"></i>'),
    ('<svg viewBox="0 0 24 24"><path d="M12 5v14M5 12h14"/></svg>',
     '<svg class="size-6" width="24" viewBox="0 0 24 24"><path d="M12 5v14M5 12h14"/></svg>'),
]  # fmt: skip

CARD = (
    '<main><h1>Your items</h1><section class="card"><h2>{title}</h2>'
    "<p>Added last week by the team, shared with everyone in the workspace.</p>"
    '<button class="btn danger" type="button">Delete</button></section></main>'
)


def control(role: str, name: str, i: int) -> str:
    if role == "button":
        return f'<button class="btn action" type="button">{name}</button>'
    if role == "link":
        return f'<a class="link" href="/go/{i}">{name}</a>'
    return f'<label class="option"><input type="{role}" name="choice-{i}"> {name}</label>'


def page_html(pairs: list[tuple[str, str, str]], layout: str) -> str:
    if layout == "cards":
        blocks = [
            f'<section class="card" aria-label="Case {i}"><h2>Settings {i}</h2>'
            f"{control(role, a, i)} {control(role, b, i)}</section>"
            for i, (role, a, b) in enumerate(pairs)
        ]
    else:
        blocks = [
            f'<div class="toolbar">{control(role, a, i)}{control(role, b, i)}</div>'
            for i, (role, a, b) in enumerate(pairs)
        ]
    return f"<!doctype html><meta charset=utf-8><main>{''.join(blocks)}</main>"


REMOVE = "() => (window.__truth.closest('label') || window.__truth).remove()"
ACTED_ON = "el => (el.closest('label') || el).textContent.trim()"
ICON_ACTED_ON = "el => el.innerHTML.trim()"  # an icon-only button has no text


def play(page: Page, html: str, role: str, name: str) -> dict[str, str]:
    """Record `name`, remove it, and say what each replay acted on ("" for a refusal)."""
    page.set_content(html)
    page_snapshot = snapshot(page)
    (ref,) = [r for r in page_snapshot.elements.values() if (r.role, r.name) == (role, name)]
    ref.locator(page).evaluate("el => { window.__truth = el; }")
    element = recorded_element(page, page_snapshot, ref)
    page.evaluate(REMOVE)
    return {
        "ours": _healed(page, element),
        "without rivals": _healed(page, element.model_copy(update={"rivals": []})),
        "blind": _blind(page, element),
    }


def play_replaced(page: Page, instruction: str, title: str, now: str) -> dict[str, str]:
    """Record the Delete of the only card, replace the card, and say what each replay
    acted on ("" for a refusal)."""
    page.set_content(CARD.format(title=title))
    page_snapshot = snapshot(page)
    (ref,) = [r for r in page_snapshot.elements.values() if r.name == "Delete"]
    element = recorded_element(page, page_snapshot, ref)
    page.set_content(CARD.format(title=now))
    acted = {"ours": _healed(page, element, instruction)}
    with patch.object(heal, "named_words", lambda recorded: frozenset()):
        acted["without named words"] = _healed(page, element, instruction)
    acted["blind"] = _blind(page, element)
    return acted


def in_place(role: str, name: str, test_id: str, layout: str) -> str:
    """The control (with its test id, if any) and a Help button, in a card or a toolbar."""
    marked = control(role, name, 0)
    if test_id:
        marked = marked.replace(" class=", f' data-testid="{test_id}" class=', 1)
    help_button = '<button class="btn" type="button">Help</button>'
    block = (
        f'<section class="card"><h2>Settings</h2>{marked} {help_button}</section>'
        if layout == "cards"
        else f'<div class="toolbar">{marked}{help_button}</div>'
    )
    return f"<!doctype html><meta charset=utf-8><main>{block}</main>"


def play_in_place(page: Page, case: tuple[str, str, str, str, str], layout: str) -> dict[str, str]:
    """Record the control alone, put the other name in its place, and say what each replay
    acted on ("" for a refusal)."""
    role, name, now, instruction, test_id = case
    page.set_content(in_place(role, name, test_id, layout))
    page_snapshot = snapshot(page)
    (ref,) = [r for r in page_snapshot.elements.values() if (r.role, r.name) == (role, name)]
    element = recorded_element(page, page_snapshot, ref)
    page.set_content(in_place(role, now, test_id, layout))
    acted = {"ours": _healed(page, element, instruction)}
    with patch.object(heal, "spelling_of", lambda text: ""):
        acted["without the name rule"] = _healed(page, element, instruction)
    acted["blind"] = _blind(page, element)
    return acted


def icon_button(inner: str, layout: str, restyled: bool = False) -> str:
    cls = "button-v2 sm" if restyled else "btn icon-only"
    help_button = '<button class="btn">Help</button>'
    block = f'<button class="{cls}" type="button">{inner}</button> {help_button}'
    if layout == "cards":
        return f'<!doctype html><main><section class="card"><h2>Post</h2>{block}</section></main>'
    return f'<!doctype html><main><div class="toolbar">{block}</div></main>'


def play_icon(page: Page, recorded: str, now: str, layout: str, fair: bool) -> dict[str, str]:
    """Record the icon-only button, put `now` in its place, and say what each replay
    acted on ("" for a refusal)."""
    page.set_content(icon_button(recorded, layout))
    page_snapshot = snapshot(page)
    (ref,) = [r for r in page_snapshot.elements.values() if r.role == "button" and r.name != "Help"]
    element = recorded_element(page, page_snapshot, ref)
    page.set_content(icon_button(now, layout, restyled=fair))
    acted = {"ours": _healed(page, element, "click the icon", ICON_ACTED_ON)}
    with patch.object(heal, "_same_icon", lambda recorded, live: True):
        acted["without the icon rule"] = _healed(page, element, "click the icon", ICON_ACTED_ON)
    acted["blind"] = _blind(page, element, ICON_ACTED_ON)
    return acted


def _healed(
    page: Page, element: RecordedElement, instruction: str = "", acted_on: str = ACTED_ON
) -> str:
    try:
        resolution = resolve(page, element, wait_ms=0, instruction=instruction)
        return resolution.locator.evaluate(acted_on)
    except HealFailed:
        return ""


def _blind(page: Page, element: RecordedElement, acted_on: str = ACTED_ON) -> str:
    (xpath,) = [selector for selector in element.selectors if selector.startswith("xpath=")]
    hits = page.locator(xpath)
    return hits.first.evaluate(acted_on) if hits.count() else ""


def _print_acted(
    replays: tuple[str, ...], acted: dict[tuple[str, str], Counter[str]], sets: dict[str, list]
) -> None:
    """One row per case set and layout: how many elements each replay acted on."""
    print(f"{'cases':<20} {'layout':<8} {'n':>4} │ " + " ".join(f"{name:>24}" for name in replays))
    for (set_name, layout), counts in acted.items():
        cells = " ".join(f"{counts[name]:>24}" for name in replays)
        print(f"{set_name:<20} {layout:<8} {len(sets[set_name]):>4} │ {cells}")


def main() -> None:
    begin = time.perf_counter()
    launch_options = find_chromium().launch_options()
    wrong: dict[tuple[str, str], Counter[str]] = {}
    examples: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options)
        page = browser.new_page()
        for set_name, pairs in SETS.items():
            for layout in LAYOUTS:
                html = page_html(pairs, layout)
                counts = wrong[(set_name, layout)] = Counter()
                for role, name, _ in pairs:
                    for replay, acted_on in play(page, html, role, name).items():
                        counts[replay] += bool(acted_on)
                        if acted_on and replay == "ours":
                            examples.append(f"  ours, {layout}: {name!r} -> {acted_on!r}")
        replaced = Counter()
        for instruction, title, now in REPLACED:
            for replay, acted_on in play_replaced(page, instruction, title, now).items():
                replaced[replay] += bool(acted_on)
                if acted_on and replay == "ours":
                    examples.append(f"  ours, only card: {instruction!r} -> {now!r}")
        in_place_sets = {
            "the pairs above": [
                (role, a, b, f"{'check' if role == 'checkbox' else 'click'} {a}", "")
                for pairs in SETS.values()
                for role, a, b in pairs
            ],
            "steps in own words": [(*case, "") for case in IN_PLACE],
            "toggles, test id": [(*case, "toggle") for case in TOGGLES],
            "reworded, test id": REWORDED,
            "respelled": RESPELLED,
        }
        acted_in_place: dict[tuple[str, str], Counter[str]] = {}
        for set_name, cases in in_place_sets.items():
            for layout in LAYOUTS:
                counts = acted_in_place[(set_name, layout)] = Counter()
                for case in cases:
                    for replay, acted_on in play_in_place(page, case, layout).items():
                        counts[replay] += bool(acted_on)
                        wrong_here = bool(acted_on) != (set_name == "respelled")
                        if wrong_here and replay == "ours":
                            outcome = repr(acted_on) if acted_on else "refused"
                            examples.append(f"  ours, in place ({set_name}, {layout}): "
                                            f"{case[1]!r} -> {outcome}")  # fmt: skip
        acted_icons: dict[tuple[str, str], Counter[str]] = {}
        icon_sets = (("another icon", ICON_PAIRS), ("same icon, restyled", ICON_FAIR))
        for set_name, icon_cases in icon_sets:
            for layout in LAYOUTS:
                counts = acted_icons[(set_name, layout)] = Counter()
                for recorded, now in icon_cases:
                    fair = set_name != "another icon"
                    for replay, acted_on in play_icon(page, recorded, now, layout, fair).items():
                        counts[replay] += bool(acted_on)
                        if bool(acted_on) != fair and replay == "ours":
                            outcome = "acted on " + now if acted_on else "refused"
                            examples.append(f"  ours, icon ({layout}): {recorded} -> {outcome}")
        browser.close()
    replays = ("ours", "without rivals", "blind")
    header = f"{'pairs':<16} {'layout':<8} {'cases':>5} │ " + " ".join(
        f"{name + ' wrong':>20}" for name in replays
    )
    print(header)
    print("─" * len(header))
    for (set_name, layout), counts in wrong.items():
        cases = len(SETS[set_name])
        cells = " ".join(f"{counts[name]:>20}" for name in replays)
        print(f"{set_name:<16} {layout:<8} {cases:>5} │ {cells}")
    total = sum(len(pairs) for pairs in SETS.values()) * len(LAYOUTS)
    sums = " ".join(f"{sum(c[name] for c in wrong.values()):>20}" for name in replays)
    print("─" * len(header))
    print(f"{'all':<16} {'':<8} {total:>5} │ {sums}")
    others = ("ours", "without named words", "blind")
    print(f"\nthe only card replaced ({len(REPLACED)} steps): " + ", ".join(
        f"{name} wrong {replaced[name]}" for name in others
    ))
    print("\nreplaced in its place after it was recorded: elements acted on (wrong, but for"
          " the respelled, where a refusal is the miss)")  # fmt: skip
    _print_acted(("ours", "without the name rule", "blind"), acted_in_place, in_place_sets)
    print("\nicon-only buttons, another icon put in their place (any element acted on is wrong),"
          " and the same icon restyled (a refusal is the miss): elements acted on")  # fmt: skip
    _print_acted(("ours", "without the icon rule", "blind"), acted_icons, dict(icon_sets))
    if examples:
        print("\nwrong elements acted on by ours:\n" + "\n".join(examples))
    print(f"\nA wrong case is any element acted on: the recorded one was removed or replaced. "
          f"{time.perf_counter() - begin:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
