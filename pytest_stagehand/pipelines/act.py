"""act: one plain-English instruction, carried out on the page.

Data flows one way: snapshot → prompt → model → validated choice → Playwright. The
`Resolver` is the seam where the cache plugs in: `ModelResolver` asks the model and
performs; a caching resolver wraps it (look up, verify, replay; else call the inner
resolver and record what it returns). `act` itself only opens the step, settles the
page before reading it, waits for what the action started (not for the page's later
reactions, as in Playwright: the next step settles the page it reads) and reports.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from playwright.sync_api import Page

from pytest_stagehand.actions.action import VARIABLE, Action, ActResult, action_for, element_id
from pytest_stagehand.actions.perform import NotPerformed, perform
from pytest_stagehand.actions.settle import StepSettle, finish_started, settle
from pytest_stagehand.browser.watch import PageWatch, ReadsPage
from pytest_stagehand.errors import (
    ActionFailed,
    ElementNotFound,
    InvalidArgument,
    InvalidModelChoice,
)
from pytest_stagehand.events import Heal, StepEvent, StepLog
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.heal.resolve import resolve
from pytest_stagehand.model.client import Message, ModelClient
from pytest_stagehand.model.inference import ChoiceProblem, ask_checked
from pytest_stagehand.pipelines import vision
from pytest_stagehand.pipelines.outline import outline
from pytest_stagehand.pipelines.vision import Look, VisionMode
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.prompts.chunks import LINE, parts_for
from pytest_stagehand.prompts.parts import NOT_FOUND_ACT, part_note
from pytest_stagehand.prompts.texts import ActChoice
from pytest_stagehand.prompts.vision import VisionActChoice, with_screenshot
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.settings import DEFAULT_BUDGET
from pytest_stagehand.snapshot.element import ElementRef, describe
from pytest_stagehand.snapshot.outline import Snapshot, snapshot


@dataclass(frozen=True)
class ActRequest:
    """One act step: the instruction (with %name% placeholders) and the variable values.

    Values are for the page only: resolvers may use `variable_names`, never record values.
    """

    instruction: str
    values: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float | None = None  # ms per Playwright action; None: the page's default
    # Per variable, the fields its value may be typed into (see `field_refusal`); None
    # when the test author's own instruction names the field (ai_page.act).
    fields: Mapping[str, Sequence[str]] | None = None
    # The element a recording of this step acted on, described for the model when the
    # recording no longer finds it: the model looks for "the same thing", renamed or moved.
    recorded: str = ""
    # When the model is shown a marked screenshot (vision.py): "fallback" when the text
    # gives it nothing that fits or the view is mostly canvas/SVG, "always", or "off".
    vision: VisionMode = "fallback"
    # The step's settle, made as it first reads the page (`StepSettle`): its mark is where
    # waiting for the page's next change starts, read in the same round trip.
    settled: StepSettle | None = field(default=None, repr=False)

    @property
    def variable_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.values))


class Resolver(Protocol):
    """Carries out an act request and returns the actions performed, replayable.

    Sets `event.cache` to say how the actions were found ("off" for the model alone).
    """

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]: ...


class ModelResolver(ReadsPage):
    """Resolves an instruction with the model: one element, one method, then performs it.

    A choice the element cannot take gets one retry with feedback; a choice Playwright
    cannot perform gets one fresh snapshot and one more question (the self-heal).
    """

    def __init__(
        self,
        page: Page | PageWatch,
        client: ModelClient | None,
        steplog: StepLog,
        prompt_budget: int = DEFAULT_BUDGET,
    ) -> None:
        self._reads(page)
        self.client = client
        self.steplog = steplog
        self.prompt_budget = prompt_budget  # tokens; a larger page goes in parts (chunks.py)

    def act(self, request: ActRequest, event: StepEvent) -> list[Action]:
        event.cache = "off"
        if request.settled is not None:
            request.settled.in_full()  # the model reads the page: settled in full first
        try:
            return self._attempt(request, event)
        except NotPerformed as first:  # a cover is ElementCovered: no heal helps
            settle(self.watch)
            failure = f"{first.action.description} could not take {first.action.method}: "
            try:
                return self._attempt(request, event, failure + first.reason)
            except NotPerformed as second:
                raise ActionFailed(
                    f"Could not {request.instruction!r} on {self.page.url}: "
                    f"{second.action.method} on {second.action.description} failed after a "
                    f"fresh look at the page ({self.steplog.mask(second.reason)}). The first "
                    f"attempt failed too ({self.steplog.mask(first.reason)})."
                ) from None

    def _attempt(
        self, request: ActRequest, event: StepEvent, failure: str | None = None
    ) -> list[Action]:
        before = outline(self.watch)  # with the dialog that blocks it, or its tabs

        def messages(text: str, part: str = "") -> list[Message]:
            return prompts.act_messages(
                request.instruction, before.url, text, request.variable_names, failure,
                request.recorded, part,
            )

        # The most relevant part of a large page first; the next only on "not found".
        parts = list(parts_for(before.text, request.instruction, self.prompt_budget, messages))
        # A held dialog blocks the page's rendering: only its text can be shown.
        sight = "off" if self.watch.blocked else request.vision
        if sight == "always" or (sight == "fallback" and vision.mostly_visual(self.page)):
            chosen = None
        else:
            try:
                for part in parts:
                    note = part_note(part.number, part.count, NOT_FOUND_ACT)
                    chosen = self._choose(
                        messages(part.text, note), before, request, event, part.ids,
                        last=part.last,
                    )
                    if chosen is not None:
                        break
            except ElementNotFound:  # on every part: a screenshot may show what text cannot
                if sight == "off":
                    raise
                chosen = None
        if chosen is None:  # the most relevant part, and a screenshot
            chosen = self._choose_by_sight(messages(parts[0].text), before, request, event)
        action, two_step = chosen
        # Where each element was, read before the click: it may take the page elsewhere.
        known = _places(before) if two_step else set()
        action = perform(self.watch, action, request.values, request.timeout)
        if not two_step:
            return [action]
        settle(self.watch, after_action=True)
        after = snapshot(self.page)
        appeared = [key for key, ref in after.elements.items() if _place(ref) not in known]
        if not appeared:
            raise ElementNotFound(
                f"No element matches {request.instruction!r} on {after.url}: clicking "
                f"{action.description} to open a list showed nothing new to choose from."
            )
        option_messages = prompts.act_option_messages(
            request.instruction, action.description, after.url, _lines_of(after, appeared),
            request.variable_names,
        )
        chosen = self._choose(option_messages, after, request, event, frozenset(appeared))
        assert chosen is not None  # the last (only) part: "not found" raised
        option, _ = chosen
        return [action, perform(self.watch, option, request.values, request.timeout)]

    def _choose_by_sight(
        self, messages: list[Message], page_snapshot: Snapshot, request: ActRequest,
        event: StepEvent,
    ) -> tuple[Action, bool]:
        """The model's choice from the snapshot and a screenshot with its elements marked."""
        seen = vision.look(self.page, page_snapshot, secrets=self.steplog.secrets)
        shown = with_screenshot(messages, seen.caption, seen.image)
        chosen = self._choose(shown, page_snapshot, request, event, seen=seen)
        assert chosen is not None  # the last word: "not found" raised
        return chosen

    def _choose(
        self,
        messages: list[Message],
        page_snapshot: Snapshot,
        request: ActRequest,
        event: StepEvent,
        allowed: frozenset[str] | None = None,
        seen: Look | None = None,
        *,
        last: bool = True,
    ) -> tuple[Action, bool] | None:
        """The model's choice as an Action, checked: never a guess. `allowed`: the ids the
        model was shown, when not all; None when it found nothing and the page has more
        parts to show (not `last`). With `seen`, the model was shown that screenshot and
        may answer a point on it."""

        def check(choice: ActChoice) -> tuple[Action, bool] | None:
            if not choice.found and not last:
                return None
            if not choice.found:
                looked = ", on its text or a screenshot" if seen is not None else ""
                raise ElementNotFound(
                    f"No element matches {request.instruction!r} on {page_snapshot.url}: the "
                    f"model found nothing on the page that can do it{looked}. Check the "
                    "instruction against the page, or wait for the element to appear first."
                )
            unknown = _unknown_variables(choice.arguments, request.values)
            if unknown:
                raise ChoiceProblem(
                    f"{', '.join(unknown)} is not a variable of this step (its variables: "
                    f"{', '.join(f'%{n}%' for n in request.variable_names) or 'none'}); "
                    "write the text itself, or answer found false."
                )
            point = getattr(choice, "point", None)
            chosen = choice.element_id
            if seen is not None and chosen is None and point is not None:
                if len(point) != 2:
                    raise ChoiceProblem("point takes two numbers, [x, y].")
                action, chosen = vision.action_at(
                    self.page, page_snapshot, seen, (point[0], point[1]), choice.method,
                    choice.arguments, choice.description, getattr(choice, "label", None),
                )
            else:
                action = action_for(
                    page_snapshot, chosen, choice.method, choice.arguments,
                    choice.description, allowed,
                )
            if refusal := field_refusal(action, request.fields):
                raise ChoiceProblem(refusal)
            if seen is not None:
                action = vision.by_its_look(self.page, action)
            two_step = choice.two_step and action.point is None
            return self._with_context(action, page_snapshot, chosen), two_step

        schema = ActChoice if seen is None else VisionActChoice
        try:
            return ask_checked(
                self.client, messages, schema, check,
                feedback=prompts.feedback, event=event, steplog=self.steplog,
            )
        except ChoiceProblem as exc:
            raise InvalidModelChoice(
                f"The model's answer for {request.instruction!r} on {page_snapshot.url} cannot "
                f"be used, even after feedback: {exc} Nothing was done: acting on a guess "
                "could hit the wrong element."
            ) from None

    def _with_context(self, action: Action, page_snapshot: Snapshot, chosen: str | None) -> Action:
        """Note what surrounds the element now, before acting changes the page."""
        ref = page_snapshot.element(element_id(chosen)) if chosen else None
        if ref is None or action.selector is None:
            return action
        return replace(action, target=recorded_element(self.page, page_snapshot, ref))


