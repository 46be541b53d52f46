"""Vision: what the model is shown when the page text is not enough (canvas, SVG, icons).

A `Look` is a screenshot of the viewport (or of a scoped element) with the interactive
elements of the text snapshot outlined and numbered with their snapshot ids (set of
marks, drawn by an overlay that is removed before anything is done to the page), scaled
so its longest edge is at most MAX_EDGE pixels: its cost is bounded whatever the window.

A model looking at it names a mark, or a point where no mark fits. `action_at` turns a
point into an action on the snapshot element under it when there is one (recorded like
any element), else into an action at a position on the element under it (a canvas),
recorded with what made it that target: the colours of the region around the point, and
those of the text the model says names it (an axis label, a legend entry, the name beside
a map pin). Replay checks both before acting (`check_region`) and refuses a point whose
colour or label changed: a reordered chart never gets a click meant for another bar, nor
a relabelled one. The point and its label are kept relative to the element's size, so a
page zoomed or scaled as a whole replays at the same place on it.

Kept whole: a look and the point it yields are one round trip, and a point's replay checks
what the look recorded (its colours and its label's box).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, replace

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_stagehand.actions.action import Action, action_for, from_ref
from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.errors import ConfigError, RegionChanged
from pytest_stagehand.model.inference import ChoiceProblem
from pytest_stagehand.prompts.texts import Method
from pytest_stagehand.recordings.format import RecordedPoint
from pytest_stagehand.settings import VISION_MODES, VisionMode
from pytest_stagehand.snapshot.outline import Snapshot, described, describer

MAX_EDGE = 1024  # image pixels: the longest edge of a screenshot sent to a model
VISUAL_SHARE = 0.5  # a view this much covered by canvas/SVG/images is looked at, not read
REGION = 32  # CSS pixels: the side of the square around a point whose look is recorded
REGION_CELLS = 8  # its signature: REGION_CELLS x REGION_CELLS colours (RGB)
LABEL_CELLS = (16, 6)  # the signature of the text naming the point: columns x rows
LOOK_CELLS = 16  # the signature of a whole look (extract), finer, in gray levels
CHANGED = 48  # levels of a channel: a cell further off than this means the region changed
SAME_SCALE = 0.05  # width and height scaled alike within this: the element zoomed whole
POINT_METHODS: frozenset[str] = frozenset({"click", "double_click", "hover"})


def vision_mode(asked: bool | str | None, default: VisionMode) -> VisionMode:
    """The mode of one step: `vision=True` ("always"), False ("off"), a mode, or None
    for the page's default (--ai-vision)."""
    if asked is None:
        return default
    if isinstance(asked, bool):
        return "always" if asked else "off"
    if asked not in VISION_MODES:
        raise ConfigError(
            f"vision={asked!r} is not a vision mode: use True, False or one of "
            f"{', '.join(VISION_MODES)}."
        )
    return asked  # type: ignore[return-value]


@dataclass(frozen=True)
class Look:
    """An annotated screenshot and how its pixels map to the page's CSS pixels."""

    image: bytes  # PNG
    width: int  # image pixels
    height: int
    scale: float  # image pixels per CSS pixel
    left: float  # CSS pixels of the image's top-left corner in the viewport
    top: float
    marks: tuple[str, ...]  # the snapshot ids outlined on it

    def to_page(self, x: float, y: float) -> tuple[float, float]:
        """A point on the image as a point in the viewport (CSS pixels)."""
        return self.left + x / self.scale, self.top + y / self.scale

    @property
    def caption(self) -> str:
        marks = ", ".join(self.marks) or "none"
        return (
            f"The screenshot is {self.width}x{self.height} pixels; points are x from the left, "
            f"y from the top, in its pixels. Marked elements: {marks}."
        )


