"""cua: the agent on the providers' own computer-use tools (Anthropic, OpenAI, Google).

`agent.execute(..., mode="cua")` runs this loop instead of the DOM agent's: the model sees
screenshots and answers with mouse and keyboard actions in screenshot pixels, which are
mapped to the viewport (device scale factor, a screenshot scaled down) and done with
Playwright's mouse and keyboard. The rest is the DOM agent's (agent.py): the same step
budget, stagnation and time limits, the fence around the allowed origins, an event per
action for reports and evidence, and a run that ends in the same structured `done` with
the output schema (a function tool beside the computer tool).

An action at a point is recorded as an action on the element under it, so a replay
verifies and heals it like any recorded element; only where no control is there (a
canvas) is it recorded as coordinates, replayed only while the same element is still
under them.
"""

from __future__ import annotations

import base64
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from playwright.sync_api import Page
from pydantic import ValidationError

from pytest_stagehand.actions.perform import VARIABLE, Action, from_ref, settle, substitute
from pytest_stagehand.agent.run import (
    PAGE_ERRORS,
    AgentResult,
    AgentStep,
    Outcome,
    Run,
    Status,
    done_tool,
    infrastructure,
)
from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.errors import (
    AgentError,
    HealFailed,
    ModelError,
    ModelRefused,
    ModelRequired,
    SafetyCheckPending,
)
from pytest_stagehand.events import Exchange
from pytest_stagehand.heal.identity import recorded_element, unique_first
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.model.inference import NO_MODEL
from pytest_stagehand.pipelines.act import field_refusal
from pytest_stagehand.prompts import agent as agent_texts
from pytest_stagehand.prompts import cua as cua_texts
from pytest_stagehand.recordings.store import RecordedElement, Recording
from pytest_stagehand.snapshot.outline import ElementRef, described, describer, snapshot

MAX_DISPLAY = (1280, 800)  # larger viewports are sent scaled down, as the providers advise
SCROLL_CLICK_PX = 100  # what one wheel click of Anthropic's scroll_amount scrolls
MAX_WAIT_S = 10.0  # the longest wait a model may ask for
KEPT_SCREENSHOTS = 3  # screenshots kept in an Anthropic conversation; older ones are dropped
ANTHROPIC_TOOL, ANTHROPIC_BETA = "computer_20250124", "computer-use-2025-01-24"
GEMINI_GRID = 1000  # Gemini's points run 0-999 across the screenshot, whatever its size
# A test's browser is open already, and a search engine is outside the allowed origins.
GEMINI_EXCLUDED = ["open_web_browser", "search", "go_forward"]
# Gemini finish reasons that mean the model declined.
GEMINI_REFUSALS = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"})
MAX_TOKENS = 4096

Kind = Literal[
    "click", "double_click", "right_click", "move", "drag", "type", "key", "scroll", "wait",
    "screenshot", "navigate", "back",
]  # fmt: skip


# --- the screen ------------------------------------------------------------------------


@dataclass(frozen=True)
class Screen:
    """The viewport in CSS pixels and the screenshot the model sees, in its own pixels:
    points map between them whatever the device scale factor or the scaling."""

    width: int
    height: int
    display_width: int
    display_height: int

    @classmethod
    def of(cls, page: Page) -> Screen:
        width, height = page.evaluate("() => [innerWidth, innerHeight]")
        scale = min(1.0, MAX_DISPLAY[0] / width, MAX_DISPLAY[1] / height)
        return cls(width, height, max(1, round(width * scale)), max(1, round(height * scale)))

    def to_page(self, x: float, y: float) -> tuple[float, float]:
        """A point of the screenshot as a point of the viewport (CSS pixels)."""
        return x * self.width / self.display_width, y * self.height / self.display_height

    def shot(self, page: Page, secrets: Mapping[str, str]) -> bytes:
        """A PNG screenshot of the viewport at the display size, `secrets` covered."""
        with overlaid(page, secrets):
            image = page.screenshot(scale="css")  # CSS pixels: the device scale factor is undone
        if (self.display_width, self.display_height) == (self.width, self.height):
            return image
        data = base64.b64encode(image).decode()
        return base64.b64decode(
            page.evaluate(RESIZE, [data, self.display_width, self.display_height])
        )


