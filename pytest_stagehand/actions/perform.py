"""Performing an action (action.py) on the page, with Playwright's own actionability checks.

An `Action` names its element by a replayable selector, never by a snapshot id, so an
Action from `observe`, from an `ActResult` or from a recording runs as it is. As in
Playwright, an action does not wait a fixed window for the page to react:
`settle.finish_started` waits only for the navigation or requests the action started;
`settle.settle`, the one wait for a page to calm down, runs before the next step reads the
page (or after an action, when a step asks for it). Where the control's own drawing
covers it (its label, a styled box), a stand-in is clicked as a person would (direct.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import replace

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page

from pytest_stagehand.actions.action import Action, substitute
from pytest_stagehand.actions.direct import (
    MOVING,
    PLAIN_QUERY,
    SCROLL,
    SHOWN,
    STAND_IN,
    click_directly,
    fill_directly,
    is_plain,
    through_selector,
)
from pytest_stagehand.actions.settle import PAGE_CHANGES_STATE, POLL_MS, SETTLE_CAP_S
from pytest_stagehand.browser.dialogs import DIALOG_METHODS
from pytest_stagehand.browser.files import upload
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import ElementCovered
from pytest_stagehand.snapshot.element import frame_scope

COVERED = re.compile(r"-\s+(.+?)\s+intercepts pointer events")


class NotPerformed(Exception):
    """Playwright could not perform the action on its element (other than a cover, which
    is ElementCovered): the step heals, asks the model again, or fails with `reason`."""

    def __init__(self, action: Action, error: PlaywrightError) -> None:
        super().__init__(str(error))
        self.action = action
        self.error = error
        self.reason = str(error).splitlines()[0]


def _covered(page: Page, action: Action, error: PlaywrightError) -> ElementCovered | None:
    """The error to raise when Playwright's actionability log says another element kept
    covering this one (a banner, a modal): the element is right, so no heal can help."""
    found = COVERED.findall(str(error))
    if not found:
        return None
    return ElementCovered(
        f"Could not {action.method} {action.element or action.description} on {page.url}: "
        f"{found[-1]} covers it (it intercepts pointer events), and still did when the "
        "step's timeout ran out. Close or dismiss it first (e.g. act(\"accept the cookie "
        "banner\")), or wait for it to go."
    )


def perform(
    watch: PageWatch, action: Action, values: Mapping[str, str] = {},
    timeout: float | None = None,
) -> Action:
    """Do `action` with Playwright (which waits until the element can take it), as a
    person would: a control its own drawing covers is clicked through what stands for it
    (`_click_as_a_person`), and a checkbox's outcome is verified even if it is redrawn.

    Returns the action as performed: with `via` naming the stand-in when one was clicked,
    so the recording and the report say so.
    `timeout` in milliseconds, per Playwright call; None means the page's default.
    Raises ElementCovered where another element kept covering it (the element is right:
    no heal helps), else NotPerformed for Playwright's error, which each pipeline tells
    in its own words (ActionFailed).
    """
    try:
        return _perform(watch, action, values, timeout)
    except PlaywrightError as exc:
        raise (_covered(watch.page, action, exc) or NotPerformed(action, exc)) from None


def _perform(
    watch: PageWatch, action: Action, values: Mapping[str, str], timeout: float | None
) -> Action:
    page = watch.page
    args = [substitute(argument, values) for argument in action.arguments]
    method = action.method
    if action.selector is None:
        if method == "press":
            page.keyboard.press(args[0])
        elif method in DIALOG_METHODS:
            watch.dialogs.answer(method, args[0] if args else None)
        elif method == "switch_tab":
            watch.tabs.switch(args[0])
        else:
            page.evaluate(f"amount => ({SCROLL})(null, amount)", args[0])
        return action
    via, opens = action.via, None  # unless the action says otherwise (a dialog may cut it short)
    with watch.dialogs.may_open():  # a dialog the action opens is held for the next step
        via, opens = _perform_on_element(watch, action, args, timeout)
    # What stood in, and the element itself, are looked up afresh next time.
    return replace(action, via=via, stand_in=None, kept=None, opens=opens)


def _perform_on_element(
    watch: PageWatch, action: Action, args: list[str], timeout: float | None
) -> tuple[str, int | None]:
    """Do an element's action; returns what stood in for the element ("" for itself),
    and the pages it asked to open where it read that itself (a direct click or fill)."""
    page, method = watch.page, action.method
    if action.point is None:  # an element that is ready now: done without Playwright
        clicked = method == "click" and not action.stand_in
        if clicked and (opens := click_directly(watch, action)) is not None:
            return "", opens
        if method == "fill" and (opens := fill_directly(page, action, args[0])) is not None:
            return "", opens
    target = through_selector(page, action)
    if action.point is None and method in POINTER:
        _wait_shown(target, timeout)
    via, opens = "", None
    if action.point is not None:  # where no element of its own is: the point itself
        at = {"x": action.point.x, "y": action.point.y}
        if method == "double_click":
            target.dblclick(position=at, timeout=timeout)
        elif method == "hover":
            target.hover(position=at, timeout=timeout)
        else:
            target.click(position=at, timeout=timeout)
    elif method == "click":
        stand_in = action.stand_in if action.stand_in is not None else _stand_in(page, action)
        via = _click_as_a_person(target, timeout, stand_in, recorded=action.via)
    elif method == "double_click":
        target.dblclick(timeout=timeout)
    elif method == "right_click":
        target.click(button="right", timeout=timeout)
    elif method == "upload":
        upload(page, target, args, timeout)
    elif method == "fill":
        target.fill(args[0], timeout=timeout)
    elif method == "type":
        target.press_sequentially(args[0], timeout=timeout)
    elif method == "press":
        target.press(args[0], timeout=timeout)
    elif method == "select_option":
        target.select_option(args, timeout=timeout)
    elif method in ("check", "uncheck"):
        via = _set_checked(page, target, method == "check", timeout)
    elif method == "hover":
        target.hover(timeout=timeout)
    elif method == "scroll":
        target.evaluate(SCROLL, args[0], timeout=timeout)
    elif method == "drag_and_drop":
        target.drag_to(frame_scope(page, action.frame_path).locator(args[0]), timeout=timeout)
    else:
        raise ValueError(f"unknown method {method!r}")
    return via, opens


POINTER = ("click", "double_click", "right_click", "hover", "check", "uncheck")
# Resolves at once where the element is SHOWN; else once it is, and no longer MOVING (its
# appear transition has run), or after `ms`.
WAIT_SHOWN = script(
    __package__, "wait_shown", SHOWN=SHOWN, MOVING=MOVING, POLL_MS=str(POLL_MS),
    PAGE_CHANGES_STATE=PAGE_CHANGES_STATE,
)


def _wait_shown(target: Locator, timeout: float | None) -> None:
    """Where a fully transparent container hides the element (SHOWN), wait, at most as long
    as a settle, until it is drawn: Playwright would press a menu item whose menu has not
    begun to appear, and the menu's own transition then takes the release away from it, so
    that the click reaches nothing; or press it as the menu grows in, and miss. A container
    that stays transparent is Playwright's to act in, as before."""
    target.evaluate(WAIT_SHOWN, SETTLE_CAP_S * 1000, timeout=timeout)


