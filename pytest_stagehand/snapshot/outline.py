"""A live page as a compact outline for the model, plus a map from short ids to elements.

`snapshot(page)` runs one JavaScript tree walk per frame (`snapshot.js`) and stitches the
frames together. The outline is what the model reads; each id in it maps to an `ElementRef`
holding a frame-aware locator for acting now, selector candidates for the cache, and a
fingerprint for recognising the element later when its selectors no longer match. The walk
describes each element as it finds it, but the descriptions stay in the document until an
id is first asked for: a step uses one or two of a large page's thousands.

The outline has one line per meaningful node, indented one space per level (a line one
level deep then costs no token for its indent)::

    e3 textbox "Username" placeholder="standard_user" required
    e7 link -> /product.html?id=4
     e8 heading "Sauce Labs Backpack" level=3
    list
     e9 listitem: In stock
    text "$29.99"
    e10 button "Add to cart" disabled
    table

     e11 cell "Backpack"
     e12 button "Remove"

A line is its id, where it has one, then `role "accessible name"`, then states (`value=`,
`checked`, `selected`, `expanded=false`, `disabled`, `required`, `level=2`, `clickable`,
...), then `-> url` for links (a path when same-origin) and `: text` for a node holding a
single run of text. A name spelled out by the lines under it is not repeated. Ids go to
controls and to nodes that carry text; structure (lists, rows, landmarks) and `text "..."`
runs have none, except short text standing on its own in an element (a badge, a count, a
status word of up to three words: `e4 text "2"`), which a check can then point at. A
table row with nothing of its own to say (no id, name or state) is a blank line before its
cells, which stand at its place: a word "row" would repeat on every row of a long table.
Wrappers without meaning are dropped and their children move up; hidden content is left
out. Frame content is nested under its `iframe` line and shadow-DOM content under its host.
The element values it makes (`ElementRef`, `Fingerprint`, `LiveElement`) are element.py's.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from playwright.sync_api import ElementHandle, Frame, Locator, Page
from playwright.sync_api import Error as PlaywrightError

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.errors import ElementNotFound
from pytest_stagehand.snapshot.ancestry import Ancestry
from pytest_stagehand.snapshot.element import (
    KEEP,
    ElementRef,
    Fingerprint,
    Kept,
    LiveElement,
)
from pytest_stagehand.snapshot.record import Record, element_ref, fingerprint_of

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Token estimate: one token per 4 characters, the usual rule for English and markup."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


ELEMENT_ID = r"e\d+"  # an element's id as the outline writes it, first on its line
ID_AT_LINE_START = re.compile(rf"^( *){ELEMENT_ID} ", re.MULTILINE)


def without_ids(text: str) -> str:
    """The outline to read, not to point into: the same lines without element ids."""
    return ID_AT_LINE_START.sub(r"\1", text)


@cache
def _script() -> str:
    """Read once per process: every snapshot and every replay check sends it."""
    return script(__package__, "snapshot", TABLES=TABLES, OUTLINES=OUTLINES)


# Where a document keeps the element descriptions of its last few outlines (snapshot.js),
# and the script that takes some, or all, of one outline's from there.
OUTLINES = 'Symbol.for("pytest-stagehand.outlines")'
TAKE = script(__package__, "take", OUTLINES=OUTLINES)


# Tables and ARIA grids as a person reads them: rows split across containers, columns by
# aria-colindex or place, the header row. For the scripts that read cells by row and column.
TABLES = script(__package__, "tables")


# The one element found, described (`describer`) and kept (KEEP); else how many were found.
# As JSON: Playwright's own serialization of a nested value costs more than the look.
INSPECT = script(__package__, "inspect", KEEP=KEEP)


@dataclass(frozen=True)
class Snapshot:
    """The outline of a page at one moment, and the elements its ids stand for."""

    url: str
    title: str
    text: str
    elements: Mapping[str, ElementRef]  # built on first access: see _Elements
    tokens: int

    def element(self, element_id: str) -> ElementRef | None:
        return self.elements.get(element_id)

    def take(self, element_ids: Iterable[str]) -> None:
        """Take these ids' descriptions (those the outline has) from the page in one call,
        where each is about to be asked for: one call each otherwise."""
        if isinstance(self.elements, _Elements):
            self.elements.take(element_ids)

    def locator(self, page: Page, element_id: str) -> Locator:
        """Locator for an id; KeyError if the id is not in this snapshot."""
        ref = self.elements.get(element_id)
        if ref is None:
            raise KeyError(f"no element {element_id!r} in this snapshot")
        return ref.locator(page)


def snapshot(page: Page, scope: str | None = None) -> Snapshot:
    """Outline `page`, or only the subtree of the first element matching `scope`.

    Ids and locators stay valid page-wide when scoped. `scope` is resolved in the main frame.
    """
    root = None
    if scope is not None:
        target = page.locator(scope).first
        if not target.count():
            raise ElementNotFound(
                f"No element matches the snapshot scope {scope!r}. "
                "Check the selector, or snapshot the whole page."
            )
        root = target.element_handle()
    builder = _Builder(origin_of(page.url))
    try:
        title = builder.add_frame(page.main_frame, (), 0, root)
    finally:
        if root is not None:
            root.dispose()
    text = "\n".join(builder.lines)
    return Snapshot(page.url, title, text, builder.elements, estimate_tokens(text))


def inspect(locator: Locator, frame_path: tuple[str, ...] = ()) -> LiveElement:
    """Count the hits of `locator` and describe the one element it hits, in one round trip
    and without waiting: a cached step checks its element this way before acting on it.
    `frame_path` is the locator's frame path, if any. Raises PlaywrightError for an invalid
    selector or a frame that went away."""
    seen = page_scripts.call_on_all(locator, [describer()], INSPECT)  # sent to a document once
    data = json.loads(seen)
    if "element" not in data:
        return LiveElement(data["count"])
    fingerprint = _placed(
        fingerprint_of(Record(*data["element"]), Ancestry(data["rows"]), frame_path), data
    )
    kept = Kept(data["kept"], 0) if "kept" in data and not frame_path else None
    return LiveElement(1, fingerprint, data["context"], kept=kept)


class Surroundings(NamedTuple):
    """What only a look at one element reads, as `inspect` reads it (snapshot.js `around`)."""

    context: str  # the text of the card, row or form around it
    containers: tuple[tuple[str, str], ...]  # their labels, as Fingerprint.containers
    glyph: str  # the glyph an icon font draws in it; "" for none (see `looked`)

    @classmethod
    def of(cls, found: list[Any]) -> Surroundings:
        context, places, glyph = found
        return cls(context, tuple((kind, label) for kind, label in places), glyph)


# The surroundings of every element our roles find for [role, name] (describer's byRole)
# but `elements` (the one being recorded), in one round trip: a look at each of a table's
# 1,500 "Delete" buttons would take minutes.
SURROUNDINGS = script(__package__, "surroundings")


def surroundings_of_namesakes(locator: Locator, role: str, name: str) -> list[Surroundings]:
    """The surroundings of each other element of the main frame with `role` and exactly
    `name`; `locator` hits the element itself."""
    seen = page_scripts.call_on_all(locator, [describer()], SURROUNDINGS, [role, name])
    return [Surroundings.of(found) for found in json.loads(seen)]


# The surroundings of each element of the main frame a selector finds, in one round trip:
# a heal among a table's 3,000 buttons and links looks at each.
SURROUNDINGS_AT = script(__package__, "surroundings_at")


def surroundings_at(page: Page, selectors: Sequence[str]) -> list[Surroundings | None]:
    """The surroundings of the element each main-frame selector finds; None where the
    document's own query does not find exactly one element as Playwright's would (no
    match, several, a shadow root)."""
    seen = page_scripts.call_on_all(
        page.locator(":root"), [describer()], SURROUNDINGS_AT, list(selectors)
    )
    return [None if found is None else Surroundings.of(found) for found in json.loads(seen)]


@cache  # one string: every look hands it to page_scripts, which hashes it
def describer() -> str:
    """JavaScript `(el, memo) => description`: one element as `inspect` describes it, for
    other page scripts (readback.js) to describe the elements they find; see `described`.
    A script describing several elements in one call passes them one `memo` object (and
    the page no change in between): what is read from the whole document is read once.
    Its `byRole(role, name, memo, most)` finds the elements a `role_selector` finds (the
    first `most`), by the same roles and names (snapshot.js), without Playwright's engine;
    its `shadowRoots(memo)` tells whether the document has an open shadow root.
    Its `prepare()` runs both once on a document (PREPARE); its `snapshot` is snapshot.js."""
    return (
        f"(snapshot => {{ const describe = Object.assign("
        f"(el, memo) => JSON.parse(snapshot({{ target: el, origin: '', memo }})),"
        " { byRole: (role, name, memo, most) =>"
        " snapshot({ byRole: [role, name, most], origin: '', memo }),"
        " shadowRoots: (memo) => snapshot({ shadowRoots: true, origin: '', memo }) });"
        f" describe.prepare = () => ({PREPARE})(describe); describe.snapshot = snapshot;"
        " return describe;"
        f" }})({_script()})"
    )


# The describer's first use on a document compiles it as it goes, which costs a replayed
# step's look more than the look itself. The page's first settle runs it once instead,
# while it waits for the page to be quiet anyway (actions.SETTLE): on a control, and a
# role query that reads every button's role and rules out its name. Reads only; a failure
# here is the look's to meet.
PREPARE = script(__package__, "prepare")


# A frame's outline, by the snapshot.js its document holds (page_scripts).
OUTLINE = "(describe, args) => describe.snapshot(args)"


def described(data: dict[str, Any], frame_path: tuple[str, ...] = ()) -> tuple[ElementRef, str]:
    """The ElementRef (selectors, fingerprint) and surroundings of a `describer` description."""
    record = Record(*data["element"])
    ref = element_ref("", record, Ancestry(data["rows"]), frame_path)
    return replace(ref, fingerprint=_placed(ref.fingerprint, data)), data["context"]


def _placed(fingerprint: Fingerprint, data: dict[str, Any]) -> Fingerprint:
    """The fingerprint with what a look at one element reads (snapshot.js `target`)."""
    places = tuple((kind, label) for kind, label in data.get("containers", ()))
    return looked(fingerprint, places, data.get("glyph", ""))


def looked(
    fingerprint: Fingerprint, containers: tuple[tuple[str, str], ...], glyph: str
) -> Fingerprint:
    """A snapshot's fingerprint with what only a look at the element reads: the labels of
    its containers and, a named control's `icon`, the glyph beside its words (an unnamed
    one's icon is its name, which the snapshot reads: a model chooses it by it)."""
    if not (fingerprint.name and glyph):
        return replace(fingerprint, containers=containers)
    attributes = {**fingerprint.attributes, "icon": glyph}
    return replace(fingerprint, containers=containers, attributes=attributes)