# Scales a PNG in the browser (no imaging library needed), touching nothing in the page.
RESIZE = """async ([data, width, height]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, width, height);
  const blob = await canvas.convertToBlob({ type: "image/png" });
  const out = new Uint8Array(await blob.arrayBuffer());
  let text = "";
  for (let i = 0; i < out.length; i += 0x8000) {
    text += String.fromCharCode(...out.subarray(i, i + 0x8000));
  }
  return btoa(text);
}"""

# The control under a point (a label stands for its control), or the focused field; with
# the tag and id of whatever is there, which is what a coordinate replay checks.
CONTROLS = (
    "a[href], button, input, select, textarea, summary, label, [contenteditable=''], "
    "[contenteditable=true], [onclick], [role=button], [role=link], [role=checkbox], "
    "[role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], "
    "[role=textbox], [role=combobox], [role=searchbox], [role=slider], [role=spinbutton]"
)
LOOK = f"""([x, y, focused]) => {{
  const describe = {describer()};
  const deepest = (el, next) => {{
    while (el && el.shadowRoot) {{
      const inner = next(el.shadowRoot);
      if (!inner || inner === el) break;
      el = inner;
    }}
    return el;
  }};
  const hit = focused
    ? deepest(document.activeElement, (root) => root.activeElement)
    : deepest(document.elementFromPoint(x, y), (root) => root.elementFromPoint(x, y));
  if (!hit || hit === document.body) return {{ at: hit ? "body" : "", element: null }};
  const at = hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "");
  let control = hit.tagName === "IFRAME" ? null : hit.closest({json.dumps(CONTROLS)});
  if (control && control.tagName === "LABEL") control = control.control;
  const editable = control && (control.isContentEditable
    || ["INPUT", "TEXTAREA"].includes(control.tagName)
    || ["textbox", "combobox", "searchbox"].includes(control.getAttribute("role")));
  if (focused && !editable) control = null;
  return {{ at, element: control ? describe(control) : null }};
}}"""


@dataclass(frozen=True)
class _Spot:
    """What is at a point: the control (with its surroundings), and the tag#id there."""

    at: str
    ref: ElementRef | None = None
    context: str = ""


def _spot(page: Page, x: float = 0, y: float = 0, *, focused: bool = False) -> _Spot:
    found = page.evaluate(LOOK, [x, y, focused])
    if found["element"] is None:
        return _Spot(found["at"])
    ref, context = described(found["element"])
    return _Spot(found["at"], ref, context)


def _element_action(
    page: Page, spot: _Spot, method: Any, arguments: Sequence[str], description: str
) -> Action:
    """An Action on the control at `spot`, with what a replay verifies and heals it by: the
    snapshot's element and look-alikes where the snapshot has it."""
    assert spot.ref is not None
    page_snapshot = snapshot(page)
    where = (spot.ref.frame_path, spot.ref.selector)
    ref = next(
        (r for r in page_snapshot.elements.values() if (r.frame_path, r.selector) == where),
        None,
    )
    if ref is not None:
        recorded = recorded_element(page, page_snapshot, ref)
    else:
        ref = spot.ref
        selectors = unique_first(page, ref.frame_path, list(ref.candidates) or [ref.selector])
        recorded = RecordedElement(
            selectors=selectors, frame_path=list(ref.frame_path), fingerprint=ref.fingerprint,
            context=spot.context,
        )  # fmt: skip
    action = from_ref(ref, method, arguments, description)
    return replace(
        action,
        description=f"{description} {action.element}".strip(),
        candidates=tuple(recorded.selectors),
        fingerprint=recorded.fingerprint,
        context=recorded.context,
        distinct=recorded.distinct,
        rivals=tuple(recorded.rivals),
        apart=tuple(recorded.apart),
    )


# --- actions ---------------------------------------------------------------------------


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