def look(
    page: Page,
    page_snapshot: Snapshot,
    scope: str | None = None,
    secrets: Mapping[str, str] | None = None,
) -> Look:
    """The viewport (or the `scope` element) with the snapshot's elements marked, and
    every field or text showing a secret value covered by its placeholder (`secrets`:
    value -> shown, StepLog.secrets): values never reach a prompt, not even as pixels."""
    area = _area(page, scope)
    boxes = _boxes(page, page_snapshot, area)
    png = _shot(page, area, boxes, secrets)
    png, width, height, scale = _bounded(page, png, area)
    return Look(
        png, width, height, scale, area["x"], area["y"], tuple(box[0] for box in boxes)
    )


def screenshot(page: Page, secrets: Mapping[str, str] | None = None) -> bytes:
    """The viewport as a PNG of at most MAX_EDGE pixels on its longest edge, unmarked and
    with secrets covered as in `look`: what a judge reads a visual claim from."""
    area = _area(page, None)
    return _bounded(page, _shot(page, area, [], secrets), area)[0]


def _shot(
    page: Page, area: dict[str, float], boxes: list[list], secrets: Mapping[str, str] | None
) -> bytes:
    """A screenshot of `area` with the marks drawn and the secrets covered."""
    with overlaid(page, secrets, boxes):
        return page.screenshot(clip=area, scale="css", caret="initial")


def _bounded(
    page: Page, png: bytes, area: dict[str, float]
) -> tuple[bytes, int, int, float]:
    """`png` of `area` scaled down to MAX_EDGE pixels at most: image, size and scale."""
    scale = min(1.0, MAX_EDGE / max(area["width"], area["height"]))
    width, height = round(area["width"] * scale), round(area["height"] * scale)
    if scale < 1.0:
        shrunk = page.evaluate(RESIZE, [base64.b64encode(png).decode(), width, height])
        png = base64.b64decode(shrunk)
    return png, width, height, scale


def mostly_visual(page: Page, scope: str | None = None) -> bool:
    """Is the view (or the scope element) mostly canvas, SVG or images, which the text
    snapshot cannot describe? Then the model is shown a screenshot from the start."""
    area = _area(page, scope)
    share = page.evaluate(VISUAL_SHARE_JS, area)
    return share >= VISUAL_SHARE


def action_at(
    page: Page,
    page_snapshot: Snapshot,
    seen: Look,
    point: tuple[float, float],
    method: Method,
    arguments: list[str],
    description: str,
    label: list[float] | None = None,
) -> tuple[Action, str | None]:
    """The action a point on the screenshot means, and the snapshot id it acts on: the
    snapshot element under the point, or, where there is none (a canvas), the point on
    the element there (id None), recorded with the look of the `label` box the model
    gave (the text naming it). ChoiceProblem when the point or label is off the image or
    the point is on the bare page."""
    x, y = point
    if not (0 <= x <= seen.width and 0 <= y <= seen.height):
        raise ChoiceProblem(
            f"the point ({x:g}, {y:g}) is outside the {seen.width}x{seen.height} screenshot."
        )
    if label is not None and not _on_image(label, seen):
        raise ChoiceProblem(
            f"label takes [x, y, width, height] of text on the {seen.width}x{seen.height} "
            f"screenshot; {label} is not that."
        )
    page_x, page_y = seen.to_page(x, y)
    items = [
        [key, ref.selector] for key, ref in page_snapshot.elements.items() if not ref.frame_path
    ]
    hit = page.evaluate_handle(HIT, [page_x, page_y, items])
    try:
        found = hit.evaluate("hit => hit && hit.id")
        if isinstance(found, str):  # a snapshot element is under the point
            return action_for(page_snapshot, found, method, arguments, description), found
        element = hit.evaluate_handle("hit => hit && hit.element").as_element()
        if element is None:
            raise ChoiceProblem(
                f"the point ({x:g}, {y:g}) is on the bare page, not on anything to act on: "
                "choose a mark, or a point on the thing itself."
            )
        if method not in POINT_METHODS:
            raise ChoiceProblem(
                f"no element that can take {method} is at ({x:g}, {y:g}); at a point only "
                f"{', '.join(sorted(POINT_METHODS))} work. Choose the mark of the element."
            )
        ref, context = described(element.evaluate(describer()))
        left, top, width, height = element.evaluate(PADDING_ORIGIN)
    finally:
        hit.dispose()
    at = RecordedPoint(
        x=round(page_x - left, 1), y=round(page_y - top, 1), look=signature(page, page_x, page_y),
        width=round(width, 1), height=round(height, 1),
    )
    if label is not None:
        label_x, label_y = seen.to_page(label[0], label[1])
        box = [
            round(label_x - left, 1), round(label_y - top, 1),
            round(label[2] / seen.scale, 1), round(label[3] / seen.scale, 1),
        ]
        at = at.model_copy(update={"label": box, "label_look": _label_look(page, left, top, box)})
    action = from_ref(ref, method, arguments, description)
    where = f"{action.element} at ({at.x:g}, {at.y:g})"
    return replace(
        action,
        description=description or where,
        element=where,
        target=action.target.model_copy(update={"context": context}),
        point=at,
    ), None


