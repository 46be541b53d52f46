"""Actions: what one step does to the page, in a form that replays without a model.

An `Action` names its element by a replayable selector (frame path + selector, with the
alternatives and fingerprint the cache records), never by a snapshot id, so an Action
from `observe`, from an `ActResult` or from a recording runs as it is. `perform` carries
it out with Playwright's own actionability checks. As in Playwright, an action does not
wait a fixed window for the page to react: `finish_started` waits only for the navigation
or requests the action started; `settle`, the one wait for a page to calm down, runs
before the next step reads the page (or after an action, when a step asks for it).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from weakref import WeakKeyDictionary

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Locator, Page, Request
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.covering import OVERLAY_ID
from pytest_stagehand.browser.dialogs import DIALOG_METHODS, answer_dialog, blocked, may_open
from pytest_stagehand.browser.files import SavedDownload, upload
from pytest_stagehand.browser.tabs import TAKE_OPENS, switch_tab
from pytest_stagehand.calls import CallUsage
from pytest_stagehand.errors import ElementCovered, HealFailed
from pytest_stagehand.events import CacheStatus
from pytest_stagehand.model.inference import ChoiceProblem
from pytest_stagehand.model.usage import UsageTotals
from pytest_stagehand.prompts.texts import Method
from pytest_stagehand.recordings.format import RecordedPoint
from pytest_stagehand.snapshot.outline import (
    KEPT,
    ElementRef,
    Fingerprint,
    Kept,
    Snapshot,
    describer,
    frame_scope,
)

PAGE_METHODS: frozenset[str] = frozenset({"press", "scroll", "switch_tab"} | DIALOG_METHODS)
EDITABLE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
CHECKABLE_ROLES = frozenset(
    {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"}
)
ONE_ARGUMENT = {
    "fill": "the text",
    "type": "the text",
    "press": "the key",
    "scroll": "the amount",
    "switch_tab": "the title or URL of the tab",
}
SCROLL_AMOUNT = re.compile(r"^-?\d+(\.\d+)?(px|%)?$")
VARIABLE = re.compile(r"%(\w+)%")


@dataclass(frozen=True)
class Action:
    """One thing done to the page: a method, its arguments and the element it acts on.

    `arguments` keep %name% placeholders; values are put in only when performing.
    `selector` None means the page itself (press, scroll). For drag_and_drop the first
    argument is the selector of the drop target, in the same frame.
    """

    method: Method
    arguments: tuple[str, ...] = ()
    description: str = ""
    selector: str | None = None
    frame_path: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()  # other selectors for the same element, best first
    fingerprint: Fingerprint | None = field(default=None, repr=False, compare=False)
    element: str | None = None  # e.g. 'button "Log in"', for people reading reports
    # The text around the element, and the words of it its look-alikes lack: what tells
    # one "Add to cart" from the others when the step is replayed (see heal.py).
    context: str = field(default="", repr=False, compare=False)
    distinct: str = field(default="", repr=False, compare=False)
    rivals: tuple[str, ...] = field(default=(), repr=False, compare=False)  # see heal.rivals_of
    # The labels of its containers its look-alikes lack (see heal.apart_from).
    apart: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)
    # What a person's click went to in the element's place, when it was covered or
    # invisible: 'label "Dark mode"', or the visible part of its own wrapper (see `perform`).
    via: str = field(default="", compare=False)
    # A point on the element to act at instead of its centre (a bar of a canvas chart),
    # with the look of the region around it that replay checks first (vision.py).
    point: RecordedPoint | None = None
    # What stood in for the element when it was looked up just before acting (STAND_IN),
    # which saves a click looking again; None: not looked up.
    stand_in: str | None = field(default=None, repr=False, compare=False)
    # Where the page keeps the element as that look found and verified it (snapshot.KEEP),
    # which saves finding it again; None: not kept.
    kept: Kept | None = field(default=None, repr=False, compare=False)
    # How many pages the action asked to open, where it read that itself as it acted (a
    # direct click or fill), which saves the step asking the page; None: not read.
    opens: int | None = field(default=None, repr=False, compare=False)

    def locator(self, page: Page) -> Locator:
        """The element in `page` (through its frames). Only for element actions."""
        if self.selector is None:
            raise ValueError(f"{self.method} acts on the page, not on an element")
        return frame_scope(page, self.frame_path).locator(self.selector)


@dataclass(frozen=True)
class ActResult:
    """What `act` did: the actions performed (replayable), and what the model calls cost.

    A result is only returned on success: a step that fails raises a typed error.
    """

    success: bool
    message: str
    actions: list[Action]
    usage: UsageTotals = field(default_factory=UsageTotals)
    cache: CacheStatus = "none"
    # The files the step downloaded, each copied to a local file (`.path()`).
    downloads: list[SavedDownload] = field(default_factory=list)

    @classmethod
    def of(
        cls, actions: list[Action], calls: list[CallUsage], cache: CacheStatus
    ) -> ActResult:
        usage = UsageTotals()
        for call in calls:
            usage.add(call)
        message = "; then ".join(f"{a.method} {a.description}" for a in actions)
        return cls(True, message, actions, usage, cache)


def element_id(raw: str) -> str:
    """Tolerate "[e12]" and " e12 " for the id "e12"."""
    return raw.strip().strip("[]").strip()


def action_for(
    snapshot: Snapshot,
    element: str | None,
    method: Method,
    arguments: list[str],
    description: str,
    allowed: frozenset[str] | None = None,
) -> Action:
    """The Action a model's choice means, or ChoiceProblem saying why it cannot be done.

    `allowed` limits the ids the model may choose (the options that appeared after a
    dropdown opened, the part of a large page it was shown).
    """
    count = ONE_ARGUMENT.get(method)
    if count and len(arguments) != 1:
        raise ChoiceProblem(f"{method} takes exactly one argument, {count}.")
    if method == "select_option" and not arguments:
        raise ChoiceProblem("select_option needs the label of the option to choose.")
    if method == "accept_dialog" and len(arguments) > 1:
        raise ChoiceProblem("accept_dialog takes at most one argument, the text for a prompt.")
    if method == "upload" and (not arguments or not all(VARIABLE.fullmatch(a) for a in arguments)):
        raise ChoiceProblem('upload takes the files as variables, one each, e.g. ["%resume%"].')
    if method == "scroll" and not SCROLL_AMOUNT.match(arguments[0].strip()):
        raise ChoiceProblem(
            f'scroll takes pixels ("400", "-400") or a fraction ("50%"), not {arguments[0]!r}.'
        )
    if method in PAGE_METHODS - {"press", "scroll"}:
        element = None  # a dialog or a tab: no element of the page, whatever the model says
    if element is None:
        if method not in PAGE_METHODS:
            raise ChoiceProblem(f"{method} needs an element_id.")
        return Action(method, tuple(arguments), description or f"{method} on the page")
    ref = _ref(snapshot, element, allowed)
    _check_method(ref, method)
    if method == "drag_and_drop":
        arguments = [_drop_target(snapshot, ref, arguments, allowed)]
    return from_ref(ref, method, arguments, description)


def from_ref(
    ref: ElementRef, method: Method, arguments: Sequence[str] = (), description: str = ""
) -> Action:
    """An Action on a snapshot element, carrying everything needed to replay and record it."""
    return Action(
        method=method,
        arguments=tuple(arguments),
        description=description or _label(ref),
        selector=ref.selector,
        frame_path=ref.frame_path,
        candidates=ref.candidates,
        fingerprint=ref.fingerprint,
        element=_label(ref),
    )


def _label(ref: ElementRef) -> str:
    return f'{ref.role} "{ref.name}"' if ref.name else ref.role


def _ref(snapshot: Snapshot, element: str, allowed: frozenset[str] | None) -> ElementRef:
    key = element_id(element)
    if key not in snapshot.elements or (allowed is not None and key not in allowed):
        where = "among the elements shown" if allowed is not None else "in the snapshot"
        raise ChoiceProblem(f"there is no element {element!r} {where}.")
    return snapshot.elements[key]


def _check_method(ref: ElementRef, method: Method) -> None:
    label = _label(ref)
    native_select = ref.fingerprint.tag == "select"
    editable = ref.role in EDITABLE_ROLES or ref.states.get("editable")
    if method in ("fill", "type") and (native_select or not editable):
        raise ChoiceProblem(f"{label} is not a text field, so it cannot take {method}.")
    if method in ("check", "uncheck") and ref.role not in CHECKABLE_ROLES:
        raise ChoiceProblem(f"{label} is not a checkbox, radio button or switch.")
    if method == "uncheck" and ref.role in ("radio", "menuitemradio"):
        raise ChoiceProblem(f"{label} is a radio button: check another option instead.")
    if method == "select_option" and not native_select:
        raise ChoiceProblem(
            f"{label} is not a native <select>. For a custom dropdown, click the element "
            "that opens it with two_step true."
        )


def _drop_target(
    snapshot: Snapshot, ref: ElementRef, arguments: list[str], allowed: frozenset[str] | None
) -> str:
    if len(arguments) != 1:
        raise ChoiceProblem("drag_and_drop takes one argument, the id of the drop target.")
    target = _ref(snapshot, arguments[0], allowed)
    if target.frame_path != ref.frame_path:
        raise ChoiceProblem("drag_and_drop works only within one frame.")
    return target.selector


# --- performing ------------------------------------------------------------------------


COVERED = re.compile(r"-\s+(.+?)\s+intercepts pointer events")


def covered(page: Page, action: Action, error: PlaywrightError) -> ElementCovered | None:
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


def substitute(text: str, values: Mapping[str, str]) -> str:
    """Put variable values in for their %name% placeholders; unknown names stay as written."""
    return VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def perform(
    page: Page, action: Action, values: Mapping[str, str] = {}, timeout: float | None = None
) -> Action:
    """Do `action` with Playwright (which waits until the element can take it), as a
    person would: a control its own drawing covers is clicked through what stands for it
    (`_click_as_a_person`), and a checkbox's outcome is verified even if it is redrawn.

    Returns the action as performed: with `via` naming the stand-in when one was clicked,
    so the recording and the report say so.
    `timeout` in milliseconds, per Playwright call; None means the page's default.
    Raises Playwright's errors; the pipelines turn them into ActionFailed.
    """
    args = [substitute(argument, values) for argument in action.arguments]
    method = action.method
    if action.selector is None:
        if method == "press":
            page.keyboard.press(args[0])
        elif method in DIALOG_METHODS:
            answer_dialog(page, method, args[0] if args else None)
        elif method == "switch_tab":
            switch_tab(page, args[0])
        else:
            page.evaluate(f"amount => ({SCROLL})(null, amount)", args[0])
        return action
    via, opens = action.via, None  # unless the action says otherwise (a dialog may cut it short)
    with may_open(page):  # a dialog the action opens is held for the next step
        via, opens = _perform_on_element(page, action, args, timeout)
    # What stood in, and the element itself, are looked up afresh next time.
    return replace(action, via=via, stand_in=None, kept=None, opens=opens)


def _perform_on_element(
    page: Page, action: Action, args: list[str], timeout: float | None
) -> tuple[str, int | None]:
    """Do an element's action; returns what stood in for the element ("" for itself),
    and the pages it asked to open where it read that itself (a direct click or fill)."""
    method = action.method
    if action.point is None:  # an element that is ready now: done without Playwright
        clicked = method == "click" and not action.stand_in
        if clicked and (opens := _click_directly(page, action)) is not None:
            return "", opens
        if method == "fill" and (opens := _fill_directly(page, action, args[0])) is not None:
            return "", opens
    target = _through_selector(page, action)
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


# A selector in Playwright's own syntax: an engine prefix ("role=", "internal:label=",
# "text="), a chain (">>"), or an XPath or text selector written without its prefix.
PLAYWRIGHT_SYNTAX = re.compile(r'^[\w+:*-]+=|>>|^(//|\.\.|"|\')')

# True when the document has no open shadow root, which Playwright's CSS would look into.
NO_SHADOW_ROOTS = """() => {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  while (walker.nextNode()) if (walker.currentNode.shadowRoot) return false;
  return true;
}"""

# The elements a selector hits in the page's own world, found with the browser's
# querySelectorAll or document.evaluate ("xpath=..."): no Playwright selector engine is
# injected into the page for it. null where only Playwright can tell: its CSS extensions
# (which querySelectorAll rejects), and CSS on a page with shadow roots, which Playwright's
# CSS looks into and querySelectorAll does not. `lightOnly` (NO_SHADOW_ROOTS) may be one
# that remembers its answer, for a script that queries several selectors at once.
PLAIN_QUERY = f"""(selector, lightOnly = {NO_SHADOW_ROOTS}) => {{
  try {{
    if (selector.startsWith("xpath=")) {{
      const result = document.evaluate(
        selector.slice(6), document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      const found = [];
      for (let i = 0; i < result.snapshotLength; i++) {{
        const node = result.snapshotItem(i);
        if (node.nodeType === Node.ELEMENT_NODE) found.push(node);
      }}
      return found;
    }}
    const found = document.querySelectorAll(selector);
    return lightOnly() ? found : null;
  }} catch {{
    return null;
  }}
}}"""


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
STAND_IN = """el => {
  const box = el.getBoundingClientRect();
  if (!box.width || !box.height) return "";
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return "";
  const up = (e) => e.assignedSlot || e.parentElement || e.getRootNode().host || null;
  const within = (e, of) => { for (; e; e = up(e)) if (e === of) return true; return false; };
  const plain = !el.matches("input, textarea, select") && !el.isContentEditable;
  const target = (plain && el.closest("button, [role=button], a, [role=link]")) || el;
  const hit = el.getRootNode().elementFromPoint(x, y);
  if (!hit || within(hit, target)) return "";
  const control = "a[href], button, input, select, textarea, [role=button], [role=link], "
    + "[role=checkbox], [role=switch], [role=radio], dialog, [role=dialog], [aria-modal=true]";
  if (hit.closest(control)) return "";
  const labels = [...(el.labels || [])];
  const wrapper = el.parentElement;
  const ownWrapper = () => {
    if (!wrapper || wrapper === document.body || wrapper === document.documentElement) return false;
    if (!wrapper.contains(hit)) return false;
    const inLabel = (node) => labels.some((l) => l.contains(node));
    const others = [...wrapper.querySelectorAll(control)].filter((c) => c !== el && !inLabel(c));
    if (others.length) return false;
    const walker = document.createTreeWalker(wrapper, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (t.data.trim() && !inLabel(t)) return false;
    }
    return true;
  };
  const over = labels.findIndex((l) => l.contains(hit));
  if (over < 0 && !ownWrapper()) return "";
  // The label at the point where the label itself takes the click, never a link in it.
  const at = (i, px, py) => {
    const b = labels[i].getBoundingClientRect();
    const there = labels[i].getRootNode().elementFromPoint(px, py);
    const ok = there && labels[i].contains(there) && !there.closest(control);
    return ok ? `label:${i}:${Math.round(px - b.left)},${Math.round(py - b.top)}` : "";
  };
  if (over >= 0) return at(over, x, y);
  const shown = labels.findIndex((l) => l.checkVisibility() && l.getBoundingClientRect().width > 0);
  if (shown >= 0) {
    const b = labels[shown].getBoundingClientRect();
    return at(shown, b.left + b.width / 2, b.top + b.height / 2);
  }
  const part = hit.getBoundingClientRect(), whole = wrapper.getBoundingClientRect();
  const inside = part.left >= whole.left - 1 && part.top >= whole.top - 1
    && part.right <= whole.right + 1 && part.bottom <= whole.bottom + 1;
  if (!inside) return "";
  const words = (hit.className && typeof hit.className === "string" ? hit.className : "")
    .split(/\\s+/).filter(Boolean).slice(0, 2);
  return `point:${[hit.localName, ...words].join(".")}`;
}"""
STAND_IN_BY_SELECTOR = f"""(selector) => {{
  const found = ({PLAIN_QUERY})(selector);
  return found && found.length === 1 ? ({STAND_IN})(found[0]) : null;
}}"""
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


# --- acting directly ---------------------------------------------------------------------

PAGE_CHANGES_STATE = "window.__stagehandDomQuiet"  # PAGE_CHANGES, once a settle set it up
# Is the page at rest: no change since it was last known to be (PAGE_CHANGES's `calm`)?
AT_REST = f"""() => {{
  const state = {PAGE_CHANGES_STATE};
  if (!state) return false;
  state.take();
  return state.changes === state.calm;
}}"""
# The page's changes so far, all delivered (PAGE_CHANGES); null if a page script took the
# watch away.
CHANGES_NOW = f"""() => {{
  const state = {PAGE_CHANGES_STATE};
  if (!state) return null;
  state.take();
  return state.changes;
}}"""
# Puts the page at rest at `changes` (PAGE_CHANGES's `calm`), or at its changes so far.
CALM_AT = f"""(changes) => {{
  const state = {PAGE_CHANGES_STATE};
  if (state) state.calm = changes ?? ({CHANGES_NOW})();
}}"""


# Does a click's or a fill's first part on the one element found, when Playwright's
# actionability checks would pass right now: visible, enabled, not moving (no running
# animation on it or around it). A fill: a text field, not read-only, focused with its
# text selected, and the new text inserted as typing inserts it (a trusted input event);
# returns [the pages it asked to open] (TAKE_OPENS). A click: scrolled into view (unless
# `stay`: then only where it is in view already), the element itself is what a pointer at
# its centre reaches (no stand-in, nothing over it), and a guard is set as Playwright's
# hit-target check sets one: if the click's first pointer event reaches something else,
# that click is stopped ("missed"). The guard also notes a navigation the click asks for.
# Returns the point to click.
# null whenever Playwright must act, and wait, itself.
DIRECT = f"""(found, [method, text, stay = false]) => {{
  if (!found || found.length !== 1) return null;
  const el = found[0];
  const visible = el.checkVisibility({{ visibilityProperty: true }});
  if (!visible || el.matches(":disabled") || el.closest("[aria-disabled=true]")) {{
    return null;
  }}
  const moving = document.getAnimations().some((animation) => animation.playState === "running"
    && animation.effect && animation.effect.target instanceof Element
    && animation.effect.target.contains(el));
  if (moving) return null;
  if (method === "fill") {{
    const typed = ["email", "password", "search", "tel", "text", "url"];
    const field = el.localName === "textarea"
      || (el.localName === "input" && typed.includes(el.type));
    if (!field || el.readOnly) return null;
    const calm = ({AT_REST})();
    el.focus();
    el.select();
    if (document.activeElement !== el) return null;
    if (!document.execCommand("insertText", false, text)) return null;
    // On a page at rest, what the fill changed as it typed is its own: the page is at
    // rest again (a settle waits for what it started after: timers, requests).
    if (calm) ({CALM_AT})(null);
    return [({TAKE_OPENS})()];
  }}
  const centre = () => {{
    const box = el.getClientRects()[0];
    if (!box || !box.width || !box.height) return null;
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    return x >= 0 && y >= 0 && x < innerWidth && y < innerHeight ? [x, y] : null;
  }};
  let point = centre();
  if (!point && !stay) {{
    el.scrollIntoView({{ block: "center", inline: "center", behavior: "instant" }});
    point = centre();
  }}
  if (!point || ({STAND_IN})(el) !== "") return null;
  const hit = el.getRootNode().elementFromPoint(point[0], point[1]);
  if (!hit || !el.contains(hit)) return null;
  const key = Symbol.for("pytest-stagehand.guard");
  if (window[key]) window[key].stop();
  const guard = {{ verdict: "", navigation: null, submit: null, calm: false }};
  const pointer = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
  const watch = (event) => {{
    if (!event.isTrusted) return;
    if (!guard.verdict) {{
      guard.verdict = event.composedPath().includes(el) ? "hit" : "missed";
      guard.calm = ({AT_REST})();  // the page was at rest as the click began
    }}
    if (guard.verdict === "missed") {{
      event.preventDefault();
      event.stopImmediatePropagation();
    }}
    if (event.type === "click") {{
      unwatch();
      // On a page at rest, what the click changes as it is handled (its listeners, a
      // form's submit) is its own: counted in the first task after it, ahead of any timer
      // its listeners set (READ_GUARD puts the page at rest there).
      const own = () => {{ guard.own = ({CHANGES_NOW})(); }};
      if (guard.calm && guard.verdict === "hit") setTimeout(own);
    }}
  }};
  const navigated = (event) => {{ guard.navigation ||= event; }};
  const submitted = (event) => {{ guard.submit ||= event; }};
  const unwatch = () => {{ for (const type of pointer) removeEventListener(type, watch, true); }};
  guard.stop = () => {{
    unwatch();
    removeEventListener("submit", submitted, true);
    if (window.navigation) navigation.removeEventListener("navigate", navigated);
    clearTimeout(timer);
  }};
  const timer = setTimeout(guard.stop, 5000);
  for (const type of pointer) addEventListener(type, watch, true);
  addEventListener("submit", submitted, true);
  if (window.navigation) navigation.addEventListener("navigate", navigated);
  window[key] = guard;
  return point;
}}"""
# What the guard saw: [verdict, whether the click asked for another document in this
# window (not a download), the pages it asked to open (TAKE_OPENS)]; null when the document
# was replaced meanwhile (the click navigated). A form the click submitted navigates a
# moment later (the browser queues it): its submit event says it will.
READ_GUARD = f"""() => {{
  const key = Symbol.for("pytest-stagehand.guard");
  const guard = window[key];
  if (!guard) return null;
  delete window[key];
  guard.stop();
  if (guard.verdict === "hit" && guard.calm) ({CALM_AT})(guard.own);
  const opens = ({TAKE_OPENS})();
  const asked = guard.navigation;
  if (asked) {{
    const away = !asked.destination.sameDocument && asked.downloadRequest === null;
    return [guard.verdict, away && !asked.defaultPrevented, opens];
  }}
  const submit = guard.submit;
  if (!submit || submit.defaultPrevented) return [guard.verdict, false, opens];
  const by = submit.submitter;
  const form = submit.target;
  const target = (by && by.getAttribute("formtarget")) || form.getAttribute("target") || "";
  const method = (by && by.getAttribute("formmethod")) || form.getAttribute("method") || "";
  const here = ["", "_self", "_parent", "_top"].includes(target.toLowerCase());
  return [guard.verdict, here && method.toLowerCase() !== "dialog", opens];
}}"""


# The element a look kept (snapshot.KEEP; kept: [key, index]), while it is in the document.
KEPT_ELEMENT = f"""(kept) => {{
  const held = {KEPT};
  const el = kept && held && held.key === kept[0] ? held.elements[kept[1]] : null;
  return el && el.isConnected ? el : null;
}}"""

# DIRECT on the element the step's look kept, else on what the browser's own query finds
# for the selector ("": none); false where only Playwright can find the element. What
# was kept is let go once acted on.
DIRECT_BY_QUERY = f"""([selector, how, kept]) => {{
  const el = ({KEPT_ELEMENT})(kept);
  if (el) {{
    const done = ({DIRECT})([el], how);
    if (done) delete {KEPT};
    return done;
  }}
  const found = selector ? ({PLAIN_QUERY})(selector) : null;
  return found === null ? false : ({DIRECT})(found, how);
}}"""


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
            done = page.evaluate(DIRECT_BY_QUERY, [plain, how, action.kept])
            if done is not False:
                return done
        return action.locator(page).evaluate_all(DIRECT, how)
    except PlaywrightError:
        return None


# False when the selector finds one element and it is not the one the look kept, which
# is still in the document.
NOT_ANOTHER = f"""(found, kept) => {{
  const el = ({KEPT_ELEMENT})(kept);
  return !el || found.length !== 1 || found[0] === el;
}}"""


def _through_selector(page: Page, action: Action) -> Locator:
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


def _fill_directly(page: Page, action: Action, text: str) -> int | None:
    """Fill a text field that is ready as Playwright's fill does (focus, select its text,
    insert the new one), without its selector engine and waits, in one round trip.
    Returns the pages the fill asked to open; None, with nothing typed, if not ready."""
    if not text:
        return None
    done = _ready(page, action, text)
    return None if done is None else int(done[0])


def _click_directly(page: Page, action: Action) -> int | None:
    """Click an element that is ready at the point DIRECT checked, guarded, and wait for a
    navigation the click asked for, as Playwright's click does. Returns the pages the
    click asked to open; None, with nothing done, where Playwright must click (not ready,
    or the guard stopped a click that missed).
    A click the step's look readied (`Kept.point`) goes at once; where the page moved
    under it since, its guard stops it, and the element is readied again."""
    since = time.monotonic()
    navigations = watch_navigations(page)
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
    while navigations[-1] < since and time.monotonic() < deadline and not page.is_closed():
        with _unless_the_click_closed_it(page):
            page.wait_for_timeout(POLL_MS)  # lets the navigation's events arrive
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


_navigations: WeakKeyDictionary[Page, list[float]] = WeakKeyDictionary()


def watch_navigations(page: Page) -> list[float]:
    """When the page's main frame last navigated or its last navigation request ended
    (a download, a No Content answer), tracked from the first call on: [0.0] before."""
    ended = _navigations.get(page)
    if ended is None:
        ended = _navigations[page] = [0.0]

        def navigated(frame: Frame) -> None:
            if frame.parent_frame is None:
                ended.append(time.monotonic())
                del ended[:-1]

        def request_ended(request: Request) -> None:
            with suppress(PlaywrightError):  # a worker's request has no frame
                if request.is_navigation_request() and request.frame.parent_frame is None:
                    navigated(request.frame)

        page.on("framenavigated", navigated)
        page.on("requestfinished", request_ended)
        page.on("requestfailed", request_ended)
    return ended


# Scrolls the element (or the nearest scrollable box around it; the page for null) by a
# number of pixels, or to a fraction of its scroll range ("50%").
SCROLL = """(element, amount) => {
  let box = element || document.scrollingElement;
  while (box.parentElement && box.scrollHeight <= box.clientHeight) box = box.parentElement;
  if (box === document.body || box === document.documentElement) box = document.scrollingElement;
  const value = parseFloat(amount);
  const top = amount.trim().endsWith("%")
    ? (box.scrollHeight - box.clientHeight) * value / 100
    : box.scrollTop + value;
  box.scrollTo({ top, behavior: "instant" });
}"""


# --- settling ----------------------------------------------------------------------------

SETTLE_CAP_S = 3.0  # the most one settle waits, however busy the page
DOM_QUIET_MS = 100  # no DOM change for this long counts as quiet
AFTER_ACTION_MS = 50  # after an action, watch at least this long for the page to react
LONG_REQUEST_S = 1.5  # a request open longer is long-polling or streaming: not waited for
POLL_MS = 20
STREAMS = frozenset({"eventsource", "websocket"})

# The document's changes, watched from first use on: when it last changed, how often, and
# who to wake at the next change. A change is a DOM mutation or the end of a CSS transition
# or animation (a menu that fades in changes no node when it becomes visible). `id` tells
# documents apart: a navigation starts a new count. `calm`: the count when the page was
# last known to be at rest: a settle found it quiet, or our own click or fill on a page at
# rest was handled, and what changed meanwhile was its own (DIRECT, READ_GUARD). `take()`
# counts the changes not yet delivered to the observer.
PAGE_CHANGES = """(""" + PAGE_CHANGES_STATE + """ ||= (() => {
  const state = {
    id: Math.random().toString(36).slice(2), last: performance.now(), changes: 0, wake: [],
    calm: -1,
  };
  const changed = () => {
    state.last = performance.now();
    state.changes += 1;
    for (const wake of state.wake.splice(0)) wake();
  };
  // The overlay drawn over the page for a screenshot (covering.py), and taken away, is no change.
  const overlay = (record) => record.type === "childList" &&
    [...record.addedNodes, ...record.removedNodes].every((node) => node.id === """ + json.dumps(
    OVERLAY_ID
) + """);
  const observer = new MutationObserver((records) => { if (!records.every(overlay)) changed(); });
  observer.observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  state.take = () => {
    const records = observer.takeRecords();
    if (records.length && !records.every(overlay)) changed();
  };
  for (const type of ["transitionend", "animationend"]) addEventListener(type, changed, true);
  return state;
})())"""

# Waits until the document has loaded (DOMContentLoaded) and has not changed for `quiet`
# ms, and for at least `least` ms from then (at most `cap` ms in all). A loaded page that
# has long been quiet returns at once when `least` is 0; so does one at rest, its last
# changes our own action's (PAGE_CHANGES's `calm`), when `early`. Resolves to the page's mark then
# ([id, changes, waited]: where a wait for its next change starts; waited false when it
# returned early); null if it did not load in time.
# The describer (page_scripts) is prepared once the document has loaded: on a document
# new to the watch, which waits `quiet` ms from now on, in time the wait takes anyway.
SETTLE = f"""async (describe, [quiet, least, cap, early]) => {{
  const end = performance.now() + cap;
  if (document.readyState === "loading") {{
    const loaded = await new Promise(resolve => {{
      document.addEventListener("DOMContentLoaded", () => resolve(true), {{ once: true }});
      setTimeout(() => resolve(false), cap);
    }});
    if (!loaded) return null;
  }}
  const state = {PAGE_CHANGES};
  describe.prepare();
  const floor = performance.now() + least - quiet;
  for (;;) {{
    state.take();
    const now = performance.now();
    const quietAt = Math.max(state.last, floor) + quiet;
    if (quietAt <= now) state.calm = state.changes;
    if (quietAt <= now || end <= now) return [state.id, state.changes, true];
    if (early && state.changes === state.calm) return [state.id, state.changes, false];
    await new Promise(resolve => setTimeout(resolve, Math.min(quietAt, end) - now));
  }}
}}"""

# Resolves true at the document's next change after the mark [id, changes] (at once if it
# has changed already, or is another document), false after `cap` ms without one.
NEXT_CHANGE = f"""async ([id, seen, cap]) => {{
  const state = {PAGE_CHANGES};
  if (state.id !== id || state.changes !== seen) return true;
  return await new Promise(resolve => {{
    const timer = setTimeout(() => resolve(false), cap);
    state.wake.push(() => {{ clearTimeout(timer); resolve(true); }});
  }});
}}"""



def watch_changes(page: Page) -> None:
    """Start the change watch (PAGE_CHANGES) as each new document of the page is created,
    before its own scripts: a settle then knows when the document last changed, so one
    that has been quiet since it loaded is quiet at once, not DOM_QUIET_MS after the
    settle first looks (where the watch would begin otherwise)."""
    page.add_init_script(PAGE_CHANGES)


_open_requests: WeakKeyDictionary[Page, dict[Request, float]] = WeakKeyDictionary()


def watch_network(page: Page) -> dict[Request, float]:
    """The page's open requests and when each started, tracked from the first call on."""
    open_requests = _open_requests.get(page)
    if open_requests is None:
        open_requests = _open_requests[page] = {}

        def started(request: Request) -> None:
            if request.resource_type not in STREAMS:
                open_requests[request] = time.monotonic()

        page.on("request", started)
        page.on("requestfinished", lambda request: open_requests.pop(request, None))
        page.on("requestfailed", lambda request: open_requests.pop(request, None))
    return open_requests


