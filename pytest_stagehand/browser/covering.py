"""What is drawn over the page for one screenshot: marks for the model to name (vision) and,
over every field and text that shows one of the test's secret values, a grey box with the
value's placeholder. Every screenshot goes through it (to a model, a report, an evidence
folder), so a value typed into a plain text field or echoed by the page never leaves as
pixels. The overlay is removed before anything else is done to the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page

from pytest_stagehand.browser.scripts import script
from pytest_stagehand.events import SHORT_SECRET

OVERLAY_ID = "__stagehand_overlay"

# Draws the overlay in one frame's document: `boxes` ([mark, x, y, width, height], in its
# viewport) outlined and labelled, and a cover over each field, and each text's element, in
# the document and its open shadow roots, that holds a secret: [value, shown, word], where
# `word` is the pattern a short value must match, as a whole word (`_word`).
OVERLAY = script(__package__, "overlay")

REMOVE = "id => document.getElementById(id)?.remove()"


@contextmanager
def overlaid(
    page: Page, secrets: Mapping[str, str] | None = None, boxes: Sequence[Sequence] = ()
) -> Iterator[None]:
    """For a screenshot taken inside: `boxes` marked in the main frame, and `secrets`
    (value -> shown, StepLog.secrets) covered in every frame. Costs nothing without either.
    A frame that goes away meanwhile is passed over: it shows nothing any more."""
    hidden = [[value, shown, _word(value)] for value, shown in (secrets or {}).items()]
    frames: list[Frame] = [page.main_frame] if boxes or hidden else []
    if hidden:
        frames += [frame for frame in page.frames if frame is not page.main_frame]
    drawn = []
    try:
        for frame in frames:
            marks = boxes if frame is page.main_frame else []
            try:
                frame.evaluate(OVERLAY, [OVERLAY_ID, marks, hidden])
            except PlaywrightError:
                if frame is page.main_frame:
                    raise
                continue
            drawn.append(frame)
        yield
    finally:
        for frame in drawn:
            with suppress(PlaywrightError):
                frame.evaluate(REMOVE, OVERLAY_ID)


def _word(value: str) -> str:
    """The JavaScript pattern (flags "iu") a value shorter than SHORT_SECRET must match, as
    a whole word, as the log's mask matches it ("2" and "yes" occur everywhere by chance);
    "" for a longer value, covered wherever it occurs."""
    if len(value) >= SHORT_SECRET:
        return ""
    escaped = re.sub(r"[\\^$.*+?()[\]{}|/]", lambda m: "\\" + m.group(), value)
    return rf"(?<![\p{{L}}\p{{N}}_]){escaped}(?![\p{{L}}\p{{N}}_])"