def origin_of(url: str) -> str:
    """A web page's scheme://host:port, the host in lower case; "" for about:blank, data:
    and the like, which have none. Links to the page's origin are shown as paths."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc.lower()}"


class _Builder:
    """Collects outline lines and element refs across frames, numbering ids in outline order."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.lines: list[str] = []
        self.elements = _Elements()

    def add_frame(
        self,
        frame: Frame,
        frame_path: tuple[str, ...],
        depth: int,
        root: ElementHandle | None = None,
    ) -> str:
        """Outline one frame (and, recursively, the frames it shows); returns its title."""
        children = frame.child_frames
        handles = [_frame_element(child) for child in children]
        args = {"root": root, "frames": handles, "origin": self.origin}
        try:  # the describer goes to each document once
            raw = page_scripts.call(frame, [describer()], OUTLINE, args)
        finally:
            for handle in handles:
                if handle is not None:
                    handle.dispose()
        data = json.loads(raw)
        kept = _KeptOutline(frame, data["key"], frame_path, dict(data["rows"]))
        iframes = {child: exact or kept.ancestry.css(row) for child, row, exact in data["frames"]}
        for line in data["lines"]:  # [depth, index, body], and its frame where it shows one
            line_depth, index, body, child = (*line, -1)[:4]
            indent = " " * (depth + line_depth)
            if index < 0:
                self.lines.append(indent + body if body else "")  # "": a row's blank line
            else:
                element_id = f"e{len(self.elements) + 1}"
                self.elements.add(element_id, kept, index)
                self.lines.append(f"{indent}{element_id} {body}")
            if child >= 0:
                # A frame that navigates or goes away mid-snapshot is shown empty.
                with contextlib.suppress(PlaywrightError):
                    nested = (*frame_path, iframes[child])
                    self.add_frame(children[child], nested, depth + line_depth + 1)
        return data["title"]


