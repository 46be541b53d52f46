"""The one layer that talks to models.

Every AI feature asks for a pydantic-validated answer through `ModelClient.complete`.
This layer picks the provider from one model string ("openai/gpt-4o-mini",
"anthropic/claude-sonnet-4-5", or "openai/<name>" on any OpenAI-compatible server at a
base URL), gets structured output the best way the endpoint allows, repairs an invalid
answer once, retries transient faults with bounded backoff, and records usage and cost.
It never logs prompt contents and never shows the API key.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import importlib
import json
import logging
import os
import random
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from pytest_stagehand.calls import CallUsage
from pytest_stagehand.errors import (
    ConfigError,
    MissingApiKey,
    ModelAuthError,
    ModelError,
    ModelOutputError,
    ModelUnavailable,
)
from pytest_stagehand.model.messages import REPAIR_INSTRUCTION, SCHEMA_INSTRUCTION, Message
from pytest_stagehand.model.usage import PRICES, PriceTable, UsageLedger

__all__ = [
    "Completion",
    "Message",
    "ModelClient",
    "ModelConfig",
    "create_client",
]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# provider → (key variable, base URL variable, official endpoint)
_PROVIDERS = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    "google": (
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "https://generativelanguage.googleapis.com",
    ),
}
# Further key variables a provider's own SDK reads.
_MORE_KEY_VARIABLES = {"google": ("GOOGLE_API_KEY",)}
# "maximum context length is 2048 tokens", "exceeds the context window", "n_ctx"
_CONTEXT_OVERFLOW = re.compile(r"context (length|window|size)|n_ctx|too many tokens", re.I)
# Sent to servers at a custom base URL when no key is configured: local servers ignore it.
PLACEHOLDER_KEY = "no-key-configured"


@dataclass(frozen=True, repr=False)
class ModelConfig:
    """Which model to use and how to reach it. The API key never appears in the repr."""

    model: str
    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    timeout: float = 60.0
    max_retries: int = 3
    temperature: float = 0.0
    seed: int | None = 0
    memo_dir: Path | None = None
    backoff_base: float = 1.0  # seconds before the first retry (doubling, with jitter)
    backoff_cap: float = 20.0  # no single wait is longer, Retry-After included

    def __post_init__(self) -> None:
        provider, _, name = self.model.partition("/")
        if provider not in _PROVIDERS or not name:
            raise ConfigError(
                f"--ai-model {self.model!r} is not '<provider>/<model>': use "
                "'openai/<model>' (also for OpenAI-compatible servers such as Ollama, vLLM or "
                "llama.cpp, with --ai-base-url), 'anthropic/<model>' or 'google/<model>' "
                "(pip install 'pytest-stagehand[google]'), e.g. openai/gpt-4o-mini or "
                "anthropic/claude-sonnet-4-5."
            )
        if self.timeout <= 0 or self.max_retries < 0:
            raise ConfigError(
                f"model timeout must be > 0 and max_retries >= 0; got timeout={self.timeout}, "
                f"max_retries={self.max_retries}"
            )

    def __repr__(self) -> str:
        # the endpoint, not base_url: a gateway URL may carry credentials
        return (
            f"ModelConfig(model={self.model!r}, endpoint={self.endpoint!r}, "
            f"timeout={self.timeout}, max_retries={self.max_retries}, "
            f"temperature={self.temperature}, seed={self.seed}, memo_dir={self.memo_dir!r})"
        )

    @property
    def provider(self) -> str:
        return self.model.partition("/")[0]

    @property
    def name(self) -> str:
        """The model name the provider knows, e.g. "gpt-4o-mini"."""
        return self.model.partition("/")[2]

    @property
    def key_variable(self) -> str:
        return _PROVIDERS[self.provider][0]

    def resolved_base_url(self) -> str | None:
        """The custom endpoint: the option, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL."""
        return self.base_url or os.environ.get(_PROVIDERS[self.provider][1]) or None

    def resolved_api_key(self) -> str | None:
        variables = (self.key_variable, *_MORE_KEY_VARIABLES.get(self.provider, ()))
        return self.api_key or next(filter(None, map(os.environ.get, variables)), None)

    @property
    def endpoint(self) -> str:
        """Where calls go, safe to show (no credentials or query string)."""
        url = self.resolved_base_url() or _PROVIDERS[self.provider][2]
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return f"{parts.scheme}://{host}{parts.path}".rstrip("/")

    @property
    def is_custom_endpoint(self) -> bool:
        """A server other than the provider's own: a local server may need no key."""
        return self.endpoint != _PROVIDERS[self.provider][2]

    def check_credentials(self) -> None:
        """Raise MissingApiKey now, before any browser work, if calls could not authenticate."""
        if self.resolved_api_key() is None and not self.is_custom_endpoint:
            local = (
                " For a local OpenAI-compatible server (Ollama, vLLM, llama.cpp), set "
                "--ai-base-url (or OPENAI_BASE_URL) instead: it needs no key."
                if self.provider == "openai"
                else ""
            )
            raise MissingApiKey(
                f"No API key for {self.model}: set "
                f"{' or '.join((self.key_variable, *_MORE_KEY_VARIABLES.get(self.provider, ())))} "
                f"(or --ai-api-key / ini ai_api_key).{local}"
            )


