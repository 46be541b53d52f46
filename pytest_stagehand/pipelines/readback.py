"""Extracted values that replay by reading the page again, never from the recording.

When an extract is recorded, each value of the model's answer is grounded in the page:
the element whose text (a form field's value, a link's href) shows it, recorded as act
records elements (selectors best first, fingerprint, surroundings), with a read rule: the
whole text, or a pattern with the value's place as its one group ("Items: 3" is read as
`^Items: (-?\\d[\\d,]*)$`, so it reads 4 when the page shows 4); a yes/no is read from a
checkbox's state. A list is recorded as a repeating structure: rows under a container and
a read per field of a row (by selector, by a table cell's column header, or as the element
after the row: a <dd> after its <dt>), so a replay enumerates the rows the page shows now,
in their order and number. Every frame at any depth is searched, and the flat tree of
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
from importlib import resources
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Locator, Page

from pytest_stagehand.actions.direct import NO_SHADOW_ROOTS, PLAIN_QUERY, is_plain
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.events import Heal
from pytest_stagehand.heal.identity import Identity, unique_first
from pytest_stagehand.heal.meaning import (
    HEAL_MARGIN,
    HEAL_THRESHOLD,
    SAME_CONTEXT,
    VERIFY_THRESHOLD,
    differences,
    named_words,
    said_in,
    similarity,
    told_apart,
)
from pytest_stagehand.heal.resolve import CONFIRMED_BY
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.outline import (
    described,
    describer,
    frame_scope,
    role_and_name,
)

UNREADABLE = "unreadable"
NUMBER = {"int": r"(-?\d[\d,]*)", "float": r"(-?\d[\d,]*(?:\.\d+)?)", "str": r"(.+?)"}
KEEP = 30  # characters of the text around a value kept in its read pattern
SPECIAL = set("^$\\.*+?()[]{}|/")
HOLE = "{}"  # a value's place in the text that identifies its element
# Where a model joins values it read in several places into one text: "A, B", "A and B".
JOINS = re.compile(r"(\s*[,;|/•·]\s*|\s+(?:and|&)\s+|\s*\n\s*)")


@cache
def _source() -> str:
    return resources.files(__package__).joinpath("js", "readback.js").read_text(encoding="utf-8")


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
        return {"list": next((f for f in lists if UNREADABLE not in f), lists[0])}
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


def _template(text: str, value: Any) -> str:
    for form in shown_as(value):
        if form:
            text = text.replace(form, HOLE)
    return text


def _identity(element: RecordedElement, value: Any) -> Identity:
    """What identifies the element a value is read from, with the value left out."""
    fp = element.fingerprint
    fp = replaced(fp, name=_template(fp.name, value), text=_template(fp.text, value))
    return Identity(fp, _template(element.context or element.line, value), element.distinct)


def _text_words(text: str) -> set[str]:
    """The words of a text that are not values: numbers in a row change with its data."""
    return {word for word in text.casefold().split() if not re.search(r"\d", word)}


def same_element(recorded: Identity, live: Identity) -> bool:
    """Is `live` the element the value was recorded from? Both with their values left out.

    heal.verify's gates (role, name, test id, a close fingerprint), but the surroundings
    are compared by their words that are not numbers, and need only be kept (most of them):
    a price changing next to the value, or a badge added to its card, does not make it
    another element; another row's words do.
    """
    r, now = recorded.fingerprint, live.fingerprint
    return (
        same_place(recorded, live)
        and (not r.test_id or not now.test_id or r.test_id == now.test_id)
        and similarity(recorded, live) >= VERIFY_THRESHOLD
    )


def same_place(recorded: Identity, live: Identity) -> bool:
    """The same role and name (values left out) in the same surroundings: what an element
    found at the recorded position must keep when its ids and classes were all renamed."""
    r, now = recorded.fingerprint, live.fingerprint
    return (
        r.role == now.role
        and " ".join(r.name.split()).casefold() == " ".join(now.name.split()).casefold()
        and kept_words(recorded.context, live.context)
    )


def kept_words(recorded: str, live: str) -> bool:
    """Most of the words of a recorded card, row or line that are not numbers are in the
    live one."""
    wanted = _text_words(recorded)
    return len(wanted & _text_words(live)) >= SAME_CONTEXT * len(wanted)


# The line of the one element a locator hits, through readback.js's one-element mode.
LINE = "(describe, read, elements) => JSON.parse(read({ target: elements[0] }, null)).line"



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

def line_of(locator: Locator) -> str:
    """The line of the one element `locator` hits (RecordedElement.line), with the
    scripts the document holds already (`page_scripts`)."""
    return page_scripts.call_on_all(locator, [describer(), _source()], LINE)


POSITIONAL = re.compile(r"^xpath=|:nth-of-type\(| > ")  # selectors that pin a position


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

    def changes(self, recorded: Any) -> list[str]:
        """How the value read now differs from the recorded one, field by field."""
        return list(_changes(recorded, self.value, ""))


def reread(page: Page, plan: dict[str, Any], recorded: Any, instruction: str = "") -> Reading:
    """Read every value of `plan` from the page now; `recorded` is the recorded value (its
    element is verified with the value itself left out, so a changed value is still read).
    `instruction`: the extract's, whose words around a value a heal of its read keeps."""
    reading = Reading(instruction=instruction)
    reading.value, reading.plan = _reread(page, plan, recorded, "", reading)
    return reading


