"""Finding a recorded element on today's page: verify what the recorded selectors hit, heal
to the one clear match when they hit nothing that verifies, or refuse naming why."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Locator, Page

from pytest_stagehand.actions.direct import (
    DIRECT,
    NO_SHADOW_ROOTS,
    PLAIN_QUERY,
    READ_GUARD,
    STAND_IN,
    is_plain,
)
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.events import Heal
from pytest_stagehand.heal.identity import Identity, identity_from, recorded_element
from pytest_stagehand.heal.meaning import best_match, describe, differences, similarity, verify
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import (
    KEEP,
    KEPT,
    Kept,
    LiveElement,
    described,
    describer,
    frame_scope,
    inspect,
    role_and_name,
    snapshot,
)

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


def resolve(
    page: Page,
    element: RecordedElement,
    *,
    wait_ms: float = 2000,
    required: frozenset[str] = frozenset(),
    instruction: str = "",
    click: bool = False,
    at_once: bool = False,
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
    """
    readied: Kept | None = None  # the element of the last click a look readied

    def look() -> list[LiveElement | None]:
        nonlocal readied
        lives = light_hits(page, element, click=click)
        first = lives[0] if lives else None
        if first is not None and first.kept is not None and first.kept.point is not None:
            readied = first.kept  # its guard replaced any an earlier look set
        return lives

    recorded = Identity.of(element, required, instruction)
    resolution = None
    try:
        if at_once:
            resolution = _replay(frame_scope(page, element.frame_path), element, recorded,
                                 [], [], look())  # fmt: skip
            if resolution is None or resolution.heal is not None:
                resolution = None
                raise HealFailed(
                    f"The recorded {describe(recorded.fingerprint)} did not verify at once."
                )
        else:
            resolution = _resolve(page, element, recorded, look, wait_ms)
        return resolution
    finally:
        if readied is not None and (resolution is None or resolution.kept != readied):
            with suppress(PlaywrightError):
                page.evaluate(READ_GUARD)  # which also lets the guard go


def _resolve(
    page: Page,
    element: RecordedElement,
    recorded: Identity,
    look: Callable[[], list[LiveElement | None]],
    wait_ms: float,
) -> Resolution:
    scope = frame_scope(page, element.frame_path)
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        tried: list[str] = []
        settled: list[str] = []
        found = _replay(scope, element, recorded, tried, settled, look())
        if found is not None and found.heal is not None:
            # The element may have rendered mid-pass, after its first selectors found
            # nothing: a second look keeps that from passing for a heal.
            found = _replay(scope, element, recorded, [], [], look()) or found
        if found is not None:
            return found
        # While some selector finds nothing or several, the page may still be rendering:
        # wait. When each finds one element and none verifies, waiting will not help.
        if len(settled) == len(element.selectors) or time.monotonic() >= deadline:
            break
        page.wait_for_timeout(POLL_MS)
    fresh = snapshot(page)
    match = best_match(recorded, page, fresh)
    if match.element is None:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was not found safely.\n"
            + "".join(f"  {line}\n" for line in tried)
            + f"  without a model: {match.reason}."
        )
    healed = recorded_element(page, fresh, match.element)
    if frame_scope(page, healed.frame_path).locator(healed.selectors[0]).count() != 1:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was found by its fingerprint, "
            "but no selector hits it alone: it cannot be acted on safely."
        )
    changed = differences(recorded, Identity.of(healed))
    if not changed and healed.selectors[0] == element.selectors[0]:
        # The recorded element itself, rendered after the look above gave up: no heal.
        return Resolution(match.element.locator(page), element)
    heal = Heal(
        "fingerprint",
        element.selectors[0],
        healed.selectors[0],
        match.score,
        changed,
        match.decided_by,
    )
    return Resolution(match.element.locator(page), healed, heal)


def _replay(
    scope: Page | FrameLocator,
    element: RecordedElement,
    recorded: Identity,
    tried: list[str],
    settled: list[str],
    light: Sequence[LiveElement | None],
) -> Resolution | None:
    """The first recorded selector that hits one element which verifies; notes the rest
    in `tried`, and in `settled` those that hit exactly one element. `light` holds what
    each selector hits as `light_hits` read it; where it is None, Playwright looks."""
    for index, selector in enumerate(element.selectors):
        hits = light[index]
        # What our roles found, the selector that found it alone finds for Playwright too.
        confirmed_by = hits.kept.confirmed_by if hits and hits.kept else ""
        locator = scope.locator(confirmed_by or selector)
        try:
            hits = hits or inspect(locator, tuple(element.frame_path))
        except PlaywrightError as exc:
            tried.append(f"{selector} → invalid ({str(exc).splitlines()[0]})")
            continue
        if hits.count == 1:
            settled.append(selector)
        live = identity_from(hits)
        if live is None:
            tried.append(f"{selector} → {hits.count} elements")
        elif not verify(recorded, live):
            tried.append(f"{selector} → {describe(live.fingerprint)}, not the recorded element")
        elif index == 0:
            return Resolution(locator, element, stand_in=hits.stand_in, kept=hits.kept)
        else:
            healed = element.model_copy(
                update={
                    "selectors": element.selectors[index:],
                    "fingerprint": live.fingerprint,
                    "context": live.context,
                }
            )
            heal = Heal(
                "locator",
                element.selectors[0],
                selector,
                similarity(recorded, live),
                differences(recorded, live),
            )
            return Resolution(locator, healed, heal, kept=hits.kept)
    return None