# --- one provider's conversation -------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One tool call of a reply: computer actions, or the done tool's arguments, or what
    cannot be done with it (told back to the model)."""

    id: str
    actions: tuple[ScreenAction, ...] = ()
    done: dict[str, Any] | None = None
    problem: str | None = None
    safety_checks: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Answer:
    """One reply: its calls in order, its text, and a refusal, if it is one."""

    calls: tuple[Call, ...]
    text: str = ""
    refusal: str | None = None


@dataclass(frozen=True)
class CallResult:
    """What one call came to, as the model is told: text, a screenshot, the safety checks
    the test acknowledged."""

    call: Call
    text: str
    ok: bool = True
    image: bytes | None = None
    acknowledged: tuple[dict[str, Any], ...] = ()
    url: str = ""  # the page's after the call (Gemini wants it)


@dataclass
class Session(ABC):
    """One provider's computer-use conversation over the official SDK (`converse`)."""

    client: ModelClient
    screen: Screen
    system: str
    done_schema: dict[str, Any]
    started: bool = field(default=False, init=False)

    @abstractmethod
    def ask(
        self,
        task: str,
        image: bytes,
        results: Sequence[CallResult],
        notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:
        """Send the results of the last calls (the task and first screenshot the first
        time) and a notice; return the answer and the calls made (their usage)."""  # fmt: skip


def _data_url(image: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(image).decode()


def _image_block(image: bytes) -> dict[str, Any]:
    data = base64.b64encode(image).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


class AnthropicSession(Session):
    """The Messages API with the computer-use tool (beta header); the whole conversation
    is sent each time, with only the latest screenshots."""

    messages: list[dict[str, Any]]

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        content: list[dict[str, Any]] = []
        if not self.started:
            self.messages = []
            content += [{"type": "text", "text": task}, _image_block(image)]
            self.started = True
        for result in results:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": result.text}]
            if result.image is not None:
                blocks.append(_image_block(result.image))
            block = {"type": "tool_result", "tool_use_id": result.call.id, "content": blocks}
            content.append({**block, "is_error": True} if not result.ok else block)
        if notice:
            content.append({"type": "text", "text": notice})
        self.messages.append({"role": "user", "content": content})
        self._drop_old_screenshots()
        width, height = self.screen.display_width, self.screen.display_height
        computer = {
            "type": ANTHROPIC_TOOL, "name": "computer",
            "display_width_px": width, "display_height_px": height,
        }  # fmt: skip
        done = {"name": "done", "description": cua_texts.CUA_DONE, "input_schema": self.done_schema}
        kwargs: dict[str, Any] = {
            "model": self.client.config.name,
            "max_tokens": MAX_TOKENS,
            "system": self.system,
            "tools": [computer, done],
            "messages": self.messages,
            "betas": [ANTHROPIC_BETA],
        }
        if only_done:
            kwargs["tool_choice"] = {"type": "tool", "name": "done"}
        reply, calls = self.client.converse(
            lambda sdk: sdk.beta.messages.with_raw_response.create(**kwargs), purpose="agent"
        )
        blocks = [b for b in reply.get("content") or () if isinstance(b, dict)]
        self.messages.append({"role": "assistant", "content": blocks})
        text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        if reply.get("stop_reason") == "refusal":
            return Answer((), text, refusal=text or "(no reason given)"), calls
        found = []
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            given, call_id = block.get("input") or {}, str(block.get("id"))
            if block.get("name") == "done":
                found.append(Call(call_id, done=given))
                continue
            if block.get("name") != "computer":
                found.append(Call(call_id, problem=f"there is no tool {block.get('name')!r}"))
                continue
            try:
                found.append(Call(call_id, (anthropic_action(given),)))
            except Unsupported as exc:
                found.append(Call(call_id, problem=str(exc)))
        return Answer(tuple(found), text), calls

    def _drop_old_screenshots(self) -> None:
        """Keep the latest KEPT_SCREENSHOTS images: each costs the same tokens every turn."""
        holders = []
        for message in self.messages:
            if message["role"] == "user":
                holders.append(message["content"])
                holders += [
                    b["content"] for b in message["content"] if b.get("type") == "tool_result"
                ]
        images = [
            (blocks, i)
            for blocks in holders
            for i, b in enumerate(blocks)
            if b.get("type") == "image"
        ]
        for blocks, i in images[:-KEPT_SCREENSHOTS]:
            blocks[i] = {"type": "text", "text": "(an older screenshot, no longer shown)"}


class OpenAISession(Session):
    """The Responses API with the computer_use_preview tool; turns are chained by
    previous_response_id, so only the new items are sent."""

    previous: str | None = None

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        items: list[dict[str, Any]] = []
        if not self.started:
            content = [
                {"type": "input_text", "text": task},
                {"type": "input_image", "image_url": _data_url(image)},
            ]
            items.append({"role": "user", "content": content})
            self.started = True
        failures = []
        for result in results:
            if result.call.done is not None or result.image is None:
                items.append(
                    {"type": "function_call_output", "call_id": result.call.id,
                     "output": result.text}
                )  # fmt: skip
                continue
            item: dict[str, Any] = {
                "type": "computer_call_output",
                "call_id": result.call.id,
                "output": {"type": "computer_screenshot", "image_url": _data_url(result.image)},
            }
            if result.acknowledged:
                item["acknowledged_safety_checks"] = list(result.acknowledged)
            items.append(item)
            if not result.ok:
                failures.append(result.text)
        texts = [*failures, *([notice] if notice else [])]
        if texts:
            items.append(
                {"role": "user", "content": [{"type": "input_text", "text": "\n".join(texts)}]}
            )
        width, height = self.screen.display_width, self.screen.display_height
        computer = {
            "type": "computer_use_preview", "display_width": width, "display_height": height,
            "environment": "browser",
        }  # fmt: skip
        done = {
            "type": "function", "name": "done", "description": cua_texts.CUA_DONE,
            "parameters": self.done_schema, "strict": False,
        }  # fmt: skip
        kwargs: dict[str, Any] = {
            "model": self.client.config.name,
            "instructions": self.system,
            "tools": [computer, done],
            "input": items,
            "truncation": "auto",
            "max_output_tokens": MAX_TOKENS,
        }
        if self.previous:
            kwargs["previous_response_id"] = self.previous
        if only_done:
            kwargs["tool_choice"] = {"type": "function", "name": "done"}
        reply, calls = self.client.converse(
            lambda sdk: sdk.responses.with_raw_response.create(**kwargs), purpose="agent"
        )
        self.previous = reply.get("id")
        found, texts, refusals = [], [], []
        for item in reply.get("output") or ():
            if not isinstance(item, dict):
                continue
            kind, call_id = item.get("type"), str(item.get("call_id"))
            if kind == "message":
                for part in item.get("content") or ():
                    if part.get("type") == "refusal":
                        refusals.append(str(part.get("refusal", "")))
                    else:
                        texts.append(str(part.get("text", "")))
            elif kind == "function_call":
                found.append(self._function_call(item, call_id))
            elif kind == "computer_call":
                checks = tuple(item.get("pending_safety_checks") or ())
                given = item.get("actions") or [item.get("action") or {}]
                try:
                    actions = tuple(openai_action(a) for a in given)
                except Unsupported as exc:
                    found.append(Call(call_id, problem=str(exc), safety_checks=checks))
                else:
                    found.append(Call(call_id, actions, safety_checks=checks))
        text = " ".join(texts)
        if refusals and not found:
            return Answer((), text, refusal=" ".join(refusals) or "(no reason given)"), calls
        return Answer(tuple(found), text), calls

    @staticmethod
    def _function_call(item: dict[str, Any], call_id: str) -> Call:
        if item.get("name") != "done":
            return Call(call_id, problem=f"there is no tool {item.get('name')!r}")
        try:
            arguments = json.loads(item.get("arguments") or "{}")
        except ValueError:
            return Call(call_id, done={}, problem="done's arguments are not JSON")
        return Call(call_id, done=arguments if isinstance(arguments, dict) else {})


class GeminiSession(Session):
    """generateContent with Gemini's computer-use tool through google-genai (the
    `pytest-stagehand[google]` extra); the whole conversation is sent each time, with the
    latest screenshots in the function responses, beside the page's URL."""

    contents: list[Any]

    def ask(
        self, task: str, image: bytes, results: Sequence[CallResult], notice: str | None,
        only_done: bool,
    ) -> tuple[Answer, tuple[Any, ...]]:  # fmt: skip
        from google.genai import types  # the client for a google/ model has imported it

        parts: list[Any] = []
        if not self.started:
            self.contents = []
            parts += [
                types.Part(text=task),
                types.Part.from_bytes(data=image, mime_type="image/png"),
            ]
            self.started = True
        for result in results:
            response: dict[str, Any] = {"url": result.url} if result.url else {}
            response["output" if result.ok else "error"] = result.text
            if result.acknowledged:
                response["safety_acknowledgement"] = "true"
            shots = (
                [types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(
                    mime_type="image/png", data=result.image))]
                if result.image is not None
                else None
            )  # fmt: skip
            answered = types.FunctionResponse(name=result.call.id, response=response, parts=shots)
            parts.append(types.Part(function_response=answered))
        if notice:
            parts.append(types.Part(text=notice))
        self.contents.append(types.Content(role="user", parts=parts))
        self._drop_old_screenshots()
        computer = types.ComputerUse(
            environment=types.Environment.ENVIRONMENT_BROWSER,
            excluded_predefined_functions=GEMINI_EXCLUDED,
        )
        done = types.FunctionDeclaration(
            name="done", description=cua_texts.CUA_DONE, parameters_json_schema=self.done_schema
        )
        config = types.GenerateContentConfig(
            system_instruction=self.system,
            tools=[types.Tool(computer_use=computer), types.Tool(function_declarations=[done])],
            max_output_tokens=MAX_TOKENS,
            should_return_http_response=True,  # the raw body, checked like the others'
        )
        if only_done:
            config.tool_config = types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=["done"]
                )
            )
        reply, calls = self.client.converse(
            lambda sdk: sdk.models.generate_content(
                model=self.client.config.name, contents=self.contents, config=config
            ),
            purpose="agent",
        )
        candidates = reply.get("candidates") or [{}]
        candidate = candidates[0] if isinstance(candidates[0], dict) else {}
        given = [
            p for p in (candidate.get("content") or {}).get("parts") or () if isinstance(p, dict)
        ]
        text = " ".join(str(p["text"]) for p in given if "text" in p)
        blocked = (reply.get("promptFeedback") or {}).get("blockReason")
        if blocked or candidate.get("finishReason") in GEMINI_REFUSALS:
            reason = blocked or candidate.get("finishReason")
            return Answer((), text, refusal=text or f"(blocked: {reason})"), calls
        kept = ("text", "functionCall", "thoughtSignature", "thought")
        model_parts = [{k: v for k, v in p.items() if k in kept} for p in given]
        if model_parts:
            self.contents.append(
                types.Content.model_validate({"role": "model", "parts": model_parts})
            )
        found = [
            self._call(p["functionCall"]) for p in given if isinstance(p.get("functionCall"), dict)
        ]
        return Answer(tuple(found), text), calls

    def _call(self, function: dict[str, Any]) -> Call:
        name, args = str(function.get("name")), dict(function.get("args") or {})
        if name == "done":
            return Call(name, done=args)
        decision = args.pop("safety_decision", None) or {}
        checks: tuple[dict[str, Any], ...] = ()
        if decision.get("decision") == "require_confirmation":
            checks = ({"code": "require_confirmation", "message": decision.get("explanation")},)
        try:
            return Call(name, gemini_action(name, args, self.screen), safety_checks=checks)
        except Unsupported as exc:
            return Call(name, problem=str(exc), safety_checks=checks)

    def _drop_old_screenshots(self) -> None:
        """Keep the latest KEPT_SCREENSHOTS images: each costs the same tokens every turn."""
        holders = [
            part
            for content in self.contents
            if content.role == "user"
            for part in content.parts or ()
            if part.inline_data is not None
            or (part.function_response is not None and part.function_response.parts)
        ]
        for part in holders[:-KEPT_SCREENSHOTS]:
            if part.inline_data is not None:
                part.inline_data, part.text = None, "(an older screenshot, no longer shown)"
            else:
                part.function_response.parts = None


