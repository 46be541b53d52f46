"""OpenAI and every OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio, gateways):
Chat Completions and Responses, in the strongest structured-output mode the endpoint takes."""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from pytest_stagehand.model.client import PROVIDERS, ModelClient, ModelConfig, log
from pytest_stagehand.model.messages import Message
from pytest_stagehand.model.replies import (
    Answer,
    UnusableReply,
    as_mapping,
    media_type_of,
    reply_object,
    schema_name_of,
    strict_schema_of,
    token_count,
    with_schema_instruction,
)
from pytest_stagehand.model.usage import UsageLedger

# How an OpenAI-compatible endpoint constrains output, strongest first: response_format
# json_schema (OpenAI, llama.cpp's server, vLLM, Ollama); json_object with the schema
# beside it (llama-cpp-python's server, which refuses json_schema but enforces this);
# bare json_object with the schema in the prompt only, the last resort.
StructuredMode = Literal["json_schema", "json_object+schema", "json_object"]


class EndpointModes:
    """(endpoint, model) → the strongest mode it accepted, found on its first call. One per
    session, shared by its clients (the session's, a marker's, the agent's computer-use
    one), so a refusal is paid for once, not by every test's client again."""

    def __init__(self) -> None:
        self._modes: dict[tuple[str, str], StructuredMode] = {}
        self._lock = threading.Lock()

    def get(self, endpoint: tuple[str, str]) -> StructuredMode:
        return self._modes.get(endpoint, "json_schema")

    def learn(self, endpoint: tuple[str, str], mode: StructuredMode) -> None:
        with self._lock:
            self._modes[endpoint] = mode


# Reasoning models accept only the default temperature.
_NO_TEMPERATURE = re.compile(r"^(o\d|gpt-5)")


class OpenAIClient(ModelClient):
    """Chat Completions, in the strongest structured-output mode the endpoint accepts."""

    def __init__(
        self,
        config: ModelConfig,
        ledger: UsageLedger | None = None,
        modes: EndpointModes | None = None,
    ) -> None:
        super().__init__(config, ledger)
        import openai

        self.modes = modes if modes is not None else EndpointModes()

        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=self._api_key,
            base_url=config.resolved_base_url() or PROVIDERS["openai"][2],
            timeout=config.timeout,
            max_retries=0,  # retries are ours, so they are bounded, logged and counted
        )

    @property
    def structured_mode(self) -> StructuredMode:
        """The mode this endpoint is asked in: json_schema until it refuses it."""
        return self.modes.get((self.config.endpoint, self.config.name))

    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> Answer:
        endpoint = (self.config.endpoint, self.config.name)
        mode = self.structured_mode
        while True:
            try:
                answer = self._create(messages, schema, max_tokens, mode)
            except self._sdk.APIStatusError as exc:
                weaker = _weaker_mode(mode, exc)
                if weaker is None:
                    raise
                log.info(
                    "%s at %s refuses %s output; using %s",
                    self.config.model,
                    self.config.endpoint,
                    mode,
                    weaker,
                )
                mode = weaker
                self.modes.learn(endpoint, mode)
                continue
            return answer

    def _create(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        max_tokens: int,
        mode: StructuredMode,
    ) -> Answer:
        config = self.config
        schema_json = schema.model_json_schema()
        kwargs: dict[str, Any] = {"model": config.name}
        if mode == "json_schema":
            strict = strict_schema_of(schema_json)
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name_of(schema),
                    "schema": strict or schema_json,
                    "strict": strict is not None,
                },
            }
        else:
            kwargs["response_format"] = {"type": "json_object"}
            if mode == "json_object+schema":
                kwargs["response_format"]["schema"] = schema_json
            # in the prompt too: a server may take the schema field and not enforce it
            messages = with_schema_instruction(messages, schema_json)
        kwargs["messages"] = [_openai_message(m) for m in messages]
        # The official API wants max_completion_tokens; compatible servers know max_tokens.
        kwargs["max_tokens" if config.is_custom_endpoint else "max_completion_tokens"] = max_tokens
        if not _NO_TEMPERATURE.match(config.name):
            kwargs["temperature"] = config.temperature
        if config.seed is not None:
            kwargs["seed"] = config.seed

        raw = self._client.chat.completions.with_raw_response.create(**kwargs)
        return _openai_answer(raw.http_response.text)

    def _reply(self, body: str) -> Answer:
        return _responses_answer(body)


def _openai_answer(body: str) -> Answer:
    """The answer in a Chat Completions reply, checked field by field before use."""
    reply = reply_object(body)
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices:
        raise UnusableReply("a reply without choices", body)
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise UnusableReply("a choice without a message", body)
    text = _content_text(message.get("content")) or _content_text(message.get("refusal"))
    calls = message.get("tool_calls")
    if not text and isinstance(calls, list) and calls:  # structured output as a tool call
        function = calls[0].get("function") if isinstance(calls[0], dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        text = arguments if isinstance(arguments, str) else json.dumps(arguments or "")
    usage = as_mapping(reply.get("usage"))
    return Answer(
        text=text,
        truncated=choice.get("finish_reason") == "length",
        input_tokens=token_count(usage, "prompt_tokens"),
        output_tokens=token_count(usage, "completion_tokens"),
        cached_tokens=token_count(as_mapping(usage.get("prompt_tokens_details")), "cached_tokens"),
    )


def _responses_answer(body: str) -> Answer:
    """A Responses API reply (its output items), checked before use."""
    reply = reply_object(body)
    output = reply.get("output")
    if not isinstance(output, list):
        raise UnusableReply("a reply without output", body)
    texts = [
        part.get("text") or part.get("refusal") or ""
        for item in output
        if isinstance(item, dict) and item.get("type") == "message"
        for part in item.get("content") or ()
        if isinstance(part, dict)
    ]
    usage = as_mapping(reply.get("usage"))
    return Answer(
        text="".join(texts),
        truncated=as_mapping(reply.get("incomplete_details")).get("reason") == "max_output_tokens",
        input_tokens=token_count(usage, "input_tokens"),
        output_tokens=token_count(usage, "output_tokens"),
        cached_tokens=token_count(as_mapping(usage.get("input_tokens_details")), "cached_tokens"),
        reply=reply,
    )


def _content_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _rejects_json_schema(exc: Any) -> bool:
    """A server saying it cannot do response_format json_schema (llama.cpp, older models)."""
    if exc.status_code not in (400, 422, 500):
        return False
    text = f"{exc.message} {exc.body}".lower()
    return "json_object" in text or ("json_schema" in text and "support" in text)


def _rejects_schema_field(exc: Any) -> bool:
    """A server refusing a `schema` beside json_object (strict request validation)."""
    if exc.status_code not in (400, 422):
        return False
    text = f"{exc.message} {exc.body}".lower()
    return "schema" in text or "extra" in text or "response_format" in text


def _weaker_mode(mode: StructuredMode, exc: Any) -> StructuredMode | None:
    """The next mode to try when `exc` says the endpoint refuses `mode`, else None."""
    if mode == "json_schema" and _rejects_json_schema(exc):
        return "json_object+schema"
    if mode == "json_object+schema" and _rejects_schema_field(exc):
        return "json_object"
    return None


def _openai_message(message: Message) -> dict[str, Any]:
    if not message.images:
        return {"role": message.role, "content": message.text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
    for image in message.images:
        url = f"data:{media_type_of(image)};base64,{base64.b64encode(image).decode()}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": message.role, "content": parts}
