"""What a scripted model is told to answer and what it was asked: the replies, faults and
calls a test queues, and the request as the server received it."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, get_args

Provider: TypeAlias = Literal["openai", "anthropic", "google"]


# What llama-cpp-python's server answers (HTTP 500) when it gets response_format json_schema.
LLAMA_CPP_JSON_SCHEMA_REJECTION = "Input should be 'text' or 'json_object'"


SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


@dataclass(frozen=True)
class Reply:
    """A successful scripted answer with explicit usage numbers or a finish reason.

    `finish_reason="length"` marks the answer as cut off at max_tokens (OpenAI
    `finish_reason: length`, Anthropic `stop_reason: max_tokens`): its output tokens are
    the request's limit unless given (fewer: the server's context ran out first). Token
    counts left as None are estimated from the text (about four characters a token).
    """

    value: Any
    finish_reason: Literal["stop", "length"] = "stop"
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int = 0
    delay: float = 0.0


@dataclass(frozen=True)
class Fault:
    """An HTTP error answer, sent after `delay` seconds.

    A delay longer than the client's timeout makes the client see a timeout. `body`
    None means a provider-shaped error body for the status; a dict is sent as JSON and
    a str as the error message.
    """

    status: int = 500
    body: dict[str, Any] | str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def timeout(cls, seconds: float) -> Fault:
        """No answer for `seconds` (then a 504 nobody reads): longer than the client timeout."""
        return cls(504, "scripted timeout", delay=seconds)


BrokenKind: TypeAlias = Literal[
    "not_json",
    "truncated_body",
    "html",
    "error_object",
    "empty_choices",
    "null_content",
    "missing_fields",
    "empty_body",
]


BROKEN_KINDS: tuple[BrokenKind, ...] = get_args(BrokenKind)


@dataclass(frozen=True)
class Broken:
    """A status 200 whose body is no usable reply, as misbehaving servers and proxies send.

    not_json: a JSON content type over text that is not JSON; truncated_body: a reply
    cut off halfway; html: a proxy's HTML page; error_object: a provider error body;
    empty_choices: no choices (OpenAI) or no content blocks (Anthropic); null_content:
    `null` where the answer should be; missing_fields: a reply without its message;
    empty_body: nothing at all.
    """

    kind: BrokenKind


@dataclass(frozen=True)
class ComputerCall:
    """A call of the computer-use tool. `action` is in the request's wire format:
    Anthropic `{"action": "left_click", "coordinate": [x, y]}`, OpenAI Responses
    `{"type": "click", "button": "left", "x": x, "y": y}`, Gemini `{"name": "click_at",
    "args": {"x": 500, "y": 300}}`. `safety_checks` (OpenAI) are
    sent as the call's pending_safety_checks, e.g. `{"id": "sc_1", "code": "malicious_
    instructions", "message": "..."}`."""

    action: dict[str, Any]
    safety_checks: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class FunctionCall:
    """A call of a function tool the request declared (Anthropic tool_use, Responses
    function_call)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Refusal:
    """The model declines: Anthropic stop_reason "refusal", a Responses refusal part."""

    text: str


_CALLS = (ComputerCall, FunctionCall, Refusal)


def calls_in(value: Any) -> list[Any] | None:
    """The blocks of a computer-use reply (calls, refusals, texts), or None for other replies."""
    if isinstance(value, _CALLS):
        return [value]
    if isinstance(value, list) and any(isinstance(item, _CALLS) for item in value):
        return value
    return None


@dataclass(frozen=True)
class ScriptedRequest:
    """One request the scripted server received, with secrets (auth headers) removed."""

    provider: Provider
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    # Responses API: the requests of the turns before, by previous_response_id, as the
    # provider keeps the conversation: `text` reads them too.
    earlier: tuple[ScriptedRequest, ...] = ()

    @property
    def model(self) -> str:
        if self.provider == "google":  # .../models/{model}:generateContent
            return self.path.rpartition("/models/")[2].partition(":")[0]
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def api(self) -> Literal["chat", "responses", "messages", "generate_content"]:
        """Which API the request is for."""
        if self.provider == "anthropic":
            return "messages"
        if self.provider == "google":
            return "generate_content"
        return "responses" if self.path.endswith("/responses") else "chat"

    @property
    def input(self) -> list[dict[str, Any]]:
        """The Responses API input items (a string input as one user message)."""
        given = self.body.get("input")
        if isinstance(given, str):
            return [{"role": "user", "content": given}]
        return list(given) if isinstance(given, list) else []

    def _blocks(self) -> list[dict[str, Any]]:
        """Every content block of the prompt, tool results' blocks and Responses items
        included, in order."""
        blocks: list[dict[str, Any]] = []
        for content in self.body.get("contents") or ():  # Gemini: parts, images in responses
            for part in content.get("parts") or ():
                blocks.append(part)
                answered = part.get("functionResponse") or {}
                blocks.extend(answered.get("parts") or ())
        for message in [*self.messages, *self.input]:
            content = message.get("content") if "content" in message else [message]
            for block in [{"type": "text", "text": content}] if isinstance(content, str) else (
                content if isinstance(content, list) else ()
            ):
                if not isinstance(block, dict):
                    continue
                blocks.append(block)
                inner = block.get("content")  # an Anthropic tool_result's own blocks
                if block.get("type") == "tool_result" and isinstance(inner, list):
                    blocks.extend(b for b in inner if isinstance(b, dict))
        return blocks

    @property
    def text(self) -> str:
        """All prompt text (system, instructions and messages; a Responses conversation's
        earlier turns too) joined: what a scripted answer reads."""
        parts: list[str] = [turn.text for turn in self.earlier[-1:]]
        system = self.body.get("system") or self.body.get("instructions")
        system = system or (self.body.get("systemInstruction") or {}).get("parts")
        if isinstance(system, str):
            parts.append(system)
        elif isinstance(system, list):
            parts.extend(block.get("text", "") for block in system)
        for block in self._blocks():
            kind = block.get("type")
            if kind in ("text", "input_text", "output_text"):
                parts.append(str(block.get("text", "")))
            elif kind == "tool_result" and isinstance(block.get("content"), str):
                parts.append(block["content"])
            elif kind == "function_call_output":
                parts.append(str(block.get("output", "")))
            elif kind is None and "text" in block:  # a Gemini part
                parts.append(str(block["text"]))
            elif kind is None and "functionResponse" in block:
                parts.append(json.dumps(block["functionResponse"].get("response")))
        return "\n".join(parts)

    @property
    def images(self) -> list[bytes]:
        """Decoded images from every wire shape: OpenAI data URLs (chat image_url, Responses
        input_image and computer screenshots), Anthropic base64 (tool results too)."""
        found: list[bytes] = []
        for block in self._blocks():
            kind, url = block.get("type"), None
            if kind == "image_url":
                url = block["image_url"]["url"]
            elif kind == "input_image":
                url = block.get("image_url")
            elif kind == "computer_call_output":
                url = block.get("output", {}).get("image_url")
            elif kind == "image" and block["source"].get("type") == "base64":
                found.append(base64.b64decode(block["source"]["data"]))
            elif kind is None:  # a Gemini part (google-genai sends both spellings)
                data = block.get("inlineData") or block.get("inline_data") or {}
                if "data" in data:
                    found.append(base64.b64decode(data["data"]))
            if isinstance(url, str):
                found.append(base64.b64decode(url.partition("base64,")[2]))
        return found

    @property
    def response_format(self) -> str | None:
        """OpenAI response_format type ("json_schema", "json_object", "text") or None."""
        fmt = self.body.get("response_format")
        return fmt.get("type") if isinstance(fmt, dict) else None

    @property
    def forced_tool(self) -> str | None:
        """The tool the request forces the model to call, if any (either provider)."""
        if self.provider == "google":
            config = (self.body.get("toolConfig") or {}).get("functionCallingConfig") or {}
            names = config.get("allowedFunctionNames") or [None]
            return names[0] if config.get("mode") == "ANY" else None
        choice = self.body.get("tool_choice")
        if not isinstance(choice, dict):
            return None
        if choice.get("type") == "tool":  # anthropic
            return choice.get("name")
        if choice.get("type") == "function":  # openai: chat nests the name, responses not
            return choice.get("function", {}).get("name") or choice.get("name")
        return None


ScriptedReply: TypeAlias = (
    dict[str, Any] | list[Any] | str | Reply | Fault | Broken | Callable[[ScriptedRequest], Any]
)
