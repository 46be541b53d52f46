"""A scripted stand-in for a model provider, served over real HTTP on 127.0.0.1.

It speaks the OpenAI Chat Completions and Responses, the Anthropic Messages and the Gemini
generateContent wire formats (with the providers' computer-use tools) well enough for the
official SDKs, so tests (ours, the example suites', users' own) exercise the real client
code path without a real model, a key or a network. Nothing here is a model: every answer
comes from a script the test wrote.

    with ScriptedModelServer() as scripted:
        scripted.enqueue({"element_id": 3}, Fault(429), Reply('{"cut', finish_reason="length"))
        config = ModelConfig("openai/scripted", base_url=scripted.openai_base_url)

A reply is a value (dict or list: the JSON answer, or the tool input when the request
forces a tool; str: raw text content, so tests can send malformed JSON), a `Reply`
(the same with usage numbers, a finish reason or a delay), a `Fault` (an HTTP error,
optionally late enough to be a timeout), a `Broken` reply (a status 200 whose body is
not a usable reply: HTML, an error object, no choices, null content...) or a callable
`fn(request) -> reply` that reads the prompt it received and answers as a correct model
would. For computer use, a reply is a `ComputerCall` (an action in the request's wire
format), a `FunctionCall` of a declared tool, a `Refusal`, or a list of these and texts.
For Gemini (`google_base_url`), a `ComputerCall` is a predefined function call,
`{"name": "click_at", "args": {"x": 500, "y": 300}}` (0-999 coordinates; a
`safety_decision` goes in the args, as Gemini sends it).

A server can also play a structured-output dialect (`structured_output=`): which
OpenAI `response_format` shapes it accepts and which it refuses, as real servers do.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, TypeAlias, get_args

__all__ = [
    "BROKEN_KINDS",
    "LLAMA_CPP_JSON_SCHEMA_REJECTION",
    "Broken",
    "ComputerCall",
    "Fault",
    "FunctionCall",
    "Refusal",
    "Reply",
    "ScriptedModelServer",
    "ScriptedReply",
    "ScriptedRequest",
]

Provider: TypeAlias = Literal["openai", "anthropic", "google"]

# What llama-cpp-python's server answers (HTTP 500) when it gets response_format json_schema.
LLAMA_CPP_JSON_SCHEMA_REJECTION = "Input should be 'text' or 'json_object'"

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


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


def _calls(value: Any) -> list[Any] | None:
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

NO_REPLY = Fault(500, "scripted model has no reply queued: call enqueue() before the request")


StructuredOutput: TypeAlias = Literal["json_schema", "json_object+schema", "json_object"]


class ScriptedModelServer:
    """A threaded HTTP server on 127.0.0.1 answering from a queue of scripted replies.

    `default` answers when the queue is empty (a value, Reply, Fault or callable).
    `structured_output` is the strongest OpenAI response_format the server plays:
    "json_schema" (OpenAI, llama.cpp's server, vLLM, Ollama) takes everything;
    "json_object+schema" (llama-cpp-python's server) refuses json_schema with an HTTP
    500 but takes `{"type": "json_object", "schema": ...}`; "json_object" takes only a
    bare json_object and refuses a schema beside it (HTTP 400). `reject_json_schema=True`
    is the llama-cpp-python dialect. Thread-safe.
    """

    def __init__(
        self,
        *,
        default: ScriptedReply = NO_REPLY,
        reject_json_schema: bool = False,
        structured_output: StructuredOutput = "json_schema",
    ) -> None:
        self.default = default
        self.structured_output: StructuredOutput = (
            "json_object+schema" if reject_json_schema else structured_output
        )
        self._queue: deque[ScriptedReply] = deque()
        self._requests: list[ScriptedRequest] = []
        self._responses: dict[str, ScriptedRequest] = {}  # Responses API id → its request
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def reject_json_schema(self) -> bool:
        return self.structured_output != "json_schema"

    @reject_json_schema.setter
    def reject_json_schema(self, value: bool) -> None:
        self.structured_output = "json_object+schema" if value else "json_schema"

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        if self._httpd is None:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
            self._httpd.daemon_threads = True
            self._httpd.block_on_close = False
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.02},  # so stop() returns at once
                name="scripted-model",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the scripted model server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def google_base_url(self) -> str:
        return self.url

    # --- scripting and records -------------------------------------------------------

    def enqueue(self, *replies: ScriptedReply) -> None:
        """Queue replies, answered one per request in order."""
        with self._lock:
            self._queue.extend(replies)

    def clear(self) -> None:
        """Drop the replies still queued (the requests received are kept)."""
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        """Replies queued and not yet used."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[ScriptedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def last_request(self) -> ScriptedRequest:
        with self._lock:
            return self._requests[-1]

    # --- answering -------------------------------------------------------------------

    def _in_conversation(self, request: ScriptedRequest) -> ScriptedRequest:
        """A Responses request with the turns its previous_response_id continues."""
        with self._lock:
            before = self._responses.get(str(request.body.get("previous_response_id")))
        if before is None:
            return request
        return dataclasses.replace(request, earlier=(*before.earlier, before))

    def _next_reply(self, request: ScriptedRequest) -> Reply | Fault | Broken:
        with self._lock:
            self._requests.append(request)
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal
            reply = self._queue.popleft() if self._queue else self.default
        if callable(reply) and not isinstance(reply, Reply | Fault | Broken):
            try:
                reply = reply(request)  # outside the lock: a scripted model may be slow
            except Exception as exc:  # a bug in the test's script: say so in the answer
                return Fault(500, f"scripted reply function raised {exc!r}")
        return reply if isinstance(reply, Reply | Fault | Broken) else Reply(reply)

    def _refusal(self, request: ScriptedRequest) -> Fault | None:
        """The error the played dialect gives a response_format it does not take."""
        if request.provider != "openai" or self.structured_output == "json_schema":
            return None
        if request.response_format == "json_schema":
            return _llama_cpp_rejection()
        fmt = request.body.get("response_format") or {}
        if self.structured_output == "json_object" and "schema" in fmt:
            return Fault(400, _EXTRA_SCHEMA_REJECTION)
        return None

    def _answer(self, request: ScriptedRequest) -> tuple[int, dict[str, str], bytes]:
        request = self._in_conversation(request)
        reply = self._next_reply(request)
        if isinstance(reply, Reply | Fault) and reply.delay:
            time.sleep(reply.delay)
        if isinstance(reply, Fault):
            return reply.status, reply.headers, _json(_error_body(request.provider, reply))
        if isinstance(reply, Broken):
            return _broken_body(request, reply, next(self._ids))
        n = next(self._ids)
        if request.api == "responses":
            with self._lock:
                self._responses[f"resp_scripted_{n}"] = request
            return 200, {}, _json(_responses_reply(request, reply, n))
        if request.provider == "google":
            return 200, {}, _json(_gemini_reply(request, reply, n))
        if request.provider == "openai":
            return 200, {}, _json(_openai_completion(request, reply, n))
        return 200, {}, _json(_anthropic_message(request, reply, n))


# --- wire formats ------------------------------------------------------------------------


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _usage_numbers(request: ScriptedRequest, reply: Reply, answer: str) -> tuple[int, int]:
    input_tokens = reply.input_tokens
    if input_tokens is None and request.api != "chat":
        # Without it, every screenshot of a computer-use conversation costs the same.
        input_tokens = _estimate_tokens(request.text) + 85 * len(request.images)
    if input_tokens is None:
        input_tokens = _estimate_tokens(request.text) + 85 * len(request.images)
    output_tokens = reply.output_tokens
    limit = (
        request.body.get("max_tokens")
        or request.body.get("max_completion_tokens")
        or request.body.get("max_output_tokens")
    )
    if output_tokens is None and reply.finish_reason == "length" and isinstance(limit, int):
        output_tokens = limit  # cut off at the limit, as a real server reports it
    if output_tokens is None:
        output_tokens = _estimate_tokens(answer)
    return input_tokens, output_tokens


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _openai_completion(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    tools = request.body.get("tools") or []
    tool = request.forced_tool or (tools[0]["function"]["name"] if tools else None)
    answer = _as_text(reply.value)
    message: dict[str, Any] = {"role": "assistant", "content": answer, "refusal": None}
    finish = reply.finish_reason
    if tool and not isinstance(reply.value, str):
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": f"call_scripted_{n}",
                "type": "function",
                "function": {"name": tool, "arguments": answer},
            }
        ]
        finish = "tool_calls" if finish == "stop" else finish
    prompt_tokens, completion_tokens = _usage_numbers(request, reply, answer)
    return {
        "id": f"chatcmpl-scripted-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "system_fingerprint": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        },
    }


def _anthropic_message(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    tools = request.body.get("tools") or []
    tool = request.forced_tool or (tools[0]["name"] if tools else None)
    scripted = _calls(reply.value)
    calls = scripted
    if calls is None and tool and not isinstance(reply.value, str):
        calls = [FunctionCall(tool, reply.value)]  # the answer as the forced tool's input
    if calls is None:
        content, stop = [{"type": "text", "text": _as_text(reply.value)}], "end_turn"
    else:
        content, stop = _anthropic_blocks(calls, n)
    answer = _as_text(reply.value) if scripted is None else json.dumps(content)
    if reply.finish_reason == "length":
        stop = "max_tokens"
    input_tokens, output_tokens = _usage_numbers(request, reply, answer)
    return {
        "id": f"msg_scripted_{n}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            # Anthropic counts cache reads apart from input_tokens.
            "input_tokens": max(0, input_tokens - reply.cached_tokens),
            "output_tokens": output_tokens,
            "cache_read_input_tokens": reply.cached_tokens,
            "cache_creation_input_tokens": 0,
        },
    }


def _anthropic_blocks(calls: list[Any], n: int) -> tuple[list[dict[str, Any]], str]:
    """Content blocks and stop reason of a computer-use reply."""
    blocks: list[dict[str, Any]] = []
    stop = "end_turn"
    for i, call in enumerate(calls):
        if isinstance(call, Refusal):
            blocks.append({"type": "text", "text": call.text})
            stop = "refusal"
        elif isinstance(call, str):
            blocks.append({"type": "text", "text": call})
        else:
            computer = isinstance(call, ComputerCall)
            blocks.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_scripted_{n}" + (f"_{i}" if i else ""),
                    "name": "computer" if computer else call.name,
                    "input": call.action if computer else call.arguments,
                }
            )
            stop = "tool_use" if stop != "refusal" else stop
    return blocks, stop


