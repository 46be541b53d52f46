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
from pytest_stagehand.browser.tabs import TAKE_OPENS
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.snapshot.outline import (
    KEPT,
)

# Is the page at rest: no change since it was last known to be (PAGE_CHANGES's `calm`)?

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