@dataclass(frozen=True)
class Completion(Generic[T]):
    """A validated answer, the raw text it was parsed from, and what it cost: `usage`
    sums the `calls` made for it (a repair makes two)."""

    value: T
    raw: str
    usage: CallUsage
    calls: tuple[CallUsage, ...] = ()


@dataclass(frozen=True)
class _Answer:
    """One provider response, reduced to what this layer needs."""

    text: str
    truncated: bool
    input_tokens: int  # all prompt tokens, cached included
    output_tokens: int
    cached_tokens: int
    reply: dict[str, Any] = field(default_factory=dict)  # the whole reply object


class ModelClient(ABC):
    """Asks a model for answers that validate against a pydantic schema.

    One repair attempt follows an invalid answer (the model sees its validation error;
    a cut-off answer is asked again with twice the token limit), then ModelOutputError.
    429, 5xx and timeouts are retried with exponential backoff and jitter; 401/403 fail
    at once. With `memo_dir` set, identical requests are answered from disk for free.
    """

    _sdk: ModuleType  # the provider SDK module, for its exception classes

    def __init__(self, config: ModelConfig, ledger: UsageLedger | None = None) -> None:
        config.check_credentials()
        self.config = config
        self.ledger = ledger
        self._api_key = config.resolved_api_key() or PLACEHOLDER_KEY
        self._memo: Any = None
        if config.memo_dir is not None:
            import diskcache

            self._memo = diskcache.Cache(str(config.memo_dir))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"

    # --- the one public call ---------------------------------------------------------

    def complete(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        purpose: str = "",
        max_tokens: int = 4096,
    ) -> Completion[T]:
        """Ask for an answer matching `schema`; raise a typed ModelError if none comes."""
        messages = tuple(messages)
        memo_key = None if self._memo is None else self._memo_key(messages, schema, max_tokens)
        if memo_key is not None:
            hit = self._from_memo(memo_key, schema, purpose)
            if hit is not None:
                return hit

        answered: list[CallUsage] = []  # every answered call, for the error if one comes
        try:
            answer = self._call(messages, schema, max_tokens, purpose, answered)
            value, problem = _validate(answer, schema, max_tokens)
            if problem is not None and not _context_full(answer, max_tokens):
                if answer.truncated:
                    retry_messages, max_tokens = messages, max_tokens * 2
                else:
                    retry_messages = (
                        *messages,
                        Message("assistant", answer.text or "(empty answer)"),
                        Message("user", REPAIR_INSTRUCTION.format(problem=problem)),
                    )
                log.info(
                    "%s: invalid answer for %s, one repair attempt",
                    self.config.model,
                    purpose or schema.__name__,
                )
                answer = self._call(retry_messages, schema, max_tokens, purpose, answered)
                value, problem = _validate(answer, schema, max_tokens)
            if value is None:
                repaired = ", even after a repair attempt" if len(answered) > 1 else ""
                raise ModelOutputError(
                    f"{self.config.model} gave no usable {schema.__name__} answer"
                    f"{f' for {purpose}' if purpose else ''}{repaired}: {problem}. "
                    f"It answered: {_preview(self._masked(answer.text))}",
                    raw=answer.text,
                )
        except ModelError as exc:
            exc.calls = list(answered)
            raise
        if memo_key is not None:
            self._memo.set(memo_key, answer.text)
        return Completion(value, answer.text, sum(answered[1:], answered[0]), tuple(answered))

    def converse(
        self, create: Callable[[Any], Any], *, purpose: str = ""
    ) -> tuple[dict[str, Any], tuple[CallUsage, ...]]:
        """One request the caller shapes itself with the provider's SDK client, for what
        `complete` does not speak (computer use: the Responses API, beta tools, turns).

        `create(sdk_client)` sends it with `with_raw_response` and returns the raw response.
        Retried, budgeted, counted and turned into typed errors like `complete`'s calls.
        Returns the reply object and the calls made.
        """
        answered: list[CallUsage] = []
        try:
            answer = self._call_with(lambda: self._reply(self._raw_text(create)), purpose, answered)
        except ModelError as exc:
            exc.calls = list(answered)
            raise
        return answer.reply, tuple(answered)

    def close(self) -> None:
        self._client.close()
        if self._memo is not None:
            self._memo.close()

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- provider specifics ------------------------------------------------------------

    _client: Any

    @abstractmethod
    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> _Answer:
        """One request over the wire; SDK exceptions propagate."""

    @abstractmethod
    def _reply(self, body: str) -> _Answer:
        """A `converse` reply body, checked (UnusableReply when it is none)."""

    def _raw_text(self, create: Callable[[Any], Any]) -> str:
        """The body of the reply `create(sdk_client)` got (a `with_raw_response` call)."""
        return str(create(self._client).http_response.text)

    # --- shared machinery --------------------------------------------------------------

    def _call(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        max_tokens: int,
        purpose: str,
        answered: list[CallUsage],
    ) -> _Answer:
        images = [image for message in messages for image in message.images]
        return self._call_with(
            lambda: self._send(messages, schema, max_tokens), purpose, answered, images
        )

    def _call_with(
        self,
        send: Callable[[], _Answer],
        purpose: str,
        answered: list[CallUsage],
        images: Sequence[bytes] = (),
    ) -> _Answer:
        """One answer: budget check, bounded retries, usage recorded (also in `answered`,
        with the number and pixels of the `images` sent)."""
        if self.ledger is not None:
            self.ledger.check_budget()
        started = time.monotonic()
        retries = 0
        while True:
            try:
                answer = send()
                break
            except Exception as exc:
                if not isinstance(exc, (self._sdk.APIError, UnusableReply)):  # a tuple for google
                    raise
                # raises at once for faults a retry cannot help
                if isinstance(exc, UnusableReply):
                    reason = self._masked(exc.reason)
                else:
                    reason = self._transient_reason(exc)
                if retries >= self.config.max_retries:
                    raise self._unavailable(reason, retries + 1, exc) from exc
                delay = self._backoff(retries, _retry_after(exc))
                retries += 1
                log.warning(
                    "%s: %s; retry %d/%d in %.2fs",
                    self.config.model,
                    reason,
                    retries,
                    self.config.max_retries,
                    delay,
                )
                time.sleep(delay)
        usage = CallUsage(
            model=self.config.model,
            purpose=purpose,
            input_tokens=answer.input_tokens,
            output_tokens=answer.output_tokens,
            cached_tokens=answer.cached_tokens,
            latency_s=time.monotonic() - started,
            cost_usd=self._prices.cost(
                self.config.model, answer.input_tokens, answer.output_tokens, answer.cached_tokens
            ),
            retries=retries,
            images=len(images),
            image_pixels=sum(_pixels(image) for image in images),
        )
        answered.append(usage)
        if self.ledger is not None:
            self.ledger.record(usage)
        log.debug(
            "%s %s: %d in (%d cached) / %d out tokens, %.2fs",
            self.config.model,
            purpose,
            usage.input_tokens,
            usage.cached_tokens,
            usage.output_tokens,
            usage.latency_s,
        )
        return answer

    def _unavailable(self, reason: str, attempts: int, exc: Exception) -> ModelUnavailable:
        """The error after the last retry: what happened, then what the user can do."""
        where = f"{self.config.model} at {self.config.endpoint}"
        if isinstance(exc, UnusableReply):
            return ModelUnavailable(
                f"{where} sent {attempts} replies that are not answers ({reason}). "
                f"It sent: {_preview(self._masked(exc.body), 300)} "
                "Check that --ai-base-url is the model server's API (for OpenAI-compatible "
                "servers it usually ends in /v1), not a web page or a proxy's error page.",
                raw=self._masked(exc.body),
            )
        if isinstance(exc, self._sdk.APITimeoutError):
            return ModelUnavailable(
                f"{where} kept failing ({reason}) after {attempts} attempts. A local model on "
                f"a CPU may need longer: raise --ai-timeout (ini ai_timeout; now "
                f"{self.config.timeout:g}s). A single-slot server (llama.cpp) keeps working on "
                "a timed-out request, so retries queue behind it: lower --ai-retries too."
            )
        return ModelUnavailable(
            f"{where} kept failing ({reason}) after {attempts} attempts. The provider may be "
            "overloaded or down: try again later, or check the server at that address."
        )

    @property
    def _prices(self) -> PriceTable:
        return self.ledger.prices if self.ledger is not None else PRICES

    def _transient_reason(self, exc: Any) -> str:
        """Why a retry may help; raises the right ModelError when it cannot."""
        sdk = self._sdk
        if isinstance(exc, sdk.APITimeoutError):
            return f"no answer within {self.config.timeout:g}s"
        if isinstance(exc, sdk.APIConnectionError):
            return "could not connect"
        if not isinstance(exc, sdk.APIStatusError):
            raise ModelError(f"{self.config.model}: unexpected answer from the provider ({exc})")
        status, detail = exc.status_code, self._server_message(exc)
        if status in (401, 403):
            raise ModelAuthError(
                f"{self.config.model} at {self.config.endpoint} refused the API key "
                f"(HTTP {status}: {detail}). Set a valid {self.config.key_variable} "
                "(or --ai-api-key / ini ai_api_key)."
            ) from None  # the SDK error may quote the key
        if status in (408, 409, 429) or status >= 500:
            return f"HTTP {status}: {detail}"
        advice = (
            "The prompt does not fit the server's context size: start the server with a "
            "larger one (llama.cpp: --ctx-size; llama-cpp-python: --n_ctx; Ollama: num_ctx)."
            if _CONTEXT_OVERFLOW.search(detail)
            else "Check --ai-model and the server's supported features."
        )
        raise ModelError(
            f"{self.config.model} at {self.config.endpoint} rejected the request "
            f"(HTTP {status}: {detail}). {advice}"
        ) from None

    def _server_message(self, exc: Any) -> str:
        body = exc.body  # the SDKs give the error object itself, or the whole body
        text = _error_message(body) or (body.get("message") if isinstance(body, dict) else None)
        return _preview(self._masked(str(text or exc.message)), 300)

    def _masked(self, text: str) -> str:
        """`text` without the API key: servers echo it in errors, proxies in pages."""
        return text if self._api_key == PLACEHOLDER_KEY else text.replace(self._api_key, "***")

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        ceiling = min(self.config.backoff_cap, self.config.backoff_base * 2**retry)
        delay = random.uniform(ceiling / 2, ceiling)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.config.backoff_cap))
        return delay

    def _memo_key(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> str:
        request = {
            "memo": 1,
            "model": self.config.model,
            "endpoint": self.config.endpoint,
            "temperature": self.config.temperature,
            "seed": self.config.seed,
            "max_tokens": max_tokens,
            "schema": schema.model_json_schema(),
            "messages": [
                [m.role, m.text, [hashlib.sha256(i).hexdigest() for i in m.images]]
                for m in messages
            ],
        }
        return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()

    def _from_memo(self, key: str, schema: type[T], purpose: str) -> Completion[T] | None:
        started = time.monotonic()
        raw = self._memo.get(key)
        if raw is None:
            return None
        try:
            value = schema.model_validate_json(_strip_fences(raw))
        except ValidationError:
            return None  # a stale entry; ask again and overwrite it
        usage = CallUsage(
            self.config.model, purpose, 0, 0, 0, time.monotonic() - started, 0.0, memo_hit=True
        )
        if self.ledger is not None:
            self.ledger.record(usage)
        return Completion(value, raw, usage, (usage,))


# --- OpenAI and compatible servers ---------------------------------------------------------

# How an OpenAI-compatible endpoint constrains output, strongest first: response_format
# json_schema (OpenAI, llama.cpp's server, vLLM, Ollama); json_object with the schema
# beside it (llama-cpp-python's server, which refuses json_schema but enforces this);
# bare json_object with the schema in the prompt only, the last resort.
StructuredMode = Literal["json_schema", "json_object+schema", "json_object"]
# (endpoint, model) → the strongest mode it accepted, found on its first call.
_ENDPOINT_MODES: dict[tuple[str, str], StructuredMode] = {}
_ENDPOINT_MODES_LOCK = threading.Lock()
# Reasoning models accept only the default temperature.
_NO_TEMPERATURE = re.compile(r"^(o\d|gpt-5)")


class OpenAIClient(ModelClient):
    """Chat Completions, in the strongest structured-output mode the endpoint accepts."""

    def __init__(self, config: ModelConfig, ledger: UsageLedger | None = None) -> None:
        super().__init__(config, ledger)
        import openai

        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=self._api_key,
            base_url=config.resolved_base_url() or _PROVIDERS["openai"][2],
            timeout=config.timeout,
            max_retries=0,  # retries are ours, so they are bounded, logged and counted
        )

    @property
    def structured_mode(self) -> StructuredMode:
        """The mode this endpoint is asked in: json_schema until it refuses it."""
        return _ENDPOINT_MODES.get((self.config.endpoint, self.config.name), "json_schema")

    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> _Answer:
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
                with _ENDPOINT_MODES_LOCK:
                    _ENDPOINT_MODES[endpoint] = mode
                continue
            return answer

    def _create(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        max_tokens: int,
        mode: StructuredMode,
    ) -> _Answer:
        config = self.config
        schema_json = schema.model_json_schema()
        kwargs: dict[str, Any] = {"model": config.name}
        if mode == "json_schema":
            strict = _strict_schema(schema_json)
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(schema),
                    "schema": strict or schema_json,
                    "strict": strict is not None,
                },
            }
        else:
            kwargs["response_format"] = {"type": "json_object"}
            if mode == "json_object+schema":
                kwargs["response_format"]["schema"] = schema_json
            # in the prompt too: a server may take the schema field and not enforce it
            messages = _with_schema_instruction(messages, schema_json)
        kwargs["messages"] = [_openai_message(m) for m in messages]
        # The official API wants max_completion_tokens; compatible servers know max_tokens.
        kwargs["max_tokens" if config.is_custom_endpoint else "max_completion_tokens"] = max_tokens
        if not _NO_TEMPERATURE.match(config.name):
            kwargs["temperature"] = config.temperature
        if config.seed is not None:
            kwargs["seed"] = config.seed

        raw = self._client.chat.completions.with_raw_response.create(**kwargs)
        return _openai_answer(raw.http_response.text)

    def _reply(self, body: str) -> _Answer:
        return _responses_answer(body)