def _reread(page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading):
    if "fields" in plan:
        values, plans = {}, {}
        for name, child in plan["fields"].items():
            sub = recorded.get(name) if isinstance(recorded, dict) else None
            where = f"{path}.{name}" if path else name
            values[name], plans[name] = _reread(page, child, sub, where, reading)
        return values, {**plan, "fields": plans}
    if "rows" in plan:
        return _reread_rows(page, plan, path or "the list", reading), plan
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


# The one element found, described, and its value read by the recorded rule `source`;
# else how many elements were found.
LOOK = (
    "(describe, read, elements, source) => elements.length === 1 ? JSON.stringify({"
    " described: describe(elements[0]),"
    " ...JSON.parse(read({ target: elements[0], source }, null)) })"
    " : JSON.stringify({ count: elements.length })"
)
# LOOK at what a plain selector hits, through the browser's own query; or at what a role
# selector, given as [role, name], hits, by our roles where one of the element's plain
# selectors confirms it (heal.CONFIRMED_BY); null where only Playwright can tell.
LOOK_BY_QUERY = f"""(describe, read, [selector, source, plain]) => {{
  let found;
  if (typeof selector === "string") found = ({PLAIN_QUERY})(selector);
  else {{
    let light;
    const lightOnly = () => light ??= ({NO_SHADOW_ROOTS})();
    const confirming = plain.map((s) => ({PLAIN_QUERY})(s, lightOnly));
    const by = ({CONFIRMED_BY})(describe, selector, confirming, {{}});
    found = by < 0 ? null : confirming[by];
  }}
  return found === null ? null : ({LOOK})(describe, read, found, source);
}}"""


@cache
def _look_script() -> str:
    return f"(elements, source) => ({LOOK})({describer()}, {_source()}, elements, source)"


def _look(page: Page, element: RecordedElement, selector: str, source: Any) -> dict[str, Any]:
    """LOOK at what `selector` hits: in the page itself where it can tell (LOOK_BY_QUERY:
    a plain selector, or a role selector that one of the element's plain selectors
    confirms), else with Playwright's engine; in the main frame with the scripts the
    document holds already (`page_scripts`). Raises Playwright's errors."""
    libraries = [describer(), _source()]
    if element.frame_path:
        locator = frame_scope(page, element.frame_path).locator(selector)
        return json.loads(locator.evaluate_all(_look_script(), source))
    plain = [s for s in element.selectors if is_plain(s)]
    asked = selector if is_plain(selector) else plain and role_and_name(selector)
    if asked:
        seen = page_scripts.call(page, libraries, LOOK_BY_QUERY, [asked, source, plain])
        if seen is not None:
            return json.loads(seen)
    return json.loads(page_scripts.call_on_all(page.locator(selector), libraries, LOOK, source))


