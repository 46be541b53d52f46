"""Acting on an element directly in the page, in one round trip, where Playwright's own
action would cost several, and only when the element is the one verified."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.settle import (
    PAGE_CHANGES_STATE,
    POLL_MS,
    SETTLE_CAP_S,
)
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.browser.tabs import TAKE_OPENS
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.snapshot.element import KEPT

# Is the page at rest: no change since it was last known to be (PAGE_CHANGES's `calm`)?

# A selector in Playwright's own syntax: an engine prefix ("role=", "internal:label=",
# "text="), a chain (">>"), or an XPath or text selector written without its prefix.
PLAYWRIGHT_SYNTAX = re.compile(r'^[\w+:*-]+=|>>|^(//|\.\.|"|\')')


# True when the document has no open shadow root, which Playwright's CSS would look into.
NO_SHADOW_ROOTS = script(__package__, "no_shadow_roots")


# The elements a selector hits in the page's own world, found with the browser's
# querySelectorAll or document.evaluate ("xpath=..."): no Playwright selector engine is
# injected into the page for it. null where only Playwright can tell: its CSS extensions
# (which querySelectorAll rejects), and CSS on a page with shadow roots, which Playwright's
# CSS looks into and querySelectorAll does not. `lightOnly` (NO_SHADOW_ROOTS) may be one
# that remembers its answer, for a script that queries several selectors at once.
PLAIN_QUERY = script(__package__, "plain_query", NO_SHADOW_ROOTS=NO_SHADOW_ROOTS)


def is_plain(selector: str) -> bool:
    """Can `PLAIN_QUERY` find what `selector` hits (plain CSS, or "xpath=...")?"""
    return selector.startswith("xpath=") or not PLAYWRIGHT_SYNTAX.search(selector)


# What takes a click in the element's place, as Playwright's hit-target check tells: ""
# when the element itself (or, for a part of a button or link, that control) is what a
# pointer at its centre reaches, or when what reaches it is no part of the control (a
# banner, a coach mark, a backdrop, a click-outside layer: Playwright then waits and names
# it, and `covered` says so). Else the control covers itself with its own drawing, and
# what stands for it is "label:<i>:<x>,<y>" (its i-th <label>, at a point of it where the
# label itself, not a link in it, takes the click: over the element where the label covers
# it, else its centre), or "point:<what>" (the part of its own wrapper over it, within the
# wrapper's box, a wrapper holding nothing else: no text, no other control).
# A transparent control on top of its label is clicked itself, as Playwright clicks it.
STAND_IN = script(__package__, "stand_in")

AT_REST = script(__package__, "at_rest", PAGE_CHANGES_STATE=PAGE_CHANGES_STATE)


# The page's changes so far, all delivered (PAGE_CHANGES); null if a page script took the
# watch away.
CHANGES_NOW = script(__package__, "changes_now", PAGE_CHANGES_STATE=PAGE_CHANGES_STATE)


# Puts the page at rest at `changes` (PAGE_CHANGES's `calm`), or at its changes so far.
CALM_AT = script(
    __package__,
    "calm_at",
    PAGE_CHANGES_STATE=PAGE_CHANGES_STATE,
    CHANGES_NOW=CHANGES_NOW,
)


# False while a container around the element is fully transparent (opacity 0): a panel
# not drawn yet, such as a menu whose appear transition has not begun, which a person
# cannot see and which may still change under a press (its start state shrinks it away
# before the release). Playwright counts it visible; a control transparent itself, drawn
# by what lies under it (a styled checkbox's input), is shown.
SHOWN = script(__package__, "shown")


# True while an animation runs on the element or on an element around it.
MOVING = script(__package__, "moving")


# Does a click's or a fill's first part on the one element found, when Playwright's
# actionability checks would pass right now and it is SHOWN: visible, enabled, not MOVING.
# A fill: a text field, not read-only, focused with its text selected, and the new text
# inserted as typing inserts it (a trusted input event); returns [the pages it asked to
# open] (TAKE_OPENS). A click: scrolled into view (unless
# `stay`: then only where it is in view already), the element itself is what a pointer at
# its centre reaches (no stand-in, nothing over it), and a guard is set as Playwright's
# hit-target check sets one: if the click's first pointer event reaches something else,
# that click is stopped ("missed"). The guard also notes a navigation the click asks for.
# Returns the point to click.
# null whenever Playwright must act, and wait, itself.
DIRECT = script(
    __package__,
    "direct",
    PAGE_CHANGES_STATE=PAGE_CHANGES_STATE,
    AT_REST=AT_REST,
    CALM_AT=CALM_AT,
    TAKE_OPENS=TAKE_OPENS,
    STAND_IN=STAND_IN,
    CHANGES_NOW=CHANGES_NOW,
    SHOWN=SHOWN,
    MOVING=MOVING,
)


# What the guard saw: [verdict, whether the click asked for another document in this
# window (not a download), the pages it asked to open (TAKE_OPENS)]; null when the document
# was replaced meanwhile (the click navigated). A form the click submitted navigates a
# moment later (the browser queues it): its submit event says it will.
READ_GUARD = script(__package__, "read_guard", CALM_AT=CALM_AT, TAKE_OPENS=TAKE_OPENS)


# The element a look kept (snapshot.KEEP; kept: [key, index]), while it is in the document.
KEPT_ELEMENT = script(__package__, "kept_element", KEPT=KEPT)


# DIRECT on the element the step's look kept, else on what the browser's own query finds
# for the selector ("": none); false where only Playwright can find the element. What
# was kept is let go once acted on.
DIRECT_BY_QUERY = script(
    __package__,
    "direct_by_query",
    KEPT_ELEMENT=KEPT_ELEMENT,
    DIRECT=DIRECT,
    KEPT=KEPT,
    PLAIN_QUERY=PLAIN_QUERY,
)
# DIRECT_BY_QUERY as a document holds it (page_scripts; heal.watch_documents gives it to
# each new document): an action sends this alone.
DIRECT_CALL = "(direct, arg) => direct(arg)"


def _ready(page: Page, action: Action, text: str = "") -> list[float] | None:
    """DIRECT for the action's element: the one its look verified, kept in the page, else
    found with the browser's own query where it can tell (`PLAIN_QUERY`), else with
    Playwright's selector engine (which does not wait: the step has just looked the
    element up); None where Playwright must act itself (an element in a frame, a page
    that is not ready)."""
    if action.frame_path or action.selector is None:
        return None
    how = [action.method, text]
    try:
        if action.kept or is_plain(action.selector):
            plain = action.selector if is_plain(action.selector) else ""
            arg = [plain, how, action.kept]
            done = page_scripts.call(page, [DIRECT_BY_QUERY], DIRECT_CALL, arg)
            if done is not False:
                return done
        return action.locator(page).evaluate_all(DIRECT, how)
    except PlaywrightError:
        return None


# False when the selector finds one element and it is not the one the look kept, which
# is still in the document.
NOT_ANOTHER = script(__package__, "not_another", KEPT_ELEMENT=KEPT_ELEMENT)


def through_selector(page: Page, action: Action) -> Locator:
    """The locator Playwright acts through (it waits for its element, and refuses several).
    Where our own role query found the element (`Kept.confirmed_by`), Playwright's engine
    first looks: our roles and names agree with its own, and a page where they do not,
    so that the selector finds another element while the verified one is there, is no
    place to act. Raises HealFailed, with nothing done, when it finds another."""
    target = action.locator(page)
    if action.kept is None or not action.kept.confirmed_by:
        return target
    with suppress(PlaywrightError):  # a navigation: Playwright's own action says what now
        if not target.evaluate_all(NOT_ANOTHER, action.kept):
            raise HealFailed(
                f"The recorded {action.element or 'element'} was verified, but Playwright "
                f"finds another element through {action.selector}: not acted on."
            )
    return target


def fill_directly(page: Page, action: Action, text: str) -> int | None:
    """Fill a text field that is ready as Playwright's fill does (focus, select its text,
    insert the new one), without its selector engine and waits, in one round trip.
    Returns the pages the fill asked to open; None, with nothing typed, if not ready."""
    if not text:
        return None
    done = _ready(page, action, text)
    return None if done is None else int(done[0])


def click_directly(watch: PageWatch, action: Action) -> int | None:
    """Click an element that is ready at the point DIRECT checked, guarded, and wait for a
    navigation the click asked for, as Playwright's click does. Returns the pages the
    click asked to open; None, with nothing done, where Playwright must click (not ready,
    or the guard stopped a click that missed).
    A click the step's look readied (`Kept.point`) goes at once; where the page moved
    under it since, its guard stops it, and the element is readied again."""
    page = watch.page
    since = time.monotonic()
    readied = action.kept.point if action.kept else None
    seen = _guarded_click(page, readied) if readied else None
    if not readied or (seen is not None and seen[0] != "hit"):
        point = _ready(page, action)
        if not point:
            return None
        seen = _guarded_click(page, point)
    opens = 0  # unless the guard was read: a document that went took its count with it
    if seen is not None:
        verdict, navigating, opens = seen
        if verdict != "hit":
            return None
        if not navigating:
            return int(opens)
    deadline = since + SETTLE_CAP_S
    while watch.navigated < since and time.monotonic() < deadline and not page.is_closed():
        with _unless_the_click_closed_it(page):
            watch.next_navigation(POLL_MS)
    return int(opens)


@contextmanager
def _unless_the_click_closed_it(page: Page) -> Iterator[None]:
    """A popup's "Allow" may close its window on the press or the release, and Playwright
    may tell of the close late: a call the close cut short is no error, as the element was
    ready at the point a moment before, and the click was made. On a page still open, the
    error is raised."""
    try:
        yield
    except PlaywrightError:
        if not page.is_closed():
            raise


def _guarded_click(page: Page, point: Sequence[float]) -> list | None:
    """The mouse's click at `point`, and what its guard saw (READ_GUARD); None where the
    document went (a navigation, or the page closed)."""
    with _unless_the_click_closed_it(page):
        page.mouse.click(point[0], point[1])
    try:
        return page.evaluate(READ_GUARD)
    except PlaywrightError:
        return None  # the document is going: the click navigated


# Scrolls the element (or the nearest scrollable box around it; the page for null) by a
# number of pixels, or to a fraction of its scroll range ("50%").
SCROLL = script(__package__, "scroll")
