"""Each provider's wire format, as the scripted server writes its answers: OpenAI Chat
Completions and Responses, Anthropic Messages and Gemini, their usage numbers and error
bodies, and the broken replies a test may ask for."""

from __future__ import annotations

import json
import time
from typing import Any

from pytest_stagehand.testing.script import (
    LLAMA_CPP_JSON_SCHEMA_REJECTION,
    Broken,
    ComputerCall,
    Fault,
    FunctionCall,
    Provider,
    Refusal,
    Reply,
    ScriptedRequest,
    calls_in,
)


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


def openai_completion(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
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


def anthropic_message(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    tools = request.body.get("tools") or []
    tool = request.forced_tool or (tools[0]["name"] if tools else None)
    scripted = calls_in(reply.value)
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


def responses_reply(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    """A Responses API reply: output items for calls, refusals and text."""
    value = reply.value
    calls = calls_in(value)
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


def gemini_reply(request: ScriptedRequest, reply: Reply, n: int) -> dict[str, Any]:
    """A generateContent reply: one candidate whose parts are the calls and texts."""
    calls = calls_in(reply.value)
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


def error_body(provider: Provider, fault: Fault) -> dict[str, Any]:
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


def json_bytes(body: Any) -> bytes:
    return json.dumps(body).encode()


# What a strict OpenAI-compatible server says of a schema beside a bare json_object.
EXTRA_SCHEMA_REJECTION = "response_format.schema: Extra inputs are not permitted"


_HTML_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>"
    b"<p>The upstream model server did not answer.</p></body></html>"
)


def broken_body(
    request: ScriptedRequest, broken: Broken, n: int
) -> tuple[int, dict[str, str], bytes]:
    """A status 200 with a body no client can use as a reply (see `Broken`)."""
    openai = request.provider == "openai"
    responses = request.api == "responses"
    if request.provider == "google":
        good = gemini_reply(request, Reply("scripted"), n)
    elif responses:
        good = responses_reply(request, Reply("scripted"), n)
    else:
        good = (
            openai_completion(request, Reply({}), n)
            if openai
            else anthropic_message(request, Reply({}), n)
        )
    kind = broken.kind
    if kind == "html":
        return 200, {"content-type": "text/html; charset=utf-8"}, _HTML_PAGE
    if kind == "not_json":
        return 200, {}, b"upstream connect error or disconnect/reset before headers"
    if kind == "truncated_body":
        whole = json_bytes(good)
        return 200, {}, whole[: len(whole) // 2]
    if kind == "empty_body":
        return 200, {}, b""
    if kind == "error_object":
        return 200, {}, json_bytes(error_body(request.provider, Fault(500, "model overloaded")))
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
    return 200, {}, json_bytes(good)


def llama_cpp_rejection() -> Fault:
    detail = {
        "type": "literal_error",
        "loc": ["body", "response_format", "type"],
        "msg": LLAMA_CPP_JSON_SCHEMA_REJECTION,
        "input": "json_schema",
    }
    message = f"[{detail}] (scripted llama-cpp-python emulation)"
    return Fault(500, {"error": {"message": message, "type": "internal_server_error"}})
