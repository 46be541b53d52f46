"""The element value, from a snapshot to a recording: what an element looked like
(`Fingerprint`, and its one label, `describe`), where a snapshot found it (`ElementRef`),
what a look at a locator saw (`LiveElement`), and where the page keeps a looked-at element
for the action that follows (`KEEP`, `Kept`). A recording stores the fingerprint
(recordings.format.RecordedElement); a heal compares fingerprints (heal.identity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from playwright.sync_api import FrameLocator, Locator, Page

from pytest_stagehand.browser.scripts import script

# Where the page keeps what a look found (KEEP), for the action that reads it.
KEPT = 'window[Symbol.for("pytest-stagehand.kept")]'
# The elements a look at the page found, kept in the page for the action that follows:
# it then acts on the very element that was verified, without finding it again (see
# actions.DIRECT_BY_QUERY). Returns the key the action asks for them by; each look
# replaces what the one before kept.
KEEP = script(__package__, "keep", KEPT=KEPT)


class Kept(NamedTuple):
    """An element a look kept in the page (KEEP): the look's key and the element's index."""

    key: str
    index: int
    # Where our role query found the element for a role selector (heal.LIGHT_HITS), which
    # Playwright's engine has not looked at: the plain selector that finds it alone.
    confirmed_by: str = ""
    # Where the look readied a click on it, its guard set (heal.LOOK): the click follows.
    point: tuple[float, float] | None = None


@dataclass(frozen=True)
class Fingerprint:
    """What an element looked like, scored against fresh elements to heal a stale selector."""

    tag: str
    role: str
    name: str
    text: str  # text content, whitespace-collapsed, at most 120 characters
    test_id: str | None  # data-testid / data-test-id / data-test / data-qa
    id: str | None
    classes: tuple[str, ...]
    attributes: dict[str, str]  # stable attributes as written: type, name, href, aria-label...
    path: tuple[str, ...]  # ancestors, root first, as "tag#id.first-class"; crosses shadow roots
    frame_path: tuple[str, ...] = ()
    # The labels of the containers around it, nearest first, as (kind, label): ("dialog",
    # "Delete project"), ("row", "Order 1001"), ("column", "Price"), ("heading", "Backpack"),
    # and what a value stands under: ("term", "Price") for a cell it fills, a definition's term.
    containers: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {
            "tag": self.tag,
            "role": self.role,
            "name": self.name,
            "text": self.text,
            "test_id": self.test_id,
            "id": self.id,
            "classes": list(self.classes),
            "attributes": dict(self.attributes),
            "path": list(self.path),
            "frame_path": list(self.frame_path),
        }
        if self.containers:  # most elements of a plain page have none
            data["containers"] = [list(place) for place in self.containers]
        return data

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fingerprint:
        return cls(
            tag=d["tag"],
            role=d["role"],
            name=d["name"],
            text=d["text"],
            test_id=d.get("test_id"),
            id=d.get("id"),
            classes=tuple(d.get("classes", ())),
            attributes=dict(d.get("attributes", {})),
            path=tuple(d.get("path", ())),
            frame_path=tuple(d.get("frame_path", ())),
            containers=tuple((kind, label) for kind, label in d.get("containers", ())),
        )


def describe(fingerprint: Fingerprint) -> str:
    """An element's label in step lines, reports and messages: role and name. The one
    label, so a step names its element alike when the model chose it and on replay."""
    kind = fingerprint.role or fingerprint.tag
    icon = fingerprint.attributes.get("icon")
    if icon and not fingerprint.name:  # an icon-only control: its icon is its name
        return f"{kind} with icon {icon}"
    return f'{kind} "{fingerprint.name}"' if fingerprint.name else kind


@dataclass(frozen=True)
class ElementRef:
    """One outlined element: how to reach it now, and how to find it again later."""

    id: str
    role: str
    name: str  # full accessible name, even where the outline leaves it to the child lines
    frame_path: tuple[str, ...]  # selector of each <iframe>, top document first
    selector: str  # matches exactly this element inside its frame
    # Alternatives for the cache, most robust first: test id, role+name, label, text, CSS path,
    # XPath. Each matches this element; role, label and text ones may match others too.
    candidates: tuple[str, ...]
    fingerprint: Fingerprint
    href: str | None  # absolute
    states: dict[str, object]

    def locator(self, page: Page) -> Locator:
        return frame_scope(page, self.frame_path).locator(self.selector)


def frame_scope(page: Page, frame_path: Sequence[str]) -> Page | FrameLocator:
    """Where selectors of an element in the frame at `frame_path` are resolved."""
    scope: Page | FrameLocator = page
    for frame_selector in frame_path:
        scope = scope.frame_locator(frame_selector)
    return scope


@dataclass(frozen=True)
class LiveElement:
    """What a locator hits now: how many elements and, when exactly one, how it looks."""

    count: int
    fingerprint: Fingerprint | None = None  # computed as a snapshot's, to compare with one
    context: str = ""  # the text of the card, row or form around it
    # Looked up just before an action: what a person would click for it (actions.STAND_IN:
    # "" itself, "label:<i>", "point:<what>"); None when not read.
    stand_in: str | None = field(default=None, compare=False)
    # Where the page keeps the element for the action (KEEP); None when it does not.
    kept: Kept | None = field(default=None, compare=False)
