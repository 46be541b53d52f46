"""Anthropic's Messages API."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from pytest_stagehand.model.client import PROVIDERS, ModelClient, ModelConfig
from pytest_stagehand.model.messages import Message
from pytest_stagehand.model.replies import (
    Answer,
    UnusableReply,
    as_mapping,
    media_type_of,
    reply_object,
    schema_name_of,
    token_count,
)
from pytest_stagehand.model.usage import UsageLedger


class AnthropicClient(ModelClient):
    """Messages API: structured output as a forced call of a tool whose input is the schema.

    The Anthropic SDK takes no temperature or seed, so answers are as deterministic as
    the provider makes them.
    """

    def __init__(self, config: ModelConfig, ledger: UsageLedger | None = None) -> None:
        super().__init__(config, ledger)
        import anthropic

        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=self._api_key,
            base_url=config.resolved_base_url() or PROVIDERS["anthropic"][2],
            timeout=config.timeout,
            max_retries=0,
        )

    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> Answer:
        tool = schema_name_of(schema)
        kwargs: dict[str, Any] = {
            "model": self.config.name,
            "max_tokens": max_tokens,
            "messages": [_anthropic_message(m) for m in messages if m.role != "system"],
            "tools": [
                {
                    "name": tool,
                    "description": f"Give the answer as {schema.__name__}.",
                    "input_schema": schema.model_json_schema(),
                }
            ],
            "tool_choice": {"type": "tool", "name": tool},
        }
        system = "\n\n".join(m.text for m in messages if m.role == "system")
        if system:
            kwargs["system"] = system

        raw = self._client.messages.with_raw_response.create(**kwargs)
        return _anthropic_answer(raw.http_response.text)

    def _reply(self, body: str) -> Answer:
        return _anthropic_answer(body)


def _anthropic_answer(body: str) -> Answer:
    """The answer in a Messages reply (the forced tool's input), checked before use."""
    reply = reply_object(body)
    content = reply.get("content")
    if not isinstance(content, list):
        raise UnusableReply("a reply without content", body)
    blocks = [block for block in content if isinstance(block, dict)]
    tool_inputs = [b.get("input") for b in blocks if b.get("type") == "tool_use"]
    if tool_inputs:
        text = json.dumps(tool_inputs[0])
    else:
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    usage = as_mapping(reply.get("usage"))
    cached = token_count(usage, "cache_read_input_tokens")
    return Answer(
        text=text,
        truncated=reply.get("stop_reason") == "max_tokens",
        # Anthropic counts cache reads and writes apart from input_tokens.
        input_tokens=token_count(usage, "input_tokens")
        + cached
        + token_count(usage, "cache_creation_input_tokens"),
        output_tokens=token_count(usage, "output_tokens"),
        cached_tokens=cached,
        reply=reply,
    )


def _anthropic_message(message: Message) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
    for image in message.images:
        blocks.append(
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": media_type_of(image),
                    "data": base64.b64encode(image).decode(),
                },
            }
        )
    return {"role": message.role, "content": blocks}
