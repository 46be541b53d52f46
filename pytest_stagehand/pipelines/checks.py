"""Recorded checks: what confirms a judge's YES with no model (an element's text, value or
state, text on the page, or a look), how each runs offline, and which checks are too weak
to stand for their claim."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from pytest_stagehand.actions.action import substitute
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.errors import (
    HealFailed,
)
from pytest_stagehand.events import Heal, each_text, shortened
from pytest_stagehand.heal.resolve import resolve
from pytest_stagehand.pipelines.readback import kept_words, line_of
from pytest_stagehand.pipelines.vision import look_signature, same_look
from pytest_stagehand.prompts.judge import (
    CheckMatch,
    CheckProperty,
    PageTextCheck,
)
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import describe

# A number standing on its own: not part of a word ("ada2") or of a longer number ("$29.99").

STATES: frozenset[str] = frozenset({"checked", "enabled", "visible"})
PREVIEW_CHARS = 160

NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?!\w|[.,]\d)")


# "one" is left out: "no one", "the one with" say no number.
NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"), 2
    )
}


# What a person sees of the page: its innerText, with each <select> shown as its selected
# option's label (as the snapshot shows it), not as every option it offers.
VISIBLE_TEXT = script(__package__, "visible_text")


# An element's text or value, meaning what the snapshot shows: innerText; value= of a form
# field; for a <select> both are its selected option's label (never the option's value).
READ = script(__package__, "read")


class RecordedElementCheck(BaseModel):
    """An element check as recorded: the element by selectors and fingerprint, not by id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["element"] = "element"
    element: RecordedElement
    property: CheckProperty
    match: CheckMatch
    expected: str

    @model_validator(mode="after")
    def _valid_regex(self) -> RecordedElementCheck:
        if self.match == "regex":
            try:
                re.compile(self.expected)
            except re.error as exc:
                raise ValueError(f"expected is not a valid regex ({exc})") from None
        return self


