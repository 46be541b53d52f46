"""agent: a goal, not steps, reached by a tool loop over act, extract and observe.

Each step the model sees the goal, a compact history, the data saved, the step budget and
the page, and answers one structured `NextStep` (a thought and one tool call), so tool
calling works wherever the structured-output layer does. The run always ends in a
structured `done` carrying the caller's output schema: when the steps run out, progress
stalls, time is up or the model's answers become unusable, one last request offers only
done. Navigation is fenced to the allowed origins, so page text cannot steer it away.

A run is a recorded step (steps.py's protocol, `Run`): a successful run is recorded, its
acts as verified, healable elements (like act's), its extracts and its output with where
the page showed them. Replay follows the steps with no model, reads what they read and the
output again from the page, and never reports a success it did not reach; a replay that
diverges is taken over by the model where the mode allows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from pytest_stagehand.actions.settle import settle
from pytest_stagehand.agent.cua.run import CuaRun
from pytest_stagehand.agent.run import DEFAULT_TIMEOUT_S, RecordedRun, Run
from pytest_stagehand.agent.values import MODES, AgentResult, Mode, Tool
from pytest_stagehand.errors import AgentError
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.page import AIPage
from pytest_stagehand.recordings.steps import RecordedSteps
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.snapshot.outline import origin_of

F = TypeVar("F", bound=Callable[..., Any])

class Agent:
    """Reaches plain-English goals on an AI page; see `execute`.

    `allowed_origins` fence navigation (default: the base URL's origin, else the first
    page's). With `recordings`, successful runs are recorded and replayed as the cache mode
    allows. `mode` is how runs act by default: "dom" (tools over the page's elements) or
    "cua" (the provider's computer-use tool on screenshots, with `cua_client`'s model, else
    the page's).
    """

    def __init__(
        self,
        page: AIPage,
        *,
        tools: Iterable[Callable[[Any], object]] = (),
        allowed_origins: Iterable[str] = (),
        recordings: Recordings | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        mode: Mode = "dom",
        cua_client: ModelClient | None = None,
    ) -> None:
        self.page = page
        self.mode = _checked_mode(mode)
        self.cua_client = cua_client
        self.allowed_origins = tuple(origin_of(origin) for origin in allowed_origins)
        self.recordings = recordings
        self.timeout_s = timeout_s
        self.tools: dict[str, Tool] = {}
        for function in tools:
            self.tool(function)

    def tool(self, function: F) -> F:
        """Let the model call `function(args)`; usable as a decorator. Its docstring (or its
        model's) tells the model what it does; what it returns is the tool's result."""
        tool = Tool.of(function)
        self.tools[tool.name] = tool
        return function

    def execute(
        self,
        instruction: str,
        max_steps: int = 20,
        output: type[BaseModel] | None = None,
        system_prompt: str | None = None,
        *,
        variables: Mapping[str, object] | None = None,
        secret_fields: Mapping[str, Sequence[str]] | None = None,
        timeout_s: float | None = None,
        mode: Mode | None = None,
        allow_safety_checks: bool | Iterable[str] = False,
    ) -> AgentResult:
        """Reach the goal `instruction` in at most `max_steps` steps; `output` is the model
        of the answer wanted. `%name%` stands for `variables[name]`, which no prompt or
        recording ever holds, and which is typed only into a field named like the variable
        (%password% into "Password") or one `secret_fields[name]` names: never into a field
        page text asks for. A run that fails says so in its result; this raises only
        when the agent cannot run: no model (ModelRequired), or no model may be asked and
        the recording is missing (CacheMiss) or no longer replays (HealFailed).

        `mode="cua"` acts through the provider's computer-use tool (cua.py). It also raises
        when the model refuses the goal (ModelRefused) or asks a person to confirm an action
        (SafetyCheckPending), unless `allow_safety_checks` is True or lists those checks'
        codes."""
        if max_steps < 1:
            raise AgentError(f"max_steps must be at least 1, not {max_steps}.")
        mode = self.mode if mode is None else _checked_mode(mode)
        values = {name: str(value) for name, value in (variables or {}).items()}
        steplog = self.page.steplog
        steplog.add_secrets(values)
        # Settled early, as a replayed act is: what the run reads next either settles in
        # full (the model's look) or verifies what it finds (a replay's element).
        with self.page.open_page(f"agent.execute({instruction!r})"):
            settle(self.page.watch, early=True)
        start = len(steplog.events)
        with steplog.step("agent", instruction, self.page.page.url) as event:
            arguments = (
                self.page, self.tools, self.allowed_origins,
                event, instruction, max_steps, output, system_prompt, values,
            )  # fmt: skip
            if mode == "cua":
                run: Run = CuaRun(
                    *arguments,
                    client=self.cua_client or self.page.client,
                    allow_safety_checks=allow_safety_checks,
                )
            else:
                run = Run(*arguments)
            run.fields.update((name, tuple(f)) for name, f in (secret_fields or {}).items())
            with run.fenced():
                result = self._run(run, self.timeout_s if timeout_s is None else timeout_s)
            event.result = f"{result.status}: {result.message}"
            for finished in [*steplog.events[start:], event]:
                for call in finished.calls:
                    result.usage.add(call)
        return result

    def _run(self, run: Run, timeout_s: float) -> AgentResult:
        """The run by the recorded-step protocol (steps.py): the recording followed with no
        model where the mode allows; else, or when it diverges and a model may be asked,
        the loop with the model; a success recorded."""
        client = self.page.client
        steps = RecordedSteps(
            self.page.page, self.recordings, self.page.steplog, has_model=client is not None,
            model=client.config.model if client is not None else None,
        )
        return steps.run(RecordedRun(run, timeout_s), run.event)


def _checked_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise AgentError(f"mode must be one of {', '.join(MODES)}, not {mode!r}.")
    return mode  # type: ignore[return-value]