def by_its_look(page: Page, action: Action) -> Action:
    """`action` chosen on a screenshot, recorded with the look of its element's middle
    when nothing else tells the element apart (an icon with no name and no text): replay
    then never takes a look-alike in its place (the star where the heart was)."""
    fingerprint = action.target.fingerprint if action.target else None
    if action.point is not None or fingerprint is None or fingerprint.name or fingerprint.text:
        return action
    left, top, width, height = action.locator(page).evaluate(PADDING_ORIGIN)
    x, y = round(width / 2, 1), round(height / 2, 1)
    look = signature(page, left + x, top + y)
    at = RecordedPoint(x=x, y=y, look=look, width=round(width, 1), height=round(height, 1))
    return replace(action, point=at)


def check_region(page: Page, action: Action, step: str) -> Action:
    """`action` with its point where it is on the element now (the element zoomed or
    scaled as a whole moves it with it). Refuses (RegionChanged) to act there unless the
    region around the point has the colours it had when the step was recorded, and the
    text that named it (its label) looks as it did."""
    point = action.point
    if point is None:
        return action
    fingerprint = action.target.fingerprint if action.target else None
    named = fingerprint is None or fingerprint.name
    shown = action.element if named else f"the <{fingerprint.tag}>"
    target = action.locator(page)
    try:
        target.scroll_into_view_if_needed(timeout=5_000)
        left, top, width, height = target.evaluate(PADDING_ORIGIN, timeout=5_000)
    except PlaywrightError:
        raise RegionChanged(
            f"{step}: the recorded point on {shown} cannot be checked: the element "
            "is not shown. Nothing was done."
        ) from None
    across, down = _scale(point, width, height)
    if abs(across - down) > SAME_SCALE * max(across, down):
        raise RegionChanged(
            f"{step}: {shown} is {width:g}x{height:g} now, not {point.width:g}x"
            f"{point.height:g} as recorded, and not scaled as a whole: what was at the "
            f"recorded point may be elsewhere. Nothing was done. {RE_RECORD}"
        )
    x, y = point.x * across, point.y * down
    now = signature(page, left + x, top + y, REGION * across, colour=_in_colour(point.look))
    scaled = (across, down) != (1.0, 1.0)
    channels = 3 if _in_colour(point.look) else 1
    changed = _changed(point.look, now, channels, REGION_CELLS if scaled else 0, scaled)
    if changed:
        raise RegionChanged(
            f"{step}: what was at the recorded point on {shown} looks different now: its "
            f"{changed}, so acting there could hit something else. Nothing was done. "
            f"{RE_RECORD}"
        )
    if point.label:
        box = [v * (across if i % 2 == 0 else down) for i, v in enumerate(point.label)]
        label_changed = _changed(
            point.label_look, _label_look(page, left, top, box), 3,
            LABEL_CELLS[0] if scaled else 0,
        )
        if label_changed:
            raise RegionChanged(
                f"{step}: the point on {shown} is no longer named as recorded: "
                f"the text that named it (the label at {_box(box)} from the element's corner) "
                f"changed ({label_changed}), so the point now means something else. Nothing "
                f"was done. {RE_RECORD}"
            )
    if not scaled:
        return action
    scaled_point = point.model_copy(update={"x": round(x, 1), "y": round(y, 1)})
    return replace(action, point=scaled_point)


