"""The run every agent mode shares: the DOM tool loop and its recorded-step protocol.
cua/run.py builds its screen loop on `Run`.

Kept whole: one class, whose tools, fence and replay share the run's state.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Route
from pydantic import BaseModel, ValidationError

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.settle import POLL_MS, SETTLE_CAP_S, navigations_asked, settle
from pytest_stagehand.agent.tools import done_tool, step_schema, tool_line
from pytest_stagehand.agent.values import (
    PAGE_ERRORS,
    AgentResult,
    AgentStep,
    Outcome,
    Status,
    Tool,
    infrastructure,
)
from pytest_stagehand.browser.covering import overlaid
from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.errors import (
    HealFailed,
    ModelError,
    ModelOutputError,
    ModelRequired,
)
from pytest_stagehand.events import Heal, StepEvent
from pytest_stagehand.model.inference import ChoiceProblem, ask_checked
from pytest_stagehand.model.usage import UsageTotals
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.extract import split
from pytest_stagehand.pipelines.grounding import ground, needs_model, unreadable_fields
from pytest_stagehand.pipelines.outline import outline
from pytest_stagehand.pipelines.readback import reread
from pytest_stagehand.pipelines.replay import recorded_action, resolved_action
from pytest_stagehand.prompts import agent as agent_texts
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.prompts.agent import DoneTool
from pytest_stagehand.recordings.format import RecordedAction, RecordedElement, Recording
from pytest_stagehand.recordings.keys import StepKey, normalise_url
from pytest_stagehand.recordings.steps import RecordedStep, Replayed, Stale
from pytest_stagehand.snapshot.outline import origin_of, without_ids

DEFAULT_TIMEOUT_S = 300.0
RECENT_STEPS = 4  # steps shown in full; older ones are summarised in a line each
RESULT_CHARS = 2000  # a tool result longer than this is cut in the history
PAGE_VIEW_TOKENS = 1500  # the page outline shown each step; page_tree shows all of it
STILL_NUDGE, STILL_FIRM, STILL_DONE = 3, 4, 5  # unchanged steps before each escalation
REPEAT_LIMIT = 2  # the same call on the same page state runs at most this often


@dataclass(frozen=True)
class _View:
    """The page as the model sees it: its outline without element ids."""

    url: str
    title: str
    outline: str


@dataclass(frozen=True)
class _Turn:
    """One step as the history shows it."""

    answer: str  # the model's answer, as JSON
    summary: str  # one line, once the step is old
    outcome: Outcome

    def result(self, latest: bool) -> str:
        text = ("ok: " if self.outcome.ok else "error: ") + self.outcome.text[:RESULT_CHARS]
        if self.outcome.tree is not None:
            text += "\n" + self.outcome.tree if latest else " (page tree no longer shown)"
        if self.outcome.image is not None and not latest:
            text += " (screenshot no longer shown)"
        return text


@dataclass
class _Tape:
    """The replayable steps of a run, in the shape they are recorded."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    actions: list[RecordedAction] = field(default_factory=list)

    def add(self, tool: str, actions: Sequence[RecordedAction] = (), **fields: Any) -> None:
        step: dict[str, Any] = {"tool": tool, **fields}
        if actions:
            step["actions"] = list(range(len(self.actions), len(self.actions) + len(actions)))
            self.actions.extend(actions)
        self.steps.append(step)


class _Diverged(Exception):
    """Replay could not follow the recording; the message names the step and why."""