def _responses_reply(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    """A Responses API reply: output items for calls, refusals and text."""
    value = reply.value
    calls = _calls(value)
    if calls is None:
        forced = request.forced_tool
        calls = [FunctionCall(forced, value) if forced and isinstance(value, dict) else value]
    output: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        item_id = f"{n}_{i}"
        if isinstance(call, ComputerCall):
            output.append(
                {
                    "type": "computer_call",
                    "id": f"cu_scripted_{item_id}",
                    "call_id": f"call_scripted_{item_id}",
                    "action": call.action,
                    "pending_safety_checks": list(call.safety_checks),
                    "status": "completed",
                }
            )
        elif isinstance(call, FunctionCall):
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_scripted_{item_id}",
                    "call_id": f"call_scripted_{item_id}",
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "status": "completed",
                }
            )
        else:
            refused = isinstance(call, Refusal)
            part = (
                {"type": "refusal", "refusal": call.text}
                if refused
                else {"type": "output_text", "text": _as_text(call), "annotations": []}
            )
            output.append(
                {
                    "type": "message",
                    "id": f"msg_scripted_{item_id}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [part],
                }
            )
    answer = json.dumps(output)
    input_tokens, output_tokens = _usage_numbers(request, reply, answer)
    cut = reply.finish_reason == "length"
    return {
        "id": f"resp_scripted_{n}",
        "object": "response",
        "created_at": int(time.time()),
        "model": request.model,
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "error": None,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": request.body.get("tool_choice", "auto"),
        "tools": request.body.get("tools", []),
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": reply.cached_tokens},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def _gemini_reply(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    """A generateContent reply: one candidate whose parts are the calls and texts."""
    calls = _calls(reply.value)
    if calls is None:  # an answer in JSON text, as under response_json_schema
        forced = request.forced_tool
        value = reply.value
        calls = [FunctionCall(forced, value) if forced and isinstance(value, dict) else value]
    parts: list[dict[str, Any]] = []
    finish = "MAX_TOKENS" if reply.finish_reason == "length" else "STOP"
    for call in calls:
        if isinstance(call, ComputerCall):
            parts.append({"functionCall": {"name": call.action.get("name"),
                                           "args": call.action.get("args") or {}}})
        elif isinstance(call, FunctionCall):
            parts.append({"functionCall": {"name": call.name, "args": call.arguments}})
        else:
            parts.append({"text": call.text if isinstance(call, Refusal) else _as_text(call)})
            finish = "SAFETY" if isinstance(call, Refusal) else finish
    input_tokens, output_tokens = _usage_numbers(request, reply, json.dumps(parts))
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": input_tokens + output_tokens,
            "cachedContentTokenCount": reply.cached_tokens,
        },
        "modelVersion": request.model,
        "responseId": f"scripted-{n}",
    }


# HTTP status → the google.rpc status Gemini names in its errors
_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                  404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}  # fmt: skip

_ERROR_TYPES = {
    400: ("invalid_request_error", "invalid_request_error"),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", "permission_denied"),
    404: ("not_found_error", "model_not_found"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    529: ("overloaded_error", "overloaded"),
}


def _error_body(provider: Provider, fault: Fault) -> dict[str, Any]:
    if isinstance(fault.body, dict):
        return fault.body
    message = fault.body or f"scripted fault: HTTP {fault.status}"
    anthropic_type, openai_code = _ERROR_TYPES.get(fault.status, ("api_error", "server_error"))
    if provider == "anthropic":
        return {"type": "error", "error": {"type": anthropic_type, "message": message}}
    if provider == "google":
        status = _GOOGLE_STATUS.get(fault.status, "INTERNAL")
        return {"error": {"code": fault.status, "message": message, "status": status}}
    return {"error": {"message": message, "type": openai_code, "param": None, "code": openai_code}}


def _json(body: Any) -> bytes:
    return json.dumps(body).encode()


# What a strict OpenAI-compatible server says of a schema beside a bare json_object.
_EXTRA_SCHEMA_REJECTION = "response_format.schema: Extra inputs are not permitted"

_HTML_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>"
    b"<p>The upstream model server did not answer.</p></body></html>"
)


def _broken_body(
    request: ScriptedRequest, broken: Broken, n: int
) -> tuple[int, dict[str, str], bytes]:
    """A status 200 with a body no client can use as a reply (see `Broken`)."""
    openai = request.provider == "openai"
    responses = request.api == "responses"
    if request.provider == "google":
        good = _gemini_reply(request, Reply("scripted"), n)
    elif responses:
        good = _responses_reply(request, Reply("scripted"), n)
    else:
        good = (
            _openai_completion(request, Reply({}), n)
            if openai
            else _anthropic_message(request, Reply({}), n)
        )
    kind = broken.kind
    if kind == "html":
        return 200, {"content-type": "text/html; charset=utf-8"}, _HTML_PAGE
    if kind == "not_json":
        return 200, {}, b"upstream connect error or disconnect/reset before headers"
    if kind == "truncated_body":
        whole = _json(good)
        return 200, {}, whole[: len(whole) // 2]
    if kind == "empty_body":
        return 200, {}, b""
    if kind == "error_object":
        return 200, {}, _json(_error_body(request.provider, Fault(500, "model overloaded")))
    if request.provider == "google":  # its answer is the first candidate
        if kind == "missing_fields":
            del good["candidates"], good["usageMetadata"]
        elif kind == "empty_choices":
            good["candidates"] = []
        else:
            good["candidates"][0]["content"] = None
    elif responses:  # its answer is the output items
        if kind == "missing_fields":
            del good["output"], good["usage"]
        else:
            good["output"] = [] if kind == "empty_choices" else None
    elif kind == "empty_choices":
        good["choices" if openai else "content"] = []
    elif kind == "null_content":
        if openai:
            good["choices"][0]["message"] = {"role": "assistant", "content": None}
        else:
            good["content"] = None
    elif kind == "missing_fields":
        if openai:
            good["choices"] = [{"index": 0, "finish_reason": "stop"}]
        else:
            del good["content"], good["usage"]
    return 200, {}, _json(good)


def _llama_cpp_rejection() -> Fault:
    detail = {
        "type": "literal_error",
        "loc": ["body", "response_format", "type"],
        "msg": LLAMA_CPP_JSON_SCHEMA_REJECTION,
        "input": "json_schema",
    }
    message = f"[{detail}] (scripted llama-cpp-python emulation)"
    return Fault(500, {"error": {"message": message, "type": "internal_server_error"}})


# --- HTTP plumbing -----------------------------------------------------------------------


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ScriptedModel/1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith(("/chat/completions", "/responses")):
                provider: Provider = "openai"
            elif path.endswith("/v1/messages"):
                provider = "anthropic"
            elif path.endswith(":generateContent"):
                provider = "google"
            else:
                self._send(404, {}, {"error": {"message": f"scripted server: no route {path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {}, {"error": {"message": "scripted server: body is not JSON"}})
                return
            headers = {
                k.lower(): v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS
            }
            request = ScriptedRequest(provider, path, headers, body)
            self._send(*server._answer(request))

        def _send(self, status: int, headers: dict[str, str], body: dict[str, Any] | bytes) -> None:
            data = body if isinstance(body, bytes) else _json(body)
            headers = {"content-type": "application/json", **headers}
            try:
                self.send_response(status)
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a scripted timeout)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests assert on `requests`, not on logs

    return Handler