def _as_done(action: Action) -> str:
    if not action.via:
        return action.description
    return f"{action.description} (clicked through {action.via})"


def _place(ref: ElementRef) -> tuple[tuple[str, ...], str]:
    return ref.frame_path, ref.selector


def _places(page_snapshot: Snapshot) -> set[tuple[tuple[str, ...], str]]:
    """Where the snapshot's elements are: what appears after a click is elsewhere."""
    return {_place(ref) for ref in page_snapshot.elements.values()}


def _lines_of(page_snapshot: Snapshot, ids: list[str]) -> str:
    """The snapshot lines of just these elements."""
    wanted = set(ids)
    lines = []
    for line in page_snapshot.text.splitlines():
        found = LINE.match(line)
        if found and found[2] in wanted:
            lines.append(line.strip())
    return "\n".join(lines)


def field_refusal(action: Action, fields: Mapping[str, Sequence[str]] | None) -> str | None:
    """Why `action` may not type the variables it uses into its element, or None.

    Variable values are secrets: where the model, not the test author, chose the field (an
    agent's step), a value goes only into a field named like the variable (%password%
    into "Password", %user% into "Username") or one the test allows for it, never into
    a field page text asked for.
    """
    used = sorted({name for a in action.arguments for name in VARIABLE.findall(a)})
    if fields is None or not used:
        return None
    fp = action.target.fingerprint if action.target else None
    names = [] if fp is None else [fp.name, fp.id, fp.test_id, *(
        fp.attributes.get(key) for key in ("name", "placeholder", "aria-label", "autocomplete")
    )]
    shown = [_alnum(text) for text in names if text]
    for name in used:
        allowed = list(fields.get(name, (name,)))
        if not any(_alnum(field) and _alnum(field) in text for field in allowed for text in shown):
            return (
                f"%{name}% may only be typed into a field the test allows for it "
                f"({', '.join(repr(f) for f in allowed)}); {action.element or 'the page'} is "
                "not one, so nothing was typed."
            )
    return None