class Run:
    """The state of one `execute`: the loop, its tools, the fence, the tape and replay."""

    def __init__(
        self,
        ai: AIPage,
        tools: Mapping[str, Tool],
        allowed_origins: Sequence[str],
        event: StepEvent,
        goal: str,
        max_steps: int,
        output: type[BaseModel] | None,
        system_prompt: str | None,
        values: dict[str, str],
    ) -> None:
        self.ai = ai
        self.event = event
        self.goal = goal
        self.max_steps = max_steps
        self.output = output
        self.values = values
        # Per variable, the fields its value may be typed into: by default the field
        # named like the variable; `execute(secret_fields=...)` names others.
        self.fields: dict[str, tuple[str, ...]] = {name: (name,) for name in values}
        self.custom = tools
        start = origin_of(ai.base_url or self.page.url)
        self.origins = list(allowed_origins) or ([start] if start else [])
        self.steps: list[AgentStep] = []
        self.actions: list[Action] = []
        self.data: dict[str, str] = {}
        self.tape = _Tape()
        self.turns: list[_Turn] = []
        self.heals: list[tuple[int, RecordedElement, Heal]] = []
        self.blocked: list[str] = []
        self.popups: list[Page] = []  # opened during the current tool
        self.sent_back = False  # a success claim the run did not bear out, sent back once
        self.view: _View | None = None
        self.signature: tuple[str, int, int] | None = None
        self.still = 0  # steps in a row that changed neither the page nor the data
        self.repeats: Counter[tuple[Any, ...]] = Counter()
        done = done_tool(output)
        tools = [*agent_texts.BUILTIN_TOOLS, *(tool.arguments for tool in self.custom.values())]
        self.schema = step_schema([*tools, done])
        self.final_schema = step_schema([done])
        self.tool_lines = [tool_line(model) for model in agent_texts.BUILTIN_TOOLS]
        self.tool_lines += [tool_line(t.arguments, t.description) for t in self.custom.values()]
        self.tool_lines.append(tool_line(done))
        self.instructions = system_prompt

    # --- the loop ------------------------------------------------------------------------

    def live(self, timeout_s: float) -> AgentResult:
        deadline = time.monotonic() + timeout_s
        number = 0
        try:
            while True:
                number += 1
                if time.monotonic() > deadline:
                    return self.cut_short("timeout", f"the time limit ({timeout_s:g} s) was hit")
                self.view = self.look()
                notice, limit = self.pressure(number)
                try:
                    answer = self.ask(number, notice, only_done=limit is not None)
                except (ModelOutputError, ChoiceProblem) as exc:
                    return self.cut_short(None, f"the model's answer could not be used: {exc}")
                if isinstance(answer.call, DoneTool):
                    unearned = self.unearned(answer.call)
                    if unearned is None or self.sent_back or limit is not None:
                        return self.finish(answer.call, limit, self.reason(limit), unearned)
                    self.send_back(number, answer, unearned)
                    continue
                self.run_tool(number, answer)
        except Exception as exc:
            if isinstance(exc, ModelRequired) or not infrastructure(exc, self.page):
                raise
            if isinstance(exc, ModelError):  # the model is down: no final call
                return self.finish(None, "error", str(exc))
            return self.cut_short("error", str(exc))

    def look(self) -> _View:
        settle(self.ai.watch)
        page_snapshot = outline(self.ai.watch)  # with its open tabs, or the dialog that blocks it
        return _View(page_snapshot.url, page_snapshot.title, without_ids(page_snapshot.text))

    def pressure(self, number: int) -> tuple[str | None, Status | None]:
        """The notice for this step, and the limit that leaves only done, if any."""
        assert self.view is not None
        signature = (self.view.url, hash(self.view.outline), len(self.data))
        self.still = self.still + 1 if signature == self.signature else 0
        self.signature = signature
        if number >= self.max_steps:
            return agent_texts.DONE_ONLY.format(why=agent_texts.LAST_STEP), "max_steps"
        if self.still >= STILL_DONE:
            why = agent_texts.STAGNATED.format(steps=self.still)
            return agent_texts.DONE_ONLY.format(why=why), "stagnated"
        if self.still >= STILL_FIRM:
            return agent_texts.STILL_FIRM.format(steps=self.still), None
        if self.still >= STILL_NUDGE:
            return agent_texts.STILL_NUDGE.format(steps=self.still), None
        return None, None

    def reason(self, limit: Status | None) -> str | None:
        if limit == "max_steps":
            return f"the step limit ({self.max_steps}) was reached"
        if limit == "stagnated":
            return f"nothing changed for {self.still} steps"
        return None

    def ask(self, number: int, notice: str | None, *, only_done: bool) -> Any:
        assert self.view is not None
        parts = split(self.view.outline, PAGE_VIEW_TOKENS)
        outline = parts[0] + ("\n" + agent_texts.AGENT_PAGE_CUT if len(parts) > 1 else "")
        state = agent_texts.agent_state(
            number, self.max_steps, list(self.data.items()), self.view.url, self.view.title,
            outline, notice,
        )  # fmt: skip
        older, recent = self.turns[:-RECENT_STEPS], self.turns[-RECENT_STEPS:]
        task = agent_texts.agent_task(self.goal, sorted(self.values), [t.summary for t in older])
        shown = [(t.answer, t.result(t is self.turns[-1])) for t in recent]
        image = recent[-1].outcome.image if recent else None
        system = agent_texts.agent_system(self.tool_lines, self.origins, self.instructions)
        messages = agent_texts.agent_messages(system, task, shown, state, [image] if image else [])
        schema = self.final_schema if only_done else self.schema
        return ask_checked(
            self.ai.client, messages, schema, self.check,
            feedback=prompts.feedback, event=self.event, steplog=self.ai.steplog,
        )

    def check(self, answer: Any) -> Any:
        call = answer.call
        if isinstance(call, DoneTool) and call.success and self.output and call.output is None:
            raise ChoiceProblem(
                f"done with success true needs output, a {self.output.__name__} filled from "
                "the data saved."
            )
        return answer

    def unearned(self, done: Any) -> str | None:
        """Why a success claim does not hold against the run itself, or None."""
        if not done.success:
            return None
        tools = [step for step in self.steps if step.tool != "done"]  # not a refused claim
        if not any(step.ok for step in tools):
            return "nothing was done in this run: no tool call succeeded"
        if not tools[-1].ok:
            return f"the last action failed ({tools[-1].outcome[:RESULT_CHARS // 10]})"
        if self.output is not None and done.output is None:
            return f"the output ({self.output.__name__}) is missing"
        return None

    def send_back(self, number: int, answer: Any, unearned: str) -> None:
        """Refuse a success claim once, as the done call's (failed) result."""
        self.sent_back = True
        outcome = Outcome(agent_texts.SUCCESS_SENT_BACK.format(why=unearned), ok=False)
        arguments = answer.call.model_dump(mode="json", exclude={"tool"})
        self.steps.append(AgentStep(number, "done", arguments, outcome.text, ok=False))
        summary = f"{number}. done success=true → sent back: {unearned}"
        self.turns.append(_Turn(answer.model_dump_json(), summary, outcome))

    def cut_short(self, limit: Status | None, why: str) -> AgentResult:
        """One final request offering only done, so what was gathered is kept."""
        if self.view is None:
            return self.finish(None, limit, why)
        notice = agent_texts.DONE_ONLY.format(why=agent_texts.CUT_SHORT.format(why=why))
        try:
            answer = self.ask(len(self.turns) + 1, notice, only_done=True)
        except (ModelError, ChoiceProblem):
            return self.finish(None, limit, why)
        return self.finish(answer.call, limit, why, self.unearned(answer.call))

    def finish(
        self, done: Any, limit: Status | None, why: str | None, unearned: str | None = None
    ) -> AgentResult:
        """The result; a success claim the run does not bear out (`unearned`) is reported
        as not successful, with the reason."""
        if unearned is not None:
            why = f"the model reported success, but {unearned}"
        completed = bool(done is not None and done.success) and unearned is None
        output = done.output if done is not None else None
        status: Status
        if limit in ("timeout", "error"):
            status = limit
        elif completed:
            status = "completed"
        else:
            status = limit or ("partial" if output is not None else "failed")
        stopped = f"Stopped: {why}." if why and status != "completed" else None
        message = " ".join(filter(None, [stopped, done.reasoning if done else None]))
        return self.result(status, completed, message, output)

    def result(
        self, status: Status, completed: bool, message: str, output: Any, replayed: bool = False
    ) -> AgentResult:
        return AgentResult(
            success=status == "completed",
            completed=completed,
            status=status,
            message=message,
            actions=list(self.actions),
            steps=list(self.steps),
            output=output,
            data=dict(self.data),
            usage=UsageTotals(),
            replayed=replayed,
        )

    # --- tools -------------------------------------------------------------------------

    def run_tool(self, number: int, answer: Any) -> None:
        call = answer.call
        arguments = call.model_dump(mode="json", exclude={"tool"})
        key = (call.tool, json.dumps(arguments, sort_keys=True))
        outcome = self.repeated(key, call.tool) or self.attempt(call)
        summary = f"{number}. {call.tool} {json.dumps(arguments)[:120]} → " + (
            "ok" if outcome.ok else f"error: {outcome.text[:120]}"
        )
        self.steps.append(AgentStep(number, call.tool, arguments, outcome.text, outcome.ok))
        self.turns.append(_Turn(answer.model_dump_json(), summary, outcome))

    def repeated(self, call: tuple[Any, ...], name: str) -> Outcome | None:
        """The refusal of a call done REPEAT_LIMIT times already on this page state."""
        key = (self.signature, *call)
        self.repeats[key] += 1
        if self.repeats[key] <= REPEAT_LIMIT:
            return None
        return Outcome(
            f"Refused: this exact {name} was already done {REPEAT_LIMIT} times on this page "
            "without changing anything. Do something else, or call done.",
            ok=False,
        )

    def attempt(self, call: Any) -> Outcome:
        """Carry out one call; errors of the page become its (failed) outcome."""
        try:
            if call.tool in self.custom:
                outcome = self.custom_tool(self.custom[call.tool], call)
            else:
                outcome = getattr(self, f"tool_{call.tool}")(call)
        except PAGE_ERRORS as exc:
            if infrastructure(exc, self.page):
                raise
            outcome = Outcome(str(exc).strip(), ok=False)
        fenced = self.back_on_origin()
        if fenced:
            return Outcome(f"{outcome.text} {fenced}".strip(), False, outcome.tree, outcome.image)
        return outcome

    def tool_act(self, call: agent_texts.ActTool) -> Outcome:
        # The agent's model decides what to do when a step finds nothing (it may take a
        # screenshot): its acts, observes and extracts do not fall back to vision.
        result = self.ai.act(
            call.instruction, variables=self.values, secret_fields=self.fields, vision=False
        )
        self.performed("act", result.actions, instruction=call.instruction)
        return Outcome(f"Done: {result.message}.")

    def tool_fill_form(self, call: agent_texts.FillFormTool) -> Outcome:
        fields = [(f.field, f.value) for f in call.fields]
        found = self.ai.observe(agent_texts.fill_form_instruction(fields), vision=False)
        if not found:
            return Outcome("No form fields matching these were found.", ok=False)
        for action in found:
            self.ai.act(action, variables=self.values, secret_fields=self.fields)
        self.performed("fill_form", found, fields=[name for name, _ in fields])
        return Outcome("Filled: " + "; ".join(f"{a.description} ({a.method})" for a in found))

    def tool_extract(self, call: agent_texts.ExtractTool) -> Outcome:
        value = self.ai.extract(call.instruction, vision=False)
        self.data[call.instruction] = value
        # Where the page shows it: a replay reads it from there again (readback.py).
        reads = ground(self.page, value)
        needs_model(reads, f"The agent's extract {call.instruction!r}", self.ai.steplog.mask)
        self.tape.add("extract", instruction=call.instruction, value=value, reads=reads)
        return Outcome(f"Saved: {value}")

    def tool_observe(self, call: agent_texts.ObserveTool) -> Outcome:
        found = self.ai.observe(call.instruction, vision=False)
        lines = [f"- {a.description}: {a.method} {list(a.arguments) or ''}" for a in found]
        return Outcome("\n".join(["Found:", *lines]) if lines else "Nothing matches.")

    def tool_goto(self, call: agent_texts.GotoTool) -> Outcome:
        url = urljoin(self.base, call.url)
        if not origin_of(url) or self.outside(url):
            return Outcome(
                f"Refused: navigation to {url} is outside the allowed origins "
                f"({', '.join(self.origins)}).",
                ok=False,
            )
        self.origins = self.origins or [origin_of(url)]  # the first page's origin
        same_origin = origin_of(url) == origin_of(self.page.url)
        self.ai.goto(url)
        # Recorded relative to the page, so it replays on another host (staging, production).
        self.tape.add("goto", url=normalise_url(url) if same_origin else url)
        return Outcome(f"Opened {self.page.url}.")

    def tool_scroll(self, call: agent_texts.ScrollTool) -> Outcome:
        pixels = call.amount if call.direction == "down" else -call.amount
        action = Action("scroll", (str(pixels),), f"scroll {call.direction} {call.amount} px")
        self.ai.act(action)
        self.performed("scroll", [action])
        return Outcome(f"Scrolled {call.direction} {call.amount} px.")

    def tool_wait(self, call: agent_texts.WaitTool) -> Outcome:
        self.page.wait_for_timeout(call.seconds * 1000)
        settle(self.ai.watch)
        self.tape.add("wait", seconds=call.seconds)
        return Outcome(f"Waited {call.seconds:g} s.")

    def tool_back(self, call: agent_texts.BackTool) -> Outcome:
        before = self.page.url
        self.page.go_back()
        settle(self.ai.watch)
        if self.page.url == before:
            return Outcome("There is no previous page.", ok=False)
        self.tape.add("back")
        return Outcome(f"Back on {self.page.url}.")

    def tool_switch_tab(self, call: agent_texts.SwitchTabTool) -> Outcome:
        self.ai.switch_to(call.tab)
        self.tape.add("switch_tab", tab=call.tab)
        return Outcome(f"Now on the tab {self.page.title()!r} ({self.page.url}).")

    def tool_refresh(self, call: agent_texts.RefreshTool) -> Outcome:
        self.page.reload()
        settle(self.ai.watch)
        self.tape.add("refresh")
        return Outcome("Reloaded the page.")

    def tool_screenshot(self, call: agent_texts.ScreenshotTool) -> Outcome:
        if self.ai.watch.blocked:  # the call would wait until the dialog expired, dismissing it
            return Outcome("A browser dialog blocks the page: answer it first.", ok=False)
        with overlaid(self.page, self.ai.steplog.secrets):
            image = self.page.screenshot()
        return Outcome("The screenshot is attached.", image=image)

    def tool_page_tree(self, call: agent_texts.PageTreeTool) -> Outcome:
        assert self.view is not None
        return Outcome("The whole page:", tree=self.view.outline)

    def custom_tool(self, tool: Tool, call: BaseModel) -> Outcome:
        arguments = call.model_dump(mode="json", exclude={"tool"})
        try:
            returned = tool.function(call)
        except Exception as exc:  # the tool's own way of saying no: the model may adapt
            return Outcome(f"{type(exc).__name__}: {exc}", ok=False)
        self.tape.add(tool.name, arguments=arguments)
        if isinstance(returned, BaseModel):
            return Outcome(returned.model_dump_json())
        return Outcome("Done." if returned is None else str(returned))

    def performed(self, tool: str, actions: Sequence[Action], **fields: Any) -> None:
        self.actions.extend(actions)
        recorded = [recorded_action(action, self.ai.steplog) for action in actions]
        self.tape.add(tool, recorded, **fields)

    @property
    def page(self) -> Page:
        """The page the run acts on: it follows the tabs the steps open or switch to."""
        return self.ai.page

    @property
    def base(self) -> str:
        """What a relative URL is relative to: the page, else the base URL."""
        return self.page.url if origin_of(self.page.url) else self.ai.base_url or ""

    # --- the fence ---------------------------------------------------------------------

    def outside(self, url: str) -> bool:
        """Is `url` on a web origin that is not allowed? (Before the first page, none is.)"""
        origin = origin_of(url)
        return bool(self.origins) and bool(origin) and origin not in self.origins

    @contextmanager
    def fenced(self) -> Iterator[None]:
        """While the run lasts, block every navigation the browser makes for the test to an
        origin that is not allowed: the page's, its frames' (a link inside an iframe), new
        pages' (target=_blank, window.open) and downloads. A new page that ends up outside
        is closed. Guarded on the page (ahead of the test's own page routes) and on the
        context (new pages have only the context's)."""

        def guard(route: Route, request: Request) -> None:
            if self.outside(request.url) and request.is_navigation_request():
                if request.url not in self.blocked:
                    self.blocked.append(request.url)
                if _opens_a_page(request):  # shown, so that the new page opens and is closed
                    route.fulfill(content_type="text/html", body=BLOCKED_PAGE)
                else:
                    route.fulfill(status=204)  # No Content: the browser stays where it was
            else:
                route.fallback()

        def popup(new: Page) -> None:
            self.popups.append(new)

        page = self.page  # the fence's own page, whatever tab the run ends on
        context = page.context
        navigations_asked(self.ai.watch)  # asked before the run: not the fence's to wait for
        page.route("**/*", guard)
        context.route("**/*", guard)
        context.on("page", popup)
        try:
            yield
        finally:
            context.remove_listener("page", popup)
            with suppress(PlaywrightError):  # the browser may be gone: nothing to unguard
                context.unroute("**/*", guard)
                if not page.is_closed():
                    page.unroute("**/*", guard)

    def back_on_origin(self) -> str:
        """What the fence did during the last tool: blocked navigation, a new page that got
        off the allowed origins (closed), or a page that did (a redirect) and was taken
        back. Settles first: an act returns before a navigation its click starts has
        reached the guard, and a link in a frame starts its navigation a moment after the
        click returns: the settle watches for that moment too. Its request may reach the
        guard later still (a loaded machine): each navigation the page's documents were
        asked for that goes outside is waited for until the guard has blocked it."""
        settle(self.ai.watch, after_action=True)
        self.wait_for_guard(navigations_asked(self.ai.watch))
        notes = []
        for new in self.popups:
            blank = new.url in ("", "about:blank") and bool(self.blocked)  # blocked opening
            if not new.is_closed() and (self.outside(new.url) or blank):
                with suppress(PlaywrightError):
                    new.close()
                notes.append("A new page (a link with target=_blank or a popup) was closed.")
        self.popups.clear()
        self.ai.back_on_an_open_page()  # the step may have followed a page closed here
        if self.blocked:
            notes.append(
                f"Navigation to {', '.join(self.blocked)} was blocked: outside the allowed "
                f"origins ({', '.join(self.origins)})."
            )
            self.blocked.clear()
        if self.outside(self.page.url):
            left = self.page.url
            self.page.go_back()
            settle(self.ai.watch)
            notes.append(f"The page went to {left}, outside the allowed origins: went back.")
        return " ".join(notes)

    def wait_for_guard(self, asked: Sequence[str]) -> None:
        """Wait, for at most SETTLE_CAP_S, until the guard has blocked each navigation in
        `asked` that goes outside: it blocks every one that reaches it, but a frame's may
        reach it after the step has settled."""
        outside = {urldefrag(url).url for url in asked if self.outside(url)}
        deadline = time.monotonic() + SETTLE_CAP_S
        while outside - set(self.blocked) and time.monotonic() < deadline:
            if self.ai.watch.blocked:  # a held dialog (beforeunload) holds the navigation
                return
            try:
                self.page.wait_for_timeout(POLL_MS)  # lets the request reach the guard
            except PlaywrightError:  # the page closed
                return

    # --- recording and replay ----------------------------------------------------------

    def recording(self, key: StepKey, output: Any) -> Recording:
        """The run as a recording: the tape, the output and where the final page shows it."""
        shown = output.model_dump(mode="json") if isinstance(output, BaseModel) else output
        reads = ground(self.page, shown)
        needs_model(reads, "The agent's output", self.ai.steplog.mask)
        data = {
            "steps": self.tape.steps,
            "output": shown,
            "output_reads": reads,
            "end_url": normalise_url(self.page.url),
        }
        return Recording.of(key, self.tape.actions, data=data)

    def follow(self, recording: Recording) -> AgentResult:
        """Follow the recording with no model; raise _Diverged at the first step that does
        not hold, or when what was read is no longer on the page."""
        steps = recording.data.get("steps", [])
        for number, step in enumerate(steps, 1):
            name = f"step {number} of {len(steps)} ({_describe(step)})"
            try:
                outcome = self.replay_step(recording, step)
            except (*PAGE_ERRORS, ValidationError, KeyError) as exc:
                if infrastructure(exc, self.page):
                    raise
                raise _Diverged(f"{name}: {str(exc).strip()}") from None
            if outcome:
                raise _Diverged(f"{name}: {outcome}")
            self.steps.append(AgentStep(number, step["tool"], _arguments(step), "replayed"))
        if not self.reaches(recording.data.get("end_url")):
            raise _Diverged(
                f"the recorded run ended on {recording.data.get('end_url')}, the replay on "
                f"{normalise_url(self.page.url)}"
            )
        # The output is read again from the final page, never taken from the recording.
        reads = recording.data.get("output_reads")
        if reads is None:
            raise _Diverged("it was recorded before agent outputs were read again from the page")
        shown = _read_again(self.ai.watch, reads, recording.data.get("output"), "the output")
        try:
            output = shown if self.output is None else self.output.model_validate(shown)
        except ValidationError as exc:
            raise _Diverged(f"the recorded output does not fit the output model: {exc}") from None
        message = f"Replayed {len(steps)} recorded steps with no model; what they read still holds."
        return self.result("completed", True, message, output, replayed=True)

    def reaches(self, end_url: str | None) -> bool:
        """Whether the page comes to the URL the recorded run ended on, within the step's
        wait timeout: the last step (an Enter that submits a form) may start a navigation
        after it returns, so the URL is waited for (at least a settle's cap), never read at
        once."""
        if normalise_url(self.page.url) == end_url:
            return True
        try:
            self.page.wait_for_url(
                lambda url: normalise_url(url) == end_url,
                timeout=max(self.ai.wait_timeout, SETTLE_CAP_S * 1000),  # 0 is no limit
            )
        except PlaywrightError:
            return False
        return True

    def replay_step(self, recording: Recording, step: dict[str, Any]) -> str | None:
        """Run one recorded step; return why it does not hold, or None."""
        tool = step["tool"]
        if "actions" in step:
            performed = []
            for index in step["actions"]:
                recorded = recording.actions[index]
                action, element, heal = self.ai.waiting().until(  # the last step's page may
                    lambda recorded=recorded: resolved_action(  # still be on its way
                        self.page, recorded, self.values,
                        instruction=step.get("instruction", ""), mask=self.ai.steplog.mask,
                    )
                )
                if heal is not None:
                    self.heals.append((index, element, heal))
                self.ai.act(action, variables=self.values)
                performed.append(recorded.model_copy(update={"element": element}))
                self.actions.append(action)
            fields = {k: v for k, v in step.items() if k not in ("tool", "actions")}
            self.tape.add(tool, performed, **fields)
            return None
        diverged = self.replay_tool(step)
        if diverged is None:
            self.tape.add(**step)
        return diverged

    def replay_tool(self, step: dict[str, Any]) -> str | None:
        """Run a recorded step that acts on no element; return why it does not hold, or
        None. A mode's own tools are its subclass's to add."""
        tool = step["tool"]
        if tool == "extract":
            try:
                self.data[step["instruction"]] = _read_again(
                    self.ai.watch, step["reads"], step["value"], "what it read"
                )
            except _Diverged as exc:
                return str(exc)
        elif tool == "goto":
            self.ai.goto(urljoin(self.base, step["url"]))
        elif tool == "back":
            self.page.go_back()
            settle(self.ai.watch)
        elif tool == "refresh":
            self.page.reload()
            settle(self.ai.watch)
        elif tool == "switch_tab":
            self.ai.switch_to(step["tab"])
        elif tool == "wait":
            self.page.wait_for_timeout(float(step["seconds"]) * 1000)
        elif tool in self.custom:
            custom = self.custom[tool]
            custom.function(custom.arguments.model_validate({**step["arguments"], "tool": tool}))
        else:
            return f"no tool {tool!r} is registered"
        return None