def _openai_answer(body: str) -> _Answer:
    """The answer in a Chat Completions reply, checked field by field before use."""
    reply = _reply_object(body)
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
    usage = _mapping(reply.get("usage"))
    return _Answer(
        text=text,
        truncated=choice.get("finish_reason") == "length",
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        cached_tokens=_count(_mapping(usage.get("prompt_tokens_details")), "cached_tokens"),
    )


def _responses_answer(body: str) -> _Answer:
    """A Responses API reply (its output items), checked before use."""
    reply = _reply_object(body)
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
    usage = _mapping(reply.get("usage"))
    return _Answer(
        text="".join(texts),
        truncated=_mapping(reply.get("incomplete_details")).get("reason") == "max_output_tokens",
        input_tokens=_count(usage, "input_tokens"),
        output_tokens=_count(usage, "output_tokens"),
        cached_tokens=_count(_mapping(usage.get("input_tokens_details")), "cached_tokens"),
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
        url = f"data:{_media_type(image)};base64,{base64.b64encode(image).decode()}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": message.role, "content": parts}


# --- Anthropic -----------------------------------------------------------------------------


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
            base_url=config.resolved_base_url() or _PROVIDERS["anthropic"][2],
            timeout=config.timeout,
            max_retries=0,
        )

    def _send(
        self, messages: Sequence[Message], schema: type[BaseModel], max_tokens: int
    ) -> _Answer:
        tool = _schema_name(schema)
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

    def _reply(self, body: str) -> _Answer:
        return _anthropic_answer(body)


