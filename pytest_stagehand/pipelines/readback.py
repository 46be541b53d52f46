"""Extracted values that replay by reading the page again, never from the recording.

When an extract is recorded, each value of the model's answer is grounded in the page:
the element whose text (a form field's value, a link's href; where no text shows it, an
aria-label: the name the snapshot showed) shows it, recorded as act
records elements (selectors best first, fingerprint, surroundings), with a read rule: the
whole text, or a pattern with the value's place as its one group ("Items: 3" is read as
`^Items: (-?\\d[\\d,]*)$`, so it reads 4 when the page shows 4); a yes/no is read from a
checkbox's state. A list is recorded as a repeating structure: rows under a container and
a read per field of a row (by selector, by a table cell's column header, as the element
after the row: a <dd> after its <dt>, or in the group row above it: a calendar list's day
above its events), so a replay enumerates the rows the page shows now, in their order and
number; the container is recorded as an element too, and found again as a value's
element is. Every frame at any depth is searched, and the flat tree of
shadow roots and slots. A text the model joined from parts ("A, B") is read part by part.

A value the page does not show as it was answered (a count the model made, a yes/no no
checkbox shows, a paraphrase, a value shown in several places with nothing to tell which)
is marked unreadable, and said so when it is recorded (`needs_model`): offline, its replay
fails and names the field.

A replay returns what the page shows now and how that differs from the recording; the
caller decides what a difference means (recorded_step: a failed replay).

Kept whole: the read rules and reading again share the plan's format, which readback.js
reads too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from dataclasses import replace as replaced
from functools import cache
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Locator, Page

from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.scripts import script
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.events import Heal
from pytest_stagehand.heal.identity import Identity
from pytest_stagehand.heal.meaning import SAME_CONTEXT, said_in
from pytest_stagehand.heal.resolve import Resolution, Showing, Shown, resolve
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import (
    KEPT,
    ElementRef,
    Fingerprint,
    LiveElement,
    frame_scope,
)
from pytest_stagehand.snapshot.outline import TABLES, described, describer

UNREADABLE = "unreadable"
NUMBER = {"int": r"(-?\d[\d,]*)", "float": r"(-?\d[\d,]*(?:\.\d+)?)", "str": r"(.+?)"}
KEEP = 30  # characters of the text around a value kept in its read pattern
SPECIAL = set("^$\\.*+?()[]{}|/")
HOLE = "{}"  # a value's place in the text that identifies its element
# Where a model joins values it read in several places into one text: "A, B", "A and B".
JOINS = re.compile(r"(\s*[,;|/•·]\s*|\s+(?:and|&)\s+|\s*\n\s*)")


@cache
def _source() -> str:
    return script(__package__, "readback", TABLES=TABLES)


def script_text(head: str, call: str) -> str:
    return f"{head} => ({_source()})({call}, {describer()})"


def run_script(page: Page, frame_path: list[str] | tuple[str, ...], args: dict[str, Any]) -> Any:
    """readback.js on the document of the frame at `frame_path` (the page's own for none)."""
    if not frame_path:
        return json.loads(page.evaluate(script_text("(args)", "args"), args))
    root = frame_scope(page, frame_path).locator(":root")
    return json.loads(root.evaluate(script_text("(root, args)", "args"), args))


def frames_of(page: Page) -> list[tuple[Frame, tuple[str, ...]]]:
    """Every frame of the page at any depth (frames of framesets too), each with its frame
    path; the main frame first, then each frame's children after it."""
    found = [(page.main_frame, ())]
    for frame, path in found:  # grows as it goes: children are walked after their parent
        for child in frame.child_frames:
            try:
                handle = child.frame_element()
                data = handle.evaluate(f"(el) => ({describer()})(el, {{}})")
                handle.dispose()
            except PlaywrightError:
                continue  # gone while we looked
            found.append((child, (*path, described(data, path)[0].selector)))
    return found


def in_frames(seen: list[tuple[dict[str, Any], tuple[str, ...]]]) -> dict[str, Any]:
    """One "ground" answer from every frame's: a leaf's candidates from all frames, each
    with its frame path; a list from the first frame that shows all of it."""
    first = seen[0][0]
    if "candidates" in first:
        merged: dict[str, Any] = {
            "candidates": [
                {**candidate, "frame_path": list(path)}
                for found, path in seen
                for candidate in found["candidates"]
            ]
        }
        if "parts" in first:  # no frame shows the text whole: each frame tried its parts
            merged["parts"] = [
                in_frames([(found["parts"][index], path) for found, path in seen])
                for index in range(len(first["parts"]))
            ]
        return merged
    if "fields" in first:
        return {
            "fields": {
                name: in_frames([(found["fields"][name], path) for found, path in seen])
                for name in first["fields"]
            }
        }
    if "list" in first:
        lists = [{**found["list"], "frame_path": list(path)} for found, path in seen]
        # Else why the frame that shows the items cannot read them, not why the others
        # (the main frame first) do not show them.
        shown = [found for found in lists if not found.get("nowhere")] or lists
        return {"list": next((f for f in lists if UNREADABLE not in f), shown[0])}
    return first


def _escape(text: str) -> str:
    """A literal in a regular expression both Python and JavaScript (u flag) read alike."""
    return "".join(f"\\{c}" if c in SPECIAL else c for c in text)


# --- values -----------------------------------------------------------------------------


def type_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"  # read from a checkbox's checked state
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str" if isinstance(value, str) else None


def shown_as(value: Any) -> list[str]:
    """The ways a page may write `value`: 1234 as "1234" or "1,234", 9.9 as "9.90"; none
    for a yes/no, which a checkbox shows by its state."""
    if isinstance(value, bool):
        return []
    if isinstance(value, float):
        forms = [str(value), f"{value:.2f}", f"{value:,.2f}"]
        if value.is_integer():
            forms += [str(int(value)), f"{int(value):,}"]
    elif isinstance(value, int):
        forms = [str(value), f"{value:,}"]
    else:
        forms = [" ".join(str(value).split())]
    return sorted(set(forms), key=len, reverse=True)


def joined_parts(value: str) -> tuple[list[str], list[str]]:
    """The parts of a text a model joined ("Backpack, Bike Light") and what joins them;
    ([], []) for a text that is not a join of two or more parts."""
    pieces = JOINS.split(value.strip())
    parts, joins = pieces[::2], pieces[1::2]
    if len(parts) < 2 or any(len(part.strip()) < 2 for part in parts):
        return [], []
    return parts, joins


def find_pattern(value: Any) -> str:
    """Where `value` stands in a text, as a whole token: "2" is not found in "$29.99"."""
    alternatives = "|".join(_escape(form) for form in shown_as(value))
    if isinstance(value, str):
        return rf"(?<![\p{{L}}\p{{N}}])(?:{alternatives})(?![\p{{L}}\p{{N}}])"
    return rf"(?<![\p{{L}}\p{{N}}.,])(?:{alternatives})(?![\p{{L}}\p{{N}}]|[.,]\p{{N}})"


def parse(text: str, kind: str, pattern: str | None) -> Any:
    """The value a read rule takes from `text`; None when the text does not fit the rule."""
    if pattern is not None:
        found = re.search(pattern, text)
        if not found:
            return None
        text = found.group(1)
    text = text.strip()
    if not text:
        return None
    if kind == "bool":
        return {"true": True, "false": False}.get(text)
    try:
        if kind == "int":
            return int(text.replace(",", ""))
        if kind == "float":
            return float(text.replace(",", ""))
    except ValueError:
        return None
    return text


def read_rule(text: str, token: str, index: int, kind: str) -> str | None:
    """The pattern that takes the value at `index` out of `text`: None for the whole text."""
    if (text == token and kind == "str") or kind == "bool":
        return None
    before, after = text[:index], text[index + len(token) :]
    head = ("^" if len(before) <= KEEP else "") + _escape(before[-KEEP:])
    tail = _escape(after[:KEEP]) + ("$" if len(after) <= KEEP else "")
    return f"{head}{NUMBER[kind]}{tail}"


def _template(text: str, values: list[Any]) -> str:
    """`text` with `values` left out where each stands as a whole token (find_pattern): 10
    is left out of "Seats: 10", not out of "€100"."""
    forms = sorted({form for value in values for form in shown_as(value) if form}, key=len)
    for form in reversed(forms):  # the longest first: "$120.00" before "120"
        text = re.sub(rf"(?<![\w.,]){re.escape(form)}(?!\w|[.,]\d)", HOLE, text)
    return text


def _identity(element: RecordedElement, values: list[Any]) -> Identity:
    """What identifies the element a value is read from, with `values` left out: the value
    it shows and those the answer reads beside it, which are data that may change and the
    test sees change. Out of its name, text, surroundings (its line, outside any card) and
    its containers' labels (a row keyed by a value), and of the words that told it apart
    from look-alikes."""
    fp = element.fingerprint
    places = tuple((kind, _template(label, values)) for kind, label in fp.containers)
    fp = replaced(
        fp, name=_template(fp.name, values), text=_template(fp.text, values), containers=places
    )
    own = {word.casefold() for value in values for form in shown_as(value) for word in form.split()}
    distinct = " ".join(word for word in element.distinct.split() if word.casefold() not in own)
    apart = frozenset((kind, _template(label, values)) for kind, label in element.apart)
    return Identity(fp, _template(element.context or element.line, values), distinct, apart=apart)


def _holder_identity(element: RecordedElement, values: list[Any], named: bool) -> Identity:
    """What identifies the container of a list's rows: `_identity`, and its role left out
    too: a <ul>, a <div> or a <tbody> holding the rows is markup (Bootstrap 5's menu is a
    list, 4's a div labelled by its toggle); where they stand, and what names them, is not.
    Recorded with no name (`named` False), a name it has now is one more word of its
    surroundings, compared with theirs."""
    identity = _identity(element, values)
    fp = replaced(identity.fingerprint, role="")
    if named:
        return replaced(identity, fingerprint=fp)
    context = identity.context if fp.name in identity.context else f"{fp.name} {identity.context}"
    return replaced(identity, fingerprint=replaced(fp, name=""), context=context.strip())


def _text_words(text: str) -> set[str]:
    """The words of a text that are not values: numbers in a row change with its data."""
    return {word for word in text.casefold().split() if not re.search(r"\d", word)}


def kept_words(recorded: str, live: str) -> bool:
    """Most of the words of a recorded card, row or line that are not numbers are in the
    live one."""
    wanted = _text_words(recorded)
    return len(wanted & _text_words(live)) >= SAME_CONTEXT * len(wanted)


# The line of the one element a locator hits, through readback.js's one-element mode.
LINE = script(__package__, "readback_line")



def line_key(seen: dict[str, Any], by_line: bool) -> str:
    """The line of an element seen now, where the value is told by its line (see
    RecordedElement.line)."""
    return seen.get("line", "") if by_line else ""


def alike(
    page: Page, frame_path: tuple[str, ...] | list[str], tag: str, source: str, pattern: str | None
) -> list[dict[str, Any]]:
    """The elements of `tag` in the frame at `frame_path` whose value, read from `source`,
    fits `pattern`: their text and their description."""
    args = {"mode": "like", "tag": tag, "source": source, "pattern": pattern}
    return run_script(page, frame_path, args)


def holders(page: Page, frame_path: tuple[str, ...], rows: dict[str, Any]) -> list[dict[str, Any]]:
    """The elements of the frame at `frame_path` that hold the rows of a recorded list now,
    each the nearest around its rows: their description and their rows read."""
    return run_script(page, frame_path, {"mode": "holders", **_rows_args(rows)})


def line_of(locator: Locator) -> str:
    """The line of the one element `locator` hits (RecordedElement.line), with the
    scripts the document holds already (`page_scripts`)."""
    return page_scripts.call_on_all(locator, [describer(), _source()], LINE)


# --- reading again at replay time ------------------------------------------------------------


@dataclass
class Reading:
    """What the page shows now for a recorded extract."""

    value: Any = None
    plan: dict[str, Any] = field(default_factory=dict)  # the plan, healed where it moved
    heals: list[Heal] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # values the page no longer yields
    # The step's own words: what they name around a value stays around it in a heal.
    instruction: str = ""
    # Every value of the recorded answer: each is left out of the identity of the element
    # any value is read from (`_identity`).
    answered: list[Any] = field(default_factory=list)

    def changes(self, recorded: Any) -> list[str]:
        """How the value read now differs from the recorded one, field by field."""
        return list(_changes(recorded, self.value, ""))


def reread(page: Page, plan: dict[str, Any], recorded: Any, instruction: str = "") -> Reading:
    """Read every value of `plan` from the page now; `recorded` is the recorded value (its
    element is verified with the value itself left out, so a changed value is still read).
    `instruction`: the extract's, whose words around a value a heal of its read keeps."""
    reading = Reading(instruction=instruction, answered=list(_leaves(recorded)))
    reading.value, reading.plan = _reread(page, plan, recorded, "", reading)
    return reading


def _leaves(value: Any) -> Iterator[Any]:
    """The values of an answer, however nested, but its lists' (read as rows, by the
    rows' structure, and as many as a table has)."""
    if isinstance(value, dict):
        for child in value.values():
            yield from _leaves(child)
    elif value is not None and not isinstance(value, list):
        yield value


def _reread(page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading):
    if "fields" in plan:
        values, plans = {}, {}
        for name, child in plan["fields"].items():
            sub = recorded.get(name) if isinstance(recorded, dict) else None
            where = f"{path}.{name}" if path else name
            values[name], plans[name] = _reread(page, child, sub, where, reading)
        return values, {**plan, "fields": plans}
    if "rows" in plan:
        return _reread_rows(page, plan, recorded, path or "the list", reading)
    if "element" in plan:
        return _reread_leaf(page, plan, recorded, path or "the value", reading)
    if "joined" in plan:
        return _reread_joined(page, plan, recorded, path or "the value", reading)
    if plan.get("none"):
        return None, plan
    reading.broken.append(f"{path or 'the value'}: cannot be read again ({plan.get(UNREADABLE)})")
    return recorded, plan


def _reread_joined(page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading):
    """Each part read again where it was shown, joined as the model joined them."""
    parts = joined_parts(recorded)[0] if isinstance(recorded, str) else []
    if len(parts) != len(plan["joined"]):
        parts = [None] * len(plan["joined"])
    values, plans = [], []
    for number, (part_plan, part) in enumerate(zip(plan["joined"], parts, strict=True), 1):
        value, part_plan = _reread_leaf(page, part_plan, part, f"{path} (part {number})", reading)
        values.append(value)
        plans.append(part_plan)
    if any(value is None for value in values):
        return None, plan
    joined = "".join(v + j for v, j in zip(values, [*plan["joins"], ""], strict=True))
    return joined, {**plan, "joined": plans}


# The value the one element a look kept (KEEP) shows by the recorded rule `source`, and
# its line, as readback.js reads one element; null when another look kept others since.
READ_KEPT = script(__package__, "readback_read_kept", KEPT=KEPT)
# The same, of the one element a locator hits.
READ = script(__package__, "readback_read")


def _read(
    page: Page, element: RecordedElement, locator: Locator, hits: LiveElement, source: str
) -> dict[str, Any]:
    """What the one element `hits` found shows by the rule `source`, and its line: where
    the look kept it, read there (no selector engine needed); else through `locator`."""
    if element.frame_path:
        script = f"(elements, source) => ({READ})({_source()}, elements, source)"
        return json.loads(locator.evaluate_all(script, source))
    if hits.kept is not None:
        seen = page_scripts.call(page, [_source()], READ_KEPT, [*hits.kept[:2], source])
        if seen is not None:
            return json.loads(seen)
    return json.loads(page_scripts.call_on_all(locator, [_source()], READ, source))


def _reread_leaf(page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading):
    """The value read again from the element it was recorded from, found by the resolver
    act uses (heal.resolve), with the value left out of what identifies the element: the
    recorded value on the recording's side, the one each element shows on the page's."""
    element = RecordedElement.model_validate(plan["element"])
    kind, pattern, source = plan["type"], plan["pattern"], plan["read"]

    def showing(fingerprint_of: ElementRef | LiveElement, context: str, seen: dict[str, Any]):
        value = parse(seen["value"] if "value" in seen else seen["text"], kind, pattern)
        if value is None:
            return None
        live = element.model_copy(update={
            "fingerprint": fingerprint_of.fingerprint, "context": context,
            "line": line_key(seen, bool(element.line))})  # fmt: skip
        return Showing(_identity(live, [value, *reading.answered]), live, value)

    def read(locator: Locator, hits: LiveElement) -> Showing | None:
        return showing(hits, hits.context, _read(page, element, locator, hits, source))

    def candidates() -> list[tuple[ElementRef, Showing]]:
        found = []
        for seen in alike(page, element.frame_path, element.fingerprint.tag, source, pattern):
            ref, context = described(seen["element"], tuple(element.frame_path))
            if (live := showing(ref, context, seen)) is not None:
                found.append((ref, live))
        return found

    wanted = _identity(element, [recorded, *reading.answered])
    shown = Shown(replaced(wanted, instruction=reading.instruction), read, candidates)
    found = _found(page, element, shown, reading, f"{path}: the element it was read from is gone")
    if found is None:
        return None, plan
    if found.heal is None:
        return found.value, plan
    reading.heals.append(found.heal)
    return found.value, {**plan, "element": found.element.model_dump(mode="json")}


def _found(
    page: Page, element: RecordedElement, shown: Shown, reading: Reading, gone: str
) -> Resolution | None:
    """The element a value was read from, found as act finds its own (heal.resolve); None
    where it is not, with `gone` and the resolver's reason noted as broken."""
    try:
        return resolve(page, element, wait_ms=0, shown=shown)
    except HealFailed as exc:
        reading.broken.append(f"{gone} ({_why(exc)})")
        return None


def _why(refused: HealFailed) -> str:
    """Why the resolver found no element, in one line."""
    why = "; ".join(line.strip() for line in str(refused).splitlines()[1:]) or str(refused)
    return why.rstrip(".")


def _rows_args(rows: dict[str, Any]) -> dict[str, Any]:
    """What readback.js reads a recorded list's rows by: its row selectors and fields."""
    fields = {name: {"selectors": f["selectors"], "source": f["read"]}
              for name, f in rows["fields"].items()}  # fmt: skip
    return {"rows": rows["row"], "fields": fields}


@cache
def _rows_script() -> str:
    """readback.js's "rows" mode on the element it is evaluated on."""
    return script_text("(root, args)", "{ ...args, mode: 'rows', root }")


def _reread_rows(
    page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading
) -> tuple[list[Any], dict[str, Any]]:
    rows = plan["rows"]
    fields = rows["fields"]
    unreadable = [name or "the value" for name, f in fields.items() if UNREADABLE in f]
    if unreadable:
        reading.broken.append(f"{path}: {', '.join(unreadable)} cannot be read again")
        return [], plan
    if "element" in rows:
        read, plan = _rows_in_container(page, plan, recorded, path, reading)
    else:  # recorded before a list's container was recorded as an element
        read = _rows_by_selectors(page, rows, path, reading)
    values = []
    for number, row in enumerate(read or [], 1):
        item = {}
        for name, f in fields.items():
            item[name] = parse(row[name], f["type"], f["pattern"])
            if item[name] is None:
                reading.broken.append(
                    f"{path}[{number - 1}].{name or 'value'}: the page shows {row[name]!r}, "
                    "which the recorded read rule does not take"
                )
        values.append(item[""] if set(item) == {""} else item)
    return values, plan


def _rows_in_container(
    page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading
) -> tuple[list[dict[str, str]] | None, dict[str, Any]]:
    """The rows read in their container, found by the resolver act uses (heal.resolve) with
    the rows' values left out of what identifies it, as a value's element is found: a
    container in another section, dialog, table or frame is refused, one that moved or
    was restyled is healed onto."""
    rows = plan["rows"]
    element = RecordedElement.model_validate(rows["element"])
    frame_path = tuple(element.frame_path)
    args = _rows_args(rows)
    named = bool(element.fingerprint.name)

    def showing(fingerprint_of: ElementRef | LiveElement, context: str, read: list[Any]):
        live = element.model_copy(
            update={"fingerprint": fingerprint_of.fingerprint, "context": context}
        )
        shown = [text for row in read for text in row.values()]
        identity = _holder_identity(live, [*shown, *reading.answered], named)
        return Showing(identity, live, read)

    def read(locator: Locator, hits: LiveElement) -> Showing | None:
        found = json.loads(locator.evaluate(_rows_script(), args))
        return None if "broken" in found else showing(hits, hits.context, found["rows"])

    def candidates() -> list[tuple[ElementRef, Showing]]:
        found = []
        for seen in holders(page, frame_path, rows):
            ref, context = described(seen["element"], frame_path)
            found.append((ref, showing(ref, context, seen["rows"])))
        return found

    items = recorded if isinstance(recorded, list) else []
    answered = [value for item in items for value in _leaves(item)]
    wanted = _holder_identity(element, [*answered, *reading.answered], named)
    shown = Shown(replaced(wanted, instruction=reading.instruction), read, candidates)
    found = _found(page, element, shown, reading, f"{path}: its rows are no longer found")
    if found is None:
        return None, plan
    if found.heal is None:
        return found.value, plan
    live = found.element
    if not _same_scope(rows, live.fingerprint, live.context, live.selectors[0], path, reading):
        return None, plan
    reading.heals.append(found.heal)
    return found.value, {**plan, "rows": {**rows, "element": live.model_dump(mode="json")}}


def _rows_by_selectors(
    page: Page, rows: dict[str, Any], path: str, reading: Reading
) -> list[dict[str, str]] | None:
    """The rows read in the first recorded container selector's element that holds them,
    else in the page's body: a list recorded before its container was an element."""
    frame_path = tuple(rows.get("frame_path", ()))
    scope = frame_scope(page, frame_path)
    result = None
    for selector in [*rows["container"], "body"]:
        try:
            locator = scope.locator(selector)
            if locator.count() != 1:
                continue
            healed = selector != rows["container"][0]
            args = {**_rows_args(rows), "describe": healed}
            result = json.loads(locator.evaluate(_rows_script(), args))
        except PlaywrightError:
            continue
        if "broken" not in result:
            if healed:
                live, context = described(result["container"], frame_path)
                if not _same_scope(rows, live.fingerprint, context, live.selector, path, reading):
                    return None
                named = said_in(reading.instruction, rows.get("place", ""))
                reading.heals.append(Heal(
                    "locator", rows["container"][0], live.selector, changed=("container",),
                    decided_by=(f"container words: {', '.join(sorted(named))}",) if named else ()))
            break
    if result is None or "broken" in result:
        reading.broken.append(
            f"{path}: its rows are no longer found ({(result or {}).get('broken', 'no container')})"
        )
        return None
    return result["rows"]


def _same_scope(
    rows: dict[str, Any], live: Fingerprint, context: str, selector: str, path: str,
    reading: Reading,
) -> bool:
    """Does the container the rows are read in now, found elsewhere than recorded, still
    say what the step named of it ("Account" of "the items of the Account menu")? Noted
    as broken when not: a list of another menu, table or section is never read for it,
    however alike its rows."""
    named = said_in(reading.instruction, rows.get("place", ""))
    around = " ".join([context, live.name, *(label for _, label in live.containers)])
    gone = sorted(named - said_in(reading.instruction, around))
    if gone:
        reading.broken.append(
            f"{path}: its rows are no longer in their container: the rows found now are in "
            f"{selector}, which does not show {', '.join(gone)}, which the step names")
        return False
    return True


def _changes(recorded: Any, now: Any, path: str) -> Iterator[str]:
    where = path or "the value"
    if isinstance(recorded, dict) and isinstance(now, dict):
        for name in recorded:
            yield from _changes(recorded[name], now.get(name), f"{path}.{name}" if path else name)
    elif isinstance(recorded, list) and isinstance(now, list):
        if len(recorded) != len(now):
            yield f"{where}: {len(recorded)} recorded, the page now shows {len(now)}"
        for index, (a, b) in enumerate(zip(recorded, now, strict=False)):
            yield from _changes(a, b, f"{path}[{index}]")
    elif recorded != now:
        yield f"{where}: recorded {recorded!r}, the page now shows {now!r}"
