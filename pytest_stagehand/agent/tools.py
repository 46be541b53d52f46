"""The agent's tools as answer shapes: one call per step, with `done` shaped by the output
the test asks for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args

from pydantic import BaseModel, Field, create_model

from pytest_stagehand.prompts import agent as agent_texts
from pytest_stagehand.prompts.agent import DoneTool


def tool_name(model: type[BaseModel]) -> str:
    return get_args(model.model_fields["tool"].annotation)[0]


BUILTIN_NAMES = frozenset(
    tool_name(model) for model in (*agent_texts.BUILTIN_TOOLS, DoneTool)
)


def tool_line(model: type[BaseModel], description: str | None = None) -> str:
    fields = [name for name in model.model_fields if name != "tool"]
    return agent_texts.tool_line(tool_name(model), description or model.__doc__ or "", fields)


def done_tool(output: type[BaseModel] | None) -> type[BaseModel]:
    """DoneTool with `output` typed as the caller's model (text without one)."""
    answer: Any = str if output is None else output
    return create_model(
        "DoneTool",
        __base__=DoneTool,
        __doc__=DoneTool.__doc__,
        output=(answer | None, Field(description=agent_texts.DONE_OUTPUT)),
    )


def step_schema(tools: Sequence[type[BaseModel]]) -> type[BaseModel]:
    """The answer of one step: a thought and a call of one of `tools` (only done: final)."""
    if len(tools) == 1:
        name, call = "FinalStep", tools[0]
    else:
        name, call = "NextStep", Annotated[Union[tuple(tools)], Field(discriminator="tool")]  # noqa: UP007
    thought = (str, Field(description=agent_texts.THOUGHT))
    return create_model(name, thought=thought, call=(call, ...))