def _anthropic_answer(body: str) -> _Answer:
    """The answer in a Messages reply (the forced tool's input), checked before use."""
    reply = _reply_object(body)
    content = reply.get("content")
    if not isinstance(content, list):
        raise UnusableReply("a reply without content", body)
    blocks = [block for block in content if isinstance(block, dict)]
    tool_inputs = [b.get("input") for b in blocks if b.get("type") == "tool_use"]
    if tool_inputs:
        text = json.dumps(tool_inputs[0])
    else:
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    usage = _mapping(reply.get("usage"))
    cached = _count(usage, "cache_read_input_tokens")
    return _Answer(
        text=text,
        truncated=reply.get("stop_reason") == "max_tokens",
        # Anthropic counts cache reads and writes apart from input_tokens.
        input_tokens=_count(usage, "input_tokens")
        + cached
        + _count(usage, "cache_creation_input_tokens"),
        output_tokens=_count(usage, "output_tokens"),
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
                    "media_type": _media_type(image),
                    "data": base64.b64encode(image).decode(),
                },
            }
        )
    return {"role": message.role, "content": blocks}


# --- Google (Gemini), an optional extra ------------------------------------------------------


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
                base_url=config.resolved_base_url() or _PROVIDERS["google"][2],
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
    ) -> _Answer:
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

    def _reply(self, body: str) -> _Answer:
        return _gemini_answer(body)


