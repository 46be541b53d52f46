"""A recording read as the operations a plain Playwright test performs: the one reader
of the recording format for the export, so a change to the format changes it alone."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Target:
    selector: str
    frame_path: tuple[str, ...] = ()
    tag: str = ""  # the recorded element's tag; "" when not known


@dataclass(frozen=True)
class Do:
    method: str
    arguments: tuple[str, ...]
    target: Target | None
    description: str = ""
    point: tuple[float, float] | None = None  # where on the target, from its top left


@dataclass(frozen=True)
class Expect:
    target: Target
    property: str
    match: str
    expected: str


@dataclass(frozen=True)
class PageText:
    text: str
    present: bool


@dataclass(frozen=True)
class Shows:
    """Values a step read from the page; the page must show them."""

    value: Any


@dataclass(frozen=True)
class Navigate:
    """goto(path), go_back() or reload()."""

    method: str
    path: str | None = None


@dataclass(frozen=True)
class AtUrl:
    path: str


@dataclass(frozen=True)
class Note:
    text: str


Operation = Do | Expect | PageText | Shows | Navigate | AtUrl | Note


IN_ROW = "role=row >> "  # heal.identity.row_scoped's selector: in the row of a key


def _target(element: Mapping[str, Any] | None) -> Target | None:
    if not element:
        return None
    tag = (element.get("fingerprint") or {}).get("tag") or ""
    selectors = element["selectors"]
    selector = selectors[0]
    if selector.startswith("xpath=//"):  # by its row's key: as a person writes that instead
        selector = next((s for s in selectors if s.startswith(IN_ROW)), selector)
    return Target(selector, tuple(element.get("frame_path", ())), tag)


def do_of(action: Mapping[str, Any]) -> Do:
    point = action.get("point")
    return Do(action["method"], tuple(action.get("arguments", ())), _target(action.get("element")),
              action.get("description", ""), point and (point["x"], point["y"]))


def operations(recording: Mapping[str, Any]) -> list[Operation]:
    """What a recorded step does, as Playwright can do it: the one reader of the format."""
    kind, data = recording["kind"], recording.get("data", {})
    actions = recording.get("actions", [])
    if kind == "act":
        return [do_of(action) for action in actions]
    if kind == "observe":
        return [Note(f"observed: {a.get('description') or a['method']}") for a in actions]
    if kind == "extract":
        return [Shows(data.get("value"))]
    if kind == "assert":
        check = data.get("check", {})
        if check.get("kind") == "element":
            return [Expect(_target(check["element"]), check["property"], check["match"],
                           check["expected"])]
        if check.get("kind") == "page_text":
            return [PageText(check["text"], check["present"])]
        return [Note("a judged claim with no recorded check: not exported")]
    if kind == "agent":
        return list(_agent_operations(recording))
    return [Note(f"{kind} step: not exported")]


def _agent_operations(recording: Mapping[str, Any]) -> Iterator[Operation]:
    data, actions = recording.get("data", {}), recording.get("actions", [])
    for step in data.get("steps", []):
        tool = step["tool"]
        what = step.get("instruction") or ", ".join(step.get("fields", [])) or tool
        yield Note(f"agent {tool}: {what}")
        if "actions" in step:
            yield from (do_of(actions[index]) for index in step["actions"])
        elif tool == "extract":
            yield Shows(step.get("value"))
        elif tool == "goto":
            yield Navigate("goto", step["url"])
        elif tool in ("back", "refresh"):
            yield Navigate({"back": "go_back", "refresh": "reload"}[tool])
        elif tool == "wait":
            yield Note(f"waited {step.get('seconds')} s: Playwright's expect waits instead")
        else:
            yield Note(f"custom tool {tool}: not exported, write it by hand")
    if "end_url" in data:
        yield AtUrl(data["end_url"])
    if data.get("output") is not None:
        yield Shows(data["output"])