RE_RECORD = "If the page changed on purpose, re-record with a model: --ai-cache=refresh."


def _scale(point: RecordedPoint, width: float, height: float) -> tuple[float, float]:
    """How much the element grew across and down since the point was recorded."""
    if not (point.width and point.height and width and height):
        return 1.0, 1.0
    return width / point.width, height / point.height


def _on_image(box: list[float], seen: Look) -> bool:
    return (
        len(box) == 4 and box[2] > 0 and box[3] > 0 and box[0] >= 0 and box[1] >= 0
        and box[0] + box[2] <= seen.width + 1 and box[1] + box[3] <= seen.height + 1
    )


def _box(box: list[float]) -> str:
    return f"({box[0]:g}, {box[1]:g}), {box[2]:g}x{box[3]:g}"


def _label_look(page: Page, left: float, top: float, box: list[float]) -> str:
    """The colours of a label box given from the element's corner, LABEL_CELLS of them."""
    clip = {"x": max(0.0, left + box[0]), "y": max(0.0, top + box[1]),
            "width": max(1.0, box[2]), "height": max(1.0, box[3])}
    png = page.screenshot(clip=clip, scale="css", caret="initial")
    return _cells(page, png, LABEL_CELLS, colour=True)


def signature(
    page: Page, x: float, y: float, size: float = REGION, *, colour: bool = True
) -> str:
    """The look of the `size`-pixel square around a viewport point: REGION_CELLS²
    colours (RGB; gray levels for recordings made before colour), as hex."""
    half = size / 2
    clip = {"x": max(0.0, x - half), "y": max(0.0, y - half), "width": size, "height": size}
    png = page.screenshot(clip=clip, scale="css", caret="initial")
    return _cells(page, png, (REGION_CELLS, REGION_CELLS), colour=colour)


def _in_colour(look: str) -> bool:
    return len(look) == 2 * 3 * REGION_CELLS**2


def _changed(
    recorded: str, now: str, channels: int = 3, columns: int = 0, blends: bool = False
) -> str:
    """What differs between two signatures of one region ("" when they agree cell by
    cell, anti-aliasing aside), named by the values of the most changed cell: colours
    (`channels` 3) or gray levels (1). With `columns` (a region seen scaled since), a cell
    may match a neighbour, and with `blends` a mix of two neighbouring recorded cells:
    resampling moves an edge by up to a cell and mixes what meets there, never changing
    the colour of an area."""
    before, after = bytes.fromhex(recorded), bytes.fromhex(now)
    if len(before) != len(after):
        return "look (the recording's signature has another size)"
    was = [before[i : i + channels] for i in range(0, len(before), channels)]
    is_now = [after[i : i + channels] for i in range(0, len(after), channels)]

    def near(index: int) -> list[int]:
        if not columns:
            return [index]
        row, column = divmod(index, columns)
        return [
            r * columns + c
            for r in range(row - 1, row + 2)
            for c in range(column - 1, column + 2)
            if 0 <= c < columns and 0 <= r * columns + c < len(was)
        ]

    def off(value: bytes, low: bytes, high: bytes) -> int:
        return max(
            max(lo - v, v - hi, 0) for v, lo, hi in zip(value, low, high, strict=True)
        )

    def unlike(index: int) -> int:
        cells = near(index)
        spans = [(was[j], was[j]) for j in cells]
        if blends:  # what resampling mixes: a recorded cell with its neighbours
            spans += [
                (bytes(map(min, was[index], was[j])), bytes(map(max, was[index], was[j])))
                for j in cells
            ]
        return min(off(is_now[j], low, high) for j in cells for low, high in spans)

    worst = max(range(len(was)), key=unlike)
    if unlike(worst) <= CHANGED:
        return ""
    kind = "colour" if channels == 3 else "gray level"
    return f"{kind} (#{was[worst].hex()} recorded, #{is_now[worst].hex()} now)"