def _recent(open_requests: dict[Request, float], since: float) -> bool:
    """Is a request open that started after `since` and is not long-polling?"""
    now = time.monotonic()
    return any(
        start >= since and now - start < LONG_REQUEST_S for start in list(open_requests.values())
    )


def settle(
    page: Page, *, after_action: bool = False, cap: float = SETTLE_CAP_S, early: bool = False
) -> PageMark | None:
    """Wait, for at most `cap` seconds, until no request is open, the document has loaded
    and the DOM has been quiet for DOM_QUIET_MS: what a step waits for before it reads
    the page. A quiet page costs one round trip, or AFTER_ACTION_MS `after_action`, to
    see a reaction that starts a moment late.

    `early`: for a step that checks what it finds before it acts (a replay), and settles
    in full before it reads the page otherwise (`PageMark.waited`): where every change
    since the page was last at rest is our own last click's or fill's, made as it was
    handled (DIRECT), return at once rather than wait out the quiet those changes broke.

    Never raises for a busy page: a page that does not settle in time is used as it is.
    Returns the page's mark as it settled (`page_mark`, read in the same round trip), or
    None when it was not read (a held dialog, a page that did not settle in time).
    """
    least = AFTER_ACTION_MS if after_action else 0
    return _wait(page, cap, since=0.0, dom_quiet_least=least, early=early and not after_action)


