"""Finding a recorded element on today's page: verify what the recorded selectors hit, heal
to the one clear match when they hit nothing that verifies, or refuse naming why."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Locator, Page

from pytest_stagehand.actions import settle
from pytest_stagehand.actions.direct import (
    DIRECT,
    DIRECT_BY_QUERY,
    PLAIN_QUERY,
    READ_GUARD,
    STAND_IN,
    is_plain,
)
from pytest_stagehand.actions.settle import StepSettle
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.events import Heal
from pytest_stagehand.heal.identity import (
    Identity,
    identity_from,
    recorded_element,
    unique_first,
)
from pytest_stagehand.heal.meaning import best_match, describe, differences, similarity, verify
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import KEEP, KEPT, ElementRef, Kept, LiveElement, frame_scope
from pytest_stagehand.snapshot.outline import described, describer, inspect, snapshot
from pytest_stagehand.snapshot.record import role_and_name

POLL_MS = 100  # how often a page still rendering is looked at again


@dataclass(frozen=True)
class Resolution:
    """Where a recorded element is now, and the heal that found it, if one was needed."""

    locator: Locator
    # What to record from now on (unchanged without a heal). Its first selector hits the
    # element alone: the one to act with.
    element: RecordedElement
    heal: Heal | None = None
    stand_in: str | None = None  # STAND_IN as read with the lookup; None: not read
    kept: Kept | None = None  # where the page keeps the element found (KEEP); None: not kept
    value: Any = None  # what the element found shows now, where a `Shown` read it


@dataclass(frozen=True)
class Showing:
    """An element as it shows a value now (see `Shown`)."""

    identity: Identity  # what identifies it, the value it shows left out
    element: RecordedElement  # what to record for it, as it is
    value: Any  # the value it shows


@dataclass(frozen=True)
class Shown:
    """The element a value is read from (an extract's). The value may have changed since it
    was recorded (the test then sees the new one), so the element is known by everything
    but its value: the identities compared leave it out, the recorded one its recorded
    value and each live one the value it shows now, which only the caller knows how to
    read. The gates are act's: only what is compared differs.

    `recorded`: the recorded element's identity, its value left out. `read`: a selector's
    one element, read (None: it shows no value the recorded way). `candidates`: for a heal,
    the elements of the page that show a value the recorded way, read."""

    recorded: Identity
    read: Callable[[Locator, LiveElement], Showing | None]
    candidates: Callable[[], list[tuple[ElementRef, Showing]]]


def resolve(
    page: Page,
    element: RecordedElement,
    *,
    wait_ms: float = 2000,
    required: frozenset[str] = frozenset(),
    instruction: str = "",
    click: bool = False,
    at_once: bool = False,
    shown: Shown | None = None,
    settling: StepSettle | None = None,
) -> Resolution:
    """Find a recorded element, verified, healing without a model if the page changed.

    1. Each recorded selector in order: it must hit exactly one element, and that element
       must `verify`. A later selector verifying is a "locator" heal. A page still
       rendering gets `wait_ms` for one to verify.
    2. Otherwise score a fresh snapshot (`best_match`): a "fingerprint" heal.
    3. Otherwise raise HealFailed saying what each selector hit and why no candidate was
       taken; the caller may then ask a model, if the cache mode allows.

    `instruction`, the step's own words, is one more signal for the fingerprint heal.
    `click`: a click on the element follows at once. The look then readies it (LOOK),
    which saves the click a round trip; a click it readied for an element that is not
    the one resolved is called off.
    `at_once`: only the first selector's element, verified in one look; anything else
    (nothing, several, another element, a heal) raises HealFailed with no wait and no
    heal tried, for a caller that settles the page and resolves again.
    `shown`: the element shows a value the caller reads; it is compared with its value left
    out, and found among the elements that show one (`Shown`).
    `settling`: the step's settle, still to be made: the first look goes with it.
    """
    readied: Kept | None = None  # the element of the last click a look readied

    def look(first: bool) -> list[LiveElement | None]:
        nonlocal readied
        lives = light_hits(page, element, click=click, first=first, settling=settling)
        first = lives[0] if lives else None
        if first is not None and first.kept is not None and first.kept.point is not None:
            readied = first.kept  # its guard replaced any an earlier look set
        return lives

    recorded = shown.recorded if shown else Identity.of(element, required, instruction)
    resolution = None
    try:
        if at_once:  # the first selector alone: nothing else is taken
            resolution = _replay(frame_scope(page, element.frame_path), element, recorded,
                                 [], [], look(True), shown)  # fmt: skip
            if resolution is None or resolution.heal is not None:
                resolution = None
                raise HealFailed(
                    f"The recorded {describe(recorded.fingerprint)} did not verify at once."
                )
        else:
            resolution = _resolve(page, element, recorded, look, wait_ms, shown)
        return resolution
    finally:
        if readied is not None and (resolution is None or resolution.kept != readied):
            with suppress(PlaywrightError):
                page.evaluate(READ_GUARD)  # which also lets the guard go


def _resolve(
    page: Page,
    element: RecordedElement,
    recorded: Identity,
    look: Callable[[bool], list[LiveElement | None]],
    wait_ms: float,
    shown: Shown | None,
) -> Resolution:
    scope = frame_scope(page, element.frame_path)
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        tried: list[str] = []
        settled: list[str] = []
        found = _looked(scope, element, recorded, tried, settled, look, shown)
        if found is not None and found.heal is not None:
            # The element may have rendered mid-pass, after its first selectors found
            # nothing: a second look keeps that from passing for a heal.
            found = _looked(scope, element, recorded, [], [], look, shown) or found
        if found is not None:
            return found
        # While some selector finds nothing or several, the page may still be rendering:
        # wait. When each finds one element and none verifies, waiting will not help.
        if len(settled) == len(element.selectors) or time.monotonic() >= deadline:
            break
        page.wait_for_timeout(POLL_MS)
    fresh = snapshot(page)
    showings = shown.candidates() if shown else []
    candidates = [(ref, showing.identity) for ref, showing in showings] if shown else None
    match = best_match(recorded, page, fresh, candidates)
    if match.element is None:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was not found safely.\n"
            + "".join(f"  {line}\n" for line in tried)
            + f"  without a model: {match.reason}."
        )
    showing = next((showing for ref, showing in showings if ref is match.element), None)
    if showing is not None:  # what `shown` read of it, found again by its own selectors
        ref = match.element
        selectors = unique_first(page, ref.frame_path, list(ref.candidates) or [ref.selector])
        healed = showing.element.model_copy(
            update={"selectors": selectors, "frame_path": list(ref.frame_path)}
        )
    else:
        healed = recorded_element(page, fresh, match.element)
    if frame_scope(page, healed.frame_path).locator(healed.selectors[0]).count() != 1:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was found by its fingerprint, "
            "but no selector hits it alone: it cannot be acted on safely."
        )
    value = showing.value if showing else None
    changed = differences(recorded, showing.identity if showing else Identity.of(healed))
    if not changed and healed.selectors[0] == element.selectors[0]:
        # The recorded element itself, rendered after the look above gave up: no heal.
        return Resolution(match.element.locator(page), element, value=value)
    heal = Heal(
        "fingerprint",
        element.selectors[0],
        healed.selectors[0],
        match.score,
        changed,
        match.decided_by,
    )
    return Resolution(match.element.locator(page), healed, heal, value=value)


def _looked(
    scope: Page | FrameLocator,
    element: RecordedElement,
    recorded: Identity,
    tried: list[str],
    settled: list[str],
    look: Callable[[bool], list[LiveElement | None]],
    shown: Shown | None,
) -> Resolution | None:
    """`_replay` on a look at the first selector alone, as most steps find their element;
    where that look did not find it verified, on a look at every selector."""
    light = look(True)
    found = _replay(scope, element, recorded, tried, settled, light, shown)
    if found is not None or len(light) == len(element.selectors):
        return found
    tried.clear()
    settled.clear()
    return _replay(scope, element, recorded, tried, settled, look(False), shown)


def _replay(
    scope: Page | FrameLocator,
    element: RecordedElement,
    recorded: Identity,
    tried: list[str],
    settled: list[str],
    light: Sequence[LiveElement | None],
    shown: Shown | None = None,
) -> Resolution | None:
    """The first recorded selector that hits one element which verifies; notes the rest
    in `tried`, and in `settled` those that hit exactly one element. `light` holds what
    each selector hits as `light_hits` read it; where it is None, Playwright looks. Where
    `light` holds fewer (the first selector's alone), only those selectors are tried."""
    for index, selector in enumerate(element.selectors[: len(light)]):
        hits = light[index]
        # What our roles found, the selector that found it alone finds for Playwright too.
        confirmed_by = hits.kept.confirmed_by if hits and hits.kept else ""
        locator = scope.locator(confirmed_by or selector)
        try:
            hits = hits or inspect(locator, tuple(element.frame_path))
            live = _showing(element, hits, locator, shown)
        except PlaywrightError as exc:
            tried.append(f"{selector} → invalid ({str(exc).splitlines()[0]})")
            continue
        if hits.count == 1:
            settled.append(selector)
        if hits.fingerprint is None:
            tried.append(f"{selector} → {hits.count} elements")
        elif live is None:
            tried.append(f"{selector} → {describe(hits.fingerprint)}, which shows no value")
        elif not verify(recorded, live.identity):
            what = describe(live.identity.fingerprint)
            tried.append(f"{selector} → {what}, not the recorded element")
        elif index == 0:
            return Resolution(
                locator, element, stand_in=hits.stand_in, kept=hits.kept, value=live.value
            )
        else:
            healed = live.element.model_copy(update={"selectors": element.selectors[index:]})
            heal = Heal(
                "locator",
                element.selectors[0],
                selector,
                similarity(recorded, live.identity),
                differences(recorded, live.identity),
            )
            return Resolution(locator, healed, heal, kept=hits.kept, value=live.value)
    return None


def _showing(
    element: RecordedElement, hits: LiveElement, locator: Locator, shown: Shown | None
) -> Showing | None:
    """The one element a selector hits as `_replay` compares it: read by `shown` where
    the element shows a value, else as it is. None for none or several elements, or
    where it shows no value the recorded way."""
    live = identity_from(hits)
    if live is None:
        return None
    if shown is not None:
        return shown.read(locator, hits)
    as_seen = {"fingerprint": live.fingerprint, "context": live.context}
    return Showing(live, element.model_copy(update=as_seen), None)


# Which of the first `count` selectors `found(index)` finds (what a plain selector found, an
# array, queried when first asked; null for another) holds alone the one element our
# roles and names find for [role, name] (describer's byRole); -1 for none:
# then only Playwright's engine can tell what the role selector finds. Confirmed so, the
# element is the recorded one where it was recorded: the role query never stands alone.
CONFIRMED_BY = script(__package__, "confirmed_by")


# [the key the elements found are kept by (KEEP), per selector: [count, description of
# the one element, what stands in for it when clicked (STAND_IN; for the first selector
# only), the index of the plain selector that confirms it (for a role selector)] where
# the page itself can tell, else null; given `firstOnly`, the first selector's alone where
# it finds its one element]. A plain selector is found with the browser's own
# querySelectorAll or document.evaluate (`PLAIN_QUERY`). A role selector, given as [role,
# name], ahead of the first plain selector that finds one element, with our roles and
# names (describer's byRole), and only when that finds one element which a plain
# selector also finds alone: the recorded element, where it was. Anything else is
# Playwright's engine's to tell. An element hit by several selectors is described once;
# what the selectors and descriptions need to know of the whole document (its shadow
# roots, ids, labels) is read once: whether there are shadow roots too, as the
# describer reads them (its `shadowRoots`).
LIGHT_HITS = script(
    __package__,
    "light_hits",
    PLAIN_QUERY=PLAIN_QUERY,
    CONFIRMED_BY=CONFIRMED_BY,
    STAND_IN=STAND_IN,
    KEEP=KEEP,
)


# LIGHT_HITS, and where `click` and the first selector finds one element in view that a
# click would reach, that click readied there and then (DIRECT, without scrolling): its
# point, else null. The element is yet to be verified: the point goes to the action only
# with the element verified, and `resolve` lets the guard go otherwise. As JSON:
# Playwright's own serialization of the descriptions would cost more than the look.
LOOK = script(__package__, "look", LIGHT_HITS=LIGHT_HITS, DIRECT=DIRECT, KEPT=KEPT)
# LOOK as a document holds it (page_scripts, `watch_documents`): a look sends this alone.
LOOK_CALL = "(describe, look, arg) => look(describe, arg)"


def watch_documents(watch: PageWatch) -> None:
    """What each new document of a page the steps may act on gets as it is created
    (settle's `watch_documents`), with the scripts a replayed step calls: its look and
    its direct action, about 30 KB each step would send otherwise."""
    settle.watch_documents(watch, LOOK, DIRECT_BY_QUERY)


def light_hits(
    page: Page, element: RecordedElement, click: bool = False, first: bool = False,
    settling: StepSettle | None = None,
) -> list[LiveElement | None]:
    """What each recorded selector hits now, read in the page itself in one round trip
    (LIGHT_HITS): no Playwright selector engine is injected into the page's world for it,
    which a raw Playwright action does not pay for either. The describer goes to a
    document once (`page_scripts`).
    None where only Playwright can tell: its own selector syntax (but for a role selector
    whose element a plain selector confirms), elements inside frames, CSS on a page with
    shadow roots. With `click`, the first selector's element is readied for a click (LOOK).
    `first`: where the first selector finds its one element (a role selector's confirmed),
    that one alone is read, and the list holds it alone; the others are not queried.
    `settling`: the step's settle, where it is still to be made (`StepSettle`): it goes
    with the look, in the same round trip; before Playwright looks, where it does.
    """
    selectors = element.selectors
    asked: list[str | tuple[str, str]] = [
        s if is_plain(s) else role_and_name(s) or "" for s in selectors
    ]
    if element.frame_path or not any(isinstance(s, str) and s for s in asked):
        if settling is not None:
            settling.mark()
        return [None] * len(selectors)
    try:
        seen = None
        if settling is not None and settling.pending:
            _, seen = settling.then_call(LOOK_CALL, [asked, click, first], [LOOK])
        if seen is None:  # settled before, or the page was not read with the settle
            seen = page_scripts.call(page, [describer(), LOOK], LOOK_CALL, [asked, click, first])
        key, hits, point = json.loads(seen)
    except PlaywrightError:
        return [None] * len(selectors)  # a navigation replaced the document: ask Playwright
    lives: list[LiveElement | None] = []
    for index, (hit, selector) in enumerate(zip(hits, asked, strict=False)):
        if hit is None or selector == "":
            lives.append(None)
        elif hit[1] is None:
            lives.append(LiveElement(hit[0]))
        else:
            ref, context = described(hit[1])
            confirmed_by = "" if hit[3] is None else selectors[hit[3]]
            kept = Kept(key, index, confirmed_by, tuple(point) if point and not index else None)
            lives.append(LiveElement(1, ref.fingerprint, context, hit[2], kept=kept))
    return lives
