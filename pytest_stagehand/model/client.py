"""The one layer that talks to models.

Every AI feature asks for a pydantic-validated answer through `ModelClient.complete`.
This layer picks the provider from one model string ("openai/gpt-4o-mini",
"anthropic/claude-sonnet-4-5", or "openai/<name>" on any OpenAI-compatible server at a
base URL), gets structured output the best way the endpoint allows, repairs an invalid
answer once, retries transient faults with bounded backoff, and records usage and cost.
It never logs prompt contents and never shows the API key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar
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
from pytest_stagehand.model.messages import REPAIR_INSTRUCTION, Message
from pytest_stagehand.model.replies import (
    Answer,
    UnusableReply,
    checked_value,
    context_full,
    error_message_of,
    pixel_count,
    retry_after_of,
    shortened_reply,
    strip_fences,
)
from pytest_stagehand.model.usage import PRICES, PriceTable, UsageLedger

__all__ = [
    "Completion",
    "Message",
    "ModelClient",
    "ModelConfig",
]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# provider → (key variable, base URL variable, official endpoint)
PROVIDERS = {
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
        if provider not in PROVIDERS or not name:
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
        return PROVIDERS[self.provider][0]

    def resolved_base_url(self) -> str | None:
        """The custom endpoint: the option, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL."""
        return self.base_url or os.environ.get(PROVIDERS[self.provider][1]) or None

    def resolved_api_key(self) -> str | None:
        variables = (self.key_variable, *_MORE_KEY_VARIABLES.get(self.provider, ()))
        return self.api_key or next(filter(None, map(os.environ.get, variables)), None)

    @property
    def endpoint(self) -> str:
        """Where calls go, safe to show (no credentials or query string)."""
        url = self.resolved_base_url() or PROVIDERS[self.provider][2]
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return f"{parts.scheme}://{host}{parts.path}".rstrip("/")

    @property
    def is_custom_endpoint(self) -> bool:
        """A server other than the provider's own: a local server may need no key."""
        return self.endpoint != PROVIDERS[self.provider][2]

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
            value, problem = checked_value(answer, schema, max_tokens)
            if problem is not None and not context_full(answer, max_tokens):
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
                value, problem = checked_value(answer, schema, max_tokens)
            if value is None:
                repaired = ", even after a repair attempt" if len(answered) > 1 else ""
                raise ModelOutputError(
                    f"{self.config.model} gave no usable {schema.__name__} answer"
                    f"{f' for {purpose}' if purpose else ''}{repaired}: {problem}. "
                    f"It answered: {shortened_reply(self._masked(answer.text))}",
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
    ) -> Answer:
        """One request over the wire; SDK exceptions propagate."""

    @abstractmethod
    def _reply(self, body: str) -> Answer:
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
    ) -> Answer:
        images = [image for message in messages for image in message.images]
        return self._call_with(
            lambda: self._send(messages, schema, max_tokens), purpose, answered, images
        )

    def _call_with(
        self,
        send: Callable[[], Answer],
        purpose: str,
        answered: list[CallUsage],
        images: Sequence[bytes] = (),
    ) -> Answer:
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
                delay = self._backoff(retries, retry_after_of(exc))
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
            image_pixels=sum(pixel_count(image) for image in images),
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
                f"It sent: {shortened_reply(self._masked(exc.body), 300)} "
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
        text = error_message_of(body) or (body.get("message") if isinstance(body, dict) else None)
        return shortened_reply(self._masked(str(text or exc.message)), 300)

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
            value = schema.model_validate_json(strip_fences(raw))
        except ValidationError:
            return None  # a stale entry; ask again and overwrite it
        usage = CallUsage(
            self.config.model, purpose, 0, 0, 0, time.monotonic() - started, 0.0, memo_hit=True
        )
        if self.ledger is not None:
            self.ledger.record(usage)
        return Completion(value, raw, usage, (usage,))