def finish_started(page: Page, since: float, cap: float = SETTLE_CAP_S) -> None:
    """After an action begun at `since` (time.monotonic()), wait for at most `cap` seconds
    for what it started: the requests opened since then (not long-polling ones) and a
    navigation (until its document has loaded). Nothing else: the page's later reactions
    are the next step's to wait for (`settle`). Costs no round trip when the action
    started neither: open requests and navigations are events Playwright has delivered.
    """
    _wait(page, cap, since, dom_quiet_least=None)


def _wait(
    page: Page, cap: float, since: float, dom_quiet_least: float | None, early: bool = False
) -> PageMark | None:
    """Until no request opened after `since` is open, the document has loaded and, unless
    `dom_quiet_least` is None, the DOM is quiet (watched for at least that many ms; the
    mark it was quiet at is returned). Never raises for a busy page: what does not finish
    within `cap` is left running."""
    if blocked(page):
        return None  # a held dialog blocks the page until a step answers it
    mark = None
    deadline = time.monotonic() + cap
    open_requests = watch_network(page)
    navigations = watch_navigations(page)  # from the first settle on, before any action
    while time.monotonic() < deadline:
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            if _recent(open_requests, since):
                page.wait_for_timeout(min(POLL_MS, left_ms))  # lets request events arrive
                continue
            if dom_quiet_least is not None:  # the page waits for its own load: one call
                quiet = page_scripts.call(
                    page, [describer()], SETTLE, [DOM_QUIET_MS, dom_quiet_least, left_ms, early]
                )
                if quiet is None:
                    return None
                document, changes, waited = quiet
                mark = PageMark(document, changes, waited=waited)
            elif navigations[-1] >= since:  # the document the page had loaded was replaced
                page.wait_for_load_state("domcontentloaded", timeout=max(1.0, left_ms))
        except PlaywrightTimeoutError:
            return None
        except PlaywrightError:
            if page.is_closed():
                return None
            continue  # a navigation replaced the document while we waited
        if not _recent(open_requests, since):
            return mark
    return None