def _gemini_content(message: Message) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": message.text}]
    for image in message.images:
        parts.append({"inline_data": {"mime_type": _media_type(image), "data": image}})
    return {"role": "model" if message.role == "assistant" else "user", "parts": parts}


def _gemini_answer(body: str) -> _Answer:
    """A generateContent reply (its first candidate), checked before use."""
    reply = _reply_object(body)
    candidates = reply.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        raise UnusableReply("a reply without candidates", body)
    parts = _mapping(candidates[0].get("content")).get("parts")
    texts = [str(p.get("text", "")) for p in parts or () if isinstance(p, dict) and "text" in p]
    usage = _mapping(reply.get("usageMetadata"))
    return _Answer(
        text="".join(texts),
        truncated=candidates[0].get("finishReason") == "MAX_TOKENS",
        input_tokens=_count(usage, "promptTokenCount"),
        output_tokens=_count(usage, "candidatesTokenCount"),
        cached_tokens=_count(usage, "cachedContentTokenCount"),
        reply=reply,
    )


def create_client(config: ModelConfig, ledger: UsageLedger | None = None) -> ModelClient:
    """The client for `config`'s provider; raises MissingApiKey if it has no key."""
    if config.provider == "anthropic":
        return AnthropicClient(config, ledger)
    if config.provider == "google":
        return GoogleClient(config, ledger)
    return OpenAIClient(config, ledger)