class _KeptOutline:
    """One frame's part of an outline: its elements' descriptions, which its document keeps
    (snapshot.js `take`) until they are asked for, and the ancestry rows taken so far."""

    def __init__(
        self, frame: Frame, key: str, frame_path: tuple[str, ...], rows: dict[int, list[Any]]
    ) -> None:
        self.frame = frame
        self.key = key
        self.frame_path = frame_path
        self.size = 0  # how many of the frame's elements have ids
        self.rows = rows
        self.ancestry = Ancestry(rows)

    def take(self, indices: list[int] | None) -> dict[int, list[Any]]:
        """The descriptions at `indices` (None: all), by index. Raises ElementNotFound where
        the document no longer keeps them."""
        try:
            raw = self.frame.evaluate(TAKE, [self.key, indices])
        except PlaywrightError:  # the frame went away
            raw = None
        if raw is None:
            raise ElementNotFound(
                "The page changed since its outline was read: it navigated, reloaded or was "
                "outlined several times since, so the outline's elements are no longer known."
            )
        data = json.loads(raw)
        if indices is None:
            self.rows.update(enumerate(data["rows"]))
            return dict(enumerate(data["elements"]))
        self.rows.update(data["rows"])
        return dict(data["elements"])


class _Elements(Mapping[str, "ElementRef"]):
    """A snapshot's ids and the ElementRefs they stand for, each built when first asked for,
    from the description its document kept: a prompt needs the outline and one or two
    elements, not thousands of fingerprints."""

    def __init__(self) -> None:
        self._pending: dict[str, tuple[_KeptOutline, int]] = {}
        self._built: dict[str, ElementRef] = {}

    def add(self, element_id: str, kept: _KeptOutline, index: int) -> None:
        self._pending[element_id] = (kept, index)
        kept.size += 1

    def __getitem__(self, element_id: str) -> ElementRef:
        ref = self._built.get(element_id)
        if ref is None:
            self._build([element_id])  # KeyError for an id the outline does not have
            ref = self._built[element_id]
        return ref

    def __contains__(self, element_id: object) -> bool:
        return element_id in self._pending

    def __iter__(self) -> Iterator[str]:
        return iter(self._pending)

    def __len__(self) -> int:
        return len(self._pending)

    def values(self) -> ValuesView[ElementRef]:
        self._build_all()
        return super().values()

    def items(self) -> ItemsView[str, ElementRef]:
        self._build_all()
        return super().items()

    def _build_all(self) -> None:
        self.take(self._pending)

    def take(self, element_ids: Iterable[str]) -> None:
        """Build the refs of these ids that the outline has and that are not built yet."""
        wanted = dict.fromkeys(element_ids)
        self._build([key for key in wanted if key in self._pending and key not in self._built])

    def _build(self, element_ids: list[str]) -> None:
        """Build these ids' refs, taking their descriptions from each frame in one call."""
        wanted: dict[_KeptOutline, list[tuple[str, int]]] = {}
        for element_id in element_ids:
            kept, index = self._pending[element_id]
            wanted.setdefault(kept, []).append((element_id, index))
        for kept, pairs in wanted.items():
            every = len(pairs) == kept.size
            records = kept.take(None if every else [index for _, index in pairs])
            for element_id, index in pairs:
                record = Record(*records[index])
                self._built[element_id] = element_ref(
                    element_id, record, kept.ancestry, kept.frame_path
                )


def _frame_element(frame: Frame) -> ElementHandle | None:
    try:
        return frame.frame_element()
    except PlaywrightError:
        return None  # detached while we looked