class RecordedLookCheck(BaseModel):
    """A YES judged from a screenshot alone (a chart drawn on a canvas): it holds while the
    page looks as it did then, cell by cell (vision.look_signature). Strict on purpose:
    any visible change fails it, never passes it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["look"] = "look"
    look: str


RecordedCheck = RecordedElementCheck | PageTextCheck | RecordedLookCheck


RECORDED_CHECK: TypeAdapter[RecordedCheck] = TypeAdapter(
    Annotated[RecordedCheck, Field(discriminator="kind")]
)


def describe_check(check: RecordedCheck) -> str:
    """The check in words, e.g. `text of link "Cart" equals "2"`."""
    if isinstance(check, RecordedLookCheck):
        return "the page looks as it did when the judge saw it"
    if isinstance(check, PageTextCheck):
        verb = "contains" if check.present else "does not contain"
        return f'the page text {verb} "{check.text}"'
    verb = "matches" if check.match == "regex" else check.match
    return f'{check.property} of {_element_words(check.element)} {verb} "{check.expected}"'


def _element_words(element: RecordedElement) -> str:
    """An element as people name it: by role and name, or (a nameless badge or count) by
    the test id, id or class that marks it."""
    fingerprint = element.fingerprint
    if fingerprint.name:
        return describe(fingerprint)
    mark = fingerprint.test_id or (f"#{fingerprint.id}" if fingerprint.id else "")
    mark = mark or ".".join(("", *fingerprint.classes[:1])) or element.selectors[0]
    return f"{fingerprint.role or fingerprint.tag} {mark}"


@dataclass(frozen=True)
class Outcome:
    """A check run against the page as it is now."""

    held: bool
    seen: str  # what the page has now, for people reading a failure
    check: RecordedCheck  # with its element healed, if it had to be
    heal: Heal | None = None
    value: str | None = None  # what the check read: the element's property, the page text


def run_check(
    page: Page,
    check: RecordedCheck,
    mask: Callable[[str], str] = str,
    values: Mapping[str, str] | None = None,
) -> Outcome:
    """Run a check with no model. An element that no longer verifies fails the check, and
    so does a check too weak to prove anything (a recording from an older version).

    What the page shows is read through `mask` (the test's StepLog.mask): the judge saw
    variable values as %name% placeholders, so its checks are written with them. The
    element is found by the `values` (StepLog.variables) the page shows: a heading
    recorded as "Signed in as %user%" is the one that shows the user's value now.
    """
    if isinstance(check, RecordedLookCheck):
        held = same_look(check.look, look_signature(page))
        return Outcome(held, "it looks the same" if held else "it looks different", check)
    if problem := weakness(check):
        return Outcome(False, f"it is too weak to prove anything: {problem}", check)
    if isinstance(check, PageTextCheck):
        return _run_text_check(page, check, mask)
    shown = each_text(check.element.model_dump(mode="json"), lambda t: substitute(t, values or {}))
    element = RecordedElement.model_validate(shown)
    try:
        found = resolve(page, element)
    except HealFailed as exc:
        return Outcome(False, str(exc), check)
    try:
        value = mask(_read(found.locator, check.property))
        line = mask(line_of(found.locator)) if check.element.line else ""
    except PlaywrightError as exc:
        seen = f"its {check.property} could not be read ({str(exc).splitlines()[0]})"
        return Outcome(False, seen, check)
    if not kept_words(check.element.line, line):  # another value in the same place
        return Outcome(False, f'its line now says "{line}", not "{check.element.line}"', check)
    now = check.model_copy(update={"element": found.element.model_copy(update={"line": line})})
    seen = f'{check.property} of {_element_words(found.element)} is "{value}"'
    return Outcome(_holds(value, check), seen, now, found.heal, value)


def _read(locator: Locator, prop: CheckProperty) -> str:
    if prop in ("text", "value"):
        return _collapse(locator.evaluate(READ, prop))
    state = {
        "checked": locator.is_checked,
        "enabled": locator.is_enabled,
        "visible": locator.is_visible,
    }[prop]()
    return "true" if state else "false"


def _holds(value: str, check: RecordedElementCheck) -> bool:
    if check.match == "regex":
        return re.search(check.expected, value) is not None
    expected = _collapse(check.expected)
    if check.property in STATES:
        expected = expected.lower()
    if check.match == "contains":
        return _standing_alone(expected).search(value) is not None
    return value == expected


def _standing_alone(text: str) -> re.Pattern[str]:
    """`text` where it is not the middle of a longer word or number: "2" is found in
    "Cart 2" but not in "$29.99", "12" or "2.5"; "lock" not in "locked"."""
    before = after = ""
    if text[:1].isalnum() or text[:1] == "_":
        before = r"(?<!\w)" + (r"(?<!\d[.,])" if text[0].isdigit() else "")
    if text[-1:].isalnum() or text[-1:] == "_":
        after = r"(?!\w)" + (r"(?![.,]\d)" if text[-1].isdigit() else "")
    return re.compile(before + re.escape(text) + after)


def visible_text(page: Page) -> str:
    """The page's text as a person reads it, whitespace collapsed (see VISIBLE_TEXT)."""
    return _collapse(page.evaluate(VISIBLE_TEXT))


def _run_text_check(page: Page, check: PageTextCheck, mask: Callable[[str], str]) -> Outcome:
    text = _collapse(mask(visible_text(page)))
    wanted = _collapse(check.text)
    found = _standing_alone(wanted).search(text) if wanted else None
    if found is None:
        seen = f'the page text does not contain it; it begins "{shortened(text, PREVIEW_CHARS)}"'
    else:
        start, end = found.span()
        around = text[max(0, start - PREVIEW_CHARS // 2) : end + PREVIEW_CHARS // 2]
        seen = f'the page text contains it: "…{around}…"'
    return Outcome((found is not None) == check.present, seen, check, value=text)


def trivial(check: RecordedCheck) -> bool:
    """A check that an empty text or value would pass proves nothing (equals "" does)."""
    if isinstance(check, PageTextCheck):
        return check.present and not _collapse(check.text)
    return check.match != "equals" and _holds("", check)


def weakness(check: RecordedCheck) -> str:
    """Why a check is too weak to mean anything on any page ("" when it is not): a single
    character, or page text that is a number or symbol alone (which element shows it?)."""
    if isinstance(check, RecordedLookCheck):
        return ""
    if isinstance(check, PageTextCheck):
        text = _collapse(check.text)
        if not check.present:
            return ""
        if not any(char.isalpha() for char in text):
            return (
                f'the page text check "{text}" is a number or symbol alone: it does not say '
                "which element shows it"
            )
        if len(text) < 2:
            return f'the page text check "{text}" is a single character'
        return ""
    if check.property not in STATES and check.match != "equals" and len(check.expected) < 2:
        return f'the check {describe_check(check)} matches a single character'
    return ""


def counterfeits(claim: str, check: RecordedCheck, outcome: Outcome) -> str:
    """Why a check that holds here would also hold where the claim is false, tried on the
    claim's obvious negations ("" when it would not): page text that appears more than
    once; a number of the claim it does not read, or still holds with that number one
    more or one less; a state it holds for whichever way it is."""
    value = outcome.value or ""
    if isinstance(check, PageTextCheck):
        if not check.present:
            return ""
        wanted = _standing_alone(_collapse(check.text))
        if (times := len(wanted.findall(value))) > 1:
            return (
                f'"{check.text}" appears {times} times on the page: it does not point at one '
                "place, so it would still be found if the place the claim is about changed"
            )
        return _unread_numbers(claim, _collapse(check.text), f'"{check.text}"')
    if check.property in STATES:
        flipped = "false" if value == "true" else "true"
        return f"it holds whether {check.property} is true or false" if _holds(
            flipped, check
        ) else ""
    where = f'{check.property} "{value}"'
    if problem := _unread_numbers(claim, value, where):
        return problem
    for spot in NUMBER.finditer(value):
        if spot.group() not in _numbers(claim):
            continue
        for other in _next_to(spot.group()):
            changed = value[: spot.start()] + other + value[spot.end() :]
            if _holds(changed, check):
                return f'it would also hold if the {check.property} were "{changed}"'
    return ""


def _numbers(claim: str) -> set[str]:
    words = {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", claim.lower()) if w in NUMBER_WORDS}
    return {spot.group() for spot in NUMBER.finditer(claim)} | words


def _unread_numbers(claim: str, read: str, where: str) -> str:
    """The claim names numbers and the check reads none of them: it cannot tell 2 from 3."""
    wanted = _numbers(claim)
    if not wanted or wanted & {spot.group() for spot in NUMBER.finditer(read)}:
        return ""
    numbers = ", ".join(sorted(wanted))
    return f"the claim is about {numbers} and the check reads {where}, which does not show it"


def _next_to(number: str) -> list[str]:
    """The number one more and one less, written the same way: "29.99" -> "30.99", "28.99"."""
    whole, dot, fraction = number.replace(",", "").partition(".")
    return [f"{n}{dot}{fraction}" for n in (int(whole) + 1, int(whole) - 1) if n >= 0]


def _collapse(text: str) -> str:
    return " ".join(text.split())