SESSIONS: dict[str, type[Session]] = {
    "anthropic": AnthropicSession, "openai": OpenAISession, "google": GeminiSession,
}  # fmt: skip


# --- the run ---------------------------------------------------------------------------


class CuaRun(Run):
    """One `execute` in mode "cua": the DOM run's limits, fence, recording and replay, with
    the provider's computer-use loop in place of the tool loop."""

    def __init__(
        self, *args: Any, client: ModelClient | None,
        allow_safety_checks: bool | Iterable[str] = False, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.client = client
        self.allow = (
            allow_safety_checks
            if isinstance(allow_safety_checks, bool)
            else frozenset(allow_safety_checks)
        )
        self.done_model = done_tool(self.output)
        schema = self.done_model.model_json_schema()
        schema["properties"].pop("tool", None)
        schema["required"] = [name for name in schema.get("required", []) if name != "tool"]
        self.done_schema = schema
        self.screen: Screen | None = None
        self.stopped_talking = False  # the model answered with no call once

    # --- the loop ------------------------------------------------------------------------

    def live(self, timeout_s: float) -> AgentResult:
        if self.client is None:
            raise ModelRequired(
                f"agent.execute({self.goal!r}, mode='cua') needs a computer-use model, but "
                f"{NO_MODEL}"
            )
        provider = self.client.config.provider
        if provider not in SESSIONS:
            raise AgentError(f"mode='cua' has no computer-use tool for the provider {provider}.")
        deadline = time.monotonic() + timeout_s
        self.screen = Screen.of(self.page)
        system = cua_texts.cua_system(self.origins, self.instructions)
        session = SESSIONS[provider](
            self.client, self.screen, self.ai.steplog.mask(system), self.done_schema
        )
        task = agent_texts.agent_task(self.goal, sorted(self.values), [])
        results: list[CallResult] = []
        number = 0
        try:
            while True:
                number += 1
                self.view = self.look()
                notice, limit = self.pressure(number)
                why = self.reason(limit)
                if time.monotonic() > deadline:
                    limit, why = "timeout", f"the time limit ({timeout_s:g} s) was hit"
                    notice = agent_texts.DONE_ONLY.format(why=agent_texts.CUT_SHORT.format(why=why))
                elif self.stopped_talking and limit is None:
                    notice, why = cua_texts.CUA_CALL_DONE, "the model stopped without calling done"
                final = limit is not None or self.stopped_talking
                step = cua_texts.CUA_STEP.format(step=number, max_steps=self.max_steps)
                secrets = self.ai.steplog.secrets
                image = b"" if session.started else self.screen.shot(self.page, secrets)
                answer = self.ask(session, task, image, results, f"{step} {notice or ''}", final)
                results = []
                if answer.refusal is not None:
                    raise ModelRefused(
                        f"{self.client.config.model} refused the goal {self.goal!r}: "
                        f"{answer.refusal} Nothing was done after it. Reword the goal, or "
                        "check that the test asks for what the provider's policy allows."
                    )
                if final and not any(call.done is not None for call in answer.calls):
                    return self.finish(None, limit, why or "no done call came")
                self.stopped_talking = not answer.calls
                for call in answer.calls:
                    if call.done is None:
                        results.append(self.on_actions(number, call))
                        continue
                    ended = self.on_done(number, call, limit, why, final)
                    if isinstance(ended, AgentResult):
                        return ended
                    results.append(ended)
        except Exception as exc:
            if isinstance(exc, ModelRequired | ModelRefused) or not infrastructure(exc, self.page):
                raise
            return self.finish(None, "error", str(exc))

    def ask(
        self, session: Session, task: str, image: bytes, results: Sequence[CallResult],
        notice: str | None, only_done: bool,
    ) -> Answer:  # fmt: skip
        """One turn, its usage and exchange on the run's event; every text masked."""
        mask = self.ai.steplog.mask
        masked = [replace(r, text=mask(r.text)) for r in results]
        try:
            answer, calls = session.ask(
                mask(task), image, masked, mask(notice or "") or None, only_done
            )
        except ModelError as exc:
            self.event.calls.extend(exc.calls)
            raise
        self.event.calls.extend(calls)
        sent = "\n".join(filter(None, [task if image else "", *(r.text for r in masked), notice]))
        shown = json.dumps([_call_shown(c) for c in answer.calls]) if answer.calls else answer.text
        self.event.exchanges.append(Exchange("agent", mask(sent), mask(shown)))
        return answer

    def on_done(
        self, number: int, call: Call, limit: Status | None, why: str | None, final: bool
    ) -> AgentResult | CallResult:
        """Finish on a usable done; else tell the model why not (once for a claim of success
        the run does not bear out, as the DOM agent does)."""
        done, problem = None, call.problem
        if problem is None:
            try:
                done = self.done_model.model_validate({**(call.done or {}), "tool": "done"})
            except ValidationError as exc:
                problem = f"done's arguments do not fit: {_errors(exc)}"
        if done is not None and done.success and self.output is not None and done.output is None:
            problem = f"done with success true needs output, a {self.output.__name__}"
        if problem is not None:
            if final:
                return self.finish(None, limit, why or problem)
            self.steps.append(AgentStep(number, "done", dict(call.done or {}), problem, ok=False))
            return CallResult(call, f"Not accepted: {problem}.", ok=False)
        unearned = self.unearned(done)
        if unearned is None or self.sent_back or final:
            return self.finish(done, limit, why, unearned)
        self.sent_back = True
        text = agent_texts.SUCCESS_SENT_BACK.format(why=unearned)
        self.steps.append(AgentStep(number, "done", dict(call.done or {}), text, ok=False))
        return CallResult(call, text, ok=False)

    def on_actions(self, number: int, call: Call) -> CallResult:
        """Do a computer call's actions, or say why not; a screenshot of the result."""
        assert self.screen is not None
        acknowledged = self.checked(call)
        outcome = Outcome(call.problem or "", ok=call.problem is None)
        shown = {"problem": call.problem} if call.problem else {}
        for action in call.actions if outcome.ok else ():
            shown = {"action": action.describe()}
            outcome = self.repeated((action,), action.kind) or self.attempt_action(action)
            if not outcome.ok:
                break
        fenced = self.back_on_origin()
        if fenced:
            outcome = Outcome(f"{outcome.text} {fenced}".strip(), False)
        self.steps.append(
            AgentStep(number, call.actions[0].kind if call.actions else "computer", shown,
                      outcome.text, outcome.ok)
        )  # fmt: skip
        image = self.screen.shot(self.page, self.ai.steplog.secrets)
        return CallResult(call, outcome.text, outcome.ok, image, acknowledged, self.page.url)

    def checked(self, call: Call) -> tuple[dict[str, Any], ...]:
        """The call's pending safety checks, if the test allows them all; else raise."""
        if not call.safety_checks:
            return ()
        codes = {str(check.get("code")) for check in call.safety_checks}
        if self.allow is True or (self.allow and codes <= self.allow):
            return call.safety_checks
        listed = "; ".join(
            f"{check.get('code')}: {check.get('message')}" for check in call.safety_checks
        )
        planned = ", ".join(a.describe() for a in call.actions) or "its next action"
        raise SafetyCheckPending(
            f"The computer-use model asks a person to confirm before {planned} on "
            f"{self.page.url} ({listed}). Nothing was done. If the test means this, pass "
            f"agent.execute(..., allow_safety_checks={sorted(codes)!r}) (or True for any)."
        )

    def attempt_action(self, action: ScreenAction) -> Outcome:
        """Do one action, as an event of its own (reports, evidence); page errors become its
        (failed) outcome."""
        assert self.screen is not None
        with self.ai.steplog.step("act", action.describe(), self.page.url) as event:
            try:
                outcome = self.do(action)
            except PAGE_ERRORS as exc:
                if infrastructure(exc, self.page):
                    raise
                outcome = Outcome(str(exc).strip(), ok=False)
            event.method, event.result = action.kind, outcome.text
            event.ok = outcome.ok
        return outcome

    def do(self, action: ScreenAction) -> Outcome:
        assert self.screen is not None
        mouse, keyboard = self.page.mouse, self.page.keyboard
        kind = action.kind
        if kind == "screenshot":
            return Outcome("Here is the screen.")
        if kind == "wait":
            seconds = min(action.seconds, MAX_WAIT_S)
            self.page.wait_for_timeout(seconds * 1000)
            settle(self.page)
            self.tape.add("wait", seconds=seconds)
            return Outcome(f"Waited {seconds:g} s.")
        if kind == "key":
            pressed = Action("press", (action.text,), f"press {action.text}")
            keyboard.press(action.text)
            self.done_with(pressed)
            return Outcome(f"Pressed {action.text}.")
        if kind == "type":
            return self.typed(action.text)
        if kind == "navigate":
            return self.tool_goto(agent_texts.GotoTool(tool="goto", url=action.text))
        if kind == "back":
            return self.tool_back(agent_texts.BackTool(tool="back"))
        assert action.point is not None
        x, y = self.screen.to_page(*action.point)
        if not (0 <= x < self.screen.width and 0 <= y < self.screen.height):
            return Outcome(f"{action.describe()} is off the screen.", ok=False)
        spot = _spot(self.page, x, y)
        methods = {"click": "click", "double_click": "double_click", "move": "hover"}
        element = spot.ref is not None and kind in methods
        if kind == "drag":
            assert action.end is not None
            ex, ey = self.screen.to_page(*action.end)
            end = _spot(self.page, ex, ey)
            mouse.move(x, y)
            mouse.down()
            mouse.move(ex, ey, steps=8)
            mouse.up()
            self.coordinates("drag", spot, x, y, to=[ex, ey], end=end.at)
        elif kind == "scroll":
            mouse.move(x, y)
            mouse.wheel(*action.scroll)
            self.coordinates("scroll", spot, x, y, by=list(action.scroll))
        else:
            performed = (
                _element_action(self.page, spot, methods[kind], (), methods[kind].replace("_", " "))
                if element
                else None
            )
            if kind == "click":
                mouse.click(x, y)
            elif kind == "double_click":
                mouse.dblclick(x, y)
            elif kind == "right_click":
                mouse.click(x, y, button="right")
            else:
                mouse.move(x, y)
            if performed is not None:
                self.done_with(performed)
            else:
                self.coordinates(kind, spot, x, y)
        settle(self.page, after_action=True)
        on = f" on {spot.ref.role} {spot.ref.name!r}" if spot.ref is not None else f" on {spot.at}"
        return Outcome(f"Did {action.describe()}{on}.")

    def typed(self, text: str) -> Outcome:
        """Type into the focused field; a variable's value only into a field for it."""
        values = substitute(text, self.values)
        spot = _spot(self.page, focused=True)
        if spot.ref is None:
            if VARIABLE.search(text):
                return Outcome("No field has the focus: click the field first.", ok=False)
            self.page.keyboard.type(values)
            self.tape.add("screen", method="type", text=text, at=spot.at)
            return Outcome(f"Typed {text!r}.")
        action = _element_action(self.page, spot, "type", (text,), "type into")
        refusal = field_refusal(action, self.fields)
        if refusal:
            return Outcome(f"Refused: {refusal}", ok=False)
        self.page.keyboard.type(values)
        self.done_with(action)
        settle(self.page, after_action=True)
        return Outcome(f"Typed {text!r} into {action.element}.")

    def done_with(self, action: Action) -> None:
        """Record an action on an element (or a key press) as the DOM agent records acts."""
        self.performed(action.method, [action])

    def coordinates(self, method: str, spot: _Spot, x: float, y: float, **more: Any) -> None:
        """Record an action where no control is: the point, and what a replay must find
        there."""
        self.tape.add("screen", method=method, x=round(x, 1), y=round(y, 1), at=spot.at, **more)

    # --- replay --------------------------------------------------------------------------

    def replay_step(self, recording: Recording, step: dict[str, Any]) -> str | None:
        if step["tool"] != "screen":
            return super().replay_step(recording, step)
        mouse = self.page.mouse
        method, x, y = step["method"], step.get("x", 0.0), step.get("y", 0.0)
        if method == "type":
            self.page.keyboard.type(substitute(step["text"], self.values))
        else:

            def recorded_spot() -> None:
                now = _spot(self.page, x, y).at
                if now != step["at"]:
                    there = f"there is {now or 'nothing'} now, not {step['at']}"
                    raise HealFailed(f"at ({x:g}, {y:g}) {there}")

            try:  # the last step's page may still be on its way
                self.ai.waiting().until(recorded_spot)
            except HealFailed as exc:
                return str(exc)
            if method == "drag":
                mouse.move(x, y)
                mouse.down()
                mouse.move(*step["to"], steps=8)
                mouse.up()
            elif method == "scroll":
                mouse.move(x, y)
                mouse.wheel(*step["by"])
            elif method == "right_click":
                mouse.click(x, y, button="right")
            elif method == "double_click":
                mouse.dblclick(x, y)
            elif method == "click":
                mouse.click(x, y)
            else:
                mouse.move(x, y)
        settle(self.page, after_action=True)
        self.tape.add(**step)
        return None


def _errors(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)[:5]
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors
    )


def _call_shown(call: Call) -> dict[str, Any]:
    if call.done is not None:
        return {"done": call.done}
    if call.problem:
        return {"problem": call.problem}
    return {"actions": [a.describe() for a in call.actions]}