def look_signature(page: Page, scope: str | None = None) -> str:
    """The look of the viewport (or the scope element): LOOK_CELLS² gray levels, as hex."""
    png = page.screenshot(clip=_area(page, scope), scale="css", caret="initial")
    return _cells(page, png, LOOK_CELLS)


def same_look(recorded: str, now: str) -> bool:
    """Two gray signatures of one region agree cell by cell (anti-aliasing aside)."""
    return not _changed(recorded, now, channels=1)


def _cells(page: Page, png: bytes, cells: int | tuple[int, int], colour: bool = False) -> str:
    """`png` resampled to `cells` (a side, or columns x rows): gray levels, or colours."""
    size = [cells, cells] if isinstance(cells, int) else list(cells)
    levels = page.evaluate(COLOURS if colour else GRAY, [base64.b64encode(png).decode(), *size])
    return bytes(levels).hex()


def _area(page: Page, scope: str | None) -> dict[str, float]:
    """The part of the viewport looked at, in CSS pixels: the scope element's box within
    the viewport, else the viewport."""
    width, height = page.evaluate("[innerWidth, innerHeight]")
    if scope is not None:
        target = page.locator(scope).first
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        if box is not None and box["width"] >= 1 and box["height"] >= 1:
            left, top = max(0.0, box["x"]), max(0.0, box["y"])
            right = min(float(width), box["x"] + box["width"])
            bottom = min(float(height), box["y"] + box["height"])
            if right - left >= 1 and bottom - top >= 1:
                return {"x": left, "y": top, "width": right - left, "height": bottom - top}
    return {"x": 0.0, "y": 0.0, "width": float(width), "height": float(height)}


def _boxes(page: Page, page_snapshot: Snapshot, area: dict[str, float]) -> list[list]:
    """[id, x, y, width, height] of each snapshot element shown in the area (viewport CSS
    pixels). Elements in frames and behind shadow paths are measured by Playwright."""
    direct = [
        [key, ref.selector]
        for key, ref in page_snapshot.elements.items()
        if not ref.frame_path and ">>" not in ref.selector
    ]
    boxes = page.evaluate(BOXES, direct)
    for key, ref in page_snapshot.elements.items():
        if ref.frame_path or ">>" in ref.selector:
            try:
                box = ref.locator(page).bounding_box(timeout=1_000)
            except PlaywrightError:
                box = None
            if box is not None:
                boxes.append([key, box["x"], box["y"], box["width"], box["height"]])
    right, bottom = area["x"] + area["width"], area["y"] + area["height"]
    return [
        box for box in boxes
        if box and box[3] > 0 and box[4] > 0
        and box[1] < right and box[2] < bottom
        and box[1] + box[3] > area["x"] and box[2] + box[4] > area["y"]
    ]


# --- page scripts ----------------------------------------------------------------------

BOXES = script(__package__, "boxes")

# Where Playwright's `position` counts from: the element's padding box, in the viewport,
# and its size, all as shown (a zoomed or scaled element is measured at its shown size).
PADDING_ORIGIN = script(__package__, "padding_origin")

# The snapshot element at a viewport point (the nearest one around what is hit), unless
# what is hit is drawn (a canvas): then the drawn element, to act at the point on it.
HIT = script(__package__, "hit")

VISUAL_SHARE_JS = script(__package__, "visual_share_js")


def _decode_script(then: str) -> str:
    """A page script that decodes a base64 PNG into a bitmap of the given size, then runs
    the statements of `js/<then>.js` on it."""
    return script(__package__, "decode_png", THEN=script(__package__, then))


# A PNG made smaller, as base64.
RESIZE = _decode_script("png_resized")

# A PNG as cells of colour (red, green, blue: 0-255 each), row by row.
COLOURS = _decode_script("png_colours")

# A PNG as cells x cells gray levels (0-255), row by row.
GRAY = _decode_script("png_gray")
