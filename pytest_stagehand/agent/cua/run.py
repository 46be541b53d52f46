"""cua: the agent on the providers' own computer-use tools (Anthropic, OpenAI, Google).

`agent.execute(..., mode="cua")` runs this loop instead of the DOM agent's: the model sees
screenshots and answers with mouse and keyboard actions in screenshot pixels, which are
mapped to the viewport (device scale factor, a screenshot scaled down) and done with
Playwright's mouse and keyboard. The rest is the DOM agent's (agent.py): the same step
budget, stagnation and time limits, the fence around the allowed origins, an event per
action for reports and evidence, and a run that ends in the same structured `done` with
the output schema (a function tool beside the computer tool).

An action at a point is recorded as an action on the element under it, so a replay
verifies and heals it like any recorded element; only where no control is there (a
canvas) is it recorded as coordinates, replayed only while the same element is still
under them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from pytest_stagehand.actions.action import VARIABLE, Action, substitute
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.agent.cua.actions import ScreenAction
from pytest_stagehand.agent.cua.screen import Screen, Spot, element_action, spot_at
from pytest_stagehand.agent.cua.sessions import (
    Answer,
    AnthropicSession,
    Call,
    CallResult,
    GeminiSession,
    OpenAISession,
    Session,
)
from pytest_stagehand.agent.run import Run
from pytest_stagehand.agent.tools import done_tool
from pytest_stagehand.agent.values import (
    PAGE_ERRORS,
    AgentResult,
    AgentStep,
    Outcome,
    Status,
    infrastructure,
)
from pytest_stagehand.errors import (
    AgentError,
    HealFailed,
    ModelError,
    ModelRefused,
    ModelRequired,
    SafetyCheckPending,
)
from pytest_stagehand.events import Exchange
from pytest_stagehand.model.client import ModelClient
from pytest_stagehand.model.inference import NO_MODEL
from pytest_stagehand.pipelines.act import field_refusal
from pytest_stagehand.prompts import agent as agent_texts
from pytest_stagehand.prompts import cua as cua_texts

MAX_WAIT_S = 10.0  # the longest wait a model may ask for


SESSIONS: dict[str, type[Session]] = {
    "anthropic": AnthropicSession, "openai": OpenAISession, "google": GeminiSession,
}  # fmt: skip


class CuaRun(Run):
    """One `execute` in mode "cua": the DOM run's limits, fence, recording and replay, with
    the provider's computer-use loop in place of the tool loop."""

    def __init__(
        self, *args: Any, client: ModelClient | None,
        allow_safety_checks: bool | Iterable[str] = False, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.client = client
        self.allow = (
            allow_safety_checks
            if isinstance(allow_safety_checks, bool)
            else frozenset(allow_safety_checks)
        )
        self.done_model = done_tool(self.output)
        schema = self.done_model.model_json_schema()
        schema["properties"].pop("tool", None)
        schema["required"] = [name for name in schema.get("required", []) if name != "tool"]
        self.done_schema = schema
        self.screen: Screen | None = None
        self.stopped_talking = False  # the model answered with no call once

    # --- the loop ------------------------------------------------------------------------

    def live(self, timeout_s: float) -> AgentResult:
        if self.client is None:
            raise ModelRequired(
                f"agent.execute({self.goal!r}, mode='cua') needs a computer-use model, but "
                f"{NO_MODEL}"
            )
        provider = self.client.config.provider
        if provider not in SESSIONS:
            raise AgentError(f"mode='cua' has no computer-use tool for the provider {provider}.")
        deadline = time.monotonic() + timeout_s
        self.screen = Screen.of(self.page)
        system = cua_texts.cua_system(self.origins, self.instructions)
        session = SESSIONS[provider](
            self.client, self.screen, self.ai.steplog.mask(system), self.done_schema
        )
        task = agent_texts.agent_task(self.goal, sorted(self.values), [])
        results: list[CallResult] = []
        number = 0
        try:
            while True:
                number += 1
                self.view = self.look()
                notice, limit = self.pressure(number)
                why = self.reason(limit)
                if time.monotonic() > deadline:
                    limit, why = "timeout", f"the time limit ({timeout_s:g} s) was hit"
                    notice = agent_texts.DONE_ONLY.format(why=agent_texts.CUT_SHORT.format(why=why))
                elif self.stopped_talking and limit is None:
                    notice, why = cua_texts.CUA_CALL_DONE, "the model stopped without calling done"
                final = limit is not None or self.stopped_talking
                step = cua_texts.CUA_STEP.format(step=number, max_steps=self.max_steps)
                secrets = self.ai.steplog.secrets
                image = b"" if session.started else self.screen.shot(self.page, secrets)
                answer = self.ask(session, task, image, results, f"{step} {notice or ''}", final)
                results = []
                if answer.refusal is not None:
                    raise ModelRefused(
                        f"{self.client.config.model} refused the goal {self.goal!r}: "
                        f"{answer.refusal} Nothing was done after it. Reword the goal, or "
                        "check that the test asks for what the provider's policy allows."
                    )
                if final and not any(call.done is not None for call in answer.calls):
                    return self.finish(None, limit, why or "no done call came")
                self.stopped_talking = not answer.calls
                for call in answer.calls:
                    if call.done is None:
                        results.append(self.on_actions(number, call))
                        continue
                    ended = self.on_done(number, call, limit, why, final)
                    if isinstance(ended, AgentResult):
                        return ended
                    results.append(ended)
        except Exception as exc:
            if isinstance(exc, ModelRequired | ModelRefused) or not infrastructure(exc, self.page):
                raise
            return self.finish(None, "error", str(exc))

    def ask(
        self, session: Session, task: str, image: bytes, results: Sequence[CallResult],
        notice: str | None, only_done: bool,
    ) -> Answer:  # fmt: skip
        """One turn, its usage and exchange on the run's event; every text masked."""
        mask = self.ai.steplog.mask
        masked = [replace(r, text=mask(r.text)) for r in results]
        try:
            answer, calls = session.ask(
                mask(task), image, masked, mask(notice or "") or None, only_done
            )
        except ModelError as exc:
            self.event.calls.extend(exc.calls)
            raise
        self.event.calls.extend(calls)
        sent = "\n".join(filter(None, [task if image else "", *(r.text for r in masked), notice]))
        shown = json.dumps([_call_shown(c) for c in answer.calls]) if answer.calls else answer.text
        self.event.exchanges.append(Exchange("agent", mask(sent), mask(shown)))
        return answer

    def on_done(
        self, number: int, call: Call, limit: Status | None, why: str | None, final: bool
    ) -> AgentResult | CallResult:
        """Finish on a usable done; else tell the model why not (once for a claim of success
        the run does not bear out, as the DOM agent does)."""
        done, problem = None, call.problem
        if problem is None:
            try:
                done = self.done_model.model_validate({**(call.done or {}), "tool": "done"})
            except ValidationError as exc:
                problem = f"done's arguments do not fit: {_errors(exc)}"
        if done is not None and done.success and self.output is not None and done.output is None:
            problem = f"done with success true needs output, a {self.output.__name__}"
        if problem is not None:
            if final:
                return self.finish(None, limit, why or problem)
            self.steps.append(AgentStep(number, "done", dict(call.done or {}), problem, ok=False))
            return CallResult(call, f"Not accepted: {problem}.", ok=False)
        unearned = self.unearned(done)
        if unearned is None or self.sent_back or final:
            return self.finish(done, limit, why, unearned)
        self.sent_back = True
        text = agent_texts.SUCCESS_SENT_BACK.format(why=unearned)
        self.steps.append(AgentStep(number, "done", dict(call.done or {}), text, ok=False))
        return CallResult(call, text, ok=False)

    def on_actions(self, number: int, call: Call) -> CallResult:
        """Do a computer call's actions, or say why not; a screenshot of the result."""
        assert self.screen is not None
        acknowledged = self.checked(call)
        outcome = Outcome(call.problem or "", ok=call.problem is None)
        shown = {"problem": call.problem} if call.problem else {}
        for action in call.actions if outcome.ok else ():
            shown = {"action": action.describe()}
            outcome = self.repeated((action,), action.kind) or self.attempt_action(action)
            if not outcome.ok:
                break
        fenced = self.back_on_origin()
        if fenced:
            outcome = Outcome(f"{outcome.text} {fenced}".strip(), False)
        self.steps.append(
            AgentStep(number, call.actions[0].kind if call.actions else "computer", shown,
                      outcome.text, outcome.ok)
        )  # fmt: skip
        image = self.screen.shot(self.page, self.ai.steplog.secrets)
        return CallResult(call, outcome.text, outcome.ok, image, acknowledged, self.page.url)

    def checked(self, call: Call) -> tuple[dict[str, Any], ...]:
        """The call's pending safety checks, if the test allows them all; else raise."""
        if not call.safety_checks:
            return ()
        codes = {str(check.get("code")) for check in call.safety_checks}
        if self.allow is True or (self.allow and codes <= self.allow):
            return call.safety_checks
        listed = "; ".join(
            f"{check.get('code')}: {check.get('message')}" for check in call.safety_checks
        )
        planned = ", ".join(a.describe() for a in call.actions) or "its next action"
        raise SafetyCheckPending(
            f"The computer-use model asks a person to confirm before {planned} on "
            f"{self.page.url} ({listed}). Nothing was done. If the test means this, pass "
            f"agent.execute(..., allow_safety_checks={sorted(codes)!r}) (or True for any)."
        )

    def attempt_action(self, action: ScreenAction) -> Outcome:
        """Do one action, as an event of its own (reports, evidence); page errors become its
        (failed) outcome."""
        assert self.screen is not None
        with self.ai.steplog.step("act", action.describe(), self.page.url) as event:
            try:
                outcome = self.do(action)
            except PAGE_ERRORS as exc:
                if infrastructure(exc, self.page):
                    raise
                outcome = Outcome(str(exc).strip(), ok=False)
            event.method, event.result = action.kind, outcome.text
            event.ok = outcome.ok
        return outcome

    def do(self, action: ScreenAction) -> Outcome:
        assert self.screen is not None
        mouse, keyboard = self.page.mouse, self.page.keyboard
        kind = action.kind
        if kind == "screenshot":
            return Outcome("Here is the screen.")
        if kind == "wait":
            seconds = min(action.seconds, MAX_WAIT_S)
            self.page.wait_for_timeout(seconds * 1000)
            settle(self.ai.watch)
            self.tape.add("wait", seconds=seconds)
            return Outcome(f"Waited {seconds:g} s.")
        if kind == "key":
            pressed = Action("press", (action.text,), f"press {action.text}")
            keyboard.press(action.text)
            self.done_with(pressed)
            return Outcome(f"Pressed {action.text}.")
        if kind == "type":
            return self.typed(action.text)
        if kind == "navigate":
            return self.tool_goto(agent_texts.GotoTool(tool="goto", url=action.text))
        if kind == "back":
            return self.tool_back(agent_texts.BackTool(tool="back"))
        assert action.point is not None
        x, y = self.screen.to_page(*action.point)
        if not (0 <= x < self.screen.width and 0 <= y < self.screen.height):
            return Outcome(f"{action.describe()} is off the screen.", ok=False)
        spot = spot_at(self.page, x, y)
        methods = {"click": "click", "double_click": "double_click", "move": "hover"}
        element = spot.ref is not None and kind in methods
        if kind == "drag":
            assert action.end is not None
            ex, ey = self.screen.to_page(*action.end)
            end = spot_at(self.page, ex, ey)
            mouse.move(x, y)
            mouse.down()
            mouse.move(ex, ey, steps=8)
            mouse.up()
            self.coordinates("drag", spot, x, y, to=[ex, ey], end=end.at)
        elif kind == "scroll":
            mouse.move(x, y)
            mouse.wheel(*action.scroll)
            self.coordinates("scroll", spot, x, y, by=list(action.scroll))
        else:
            performed = (
                element_action(self.page, spot, methods[kind], (), methods[kind].replace("_", " "))
                if element
                else None
            )
            if kind == "click":
                mouse.click(x, y)
            elif kind == "double_click":
                mouse.dblclick(x, y)
            elif kind == "right_click":
                mouse.click(x, y, button="right")
            else:
                mouse.move(x, y)
            if performed is not None:
                self.done_with(performed)
            else:
                self.coordinates(kind, spot, x, y)
        settle(self.ai.watch, after_action=True)
        on = f" on {spot.ref.role} {spot.ref.name!r}" if spot.ref is not None else f" on {spot.at}"
        return Outcome(f"Did {action.describe()}{on}.")

    def typed(self, text: str) -> Outcome:
        """Type into the focused field; a variable's value only into a field for it."""
        values = substitute(text, self.values)
        spot = spot_at(self.page, focused=True)
        if spot.ref is None:
            if VARIABLE.search(text):
                return Outcome("No field has the focus: click the field first.", ok=False)
            self.page.keyboard.type(values)
            self.tape.add("screen", method="type", text=text, at=spot.at)
            return Outcome(f"Typed {text!r}.")
        action = element_action(self.page, spot, "type", (text,), "type into")
        refusal = field_refusal(action, self.fields)
        if refusal:
            return Outcome(f"Refused: {refusal}", ok=False)
        self.page.keyboard.type(values)
        self.done_with(action)
        settle(self.ai.watch, after_action=True)
        return Outcome(f"Typed {text!r} into {action.element}.")

    def done_with(self, action: Action) -> None:
        """Record an action on an element (or a key press) as the DOM agent records acts."""
        self.performed(action.method, [action])

    def coordinates(self, method: str, spot: Spot, x: float, y: float, **more: Any) -> None:
        """Record an action where no control is: the point, and what a replay must find
        there."""
        self.tape.add("screen", method=method, x=round(x, 1), y=round(y, 1), at=spot.at, **more)

    # --- replay --------------------------------------------------------------------------

    def replay_tool(self, step: dict[str, Any]) -> str | None:
        if step["tool"] != "screen":
            return super().replay_tool(step)
        mouse = self.page.mouse
        method, x, y = step["method"], step.get("x", 0.0), step.get("y", 0.0)
        if method == "type":
            self.page.keyboard.type(substitute(step["text"], self.values))
        else:

            def recorded_spot() -> None:
                now = spot_at(self.page, x, y).at
                if now != step["at"]:
                    there = f"there is {now or 'nothing'} now, not {step['at']}"
                    raise HealFailed(f"at ({x:g}, {y:g}) {there}")

            try:  # the last step's page may still be on its way
                self.ai.waiting().until(recorded_spot)
            except HealFailed as exc:
                return str(exc)
            if method == "drag":
                mouse.move(x, y)
                mouse.down()
                mouse.move(*step["to"], steps=8)
                mouse.up()
            elif method == "scroll":
                mouse.move(x, y)
                mouse.wheel(*step["by"])
            elif method == "right_click":
                mouse.click(x, y, button="right")
            elif method == "double_click":
                mouse.dblclick(x, y)
            elif method == "click":
                mouse.click(x, y)
            else:
                mouse.move(x, y)
        settle(self.ai.watch, after_action=True)
        return None


def _errors(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)[:5]
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors
    )


def _call_shown(call: Call) -> dict[str, Any]:
    if call.done is not None:
        return {"done": call.done}
    if call.problem:
        return {"problem": call.problem}
    return {"actions": [a.describe() for a in call.actions]}
