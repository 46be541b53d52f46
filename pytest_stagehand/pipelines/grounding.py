"""Grounding an extract at record time: each value of the model's answer tied to where the
page shows it, as a plan readback.py follows offline; or said, at record time, to need a
model."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_stagehand.errors import NeedsModelWarning
from pytest_stagehand.heal.identity import Identity, apart_from, distinct_words, unique_first
from pytest_stagehand.heal.words import name_stems, name_words
from pytest_stagehand.pipelines.readback import (
    UNREADABLE,
    alike,
    find_pattern,
    frames_of,
    holders,
    in_frames,
    joined_parts,
    line_key,
    parse,
    read_rule,
    script_text,
    type_of,
)
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import ElementRef
from pytest_stagehand.snapshot.outline import described


def _tree(value: Any) -> dict[str, Any]:
    """The answer as readback.js's "ground" mode takes it."""
    if isinstance(value, dict):
        return {"kind": "object", "fields": {k: _tree(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"kind": "list", "items": [_tree(v) for v in value]}
    if type_of(value) is None:
        return {"kind": "none"}
    if isinstance(value, bool):
        return {"kind": "leaf", "checked": value}
    url = value if isinstance(value, str) and re.match(r"https?://", value) else None
    leaf = {"kind": "leaf", "pattern": find_pattern(value), "url": url}
    if isinstance(value, str) and (parts := joined_parts(value)[0]):
        leaf["parts"] = [_tree(part) for part in parts]
    return leaf


def ground(page: Page, value: Any) -> dict[str, Any]:
    """The read plan of `value` (the answer as JSON data) on the page as it is now, in
    whichever frame shows it."""
    args = {"mode": "ground", "tree": _tree(value)}
    seen = []
    for frame, path in frames_of(page):
        try:
            seen.append((json.loads(frame.evaluate(script_text("(args)", "args"), args)), path))
        except PlaywrightError:
            if not path:
                raise  # the page itself: the step's to meet
            continue  # a frame that navigated or went away shows nothing
    return _plan(page, value, in_frames(seen), "")


def _unreadable(why: str) -> dict[str, Any]:
    return {UNREADABLE: why}


def _plan(page: Page, value: Any, found: dict[str, Any], name: str) -> dict[str, Any]:
    if isinstance(value, dict):
        fields = found.get("fields", {})
        return {"fields": {k: _plan(page, v, fields.get(k, {}), k) for k, v in value.items()}}
    if isinstance(value, list):
        return _list_plan(page, value, found.get("list", {}))
    if value is None:
        return {"none": True}
    kind = type_of(value)
    if kind is None:
        return _unreadable("it is neither text, a number nor a yes/no")
    plan = _leaf_plan(page, value, kind, found.get("candidates", []), name)
    if UNREADABLE in plan and "parts" in found:
        return _joined_plan(page, value, found["parts"], name) or plan
    return plan


def _joined_plan(
    page: Page, value: str, found: list[dict[str, Any]], name: str
) -> dict[str, Any] | None:
    """A text the model joined from parts the page shows apart (two product names as
    "Backpack, Bike Light"): each part read again where it is shown, joined as recorded.
    None when a part is not shown as it was answered."""
    parts, joins = joined_parts(value)
    plans = [_leaf_plan(page, part, "str", seen.get("candidates", []), name)
             for part, seen in zip(parts, found, strict=True)]  # fmt: skip
    if any(UNREADABLE in plan for plan in plans):
        return None
    return {"joined": plans, "joins": joins}


def _leaf_plan(
    page: Page, value: Any, kind: str, candidates: list[dict[str, Any]], name: str
) -> dict[str, Any]:
    fitting = []
    for candidate in candidates:
        pattern = read_rule(candidate["text"], candidate["token"], candidate["index"], kind)
        if candidate["source"] in ("href", "checked"):
            pattern = None
        if parse(candidate["text"], kind, pattern) == value:
            fitting.append((candidate, pattern))
    if kind == "bool":  # any checkbox shows true or false: only one labelled for it will do
        fitting = [(c, p) for c, p in fitting if name_stems(name) & name_stems(c["label"])]
    if not fitting and kind == "bool":
        return _unreadable(
            f"a yes/no is the model's judgement: no checkbox labelled for {name or 'it'!r} "
            "shows it"
        )
    if not fitting:
        return _unreadable(
            "the page does not show it as it was answered (a count, a sum or a paraphrase "
            "the model made)"
        )
    if len(fitting) > 1:
        whole = [pair for pair in fitting if pair[0]["text"] == pair[0]["token"]]
        fitting = whole or fitting
    if len(fitting) > 1:
        wanted = name_words(name)
        scored = [
            (len(wanted & name_words(c["label"] + " " + c["text"])), (c, p)) for c, p in fitting
        ]
        best = max(score for score, _ in scored)
        named = [pair for score, pair in scored if score == best and best > 0]
        if len(named) == 1:
            fitting = named
        elif not (kind == "str" and len(str(value)) >= 4 and re.search(r"[^\W\d_]", str(value))):
            shown = "checkboxes show" if kind == "bool" else "the page shows"
            return _unreadable(
                f"{len(fitting)} {shown} {value!r}, and nothing tells which one the model read"
            )
    candidate, pattern = fitting[0]
    frame_path = tuple(candidate.get("frame_path", ()))
    ref, context = described(candidate["element"], frame_path)
    line = "" if context else candidate.get("line", "")
    element = RecordedElement(
        selectors=unique_first(page, frame_path, list(ref.candidates) or [ref.selector]),
        frame_path=list(frame_path),
        fingerprint=ref.fingerprint,
        context=context,
        line=line,
        distinct=_distinct(page, ref, context or line, candidate["source"], pattern, bool(line)),
    )
    return {
        "element": element.model_dump(mode="json"),
        "read": candidate["source"],
        "pattern": pattern,
        "type": kind,
    }


def _distinct(
    page: Page, ref: ElementRef, around: str, source: str, pattern: str | None, by_line: bool
) -> str:
    """The words around the value (its card's, or `by_line` its line's) that its
    look-alikes (its kind of element, at its depth, showing a value of its kind: the
    balance of each payee) lack around them: a heal of the read never takes a value from a
    place without them. Numbers left out: they change with the data."""
    fp = ref.fingerprint
    others = []
    for found in alike(page, ref.frame_path, fp.tag, source, pattern):
        other, other_context = described(found["element"], ref.frame_path)
        if other.selector != ref.selector and (
            (other.fingerprint.classes, other.fingerprint.path) == (fp.classes, fp.path)
        ):
            others.append(other_context or line_key(found, by_line))
    distinct = distinct_words(around, others)
    return " ".join(word for word in distinct.split() if not re.search(r"\d", word))


def _list_plan(page: Page, value: list[Any], found: dict[str, Any]) -> dict[str, Any]:
    if UNREADABLE in found:
        return _unreadable(f"a list: {found[UNREADABLE]}")
    if not value or not found:
        return _unreadable("an empty list has no rows to read again")
    frame_path = tuple(found.get("frame_path", ()))
    ref, context = described(found["container"], frame_path)
    fields = {}
    for name, shown in found["fields"].items():
        items = [item if name == "" else item[name] for item in value]
        fields[name] = _row_field(items, shown)
    selectors = unique_first(page, frame_path, list(ref.candidates) or [ref.selector])
    rows = {
        "container": selectors,
        "row": found["rows"],
        "fields": fields,
        # What the container says it is: a scope healed elsewhere must still say it.
        "place": " ".join([context, *(label for _, label in ref.fingerprint.containers)]),
    }
    if not any(UNREADABLE in field for field in fields.values()):
        rows["element"] = _container(page, rows, ref, context, selectors).model_dump(mode="json")
    return {"rows": {**rows, "frame_path": list(frame_path)} if frame_path else rows}


def _container(
    page: Page, rows: dict[str, Any], ref: ElementRef, context: str, selectors: list[str]
) -> RecordedElement:
    """A list's container as act records an element, for the resolver to find again: with
    the words around it and the labels of its containers that the other elements holding
    such rows (another section's list) lack."""
    others = []
    for seen in holders(page, ref.frame_path, rows):
        other, other_context = described(seen["element"], ref.frame_path)
        if other.selector != ref.selector:
            others.append(Identity(other.fingerprint, other_context))
    own = Identity(ref.fingerprint, context)
    return RecordedElement(
        selectors=selectors,
        frame_path=list(ref.frame_path),
        fingerprint=ref.fingerprint,
        context=context,
        distinct=distinct_words(context, [other.context for other in others]),
        apart=apart_from(own, others),
    )


def _row_field(items: list[Any], shown: dict[str, Any]) -> dict[str, Any]:
    if UNREADABLE in shown:
        return shown
    kinds = {type_of(item) for item in items}
    if len(kinds) != 1 or None in kinds:
        return _unreadable("its values are not all text or all numbers")
    kind = kinds.pop()
    if kind == "bool" and len(set(items)) < 2:
        return _unreadable(
            "its rows' checkboxes all show one state: nothing tells they are what it answers"
        )
    rules = {
        None
        if row["source"] in ("href", "checked")
        else read_rule(row["text"], row["token"], row["index"], kind)
        for row in shown["rows"]
    }
    pattern = rules.pop() if len(rules) == 1 else None
    source = shown["rows"][0]["source"]
    if any(
        parse(row["text"], kind, pattern) != item
        for row, item in zip(shown["rows"], items, strict=True)
    ):
        return _unreadable("its rows show it in different ways")
    return {"selectors": shown["selectors"], "read": source, "pattern": pattern, "type": kind}


def unreadable_fields(plan: dict[str, Any], path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, why) for every value of a plan that cannot be read again."""
    if UNREADABLE in plan:
        yield path or "the value", plan[UNREADABLE]
    for name, child in plan.get("fields", {}).items():
        yield from unreadable_fields(child, f"{path}.{name}" if path else name)
    for name, child in plan.get("rows", {}).get("fields", {}).items():
        yield from unreadable_fields(child, f"{path}[].{name}" if name else f"{path}[]")


def needs_model(plan: dict[str, Any], what: str, mask: Callable[[str], str]) -> str:
    """Said when `what` (a step) is recorded with values of `plan` that cannot be read
    again: a NeedsModelWarning in the test's output, and the notice returned ("" when
    every value reads again). `mask` keeps variable values out of it."""
    fields = "; ".join(f"{name} ({why})" for name, why in unreadable_fields(plan))
    if not fields:
        return ""
    notice = mask(
        f"{what} was recorded with values the page does not show as answered: {fields}. "
        "Replayed with no model it will fail; with a model, these are asked again each run"
    )
    warnings.warn(notice, NeedsModelWarning, stacklevel=3)
    return notice