def _reread_leaf(page: Page, plan: dict[str, Any], recorded: Any, path: str, reading: Reading):
    element = RecordedElement.model_validate(plan["element"])
    wanted = _identity(element, recorded)
    tried = []
    in_place = None  # the element at a recorded position, in its place, ids renamed
    for index, selector in enumerate(element.selectors):
        try:
            seen = _look(page, element, selector, plan["read"])
        except PlaywrightError:
            continue
        if "described" not in seen:
            tried.append(f"{selector} → {seen['count']} elements")
            continue
        value = parse(seen["value"], plan["type"], plan["pattern"])
        ref, context = described(seen["described"], tuple(element.frame_path))
        live = RecordedElement(
            selectors=[selector], fingerprint=ref.fingerprint, context=context,
            line=line_key(seen, bool(element.line)),
        )  # fmt: skip
        if value is None or not same_element(wanted, _identity(live, value)):
            tried.append(f"{selector} → another element")
            placed = value is not None and in_place is None and POSITIONAL.search(selector)
            if placed and same_place(wanted, _identity(live, value)):
                in_place = (value, ref, live, _identity(live, value))
            continue
        if index == 0:
            return value, plan
        moved = element.model_copy(
            update={
                "selectors": element.selectors[index:],
                "fingerprint": ref.fingerprint,
                "context": context,
                "line": live.line,
            }
        )
        reading.heals.append(
            Heal(
                "locator",
                element.selectors[0],
                selector,
                similarity(wanted, _identity(live, value)),
                differences(wanted, _identity(live, value)),
            )
        )
        return value, {**plan, "element": moved.model_dump(mode="json")}
    return _heal_leaf(page, plan, element, wanted, path, reading, tried, in_place)


def _heal_leaf(page, plan, element, wanted, path, reading, tried, in_place):
    """The one element of the recorded kind whose text fits the read rule and that looks
    clearly most like the recorded one (heal.py's thresholds), if any; else the element at
    the recorded position when it kept its role, name and surroundings (a redesign renamed
    its ids, test id and classes at once: nothing else could be taken for it). None when
    a word the step names around the value is gone from the page (heal.named_words)."""
    named = named_words(replaced(wanted, instruction=reading.instruction))
    gone = _not_shown(page, element.frame_path, named)
    if gone:
        reading.broken.append(
            f"{path}: the page no longer shows {', '.join(gone)}, which the step names"
        )
        return None, plan
    ranked = []
    tag, frame_path = element.fingerprint.tag, element.frame_path
    for candidate in alike(page, frame_path, tag, plan["read"], plan["pattern"]):
        value = parse(candidate["text"], plan["type"], plan["pattern"])
        if value is None:
            continue
        ref, context = described(candidate["element"], tuple(frame_path))
        live = RecordedElement(
            selectors=[ref.selector], fingerprint=ref.fingerprint, context=context,
            line=line_key(candidate, bool(element.line)),
        )  # fmt: skip
        identity = _identity(live, value)
        if identity.fingerprint.role != wanted.fingerprint.role or not told_apart(wanted, identity):
            continue
        ranked.append((similarity(wanted, identity), value, ref, live, identity))
    ranked.sort(key=lambda entry: entry[0], reverse=True)
    confident = (
        ranked
        and ranked[0][0] >= HEAL_THRESHOLD
        and (len(ranked) == 1 or ranked[0][0] - ranked[1][0] >= HEAL_MARGIN)
    )
    if confident or in_place is not None:
        if confident:
            score, value, ref, live, identity = ranked[0]
        else:
            value, ref, live, identity = in_place
            score = similarity(wanted, identity)
        healed = RecordedElement(
            selectors=unique_first(page, frame_path, list(ref.candidates) or [ref.selector]),
            frame_path=list(frame_path),
            fingerprint=ref.fingerprint,
            context=live.context,
            line=live.line,
        )
        changed = differences(wanted, identity)
        if not changed and healed.selectors[0] == element.selectors[0]:
            return value, plan  # the recorded element itself, its text shown late: no heal
        reading.heals.append(
            Heal("fingerprint", element.selectors[0], healed.selectors[0], score, changed)
        )
        return value, {**plan, "element": healed.model_dump(mode="json")}
    why = "; ".join(tried) or "no selector"
    best = f"; the best look-alike scored {ranked[0][0]:.2f}" if ranked else ""
    reading.broken.append(f"{path}: the element it was read from is gone ({why}{best})")
    return None, plan


