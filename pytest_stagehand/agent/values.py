"""What an agent run gives back and is given: its result and steps, a tool of the test's, and
how a tool's outcome is told."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_type_hints

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from pydantic import BaseModel, create_model

from pytest_stagehand.actions.action import Action
from pytest_stagehand.agent.tools import BUILTIN_NAMES
from pytest_stagehand.errors import (
    ActionError,
    AgentError,
    HealFailed,
    ModelError,
    ModelOutputError,
)
from pytest_stagehand.model.usage import UsageTotals

Status = Literal["completed", "partial", "failed", "max_steps", "stagnated", "error", "timeout"]


Mode = Literal["dom", "cua"]  # the tool loop over the page's elements, or computer use (cua.py)


MODES: tuple[str, ...] = get_args(Mode)


# Errors of the page: fed back to the model as the tool's result (unless the browser is gone).
PAGE_ERRORS = (ActionError, HealFailed, ModelOutputError, PlaywrightError)


@dataclass(frozen=True)
class AgentStep:
    """One tool call of a run and what came of it."""

    number: int
    tool: str
    arguments: dict[str, Any]
    outcome: str
    ok: bool = True


@dataclass(repr=False)
class AgentResult:
    """How a run ended. `success` means the goal was reached within the limits (status
    "completed"); `completed` means the model reported it reached, even when the run was cut
    short. `actions` replay with `ai_page.act(action)`; `output` is an instance of the output
    model (text without one), or None when nothing usable was gathered."""

    success: bool
    completed: bool
    status: Status
    message: str
    actions: list[Action]
    steps: list[AgentStep]
    output: Any
    data: dict[str, str]
    usage: UsageTotals
    replayed: bool = False  # from the recording, with no model

    def __repr__(self) -> str:  # what a failed `assert result.success` shows
        return (
            f"AgentResult(status={self.status!r}, success={self.success}, "
            f"message={self.message!r}, steps={len(self.steps)}, output={self.output!r})"
        )


@dataclass(frozen=True)
class Tool:
    """A tool the test adds: a function of one pydantic argument model."""

    name: str
    description: str
    arguments: type[BaseModel]  # the function's model, with the `tool` discriminator added
    function: Callable[[Any], object]

    @classmethod
    def of(cls, function: Callable[[Any], object]) -> Tool:
        name = getattr(function, "__name__", "")
        parameters = list(inspect.signature(function).parameters)
        try:
            model = get_type_hints(function).get(parameters[0]) if len(parameters) == 1 else None
        except NameError as exc:
            raise AgentError(f"Tool {name}: its argument type is not resolvable ({exc}).") from None
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise AgentError(
                f"Tool {name} must take exactly one argument annotated with a pydantic model, "
                "e.g. def lookup_order(args: OrderNumber) -> str."
            )
        if name in BUILTIN_NAMES or not name.isidentifier():
            raise AgentError(f"Tool name {name!r} is taken or not an identifier: rename it.")
        if "tool" in model.model_fields:
            raise AgentError(f"Tool {name}: {model.__name__} may not have a field named tool.")
        description = inspect.getdoc(function) or model.__doc__
        if not description:
            raise AgentError(f"Tool {name} needs a docstring: it tells the model what it does.")
        arguments = create_model(
            model.__name__, __base__=model, __doc__=description, tool=(Literal[name], ...)
        )
        return cls(name, description, arguments, function)


@dataclass(frozen=True)
class Outcome:
    text: str
    ok: bool = True
    tree: str | None = None  # a page tree: shown with the next step only
    image: bytes | None = None  # a screenshot: likewise


def infrastructure(exc: Exception, page: Page) -> bool:
    """Does `exc` mean the run cannot go on (model or browser down), not a page problem?"""
    if isinstance(exc, ModelError):
        return not isinstance(exc, ModelOutputError)
    if isinstance(exc, PlaywrightError):
        browser = page.context.browser
        return page.is_closed() or (browser is not None and not browser.is_connected())
    return False
