"""Vision: what the model is shown when the page text is not enough (canvas, SVG, icons).

A `Look` is a screenshot of the viewport (or of a scoped element) with the interactive
elements of the text snapshot outlined and numbered with their snapshot ids (set of
marks, drawn by an overlay that is removed before anything is done to the page), scaled
so its longest edge is at most MAX_EDGE pixels: its cost is bounded whatever the window.

A model looking at it names a mark, or a point where no mark fits. `action_at` turns a
point into an action on the snapshot element under it when there is one (recorded like
any element), else into an action at a position on the element under it (a canvas),
recorded with a small grayscale signature of the region around the point. Replay checks
that signature before acting (`check_region`) and refuses a region that looks different:
a changed chart never gets a click meant for another bar.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, replace

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from .actions import Action, action_for, from_ref
from .cache import RecordedPoint
from .covering import overlaid
from .errors import ConfigError, RegionChanged
from .prompts import ChoiceProblem, Method
from .settings import VISION_MODES, VisionMode
from .snapshot import Snapshot, described, describer

MAX_EDGE = 1024  # image pixels: the longest edge of a screenshot sent to a model
VISUAL_SHARE = 0.5  # a view this much covered by canvas/SVG/images is looked at, not read
REGION = 32  # CSS pixels: the side of the square around a point whose look is recorded
REGION_CELLS = 8  # its signature: REGION_CELLS x REGION_CELLS gray levels
LOOK_CELLS = 16  # the signature of a whole look (extract), finer
CHANGED = 48  # gray levels: a cell further off than this means the region changed
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
) -> tuple[Action, str | None]:
    """The action a point on the screenshot means, and the snapshot id it acts on: the
    snapshot element under the point, or, where there is none (a canvas), the point on
    the element there (id None). ChoiceProblem when the point is off the image or on the
    bare page."""
    x, y = point
    if not (0 <= x <= seen.width and 0 <= y <= seen.height):
        raise ChoiceProblem(
            f"the point ({x:g}, {y:g}) is outside the {seen.width}x{seen.height} screenshot."
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
        left, top, _, _ = element.evaluate(PADDING_ORIGIN)
    finally:
        hit.dispose()
    at = RecordedPoint(
        x=round(page_x - left, 1), y=round(page_y - top, 1), look=signature(page, page_x, page_y)
    )
    action = from_ref(ref, method, arguments, description)
    label = f"{action.element} at ({at.x:g}, {at.y:g})"
    return replace(
        action,
        description=description or label,
        element=label,
        context=context,
        point=at,
    ), None


def by_its_look(page: Page, action: Action) -> Action:
    """`action` chosen on a screenshot, recorded with the look of its element's middle
    when nothing else tells the element apart (an icon with no name and no text): replay
    then never takes a look-alike in its place (the star where the heart was)."""
    fingerprint = action.fingerprint
    if action.point is not None or fingerprint is None or fingerprint.name or fingerprint.text:
        return action
    left, top, width, height = action.locator(page).evaluate(PADDING_ORIGIN)
    x, y = round(width / 2, 1), round(height / 2, 1)
    return replace(action, point=RecordedPoint(x=x, y=y, look=signature(page, left + x, top + y)))


def check_region(page: Page, action: Action, step: str) -> None:
    """Refuse (RegionChanged) to act at `action`'s point unless the region around it
    looks as it did when the step was recorded."""
    point = action.point
    if point is None:
        return
    target = action.locator(page)
    try:
        target.scroll_into_view_if_needed(timeout=5_000)
        left, top, _, _ = target.evaluate(PADDING_ORIGIN, timeout=5_000)
    except PlaywrightError:
        raise RegionChanged(
            f"{step}: the recorded point on {action.element} cannot be checked: the element "
            "is not shown. Nothing was done."
        ) from None
    now = signature(page, left + point.x, top + point.y)
    if not same_look(point.look, now):
        raise RegionChanged(
            f"{step}: the page at the recorded point on {action.element} looks different now "
            f"(signature {point.look} recorded, {now} now), so acting there could hit "
            "something else. Nothing was done. If the page changed on purpose, re-record with "
            "a model: --ai-cache=refresh."
        )


def signature(page: Page, x: float, y: float) -> str:
    """The look of the REGION-pixel square around a viewport point: REGION_CELLS² gray
    levels, as hex."""
    half = REGION / 2
    clip = {"x": max(0.0, x - half), "y": max(0.0, y - half), "width": REGION, "height": REGION}
    return _cells(page, page.screenshot(clip=clip, scale="css", caret="initial"),
                  REGION_CELLS)


def look_signature(page: Page, scope: str | None = None) -> str:
    """The look of the viewport (or the scope element): LOOK_CELLS² gray levels, as hex."""
    png = page.screenshot(clip=_area(page, scope), scale="css", caret="initial")
    return _cells(page, png, LOOK_CELLS)


def same_look(recorded: str, now: str) -> bool:
    """Two signatures of one region agree cell by cell (anti-aliasing aside)."""
    before, after = bytes.fromhex(recorded), bytes.fromhex(now)
    return len(before) == len(after) and all(
        abs(a - b) <= CHANGED for a, b in zip(before, after, strict=True)
    )


def _cells(page: Page, png: bytes, cells: int) -> str:
    levels = page.evaluate(GRAY, [base64.b64encode(png).decode(), cells])
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

BOXES = """items => items.map(([id, selector]) => {
  let el = null;
  try { el = document.querySelector(selector); } catch (e) { return null; }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return [id, r.x, r.y, r.width, r.height];
})"""

# Where Playwright's `position` counts from: the element's padding box, in the viewport.
PADDING_ORIGIN = """el => {
  const r = el.getBoundingClientRect();
  return [r.x + el.clientLeft, r.y + el.clientTop, el.clientWidth, el.clientHeight];
}"""

# The snapshot element at a viewport point (the nearest one around what is hit), unless
# what is hit is drawn (a canvas): then the drawn element, to act at the point on it.
HIT = """([x, y, items]) => {
  const hit = document.elementFromPoint(x, y);
  if (!hit || hit === document.documentElement || hit === document.body) return null;
  if (hit.closest("canvas")) return { element: hit.closest("canvas") };
  const ids = new Map();
  for (const [id, selector] of items) {
    try { const el = document.querySelector(selector); if (el) ids.set(el, id); } catch (e) {}
  }
  for (let e = hit; e; e = e.parentElement) if (ids.has(e)) return { id: ids.get(e) };
  return { element: hit.ownerSVGElement ? hit.closest("svg") : hit };
}"""

VISUAL_SHARE_JS = """area => {
  const total = area.width * area.height;
  let covered = 0;
  for (const el of document.querySelectorAll("canvas, svg, img, video, object, embed")) {
    if (el.ownerSVGElement) continue;
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, area.x + area.width) - Math.max(r.left, area.x);
    const h = Math.min(r.bottom, area.y + area.height) - Math.max(r.top, area.y);
    if (w > 0 && h > 0 && getComputedStyle(el).visibility !== "hidden") covered += w * h;
  }
  return total ? Math.min(1, covered / total) : 0;
}"""


def _decode_script(body: str) -> str:
    """A page script that decodes a base64 PNG into a bitmap of the given size, then `body`."""
    return (
        "async ([data, ...size]) => {\n"
        "  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));\n"
        "  const [width, height] = size.length === 1 ? [size[0], size[0]] : size;\n"
        "  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }),\n"
        "    { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' });\n"
        "  const canvas = new OffscreenCanvas(width, height);\n"
        "  const context = canvas.getContext('2d');\n"
        "  context.drawImage(bitmap, 0, 0);\n"
        f"{body}\n"
        "}"
    )


# A PNG made smaller, as base64.
RESIZE = _decode_script(
    "  const blob = await canvas.convertToBlob({ type: 'image/png' });\n"
    "  const out = new Uint8Array(await blob.arrayBuffer());\n"
    "  let text = '';\n"
    "  for (let i = 0; i < out.length; i += 0x8000) {\n"
    "    text += String.fromCharCode(...out.subarray(i, i + 0x8000));\n"
    "  }\n"
    "  return btoa(text);"
)

# A PNG as cells x cells gray levels (0-255), row by row.
GRAY = _decode_script(
    "  const pixels = context.getImageData(0, 0, width, height).data;\n"
    "  const levels = [];\n"
    "  for (let i = 0; i < pixels.length; i += 4) {\n"
    "    const [r, g, b] = pixels.subarray(i, i + 3);\n"
    "    levels.push(Math.round(0.299 * r + 0.587 * g + 0.114 * b));\n"
    "  }\n"
    "  return levels;"
)
