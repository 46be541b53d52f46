"""The screen a computer-use model sees: the screenshot at the size it is sent, and what lies
under a point of it."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from playwright.sync_api import Page

from pytest_stagehand.actions.action import Action, from_ref
from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.heal.identity import recorded_element, unique_first
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import ElementRef
from pytest_stagehand.snapshot.outline import described, describer, snapshot

MAX_DISPLAY = (1280, 800)  # larger viewports are sent scaled down, as the providers advise


@dataclass(frozen=True)
class Screen:
    """The viewport in CSS pixels and the screenshot the model sees, in its own pixels:
    points map between them whatever the device scale factor or the scaling."""

    width: int
    height: int
    display_width: int
    display_height: int

    @classmethod
    def of(cls, page: Page) -> Screen:
        width, height = page.evaluate("() => [innerWidth, innerHeight]")
        scale = min(1.0, MAX_DISPLAY[0] / width, MAX_DISPLAY[1] / height)
        return cls(width, height, max(1, round(width * scale)), max(1, round(height * scale)))

    def to_page(self, x: float, y: float) -> tuple[float, float]:
        """A point of the screenshot as a point of the viewport (CSS pixels)."""
        return x * self.width / self.display_width, y * self.height / self.display_height

    def shot(self, page: Page, secrets: Mapping[str, str]) -> bytes:
        """A PNG screenshot of the viewport at the display size, `secrets` covered."""
        with overlaid(page, secrets):
            image = page.screenshot(scale="css")  # CSS pixels: the device scale factor is undone
        if (self.display_width, self.display_height) == (self.width, self.height):
            return image
        data = base64.b64encode(image).decode()
        return base64.b64decode(
            page.evaluate(RESIZE, [data, self.display_width, self.display_height])
        )


# Scales a PNG in the browser (no imaging library needed), touching nothing in the page.
RESIZE = script(__package__, "resize")


# The control under a point (a label stands for its control), or the focused field; with
# the tag and id of whatever is there, which is what a coordinate replay checks.
CONTROLS = (
    "a[href], button, input, select, textarea, summary, label, [contenteditable=''], "
    "[contenteditable=true], [onclick], [role=button], [role=link], [role=checkbox], "
    "[role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], "
    "[role=textbox], [role=combobox], [role=searchbox], [role=slider], [role=spinbutton]"
)


LOOK = script(
    __package__, "look", DESCRIBER=describer(), CONTROLS=json.dumps(CONTROLS)
)


@dataclass(frozen=True)
class Spot:
    """What is at a point: the control (with its surroundings), and the tag#id there."""

    at: str
    ref: ElementRef | None = None
    context: str = ""


def spot_at(page: Page, x: float = 0, y: float = 0, *, focused: bool = False) -> Spot:
    found = page.evaluate(LOOK, [x, y, focused])
    if found["element"] is None:
        return Spot(found["at"])
    ref, context = described(found["element"])
    return Spot(found["at"], ref, context)


def element_action(
    page: Page, spot: Spot, method: Any, arguments: Sequence[str], description: str
) -> Action:
    """An Action on the control at `spot`, with what a replay verifies and heals it by: the
    snapshot's element and look-alikes where the snapshot has it."""
    assert spot.ref is not None
    page_snapshot = snapshot(page)
    where = (spot.ref.frame_path, spot.ref.selector)
    ref = next(
        (r for r in page_snapshot.elements.values() if (r.frame_path, r.selector) == where),
        None,
    )
    if ref is not None:
        recorded = recorded_element(page, page_snapshot, ref)
    else:
        ref = spot.ref
        selectors = unique_first(page, ref.frame_path, list(ref.candidates) or [ref.selector])
        recorded = RecordedElement(
            selectors=selectors, frame_path=list(ref.frame_path), fingerprint=ref.fingerprint,
            context=spot.context,
        )  # fmt: skip
    action = from_ref(ref, method, arguments, description)
    return replace(
        action,
        description=f"{description} {action.element}".strip(),
        target=recorded,
    )
