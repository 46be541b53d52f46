"""One element as snapshot.js describes it (`Record`), and the ElementRef made from that
description: its selectors, most robust first, and its fingerprint. A snapshot makes one
for each id it is asked for; a look at one element (`outline.described`), for that one.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from pytest_stagehand.snapshot.ancestry import Ancestry
from pytest_stagehand.snapshot.element import ElementRef, Fingerprint

ROLE_SELECTOR = re.compile(r'role=([a-z]+)\[name="((?:[^"\\]|\\.)*)"s\]')


def role_selector(role: str, name: str) -> str:
    """The selector a recording keeps for an element by its role and exact name."""
    return f"role={role}[name={quote(name)}s]"


def role_and_name(selector: str) -> tuple[str, str] | None:
    """The role and exact name of a `role_selector`; None for any other selector."""
    match = ROLE_SELECTOR.fullmatch(selector)
    if match is None:
        return None
    return match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))


TAG = re.compile(r"[a-z][a-z0-9-]*")  # an element name XPath writes as it is


def xpath_literal(value: str) -> str:
    """`value` as an XPath 1.0 string literal, which has no escapes: quotes of one kind
    are joined with concat()."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "concat(" + ", '\"', ".join(f'"{part}"' for part in value.split('"')) + ")"


def quote(value: str) -> str:
    """A double-quoted string as CSS and Playwright's attribute selectors read it."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Record(NamedTuple):
    """One element as snapshot.js describes it (see `describe` there): the fields it
    leaves out at the end are empty."""

    row: int  # in the ancestry table
    tag: str
    role: str
    name: str
    states: dict[str, object]
    attributes: dict[str, str]
    own_text: int = 0  # the name is the element's own text: a text= selector finds it
    text: str | None = None  # None: the same as the name
    href: str | None = None
    id: str = ""
    classes: str = ""
    label: str = ""
    test_id_attribute: str = ""
    test_id: str = ""
    test_id_unique: int = 0
    exact: str = ""  # a pinned selector where the CSS path alone is ambiguous


def element_ref(
    element_id: str, record: Record, ancestry: Ancestry, frame_path: tuple[str, ...]
) -> ElementRef:
    name = record.name
    selector = record.exact or ancestry.css(record.row)
    # Most robust first: a test id survives restyling and rewording, role+name survives
    # restructuring, label and text survive restructuring of forms and copy; paths do not.
    candidates = []
    if record.test_id_unique:
        candidates.append(f"[{record.test_id_attribute}={quote(record.test_id)}]")
    if name and record.role not in ("generic", "iframe"):
        candidates.append(role_selector(record.role, name))
    if record.label:
        candidates.append(f"internal:label={json.dumps(record.label, ensure_ascii=False)}s")
    xpath = ancestry.xpath(record.row)
    if record.own_text:
        candidates.append(f"text={quote(name)}")
        if xpath and TAG.fullmatch(record.tag):  # the same, found by the browser's own XPath
            candidates.append(f"xpath=//{record.tag}[normalize-space()={xpath_literal(name)}]")
    if selector not in candidates:
        candidates.append(selector)
    if xpath:
        candidates.append(f"xpath={xpath}")
    return ElementRef(
        id=element_id,
        role=record.role,
        name=name,
        frame_path=frame_path,
        selector=selector,
        candidates=tuple(candidates),
        fingerprint=fingerprint_of(record, ancestry, frame_path),
        href=record.href,
        states=record.states,
    )


def fingerprint_of(record: Record, ancestry: Ancestry, frame_path: tuple[str, ...]) -> Fingerprint:
    return Fingerprint(
        tag=record.tag,
        role=record.role,
        name=record.name,
        text=record.name if record.text is None else record.text,
        test_id=record.test_id or None,
        id=record.id or None,
        classes=tuple(record.classes.split()),
        attributes=record.attributes,
        path=ancestry.path(record.row),
        frame_path=frame_path,
    )
