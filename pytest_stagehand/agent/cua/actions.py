"""Each provider's computer-use actions, turned into one ScreenAction the run performs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pytest_stagehand.agent.cua.screen import Screen

Kind = Literal[
    "click", "double_click", "right_click", "move", "drag", "type", "key", "scroll", "wait",
    "screenshot", "navigate", "back",
]  # fmt: skip

SCROLL_CLICK_PX = 100  # what one wheel click of Anthropic's scroll_amount scrolls


GEMINI_GRID = 1000  # Gemini's points run 0-999 across the screenshot, whatever its size


@dataclass(frozen=True)
class ScreenAction:
    """One computer-use action, in screenshot pixels, whichever provider asked for it."""

    kind: Kind
    point: tuple[float, float] | None = None
    end: tuple[float, float] | None = None  # where a drag ends
    text: str = ""  # typed text, or a key combination in Playwright's names ("Control+a")
    scroll: tuple[float, float] = (0.0, 0.0)  # pixels right and down
    seconds: float = 0.0

    def describe(self) -> str:
        where = f" at ({self.point[0]:g}, {self.point[1]:g})" if self.point else ""
        detail = {
            "type": f" {self.text!r}",
            "key": f" {self.text}",
            "navigate": f" {self.text}",
        }.get(self.kind, "")
        if self.kind == "scroll":
            detail = f" by ({self.scroll[0]:g}, {self.scroll[1]:g})"
        if self.kind == "drag" and self.end:
            detail = f" to ({self.end[0]:g}, {self.end[1]:g})"
        return f"{self.kind}{detail}{where}"


KEYS = {
    "return": "Enter", "enter": "Enter", "ctrl": "Control", "control": "Control",
    "cmd": "Meta", "command": "Meta", "super": "Meta", "meta": "Meta", "win": "Meta",
    "alt": "Alt", "option": "Alt", "shift": "Shift", "esc": "Escape", "escape": "Escape",
    "tab": "Tab", "backspace": "Backspace", "delete": "Delete", "del": "Delete",
    "space": "Space", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft",
    "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "page_up": "PageUp",
    "pageup": "PageUp", "page_down": "PageDown", "pagedown": "PageDown", "home": "Home",
    "end": "End", "insert": "Insert",
}  # fmt: skip


def playwright_keys(keys: Iterable[str]) -> str:
    """A key combination in Playwright's names: ["CTRL", "A"] → "Control+a", "Return" →
    "Enter"."""
    names = []
    for key in keys:
        name = KEYS.get(key.strip().lower())
        if name is None:
            name = key.lower() if len(key) == 1 else key[:1].upper() + key[1:]
        names.append(name)
    return "+".join(names)


class Unsupported(Exception):
    """An action this loop cannot do; the message goes back to the model."""


def _point(value: Any, what: str = "coordinate") -> tuple[float, float]:
    if isinstance(value, dict):
        value = [value.get("x"), value.get("y")]
    if not (isinstance(value, list | tuple) and len(value) == 2):
        raise Unsupported(f"{what} must be [x, y] in screenshot pixels, not {value!r}")
    try:
        return float(value[0]), float(value[1])
    except (TypeError, ValueError):
        raise Unsupported(f"{what} must be two numbers, not {value!r}") from None


def anthropic_action(given: dict[str, Any]) -> ScreenAction:
    """An Anthropic computer tool input (computer_20250124) as a ScreenAction."""
    name = given.get("action")
    clicks: dict[str, Kind] = {
        "left_click": "click", "double_click": "double_click", "right_click": "right_click",
        "mouse_move": "move",
    }  # fmt: skip
    if name in clicks:
        return ScreenAction(clicks[name], _point(given.get("coordinate")))
    if name == "left_click_drag":
        start = _point(given.get("start_coordinate"), "start_coordinate")
        return ScreenAction("drag", start, _point(given.get("coordinate")))
    if name == "type":
        return ScreenAction("type", text=str(given.get("text", "")))
    if name == "key":
        return ScreenAction("key", text=playwright_keys(str(given.get("text", "")).split("+")))
    if name == "scroll":
        amount = float(given.get("scroll_amount") or 3) * SCROLL_CLICK_PX
        right, down = {
            "up": (0, -amount), "down": (0, amount), "left": (-amount, 0), "right": (amount, 0)
        }.get(str(given.get("scroll_direction")), (0, 0))  # fmt: skip
        return ScreenAction("scroll", _point(given.get("coordinate")), scroll=(right, down))
    if name == "wait":
        return ScreenAction("wait", seconds=float(given.get("duration") or 1))
    if name == "screenshot":
        return ScreenAction("screenshot")
    raise Unsupported(f"the action {name!r} is not supported here")


def openai_action(given: dict[str, Any]) -> ScreenAction:
    """An OpenAI computer_call action (computer_use_preview) as a ScreenAction."""
    name = given.get("type")
    if name == "click":
        button = given.get("button", "left")
        if button not in ("left", "right"):
            raise Unsupported(f"a click with the {button} button is not supported here")
        kind: Kind = "click" if button == "left" else "right_click"
        return ScreenAction(kind, _point(given))
    if name in ("double_click", "move"):
        return ScreenAction(name, _point(given))
    if name == "drag":
        path = given.get("path") or []
        if len(path) < 2:
            raise Unsupported("a drag needs a path of at least two points")
        return ScreenAction("drag", _point(path[0]), _point(path[-1]))
    if name == "type":
        return ScreenAction("type", text=str(given.get("text", "")))
    if name == "keypress":
        return ScreenAction("key", text=playwright_keys(given.get("keys") or []))
    if name == "scroll":
        scroll = (float(given.get("scroll_x") or 0), float(given.get("scroll_y") or 0))
        return ScreenAction("scroll", _point(given), scroll=scroll)
    if name == "wait":
        return ScreenAction("wait", seconds=1.0)
    if name == "screenshot":
        return ScreenAction("screenshot")
    raise Unsupported(f"the action {name!r} is not supported here")


def gemini_action(name: str, args: dict[str, Any], screen: Screen) -> tuple[ScreenAction, ...]:
    """A Gemini computer-use function call as ScreenActions in screenshot pixels (Gemini's
    points are 0-999 across the screenshot; type_text_at is a click, typing and keys)."""

    def at(x: str = "x", y: str = "y") -> tuple[float, float]:
        px, py = _point([args.get(x), args.get(y)], f"{x}, {y}")
        if not (0 <= px < GEMINI_GRID and 0 <= py < GEMINI_GRID):
            raise Unsupported(f"{x}, {y} must be between 0 and 999, not ({px:g}, {py:g})")
        return px * screen.display_width / GEMINI_GRID, py * screen.display_height / GEMINI_GRID

    def scroll(direction: Any, pixels: float) -> tuple[float, float]:
        moves = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
        if direction not in moves:
            raise Unsupported(f"direction must be up, down, left or right, not {direction!r}")
        return moves[direction][0] * pixels, moves[direction][1] * pixels

    if name == "click_at":
        return (ScreenAction("click", at()),)
    if name == "hover_at":
        return (ScreenAction("move", at()),)
    if name == "type_text_at":
        actions = [ScreenAction("click", at())]
        if args.get("clear_before_typing", True):
            actions += [
                ScreenAction("key", text="ControlOrMeta+a"),
                ScreenAction("key", text="Delete"),
            ]
        actions.append(ScreenAction("type", text=str(args.get("text", ""))))
        if args.get("press_enter", True):
            actions.append(ScreenAction("key", text="Enter"))
        return tuple(actions)
    if name == "key_combination":
        return (ScreenAction("key", text=playwright_keys(str(args.get("keys", "")).split("+"))),)
    if name == "scroll_document":
        middle = (screen.display_width / 2, screen.display_height / 2)
        return (
            ScreenAction("scroll", middle, scroll=scroll(args.get("direction"), screen.height)),
        )
    if name == "scroll_at":
        direction = args.get("direction")
        across = screen.width if direction in ("left", "right") else screen.height
        pixels = float(args.get("magnitude") or 800) * across / GEMINI_GRID
        return (ScreenAction("scroll", at(), scroll=scroll(direction, pixels)),)
    if name == "drag_and_drop":
        return (ScreenAction("drag", at(), at("destination_x", "destination_y")),)
    if name == "wait_5_seconds":
        return (ScreenAction("wait", seconds=5.0),)
    if name == "navigate":
        return (ScreenAction("navigate", text=str(args.get("url", ""))),)
    if name == "go_back":
        return (ScreenAction("back"),)
    raise Unsupported(f"the function {name!r} is not supported here")