STAND_IN_BY_SELECTOR = script(
    __package__,
    "stand_in_by_selector",
    PLAIN_QUERY=PLAIN_QUERY,
    STAND_IN=STAND_IN,
)
CHECKED_WAIT_MS = 1000  # how long a click's effect on a checkbox may take to show


def _stand_in(page: Page, action: Action) -> str | None:
    """STAND_IN for the element of `action` through the browser's own query, as a raw
    click pays for no selector engine in the page's world; None where Playwright must
    find the element."""
    if action.frame_path or action.selector is None or not is_plain(action.selector):
        return None
    return page.evaluate(STAND_IN_BY_SELECTOR, action.selector)


def _click_as_a_person(
    target: Locator,
    timeout: float | None,
    stand_in: str | None = None,
    verified: bool = False,
    recorded: str = "",
) -> str:
    """Click the element as Playwright clicks it, or, where its own drawing covers it (a
    styled checkbox under its slider), the control that stands for it: its label, which
    the browser forwards the click from, else the part of its own wrapper over it. That
    part takes a forced click only where the outcome is `verified` (a check) or where the
    recording names that very part (`recorded`, the recorded `via`): never on a guess. Any
    other cover is Playwright's to wait for and name. `stand_in`, when already known,
    saves looking again. Returns what stood in for the element ("" for itself)."""
    if stand_in is None:
        stand_in = target.evaluate(STAND_IN, timeout=timeout)
    kind, _, detail = stand_in.partition(":")
    if kind == "point":
        via = f"<{detail}> over it in its own wrapper"
        if not verified and via != recorded:
            target.click(timeout=timeout)  # Playwright waits for it and names the cover
            return ""
        target.click(force=True, timeout=timeout)  # the mouse, at its centre: what covers it
        return via
    if kind == "label":
        index, _, point = detail.partition(":")
        x, _, y = point.partition(",")
        label = target.evaluate_handle(f"el => el.labels[{int(index)}]").as_element()
        text = " ".join(label.inner_text().split())
        label.click(position={"x": float(x), "y": float(y)}, timeout=timeout)
        return f'label "{text}"' if text else "its label"
    target.click(timeout=timeout)
    return ""


def _set_checked(page: Page, target: Locator, wanted: bool, timeout: float | None) -> str:
    """Check or uncheck like a person, and verify the outcome, not the old element: an app
    that redraws the control on change (a new generated id) has still done what was asked.
    Returns what stood in for the element, as `_click_as_a_person` does."""
    if target.is_checked(timeout=timeout) == wanted:
        return ""
    via = _click_as_a_person(target, timeout, verified=True)
    deadline = time.monotonic() + CHECKED_WAIT_MS / 1000
    while target.count() == 1 and target.is_checked() != wanted:
        if time.monotonic() >= deadline:
            raise PlaywrightError(
                f"clicking did not {'check' if wanted else 'uncheck'} the element"
            )
        page.wait_for_timeout(POLL_MS)
    return via


