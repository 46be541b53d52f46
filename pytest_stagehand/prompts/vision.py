"""A screenshot with the snapshot's elements marked: the vision prompts."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from pytest_stagehand.model.messages import Message
from pytest_stagehand.prompts.texts import ActChoice, ObservedElement

VISION_NOTE = """\
A screenshot of the page is attached. The elements of the snapshot are outlined on it and
labelled with their ids. Use it for what the snapshot cannot show: drawings on a canvas,
charts, maps, icons without names. {caption}"""

VISION_POINTING = """\
To act on a labelled element, give its id as element_id. Only where no labelled element
fits (a bar of a chart drawn on a canvas, a spot on a map), give element_id null and point
[x, y], the pixel of the screenshot to act at; else point null. With a point, give label
[x, y, width, height]: the box, in screenshot pixels, of the text on the screenshot that
names what is at the point (its axis label, legend entry, the name beside a pin); null if
no text names it."""

POINT_FIELD = "[x, y] in screenshot pixels when element_id is null; else null"
LABEL_FIELD = (
    "[x, y, width, height] in screenshot pixels of the text naming what is at the point "
    "(axis label, legend entry, name beside it); null without a point or such text"
)


class VisionActChoice(ActChoice):
    """An act answer that may name a point on the screenshot instead of an element, and
    where the text naming it is: replay checks both are still there (vision.py)."""

    point: list[float] | None = Field(default=None, description=POINT_FIELD)
    label: list[float] | None = Field(default=None, description=LABEL_FIELD)


class VisionObservedElement(ObservedElement):
    element_id: str | None = Field(  # type: ignore[assignment]
        description="id of a labelled element, e.g. e12; null when giving a point"
    )
    point: list[float] | None = Field(default=None, description=POINT_FIELD)
    label: list[float] | None = Field(default=None, description=LABEL_FIELD)


class VisionObservation(BaseModel):
    elements: list[VisionObservedElement]


def with_screenshot(
    messages: Sequence[Message], caption: str, image: bytes, *, pointing: bool = True
) -> list[Message]:
    """The same request, shown a marked screenshot too: the note goes into the system
    prompt, the image with the last user message. `pointing`: the answer may be a point."""
    note = VISION_NOTE.format(caption=caption) + (f"\n{VISION_POINTING}" if pointing else "")
    shown = list(messages)
    if shown and shown[0].role == "system":
        shown[0] = Message("system", f"{shown[0].text}\n\n{note}")
    else:
        shown.insert(0, Message("system", note))
    last = shown[-1]
    shown[-1] = Message(last.role, last.text, (*last.images, image))
    return shown