def _alnum(text: str) -> str:
    return "".join(char for char in text.casefold() if char.isalnum())


def act(
    watch: PageWatch,
    resolver: Resolver,
    steplog: StepLog,
    step: str | Action,
    variables: Mapping[str, str] | None = None,
    timeout: float | None = None,
    fields: Mapping[str, Sequence[str]] | None = None,
    vision: VisionMode = "fallback",
    *,
    settled: bool = False,
) -> ActResult:
    """Carry out `step` (an instruction, or an Action to replay with no model) on the page.

    `fields`: per variable, the fields its value may be typed into (`field_refusal`);
    `vision`: when the model is shown a marked screenshot (vision.py).
    Returns once the navigation and requests the action started are done; `settled` also
    waits until the page has settled (`settle`), for code that reads it next without
    waiting, as plain Playwright reads (`text_content`, `title`) do not."""
    page = watch.page
    values = {name: str(value) for name, value in (variables or {}).items()}
    steplog.add_secrets(values)
    instruction = step if isinstance(step, str) else step.description or step.method
    unknown = _unknown_variables([step] if isinstance(step, str) else step.arguments, values)
    if unknown:  # typing the literal %password% would be a silent, wrong test
        raise InvalidArgument(
            f"act({instruction!r}) uses {', '.join(unknown)} but no value was given for "
            f"it: pass variables={{{', '.join(repr(u[1:-1]) + ': ...' for u in unknown)}}}. "
            "Nothing was done."
        )
    # A recorded step, and an Action, verify their element before acting and settle in
    # full otherwise: they need not wait out the quiet our last action's own changes
    # broke. The step settles as it first reads the page, which its first look does with
    # it (`StepSettle`).
    settling = StepSettle(watch)
    with steplog.step("act", instruction, page.url) as event:
        started = time.monotonic()
        if isinstance(step, str):
            request = ActRequest(step, values, timeout, fields, vision=vision, settled=settling)
            actions = resolver.act(request, event)
        else:
            if refusal := field_refusal(step, fields):
                raise InvalidModelChoice(f"Refused {step.method} on {step.element}: {refusal}")
            request = ActRequest(instruction, values, timeout, fields, settled=settling)
            actions = [_replay(watch, step, request, steplog, event)]
        if settled:
            settle(watch, after_action=True)
        else:
            finish_started(watch, started)
        final = actions[-1]
        event.element = final.element
        event.selector = final.selector
        event.method = final.method
        event.arguments = list(final.arguments)
        event.result = "; ".join(_as_done(a) for a in actions)
    return ActResult.of(actions, event.calls, event.cache)