# --- checking replies ----------------------------------------------------------------------


class UnusableReply(Exception):
    """A successful HTTP status whose body is no reply: not JSON, a proxy's HTML page, an
    error object, no choices. Retried like a 5xx; `body` is what came back."""

    def __init__(self, problem: str, body: str) -> None:
        super().__init__(problem)
        self.reason = f"HTTP 200 but {problem}"
        self.body = body


def _reply_object(body: str) -> dict[str, Any]:
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
    error = _error_message(reply)
    if error is not None:
        raise UnusableReply(f"an error object ({_preview(error, 200)})", body)
    return reply


def _error_message(body: Any) -> str | None:
    """The message of a provider error body (both wire shapes), if it is one."""
    if not isinstance(body, dict) or body.get("error") is None:  # Responses: "error": null
        return None
    error = body["error"]
    message = error.get("message") if isinstance(error, dict) else error
    return str(message or error)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(numbers: dict[str, Any], name: str) -> int:
    """A token count, 0 when a server leaves it out or sends something else."""
    value = numbers.get(name)
    return value if isinstance(value, int) and value >= 0 else 0


# --- helpers -------------------------------------------------------------------------------


def _validate(answer: _Answer, schema: type[T], max_tokens: int) -> tuple[T | None, str | None]:
    """The validated value, or None and what was wrong, in words a model can act on."""
    try:
        return schema.model_validate_json(_strip_fences(answer.text)), None
    except ValidationError as exc:
        if _context_full(answer, max_tokens):
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


def _context_full(answer: _Answer, max_tokens: int) -> bool:
    """Cut off short of `max_tokens`: the server ran out of context, so more room cannot help."""
    return answer.truncated and 0 < answer.output_tokens < max_tokens


def _strip_fences(text: str) -> str:
    """Some servers wrap JSON in a ```json fence even when asked for JSON only."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[-1].rsplit("```", 1)[0]
    return stripped


def _preview(text: str, limit: int = 500) -> str:
    text = text if text else "(nothing)"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date; our own backoff will do


def _pixels(image: bytes) -> int:
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


def _media_type(image: bytes) -> str:
    return "image/jpeg" if image.startswith(b"\xff\xd8\xff") else "image/png"


def _schema_name(schema: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"


def _with_schema_instruction(
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


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
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