# The words (casefolded) no text of the page (its open shadow roots too) has as a whole word.
NOT_SHOWN = r"""(words) => {
  const texts = [document.body.textContent];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) { texts.push(el.shadowRoot.textContent); walk(el.shadowRoot); }
    }
  };
  walk(document);
  const text = texts.join(" ").toLowerCase();
  const escape = (word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const letter = "[\\p{L}\\p{N}]";
  const shown = (word) => new RegExp(`(?<!${letter})${escape(word)}(?!${letter})`, "u").test(text);
  return words.filter((word) => !shown(word));
}"""


def _not_shown(page: Page, frame_path: list[str], words: frozenset[str]) -> list[str]:
    if not words:
        return []
    if not frame_path:
        return page.evaluate(NOT_SHOWN, sorted(words))
    root = frame_scope(page, frame_path).locator(":root")
    return root.evaluate(f"(root, words) => ({NOT_SHOWN})(words)", sorted(words))


def _reread_rows(page: Page, plan: dict[str, Any], path: str, reading: Reading) -> list[Any]:
    rows = plan["rows"]
    fields = rows["fields"]
    unreadable = [name or "the value" for name, f in fields.items() if UNREADABLE in f]
    if unreadable:
        reading.broken.append(f"{path}: {', '.join(unreadable)} cannot be read again")
        return []
    args = {
        "mode": "rows",
        "rows": rows["row"],
        "fields": {
            name: {"selectors": f["selectors"], "source": f["read"]} for name, f in fields.items()
        },
    }
    script = script_text("(root, args)", "{ ...args, root }")
    frame_path = tuple(rows.get("frame_path", ()))
    scope = frame_scope(page, frame_path)
    result = None
    for selector in [*rows["container"], "body"]:
        try:
            locator = scope.locator(selector)
            if locator.count() != 1:
                continue
            healed = selector != rows["container"][0]
            result = json.loads(locator.evaluate(script, {**args, "describe": healed}))
        except PlaywrightError:
            continue
        if "broken" not in result:
            if healed and not _same_scope(rows, result["container"], frame_path, path, reading):
                return []
            break
    if result is None or "broken" in result:
        reading.broken.append(
            f"{path}: its rows are no longer found ({(result or {}).get('broken', 'no container')})"
        )
        return []
    values = []
    for number, row in enumerate(result["rows"], 1):
        item = {}
        for name, f in fields.items():
            item[name] = parse(row[name], f["type"], f["pattern"])
            if item[name] is None:
                reading.broken.append(
                    f"{path}[{number - 1}].{name or 'value'}: the page shows {row[name]!r}, "
                    "which the recorded read rule does not take"
                )
        values.append(item[""] if set(item) == {""} else item)
    return values


def _same_scope(
    rows: dict[str, Any], found: dict[str, Any], frame_path: tuple[str, ...], path: str,
    reading: Reading,
) -> bool:
    """Are the rows, read outside their recorded container, in a container that still
    says what the step named of it ("Account" of "the items of the Account menu")? Noted
    as a heal to that container when so, as broken when not: a list of another menu, table
    or section is never read for it, however alike its rows."""
    live, context = described(found, frame_path)
    named = said_in(reading.instruction, rows.get("place", ""))
    around = " ".join([context, live.fingerprint.name,
                       *(label for _, label in live.fingerprint.containers)])
    gone = sorted(named - said_in(reading.instruction, around))
    if gone:
        reading.broken.append(
            f"{path}: its rows are no longer in their container: the rows found now are in "
            f"{live.selector}, which does not show {', '.join(gone)}, which the step names")
        return False
    reading.heals.append(Heal(
        "locator", rows["container"][0], live.selector, changed=("container",),
        decided_by=(f"container words: {', '.join(sorted(named))}",) if named else ()))
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
