"""Google's Gemini models, an optional extra."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from importlib.util import find_spec
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel

from pytest_stagehand.errors import (
    ConfigError,
)
from pytest_stagehand.model.client import PROVIDERS, ModelClient, ModelConfig
from pytest_stagehand.model.messages import Message
from pytest_stagehand.model.replies import (
    Answer,
    UnusableReply,
    as_mapping,
    media_type_of,
    reply_object,
    token_count,
)
from pytest_stagehand.model.usage import UsageLedger


class GoogleStatusError(Exception):
    """A google-genai API error in the shape the retry loop reads (the other SDKs')."""

    def __init__(self, exc: Any) -> None:
        super().__init__(str(exc))
        self.status_code = int(exc.code or 0)
        self.body = exc.details
        self.message = str(exc.message or exc)
        self.response = getattr(exc, "response", None)


class GoogleClient(ModelClient):
    """The Gemini API through google-genai (`pytest-stagehand[google]`): structured output
    as JSON under the schema; raw bodies are read, so malformed replies are retried."""

    def __init__(self, config: ModelConfig, ledger: UsageLedger | None = None) -> None:
        super().__init__(config, ledger)
        try:
            from google import genai
            from google.genai import types
        except ImportError:
            raise ConfigError(
                f"{config.model} needs Google's google-genai package, an optional extra: "
                "pip install 'pytest-stagehand[google]'."
            ) from None
        self._genai = genai
        # The HTTP client under google-genai (httpx or httpx2) raises timeouts and
        # connection errors itself.
        clients = [importlib.import_module(name) for name in ("httpx", "httpx2") if find_spec(name)]
        timeouts = tuple(client.TimeoutException for client in clients)
        transport = tuple(client.TransportError for client in clients)
        self._sdk = SimpleNamespace(  # type: ignore[assignment]
            APIError=(GoogleStatusError, *transport),
            APITimeoutError=timeouts,
            APIConnectionError=transport,
            APIStatusError=GoogleStatusError,
        )
        self._client = genai.Client(
            api_key=self._api_key,
            http_options=types.HttpOptions(
                base_url=config.resolved_base_url() or PROVIDERS["google"][2],
                timeout=int(config.timeout * 1000),  # milliseconds
                retry_options=types.HttpRetryOptions(attempts=1),  # retries are ours
            ),
        )

    def _raw_text(self, create: Callable[[Any], Any]) -> str:
        """`create(client)` is a generate_content call with should_return_http_response."""
        try:
            response = create(self._client)
        except self._genai.errors.APIError as exc:
            raise GoogleStatusError(exc) from None  # its text may quote the request
        return str(response.sdk_http_response.body or "")

    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> Answer:
        types = self._genai.types
        system = "\n\n".join(m.text for m in messages if m.role == "system")
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            response_mime_type="application/json",
            response_json_schema=schema.model_json_schema(),
            max_output_tokens=max_tokens,
            temperature=self.config.temperature,
            seed=self.config.seed,
            should_return_http_response=True,
        )
        contents = [_gemini_content(m) for m in messages if m.role != "system"]
        body = self._raw_text(
            lambda sdk: sdk.models.generate_content(
                model=self.config.name, contents=contents, config=config
            )
        )
        return _gemini_answer(body)

    def _reply(self, body: str) -> Answer:
        return _gemini_answer(body)


def _gemini_content(message: Message) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": message.text}]
    for image in message.images:
        parts.append({"inline_data": {"mime_type": media_type_of(image), "data": image}})
    return {"role": "model" if message.role == "assistant" else "user", "parts": parts}


def _gemini_answer(body: str) -> Answer:
    """A generateContent reply (its first candidate), checked before use."""
    reply = reply_object(body)
    candidates = reply.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        raise UnusableReply("a reply without candidates", body)
    parts = as_mapping(candidates[0].get("content")).get("parts")
    texts = [str(p.get("text", "")) for p in parts or () if isinstance(p, dict) and "text" in p]
    usage = as_mapping(reply.get("usageMetadata"))
    return Answer(
        text="".join(texts),
        truncated=candidates[0].get("finishReason") == "MAX_TOKENS",
        input_tokens=token_count(usage, "promptTokenCount"),
        output_tokens=token_count(usage, "candidatesTokenCount"),
        cached_tokens=token_count(usage, "cachedContentTokenCount"),
        reply=reply,
    )
