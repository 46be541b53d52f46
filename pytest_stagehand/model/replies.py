"""What came back from a model, whoever the provider: the raw answer, checked, measured and
validated against the schema asked for."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pytest_stagehand.events import shortened
from pytest_stagehand.model.messages import SCHEMA_INSTRUCTION, Message

T = TypeVar("T", bound=BaseModel)

@dataclass(frozen=True)
class Answer:
    """One provider response, reduced to what this layer needs."""

    text: str
    truncated: bool
    input_tokens: int  # all prompt tokens, cached included
    output_tokens: int
    cached_tokens: int
    reply: dict[str, Any] = field(default_factory=dict)  # the whole reply object


class UnusableReply(Exception):
    """A successful HTTP status whose body is no reply: not JSON, a proxy's HTML page, an
    error object, no choices. Retried like a 5xx; `body` is what came back."""

    def __init__(self, problem: str, body: str) -> None:
        super().__init__(problem)
        self.reason = f"HTTP 200 but {problem}"
        self.body = body


def reply_object(body: str) -> dict[str, Any]:
    """The body as a JSON object, or UnusableReply saying what it is instead."""
    if not body.strip():
        raise UnusableReply("an empty body", body)
    try:
        reply = json.loads(body)
    except ValueError:
        looks = "an HTML page" if body.lstrip()[:1] == "<" else "a body that is not JSON"
        raise UnusableReply(looks, body) from None
    if not isinstance(reply, dict):
        raise UnusableReply("a JSON body that is not an object", body)
    error = error_message_of(reply)
    if error is not None:
        raise UnusableReply(f"an error object ({shortened_reply(error, 200)})", body)
    return reply


def error_message_of(body: Any) -> str | None:
    """The message of a provider error body (both wire shapes), if it is one."""
    if not isinstance(body, dict) or body.get("error") is None:  # Responses: "error": null
        return None
    error = body["error"]
    message = error.get("message") if isinstance(error, dict) else error
    return str(message or error)


def as_mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def token_count(numbers: dict[str, Any], name: str) -> int:
    """A token count, 0 when a server leaves it out or sends something else."""
    value = numbers.get(name)
    return value if isinstance(value, int) and value >= 0 else 0


def checked_value(answer: Answer, schema: type[T], max_tokens: int) -> tuple[T | None, str | None]:
    """The validated value, or None and what was wrong, in words a model can act on."""
    try:
        return schema.model_validate_json(strip_fences(answer.text)), None
    except ValidationError as exc:
        if context_full(answer, max_tokens):
            used = answer.input_tokens + answer.output_tokens
            return None, (
                f"the answer was cut off after {answer.output_tokens} tokens, before the limit "
                f"of {max_tokens}, because the server's context was full ({answer.input_tokens} "
                f"prompt + {answer.output_tokens} answer = {used} tokens). Start the server with "
                "a larger context size (llama.cpp: --ctx-size; llama-cpp-python: --n_ctx)"
            )
        if answer.truncated:
            return None, f"the answer was cut off at the limit of {max_tokens} tokens"
        errors = exc.errors(include_url=False, include_input=False)[:10]
        described = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors
        )
        return None, f"it does not match the {schema.__name__} schema ({described})"


def context_full(answer: Answer, max_tokens: int) -> bool:
    """Cut off short of `max_tokens`: the server ran out of context, so more room cannot help."""
    return answer.truncated and 0 < answer.output_tokens < max_tokens


def strip_fences(text: str) -> str:
    """Some servers wrap JSON in a ```json fence even when asked for JSON only."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[-1].rsplit("```", 1)[0]
    return stripped


def shortened_reply(text: str, limit: int = 500) -> str:
    """What a server sent, as an error shows it: with its length where it is cut."""
    text = text if text else "(nothing)"
    return text if len(text) <= limit else f"{shortened(text, limit)} ({len(text)} characters)"


def retry_after_of(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date; our own backoff will do


def pixel_count(image: bytes) -> int:
    """Width x height of a PNG or JPEG (0 when neither), read from its header."""
    if image.startswith(b"\x89PNG") and len(image) >= 24:
        return int.from_bytes(image[16:20], "big") * int.from_bytes(image[20:24], "big")
    at = 2
    while image.startswith(b"\xff\xd8") and at + 9 < len(image) and image[at] == 0xFF:
        marker, length = image[at + 1], int.from_bytes(image[at + 2 : at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a frame header
            height = int.from_bytes(image[at + 5 : at + 7], "big")
            return height * int.from_bytes(image[at + 7 : at + 9], "big")
        at += 2 + length
    return 0


def media_type_of(image: bytes) -> str:
    return "image/jpeg" if image.startswith(b"\xff\xd8\xff") else "image/png"


def schema_name_of(schema: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"


def with_schema_instruction(
    messages: Sequence[Message], schema_json: dict[str, Any]
) -> tuple[Message, ...]:
    """Put the schema in the system prompt (first message: some chat templates want one)."""
    instruction = SCHEMA_INSTRUCTION.format(schema=json.dumps(schema_json))
    if messages and messages[0].role == "system":
        first = Message("system", f"{messages[0].text}\n\n{instruction}")
        return (first, *messages[1:])
    return (Message("system", instruction), *messages)


# OpenAI's strict mode accepts a subset of JSON schema. Constraints it does not know are
# dropped (pydantic still checks them after); shapes it cannot express mean not strict.
_STRICT_DROP = frozenset(
    {
        "default",
        "minLength",
        "maxLength",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "examples",
    }
)


_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


_SHAPE_KEYS = frozenset({"type", "$ref", "anyOf", "oneOf", "enum", "const"})


class _NotStrict(Exception):
    pass


def strict_schema_of(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of `schema` in OpenAI's strict dialect, or None if strict cannot express it."""
    strict = copy.deepcopy(schema)
    try:
        for definition in strict.get("$defs", {}).values():
            _make_strict(definition, strict, frozenset())
        _make_strict(strict, strict, frozenset())
    except _NotStrict:
        return None
    return strict


def _make_strict(node: dict[str, Any], root: dict[str, Any], inlining: frozenset[str]) -> None:
    ref = node.get("$ref")
    if ref is not None and len(node) > 1:
        # strict mode wants a bare $ref: inline the definition under the extra keywords
        if ref in inlining:  # a recursive model: keep the reference, lose the description
            node.clear()
            node["$ref"] = ref
            return
        target = root
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        del node["$ref"]
        node.update({**copy.deepcopy(target), **node})
        inlining = inlining | {ref}
    if not _SHAPE_KEYS & node.keys() or {"prefixItems", "patternProperties", "allOf"} & node.keys():
        raise _NotStrict  # Any, tuples, intersections
    for key in _STRICT_DROP & node.keys():
        del node[key]
    if node.get("format") not in (None, *_STRICT_FORMATS):
        del node["format"]
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") not in (None, False) or not node.get("properties"):
            raise _NotStrict  # free-form objects and dict[str, X]
        node["additionalProperties"] = False
        node["required"] = list(node["properties"])
    children = list(node.get("properties", {}).values()) + node.get("anyOf", [])
    if isinstance(node.get("items"), dict):
        children.append(node["items"])
    for child in children:
        _make_strict(child, root, inlining)