FRAME_LOOK_MS = 250  # on a page with frames, how often a wait looks at their documents
_MARK = f"() => {{ const state = {PAGE_CHANGES}; return [state.id, state.changes]; }}"
FrameMarks = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class PageMark:
    """Where the page's changes stood at one moment (see PAGE_CHANGES)."""

    document: str  # "" when it could not be read (the page was between documents)
    changes: int
    # The same for each frame in the page (`frame_marks`); None when not read.
    frames: FrameMarks | None = None
    # False from a settle that returned early, not waiting for what our last action's
    # changes may start (`settle`): a step reads the page only after a full settle.
    waited: bool = True


def page_mark(page: Page) -> PageMark:
    """The page's changes so far, to wait for the next one with `wait_for_change`."""
    if blocked(page):  # a held dialog: nothing changes until a step answers it
        return PageMark("", -1)
    try:
        document, changes = page.evaluate(_MARK)
    except PlaywrightError:
        return PageMark("", -1)
    return PageMark(document, changes, frame_marks(page))


def frame_marks(page: Page) -> FrameMarks:
    """The marks of the documents in the page's frames, in frame order (one round trip
    each: only a wait on a page with frames reads them)."""
    marks = []
    for frame in page.frames[1:]:
        try:
            marks.append(tuple(frame.evaluate(_MARK)))
        except PlaywrightError:  # detached, or between documents
            marks.append(("", -1))
    return tuple(marks)


def wait_for_change(page: Page, since: PageMark, timeout_ms: float) -> bool:
    """Wait, for at most `timeout_ms`, until the page changed after `since`: a DOM change,
    a CSS transition or animation ending, or another document. The page's document wakes
    the wait, with no polling; on a page with frames their documents are looked at every
    FRAME_LOOK_MS too (a card field that renders inside a payment iframe changes nothing
    outside it). True at once when it has changed already; False when it did not in time."""
    if blocked(page):  # a held dialog: the page cannot change until a step answers it
        return False
    deadline = time.monotonic() + timeout_ms / 1000
    frames = since.frames if since.frames is not None else frame_marks(page)
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            return False
        look_ms = min(left_ms, FRAME_LOOK_MS) if frames else left_ms
        try:
            if page.evaluate(NEXT_CHANGE, [since.document, since.changes, look_ms]):
                return True
        except PlaywrightError:
            if page.is_closed():
                raise
            return True  # the document was replaced while we waited: a navigation
        if frames and frame_marks(page) != frames:
            return True