# Which of `found` (what plain selectors found, each an array or null) holds alone the one
# element our roles and names find for [role, name] (describer's byRole); -1 for none:
# then only Playwright's engine can tell what the role selector finds. Confirmed so, the
# element is the recorded one where it was recorded: the role query never stands alone.
CONFIRMED_BY = """(describe, [role, name], found, memo) => {
  const byRole = describe.byRole(role, name, memo, 2);
  if (byRole.length !== 1) return -1;
  return found.findIndex((f) => f !== null && f.length === 1 && f[0] === byRole[0]);
}"""


# [the key the elements found are kept by (KEEP), per selector: [count, description of
# the one element, what stands in for it when clicked (STAND_IN; for the first selector
# only), the index of the plain selector that confirms it (for a role selector)] where
# the page itself can tell, else null]. A plain selector is found with the browser's own
# querySelectorAll or document.evaluate (`PLAIN_QUERY`). A role selector, given as [role,
# name], ahead of the first plain selector that finds one element, with our roles and
# names (describer's byRole), and only when that finds one element which a plain
# selector also finds alone: the recorded element, where it was. Anything else is
# Playwright's engine's to tell. An element hit by several selectors is described once;
# what the selectors and descriptions need to know of the whole document (its shadow
# roots, ids, labels) is read once.
LIGHT_HITS = f"""(describe, selectors) => {{
  const query = {PLAIN_QUERY};
  let light;
  const lightOnly = () => light ??= ({NO_SHADOW_ROOTS})();
  const memo = {{}};
  const plain = (index) => typeof selectors[index] === "string";
  const found = selectors.map((s, index) => plain(index) ? query(s, lightOnly) : null);
  const one = (f) => f !== null && f.length === 1;
  const first = found.findIndex(one);
  const confirmed = [];
  selectors.forEach((selector, index) => {{
    if (plain(index) || index > first) return;
    const by = ({CONFIRMED_BY})(describe, selector, found, memo);
    if (by >= 0) [found[index], confirmed[index]] = [found[by], by];
  }});
  const described = new Map();
  const kept = [];
  const hits = found.map((f, index) => {{
    kept.push(f && f.length === 1 ? f[0] : null);
    if (f === null || f.length !== 1) return f && [f.length, null, null, null];
    const el = f[0];
    if (!described.has(el)) described.set(el, describe(el, memo));
    const standIn = index === 0 ? ({STAND_IN})(el) : null;
    return [1, described.get(el), standIn, confirmed[index] ?? null];
  }});
  return [({KEEP})(kept), hits];
}}"""


# LIGHT_HITS, and where `click` and the first selector finds one element in view that a
# click would reach, that click readied there and then (DIRECT, without scrolling): its
# point, else null. The element is yet to be verified: the point goes to the action only
# with the element verified, and `resolve` lets the guard go otherwise. As JSON:
# Playwright's own serialization of the descriptions would cost more than the look.
LOOK = f"""(describe, [selectors, click]) => {{
  const [key, hits] = ({LIGHT_HITS})(describe, selectors);
  const ready = click && hits[0] && hits[0][0] === 1 && hits[0][2] === "";
  const point = ready ? ({DIRECT})([{KEPT}.elements[0]], ["click", "", true]) : null;
  return JSON.stringify([key, hits, point]);
}}"""


def light_hits(
    page: Page, element: RecordedElement, click: bool = False
) -> list[LiveElement | None]:
    """What each recorded selector hits now, read in the page itself in one round trip
    (LIGHT_HITS): no Playwright selector engine is injected into the page's world for it,
    which a raw Playwright action does not pay for either. The describer goes to a
    document once (`page_scripts`).
    None where only Playwright can tell: its own selector syntax (but for a role selector
    whose element a plain selector confirms), elements inside frames, CSS on a page with
    shadow roots. With `click`, the first selector's element is readied for a click (LOOK).
    """
    selectors = element.selectors
    asked: list[str | tuple[str, str]] = [
        s if is_plain(s) else role_and_name(s) or "" for s in selectors
    ]
    if element.frame_path or not any(isinstance(s, str) and s for s in asked):
        return [None] * len(selectors)
    try:
        seen = page_scripts.call(page, [describer()], LOOK, [asked, click])
        key, hits, point = json.loads(seen)
    except PlaywrightError:
        return [None] * len(selectors)  # a navigation replaced the document: ask Playwright
    lives: list[LiveElement | None] = []
    for index, (hit, selector) in enumerate(zip(hits, asked, strict=True)):
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
