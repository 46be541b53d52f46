"""Replay a recorded element safely, and heal it without a model when the page changed.

Blind replay (acting on whatever a recorded selector now hits) is how other tools click
the wrong button. Here a hit is used only after it is verified against what was recorded,
and a heal needs a match that is both confident and clearly ahead of the runner-up.
Scoring follows Healenium (tag, id, classes, text, attributes, ancestor path by LCS),
with additions: the role is a gate; the words of the step's instruction and of the
element's own identifiers (test id, id, classes, label, placeholder) count, so a redesign
that rewords a button or renames its classes still finds it; look-alikes of the same role
and name (the "Add to cart" buttons of two products) are told apart by the words around
them that only the recorded one had ("Backpack"); and a candidate that differs in meaning
(another amount, the opposite action, an added qualifier, another section, dialog, row or
frame) is never taken, however alike it looks (`conflict`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page

from pytest_stagehand.browser.scripts import script
from pytest_stagehand.heal.words import normalised, numbers_in, overlap, steady, words_of
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import ElementRef, Fingerprint, LiveElement, frame_scope
from pytest_stagehand.snapshot.outline import (
    Snapshot,
    inspect,
    looked,
    surroundings_at,
    surroundings_of_namesakes,
)
from pytest_stagehand.snapshot.record import role_selector, xpath_literal

RIVALS = 8  # rivals_of keeps the names of this many elements most alike by name,
RIVAL_FLOOR = 0.5  # ...at least this alike by letters or by words,
NEIGHBOURS = 4  # ...and of this many nearest elements of the role


@dataclass(frozen=True)
class Identity:
    """What makes an element the one a step was recorded on (see RecordedElement)."""

    fingerprint: Fingerprint
    context: str = ""
    distinct: str = ""  # recorded elements only
    # Words a match must show, in its name or around it: the current values of variables
    # the element was chosen by ("add %product% to the cart").
    required: frozenset[str] = frozenset()
    instruction: str = ""  # the step's own words ("type into the new todo input")
    rivals: frozenset[str] = frozenset()  # recorded elements only, names as `normalised` gives
    # Recorded elements only: the container labels its look-alikes lacked (`apart_from`).
    apart: frozenset[tuple[str, str]] = frozenset()

    def __post_init__(self) -> None:
        # "3m ago" beside a file is "5m ago" two minutes later, on the same page.
        object.__setattr__(self, "context", steady(self.context))

    @classmethod
    def of(
        cls,
        element: RecordedElement,
        required: frozenset[str] = frozenset(),
        instruction: str = "",
    ) -> Identity:
        rivals = frozenset(normalised(name) for name in element.rivals)
        apart = frozenset((kind, label) for kind, label in element.apart)
        return cls(
            element.fingerprint,
            element.context,
            element.distinct,
            required,
            instruction,
            rivals,
            apart,
        )


def identity_of(locator: Locator, frame_path: Sequence[str] = ()) -> Identity | None:
    """The live identity of the one element `locator` hits; None for none or several."""
    return identity_from(inspect(locator, tuple(frame_path)))


def identity_from(live: LiveElement) -> Identity | None:
    return None if live.fingerprint is None else Identity(live.fingerprint, live.context)


def recorded_element(page: Page, page_snapshot: Snapshot, ref: ElementRef) -> RecordedElement:
    """What to record for an element of a snapshot, taken before acting on it."""
    own = looked_at(page, ref)
    look_alikes = namesakes(page, page_snapshot, ref)
    apart = apart_from(own, look_alikes)
    selectors = list(ref.candidates) or [ref.selector]
    if (in_row := row_scoped(page, ref, apart)) is not None:
        if (by_key := row_path(page, ref, apart)) is not None:  # before the paths
            paths = [i for i, s in enumerate(selectors) if s == ref.selector or s[:6] == "xpath="]
            selectors.insert(paths[0] if paths else len(selectors), by_key)
        selectors.append(in_row)
    return RecordedElement(
        selectors=unique_first(page, ref.frame_path, selectors),
        frame_path=list(ref.frame_path),
        fingerprint=own.fingerprint,
        context=own.context,
        distinct=distinct_words(own.context, [other.context for other in look_alikes]),
        rivals=rivals_of(ref, page_snapshot),
        apart=apart,
    )


def row_scoped(page: Page, ref: ElementRef, apart: Sequence[tuple[str, str]]) -> str | None:
    """A selector for one of a table's look-alikes by the key of its row, as a person
    writes it ("the Delete button in the row of Item 750"): it finds the element after
    rows were added, removed or sorted, where paths find another row's. None where the
    element is not told apart by its row, or the key does not find it alone."""
    key = next((label for kind, label in apart if kind == "row"), "")
    if not key or not ref.name:
        return None
    text = "internal:text=" + json.dumps(key, ensure_ascii=False) + "s"
    selector = (
        f"role=row >> internal:has={json.dumps(text, ensure_ascii=False)}"
        f" >> {role_selector(ref.role, ref.name)}"
    )
    found = frame_scope(page, ref.frame_path).locator(selector)
    try:
        alone = found.count() == 1 and found.and_(ref.locator(page)).count() == 1
    except PlaywrightError:
        return None
    return selector if alone else None


# [the XPath test of the element's row (its tag, or *[@role="row"]), the element's path
# inside the row], or null where XPath cannot reach it (a shadow tree, an odd name).
ROW_PATH = script(__package__, "row_path")


def row_path(page: Page, ref: ElementRef, apart: Sequence[tuple[str, str]]) -> str | None:
    """`row_scoped`'s element by its row's key as an XPath (the row with a cell showing the
    key, then the element's path inside the row): it finds the element where the rows were
    added, removed or sorted, as `row_scoped` does, but the browser's own XPath finds it,
    without Playwright's engine reading the role and name of every row's elements. None
    where XPath cannot reach it (a shadow tree) or does not find it alone."""
    key = next((label for kind, label in apart if kind == "row"), "")
    own = ref.locator(page)
    try:
        parts = own.evaluate(ROW_PATH) if key else None
        if parts is None:
            return None
        path = f"//{parts[0]}[.//*[normalize-space()={xpath_literal(key)}]]/{parts[1]}"
        found = frame_scope(page, ref.frame_path).locator(f"xpath={path}")
        alone = found.count() == 1 and found.and_(own).count() == 1
    except PlaywrightError:
        return None
    return f"xpath={path}" if alone else None


def namesakes(page: Page, page_snapshot: Snapshot, ref: ElementRef) -> list[Identity]:
    """The other elements of the snapshot with the role and name of `ref`, as `looked_at`
    sees them: those of the main frame in one look per name, the rest one by one."""
    others = [
        other
        for other in page_snapshot.elements.values()
        if other.role == ref.role and other != ref
        and normalised(other.name) == normalised(ref.name)
    ]  # fmt: skip
    if ref.frame_path:
        return [looked_at(page, other) for other in others]
    found = [looked_at(page, other) for other in others if other.frame_path]
    for name in dict.fromkeys(other.name for other in others if not other.frame_path):
        try:
            seen = surroundings_of_namesakes(ref.locator(page), ref.role, name)
        except PlaywrightError:
            seen = []
        found += [
            Identity(looked(ref.fingerprint, other.containers, other.glyph), other.context)
            for other in seen
        ]
    return found


def looked_at(page: Page, ref: ElementRef) -> Identity:
    """A snapshot element with what only a look at it reads: the text around it, the
    labels of its containers and its glyph. One gone since the snapshot keeps its other
    features."""
    try:
        live = inspect(ref.locator(page), ref.frame_path)
    except PlaywrightError:
        live = None
    if live is None or live.fingerprint is None:
        return Identity(ref.fingerprint)
    return Identity(_as_seen(ref.fingerprint, live.fingerprint), live.context)


def _as_seen(fingerprint: Fingerprint, live: Fingerprint) -> Fingerprint:
    """A snapshot's `fingerprint` with what the look at it saw (`live`) and only a look
    reads: the labels of its containers, a named control's glyph."""
    return looked(fingerprint, live.containers, _glyph(live))


def _glyph(live: Fingerprint) -> str:
    """The glyph a look read beside a named control's words: its icon."""
    return live.attributes.get("icon", "") if live.name else ""


def looked_at_all(page: Page, refs: Sequence[ElementRef]) -> list[Identity]:
    """`looked_at` for each of `refs`: those of the main frame in one look, the rest (and
    any the one look cannot tell apart) one by one."""
    main = [ref for ref in refs if not ref.frame_path]
    try:
        seen = surroundings_at(page, [ref.selector for ref in main])
    except PlaywrightError:
        seen = [None] * len(main)
    found = {id(ref): surroundings for ref, surroundings in zip(main, seen, strict=True)}
    identities = []
    for ref in refs:
        surroundings = found.get(id(ref))
        if surroundings is None:
            identities.append(looked_at(page, ref))
        else:
            fingerprint = looked(ref.fingerprint, surroundings.containers, surroundings.glyph)
            identities.append(Identity(fingerprint, surroundings.context))
    return identities


def apart_from(own: Identity, look_alikes: Sequence[Identity]) -> list[tuple[str, str]]:
    """The labels of the containers around an element that some look-alike's lack: which
    row, column, dialog or card tells it from the others of its role and name."""
    found = {place for other in look_alikes for place in other.fingerprint.containers}
    differs = [place for place in own.fingerprint.containers if place not in found]
    return differs if look_alikes else []


def relabelled(element: RecordedElement, change: Callable[[str], str | None]) -> RecordedElement:
    """The element with each of its containers' labels changed (None: left out), as
    variable values are masked in a recording and put back in for a replay."""

    def each(places: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        changed = ((kind, change(label)) for kind, label in places)
        return [(kind, label) for kind, label in changed if label is not None]

    containers = tuple(each(element.fingerprint.containers))
    fingerprint = replace(element.fingerprint, containers=containers)
    return element.model_copy(update={"fingerprint": fingerprint, "apart": each(element.apart)})


# Roles that mean the same to a person using them: a link redesigned as a button with the
# same name in the same place still does what it did.
FAMILIES = (
    frozenset({"button", "link"}),
    frozenset({"textbox", "searchbox", "combobox"}),
    frozenset({"checkbox", "switch"}),
)


def family(role: str) -> frozenset[str]:
    return next((roles for roles in FAMILIES if role in roles), frozenset({role}))


def distinct_words(context: str, look_alike_contexts: Sequence[str]) -> str:
    """The words of an element's surroundings that none of its look-alikes' have: what
    tells it from them ("Backpack" for one of many "Add to cart"); "" without look-alikes."""
    shared = {word for other in look_alike_contexts for word in words_of(other)}
    distinct = dict.fromkeys(w for w in context.split() if w.casefold() not in shared)
    return " ".join(distinct) if look_alike_contexts else ""


def rivals_of(ref: ElementRef, page_snapshot: Snapshot) -> list[str]:
    """The names, other than its own, of the elements of its role most like it by name,
    then of its nearest neighbours of that role.

    Each was another element when the step was recorded, so a heal that finds one of
    them where the recorded element was has found that other element, however alike it
    looks: "Send to Alicia" beside "Send to Alice", "Newer posts" beside "Older posts",
    "Resume" beside "Pause" in the same card. No list of opposites could name them all.
    """
    own, numbers = normalised(ref.name), numbers_in(ref.name)
    same_role = [other for other in page_snapshot.elements.values() if other.role == ref.role]
    names = [normalised(other.name) for other in same_role]
    # Another number is refused anyway (`conflict`): "Open item 750" keeps none of the
    # other 1,499 "Open item" links of its table.
    others = {
        name: other
        for name, other in zip(names, same_role, strict=True)
        if name and name != own and numbers_in(name) == numbers
    }
    alike: dict[str, float] = {}
    for name in others:
        matcher = SequenceMatcher(None, own, name)
        if matcher.real_quick_ratio() < RIVAL_FLOOR and not words_of(own) & words_of(name):
            continue
        score = max(matcher.ratio(), overlap(own, name) or 0.0)
        if score >= RIVAL_FLOOR:
            alike[name] = score
    rivals = sorted(alike, key=alike.__getitem__, reverse=True)[:RIVALS]
    at = next((i for i, other in enumerate(same_role) if other.id == ref.id), None)
    if at is not None:
        nearest = sorted(range(len(same_role)), key=lambda i: abs(i - at))
        beside = [names[i] for i in nearest if names[i] in others]
        rivals += list(dict.fromkeys(beside))[:NEIGHBOURS]
    return [" ".join(others[name].name.split()) for name in dict.fromkeys(rivals)]


def unique_first(page: Page, frame_path: Sequence[str], selectors: Sequence[str]) -> list[str]:
    """Selectors that hit only this element first, best first; the rest keep their order.

    A role or text selector shared with look-alikes ("Add to cart") cannot be replayed
    first: skipping it on every replay would read as a heal of an unchanged page.
    """
    scope = frame_scope(page, frame_path)
    counts = {}
    for selector in selectors:
        try:
            counts[selector] = scope.locator(selector).count()
        except PlaywrightError:
            counts[selector] = 0
    return sorted(selectors, key=lambda selector: counts[selector] != 1)


def seen_now(page: Page, element: RecordedElement, locator: Locator) -> RecordedElement:
    """`element`, which `locator` hits, with the text around it now, its glyph (a snapshot
    does not read it) and the selectors that hit it alone first: an observed element as a
    recording keeps it."""
    live = inspect(locator)
    fp = element.fingerprint
    seen = fp if live.fingerprint is None else looked(fp, fp.containers, _glyph(live.fingerprint))
    return element.model_copy(
        update={
            "fingerprint": seen,
            "context": live.context,
            "selectors": unique_first(page, element.frame_path, element.selectors),
        }
    )