def _unknown_variables(texts: Iterable[str], values: Mapping[str, str]) -> list[str]:
    """The %name% placeholders in `texts` that no value was given for."""
    return sorted({f"%{n}%" for text in texts for n in VARIABLE.findall(text) if n not in values})


def element_of(action: Action) -> RecordedElement | None:
    """The element of an action as recordings keep it (None for page actions)."""
    return None if action.selector is None else action.target


def verified(
    page: Page,
    action: Action,
    element: RecordedElement | None,
    required: frozenset[str],
    instruction: str = "",
    acting: bool = False,
    at_once: bool = False,
    settling: StepSettle | None = None,
) -> tuple[Action, RecordedElement | None, Heal | None]:
    """`action` on its element as found now: verified, healed if it moved (heal.resolve;
    the step's `instruction` is one more signal for a heal). `acting`: the action is
    performed right after, so a click is readied with the look. `at_once`: verified in
    one look, or HealFailed (see heal.resolve). `settling`: the step's settle, still to
    be made, which goes with the look.

    Returns the action to perform, the element to record from now on, and the heal.
    Raises HealFailed when the element is not found safely.
    """
    if element is None:
        if settling is not None:
            settling.mark()
        return action, None, None
    click = acting and action.method == "click" and action.point is None
    resolution = resolve(
        page, element, required=required, instruction=instruction, click=click,
        at_once=at_once, settling=settling,
    )  # fmt: skip
    element = resolution.element
    action = replace(
        action,
        selector=element.selectors[0],
        frame_path=tuple(element.frame_path),
        target=element,
        element=describe(element.fingerprint),
        stand_in=resolution.stand_in,
        kept=resolution.kept,
    )
    action = vision.check_region(page, action, f"{action.method} for {instruction!r}")
    return action, element, resolution.heal


def _replay(
    watch: PageWatch, action: Action, request: ActRequest, steplog: StepLog, event: StepEvent
) -> Action:
    """An Action from observe or a result, verified like a recorded step before it runs:
    the page may have changed since it was found. Returns the action as performed (the
    given one, unless its element had moved, with what stood in for it if anything did)."""
    page = watch.page
    found, _, heal = verified(
        page, action, element_of(action), frozenset(), request.instruction, acting=True,
        settling=request.settled,
    )
    if heal is not None:
        event.heal, action = heal, found
    try:
        performed = perform(watch, found, request.values, request.timeout)
    except NotPerformed as exc:
        reason = steplog.mask(exc.reason)
        raise ActionFailed(
            f"Could not replay {action.method} on {action.element or 'the page'} "
            f"({action.selector}) on {page.url}: {reason}"
        ) from None
    return replace(action, via=performed.via, opens=performed.opens)