@dataclass
class RecordedRun(RecordedStep[AgentResult]):
    """A run as a recorded step (steps.py): replayed by following its recording with no
    model, the model's run when it diverges, a success recorded."""

    kind = "agent"
    scope = None
    run: Run
    timeout_s: float

    @property
    def instruction(self) -> str:  # type: ignore[override]
        return self.run.goal

    @property
    def variables(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(self.run.values)  # the names only

    def replay(self, recording: Recording) -> Replayed[AgentResult]:
        try:
            result = self.run.follow(recording)
        except _Diverged as exc:
            failure = HealFailed(
                f"Replay of {recording.key.describe()} diverged, and no model may be asked to "
                f"take over: {exc}\nIf the app changed on purpose, re-record with a model: "
                "--ai-cache=refresh."
            )
            raise Stale(str(exc), failure) from None
        if not self.run.heals:
            return Replayed(result)
        healed = recording
        for index, element, heal in self.run.heals:
            healed = healed.healed(index, element, heal)
        return Replayed(result, healed, self.run.heals[-1][2])

    def ask(self, stale: Stale | None) -> AgentResult:
        with self.run.ai.unrecorded():  # this run's recording covers its steps
            result = self.run.live(self.timeout_s)
        if stale is not None:
            result.message = f"Replay diverged ({stale.problem}); the model took over. " + (
                result.message
            )
        return result

    def record(self, key: StepKey, value: AgentResult) -> Recording | None:
        return self.run.recording(key, value.output) if value.success else None

    def model_heal(self, stale: Stale, fresh: Recording) -> Heal:
        return Heal("model", stale.problem, "re-recorded from the model's run")


# --- helpers -----------------------------------------------------------------------------


# What a new page (target=_blank, window.open) shows when its first navigation is blocked:
# with No Content it would never finish opening, and the step would wait for it in vain.
BLOCKED_PAGE = "<!doctype html><title>Blocked</title><p>Outside the allowed origins.</p>"


def _opens_a_page(request: Request) -> bool:
    """Is this the first navigation of a page that is still opening (it has no frame yet)?"""
    try:
        request.frame  # noqa: B018 (raises for a page that is not yet there)
    except PlaywrightError:
        return True
    return False


def _arguments(step: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k not in ("tool", "actions", "reads")}


def _read_again(watch: PageWatch, reads: dict[str, Any], recorded: Any, what: str) -> Any:
    """`recorded` as the page shows it once settled, as the run's model read it
    (readback.py); _Diverged when it cannot be read again or reads otherwise."""
    unreadable = [f"{name} ({why})" for name, why in unreadable_fields(reads)]
    if unreadable:
        raise _Diverged(f"{what} cannot be read again from the page: {'; '.join(unreadable)}")
    settle(watch)
    reading = reread(watch.page, reads, recorded)
    if reading.broken:
        raise _Diverged(f"{what} is no longer on the page: {'; '.join(reading.broken)}")
    changes = reading.changes(recorded)
    if changes:
        raise _Diverged(f"the page shows other values for {what} now: {'; '.join(changes)}")
    return reading.value


def _describe(step: dict[str, Any]) -> str:
    detail = step.get("instruction") or step.get("url") or step.get("fields") or ""
    return f"{step['tool']} {detail}".strip()


