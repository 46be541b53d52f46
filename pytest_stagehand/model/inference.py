"""Asking a model through the one path every pipeline takes: secrets masked, the call and
the exchange recorded on the step, and an unusable choice sent back once with why."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from pytest_stagehand.errors import ModelError, ModelRequired
from pytest_stagehand.events import Exchange, StepEvent, StepLog
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.model.messages import Message

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class ChoiceProblem(Exception):
    """An answer that cannot be used; the message is feedback the model can act on."""


NO_MODEL = (
    "no model may be called: none is configured, or --ai-cache=offline forbids calls. "
    "Configure one with OPENAI_API_KEY or ANTHROPIC_API_KEY, or --ai-model (ini ai_model, "
    "env STAGEHAND_MODEL) plus --ai-base-url for a local OpenAI-compatible server such as "
    "Ollama. Steps recorded by a run with a model replay without one."
)


def ask(
    client: ModelClient | None,
    messages: Sequence[Message],
    schema: type[T],
    *,
    event: StepEvent,
    steplog: StepLog,
) -> T:
    """Ask the model for a `schema` answer with every secret masked; record it on `event`."""
    if client is None:
        raise ModelRequired(f"{event.kind} {event.instruction!r} needs a model, but {NO_MODEL}")
    masked = [Message(m.role, steplog.mask(m.text), m.images) for m in messages]
    prompt = "\n\n".join(f"[{m.role}]\n{m.text}" for m in masked)
    try:
        completion = client.complete(masked, schema, purpose=event.kind)
    except ModelError as exc:  # answered calls were paid for: every report counts them
        event.calls.extend(exc.calls)
        if exc.raw is not None:
            event.exchanges.append(Exchange(event.kind, prompt, exc.raw))
        raise
    event.calls.extend(completion.calls)
    event.exchanges.append(Exchange(event.kind, prompt, completion.raw))
    return completion.value


def ask_checked(
    client: ModelClient | None,
    messages: Sequence[Message],
    schema: type[T],
    check: Callable[[T], R],
    *,
    feedback: Callable[[Sequence[Message], BaseModel, str], list[Message]],
    event: StepEvent,
    steplog: StepLog,
) -> R:
    """`ask`, then `check` the answer; a ChoiceProblem earns one retry, the conversation
    then carried on by `feedback` (the prompts' words for why the answer cannot be used).

    A second ChoiceProblem propagates: the caller turns it into its own error.
    """
    answer = ask(client, messages, schema, event=event, steplog=steplog)
    try:
        return check(answer)
    except ChoiceProblem as exc:
        retry = feedback(messages, answer, str(exc))
    return check(ask(client, retry, schema, event=event, steplog=steplog))
