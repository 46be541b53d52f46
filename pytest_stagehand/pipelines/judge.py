"""Judgments: a claim about the page, decided by a judge, with a failure that explains itself.

A judge is a model reading the page's snapshot text (cheap and exact), a screenshot (for
visual claims, or when asked) or both (`--ai-judge-inputs=both`). Assertions must also
pass in CI with no model, so with a YES the judge names a deterministic check that
confirms it on this page: an element, recorded with the same selectors and fingerprint as
act's elements and found again by the same verify-and-heal replay (`heal.resolve`), and
the text, value or state it must have; or text the page must contain. Before it is
recorded the check must hold on this page, be strong enough to mean something (not a
lone number or a word the page shows many times) and fail on the claim's obvious
negation (the claim's number one more or one less); a weak check is sent back to the
judge once with the reason. A YES judged from a screenshot alone (a canvas chart) is
checked by how the page looks: it replays while the page looks the same (vision.py).
A YES that still has no check is recorded as such, named in
the run's summary, and fails offline with what to do.

Texts are what a person sees: an element's innerText, the page's visible text (never the
outline's markup); a number or word matches only where it stands on its own ("2" is not
in "$29.99"). A <select>'s text and value are its selected option's label, as the
snapshot shows it.

Replay runs the check instead of the model. A check that no longer holds fails the test
when no model may be called; otherwise the claim is judged again, and a new check behind a
new YES replaces the recorded one as a "rejudged" heal.

Kept whole: the Evaluator's verbs (assert_that, check, ask, ask_many) are one judged step
with one recorded-check protocol.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from pydantic import BaseModel, ValidationError

from pytest_stagehand.actions.action import element_id
from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.watch import PageWatch, ReadsPage
from pytest_stagehand.errors import (
    AIAssertionError,
    CacheMiss,
    ElementNotFound,
    ModelOutputError,
    RecordingFileError,
)
from pytest_stagehand.events import Heal, StepEvent, StepLog
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.model.client import Message, ModelClient
from pytest_stagehand.model.inference import ChoiceProblem, ask_checked
from pytest_stagehand.pipelines import vision
from pytest_stagehand.pipelines.checks import (
    RECORDED_CHECK,
    Outcome,
    RecordedCheck,
    RecordedElementCheck,
    RecordedLookCheck,
    counterfeits,
    describe_check,
    run_check,
    trivial,
    weakness,
)
from pytest_stagehand.pipelines.readback import line_of
from pytest_stagehand.pipelines.vision import look_signature
from pytest_stagehand.pipelines.waiting import Waiting
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.prompts.chunks import parts_for
from pytest_stagehand.prompts.judge import (
    ElementCheck,
    JudgedAnswer,
    JudgedAnswers,
    Judgment,
    ask_messages,
    judge_feedback,
    judge_messages,
)
from pytest_stagehand.prompts.parts import (
    NOT_FOUND_ASK,
    NOT_FOUND_JUDGE,
    PartAnswers,
    PartJudgment,
    part_note,
)
from pytest_stagehand.recordings.format import Recording, recordings_file
from pytest_stagehand.recordings.keys import StepKey
from pytest_stagehand.recordings.steps import RecordedStep, RecordedSteps, Replayed, Stale
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.settings import DEFAULT_BUDGET, JudgeInputs
from pytest_stagehand.snapshot.outline import Snapshot, snapshot

Basis = Literal["page text", "screenshot", "page text and screenshot", "recorded check"]
T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

# Claims a text snapshot cannot settle: these are judged from a screenshot.
VISUAL = re.compile(
    r"\b(colou?rs?|colou?red|red|green|blue|yellow|orange|purple|pink|black|white|gr[ae]y"
    r"|images?|pictures?|photos?|icons?|logos?|layout|looks?|appearance|styled?|fonts?"
    r"|bold|italic|aligned|alignment|centred|centered|overlap\w*|screenshot"
    r"|visible on (the )?screen)\b",
    re.IGNORECASE,
)
# pytest leaves our frames out of a failed claim's traceback (as it does for its own
# helpers), so the failure shows the test's line and the verdict; never out of a bug's.
HIDE_FAILED_CLAIM = operator.methodcaller("errisinstance", AIAssertionError)


def is_visual(text: str) -> bool:
    """Does the claim speak of how the page looks (colours, images, layout)?"""
    return VISUAL.search(text) is not None


@dataclass(frozen=True)
class Verdict:
    """A judge's decision on a claim: YES or NO, why, and what it was judged from."""

    claim: str
    answer: Literal["YES", "NO"]
    reasoning: str
    based_on: Basis
    url: str

    @property
    def passed(self) -> bool:
        return self.answer == "YES"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        how = (
            "from the recorded check, no model asked"
            if self.based_on == "recorded check"
            else f"judged from {self.based_on}"
        )
        return (
            f"Claim: {self.claim}\nVerdict: {self.answer} ({how})\n"
            f"Reasoning: {self.reasoning}\nPage: {self.url}"
        )


class Evaluator(ReadsPage):
    """Judges claims and questions about a page; replays the recorded checks behind YES.

    `assert_that` and `check` record and replay (given `recordings`); `ask` and
    `ask_many` always ask the model. Without `recordings` nothing is replayed or recorded.
    """

    def __init__(
        self,
        page: Page | PageWatch,
        client: ModelClient | None,
        steplog: StepLog,
        *,
        inputs: JudgeInputs = "auto",
        recordings: Recordings | None = None,
        prompt_budget: int = DEFAULT_BUDGET,
    ) -> None:
        self._reads(page)
        self.client = client
        self.steplog = steplog
        self.inputs = inputs
        self.prompt_budget = prompt_budget  # tokens; a larger page is judged in parts
        self.recordings = recordings
        self.steps = RecordedSteps(
            self.page, recordings, steplog, has_model=client is not None,
            model=client.config.model if client is not None else None,
        )

    def assert_that(
        self, claim: str, screenshot: bool = False, waiting: Waiting | None = None
    ) -> Verdict:
        """Pass when the judge says YES; else raise AIAssertionError with the claim, the
        verdict and its reasoning. `screenshot=True` judges from a screenshot even when
        the claim does not sound visual. With `waiting`, a NO is judged again on each page
        change until its timeout (the recorded check run again; the judge asked again)."""
        __tracebackhide__ = True
        return self._claim(claim, screenshot, must_hold=True, waiting=waiting)

    def check(
        self, claim: str, screenshot: bool = False, waiting: Waiting | None = None
    ) -> Verdict:
        """The verdict on `claim`, without failing the test on NO (waiting as assert_that
        does, for a YES)."""
        return self._claim(claim, screenshot, must_hold=False, waiting=waiting)

    def ask(self, question: str, answer: str | None = None, screenshot: bool = False) -> Verdict:
        """A yes/no question about the page or, with `answer`, whether that answer to the
        question is correct. Always asks the model."""
        return self.ask_many([(question, answer)], screenshot)[0]

    def ask_many(
        self, questions: Sequence[str | tuple[str, str | None]], screenshot: bool = False
    ) -> list[Verdict]:
        """Verdicts on several questions (or (question, answer) pairs) about the same page
        state, in one model call."""
        pairs = [(q, None) if isinstance(q, str) else q for q in questions]
        if not pairs:
            return []
        settle(self.watch)
        url = self.page.url
        with self.steplog.step("assert", " | ".join(q for q, _ in pairs), url) as event:
            texts = [f"{q} {a or ''}" for q, a in pairs]
            page_snapshot, png, basis = self._look(texts, screenshot, event)
            answers = self._answered_in_parts(pairs, " ".join(texts), page_snapshot, png, event)
            verdicts = [
                Verdict(
                    question if answer is None else f"{question} (proposed answer: {answer})",
                    judged.verdict, judged.reasoning, basis, url,
                )
                for (question, answer), judged in zip(pairs, answers, strict=True)
            ]
            event.cache = "off"
            event.result = ", ".join(verdict.answer for verdict in verdicts)
        return verdicts

    def _answered_in_parts(
        self,
        pairs: Sequence[tuple[str, str | None]],
        asked: str,
        page_snapshot: Snapshot | None,
        png: bytes | None,
        event: StepEvent,
    ) -> list[JudgedAnswer]:
        """One answer per question. A page larger than the prompt budget is shown in parts,
        the most relevant to the questions (`asked`) first; each part is asked the questions
        no part before it showed, and a question that no part shows is answered NO."""
        url = self.page.url
        what = f"{len(pairs)} question(s) starting {pairs[0][0]!r}"

        def one_each(count: int) -> Callable[[JudgedAnswers | PartAnswers], list[Any]]:
            def check(answers: JudgedAnswers | PartAnswers) -> list[Any]:
                given = answers.answers
                if len(given) != count:
                    raise ChoiceProblem(
                        f"{count} questions were asked and {len(given)} answered; give "
                        "exactly one answer per question, in order."
                    )
                return given

            return check

        def messages(text: str | None, part: str = "") -> list[Message]:
            return ask_messages(pairs, url, text, png, part)

        parts = (
            parts_for(page_snapshot.text, asked, self.prompt_budget, messages)
            if page_snapshot is not None
            else []
        )
        if not parts or parts[0].whole:
            text = _text_of(page_snapshot)
            return self._ask(messages(text), JudgedAnswers, one_each(len(pairs)), what, event)
        found: dict[int, JudgedAnswer] = {}
        for part in parts:
            still = [i for i in range(len(pairs)) if i not in found]
            note = part_note(part.number, part.count, NOT_FOUND_ASK)
            prompt = ask_messages([pairs[i] for i in still], url, part.text, png, note)
            answers = self._ask(prompt, PartAnswers, one_each(len(still)), what, event)
            for i, answer in zip(still, answers, strict=True):
                if answer.in_view:
                    found[i] = JudgedAnswer(verdict=answer.verdict, reasoning=answer.reasoning)
            if len(found) == len(pairs):
                break
        unseen = JudgedAnswer(
            verdict="NO", reasoning="No part of the page shows what the question is about."
        )
        return [found.get(i, unseen) for i in range(len(pairs))]

    # --- claims ----------------------------------------------------------------------

    def _claim(
        self, claim: str, screenshot: bool, *, must_hold: bool, waiting: Waiting | None = None
    ) -> Verdict:
        __tracebackhide__ = HIDE_FAILED_CLAIM
        settled = settle(self.watch)
        waiting = waiting or Waiting(self.watch, 0)
        with self.steplog.step("assert", claim, self.page.url) as event:
            verdict, note = waiting.until(
                lambda: self._decide(claim, screenshot, event),
                lambda decided: decided[0].passed,
                event,
                settled,
            )
            event.result = "; ".join(filter(None, [f"{verdict.answer}: {verdict.reasoning}", note]))
            if must_hold and not verdict.passed:
                waited = f"\n(Waited {waiting.timeout_ms:.0f} ms for it to hold.)"
                raise AIAssertionError(
                    self.steplog.mask(str(verdict) + (waited if waiting.timeout_ms else ""))
                )
        return verdict

    def _decide(self, claim: str, screenshot: bool, event: StepEvent) -> tuple[Verdict, str]:
        """The verdict, from the recorded check or the judge (the recorded-step protocol,
        steps.py), and a note on the check recorded or run."""
        step = ClaimStep(self, claim, screenshot, event)
        return self.steps.run(step, event), step.note

    def _judge(
        self, claim: str, screenshot: bool, event: StepEvent
    ) -> tuple[Verdict, RecordedCheck | None, str]:
        """Ask the judge; return its verdict, the check that confirms a YES (or None), and
        why there is none. A check that cannot be recorded goes back to the judge once,
        with the reason; its second answer is its last word."""
        url = self.page.url
        page_snapshot, png, basis = self._look([claim], screenshot, event)

        def decided(judgment: Judgment) -> tuple[Verdict, RecordedCheck | None, str]:
            verdict = Verdict(claim, judgment.verdict, judgment.reasoning, basis, url)
            if not verdict.passed:
                return verdict, None, ""
            if page_snapshot is None:  # nothing to read again: how it looks is the check
                return verdict, RecordedLookCheck(look=look_signature(self.page)), ""
            return (verdict, *self._witness(claim, judgment, page_snapshot))

        messages, judgment = self._judged_in_parts(claim, page_snapshot, png, event)
        verdict, witness, why = decided(judgment)
        if why and judgment.check is not None:
            again = judge_feedback(messages, judgment, why)
            judgment = self._ask(again, Judgment, lambda answer: answer, repr(claim), event)
            verdict, witness, why = decided(judgment)
        return verdict, witness, why

    def _judged_in_parts(
        self, claim: str, page_snapshot: Snapshot | None, png: bytes | None, event: StepEvent
    ) -> tuple[list[Message], Judgment]:
        """The judge's answer and the prompt it answered. A page larger than the prompt
        budget is judged in parts, the most relevant to the claim first, until a part shows
        what the claim is about; when none does, the verdict is NO."""
        url = self.page.url

        def messages(text: str | None, part: str = "") -> list[Message]:
            return judge_messages(claim, url, text, png, part)

        if page_snapshot is None:
            prompt = messages(None)
            return prompt, self._ask(prompt, Judgment, lambda answer: answer, repr(claim), event)
        for part in parts_for(page_snapshot.text, claim, self.prompt_budget, messages):
            note = part_note(part.number, part.count, NOT_FOUND_JUDGE)
            prompt = messages(part.text, note)
            schema = Judgment if part.whole else PartJudgment
            judgment = self._ask(prompt, schema, lambda answer: answer, repr(claim), event)
            if not isinstance(judgment, PartJudgment) or judgment.in_view:
                return prompt, judgment
        unseen = f"No part of the page shows what the claim is about. {judgment.reasoning}"
        return prompt, Judgment(verdict="NO", reasoning=unseen, check=None)

    def _witness(
        self, claim: str, judgment: Judgment, outline: Snapshot
    ) -> tuple[RecordedCheck | None, str]:
        """The judge's check, replayable, confirmed on this page and failing on the claim's
        obvious negation; else None and why."""
        proposed = judgment.check
        if proposed is None:
            return None, "the judge gave none"
        check: RecordedCheck
        if isinstance(proposed, ElementCheck):
            try:
                ref = outline.element(element_id(proposed.element_id))
            except ElementNotFound as gone:  # the page went elsewhere as the judge answered
                return None, str(gone)
            if ref is None:
                return None, f"its element {proposed.element_id!r} is not in the snapshot"
            element = recorded_element(self.page, outline, ref)
            if not element.context:  # in no card, row or form: its line says which it is
                with suppress(PlaywrightError):
                    line = self.steplog.mask(line_of(ref.locator(self.page)))
                    element = element.model_copy(update={"line": line})
            try:
                check = RecordedElementCheck(
                    element=element,
                    property=proposed.property,
                    match=proposed.match,
                    expected=proposed.expected,
                )
            except ValidationError as exc:
                return None, exc.errors()[0]["msg"]
        else:
            check = proposed
        described = f"the judge's check ({describe_check(check)})"
        if trivial(check):
            return None, f"{described} would hold on any page"
        if problem := weakness(check):
            return None, f"{described} is too weak: {problem}"
        outcome = run_check(self.page, check, self.steplog.mask)
        if not outcome.held:
            return None, f"{described} fails here: {outcome.seen}"
        if problem := counterfeits(claim, check, outcome):
            return None, f"{described} would not fail where the claim is false: {problem}"
        return outcome.check, ""

    def _replayed(self, claim: str, outcome: Outcome, conclusion: str) -> Verdict:
        reasoning = (
            f"{conclusion}\nRecorded check: {describe_check(outcome.check)}\n"
            f"Page now: {outcome.seen}"
        )
        answer = "YES" if outcome.held else "NO"
        return Verdict(claim, answer, reasoning, "recorded check", self.page.url)

    # --- inputs, the model, the store --------------------------------------------------

    def _look(
        self, texts: Sequence[str], screenshot: bool, event: StepEvent
    ) -> tuple[Snapshot | None, bytes | None, Basis]:
        """The page text unless the judgment is visual; a screenshot if it is (or when
        asked); both with --ai-judge-inputs=both. A screenshot becomes the step's evidence."""
        visual = screenshot or any(is_visual(text) for text in texts)
        both = self.inputs == "both"
        page_snapshot = snapshot(self.page) if both or not visual else None
        png = vision.screenshot(self.page, self.steplog.secrets) if both or visual else None
        if png is not None:
            event.screenshot = png
        if page_snapshot is not None and png is not None:
            return page_snapshot, png, "page text and screenshot"
        return page_snapshot, png, "page text" if png is None else "screenshot"

    def _ask(
        self,
        messages: list[Message],
        schema: type[T],
        check: Callable[[T], R],
        what: str,
        event: StepEvent,
    ) -> R:
        """The judge's answer; an unusable one gets the model layer's one retry, then a
        ModelOutputError naming what was judged (never a verdict made up)."""
        try:
            return ask_checked(
                self.client, messages, schema, check,
                feedback=prompts.feedback, event=event, steplog=self.steplog,
            )
        except (ModelOutputError, ChoiceProblem) as exc:
            raise ModelOutputError(
                f"No verdict on {what} on {self.page.url}: {exc}\nNothing was passed on an "
                "unusable answer. Try again, rephrase, or use a model that follows "
                "structured output (--ai-model).",
                raw=getattr(exc, "raw", None),
            ) from None

def _text_of(page_snapshot: Snapshot | None) -> str | None:
    return page_snapshot.text if page_snapshot is not None else None


def _data(check: RecordedCheck) -> dict[str, object]:
    return {"check": check.model_dump(mode="json")}


def _unchecked(why: str) -> dict[str, object]:
    """A YES that no check could confirm: recorded, so offline runs say so and why."""
    return {"check": None, "unchecked": why}


@dataclass
class ClaimStep(RecordedStep[Verdict]):
    """A claim as a recorded step: the recorded check run on the page now (its element
    found again, healed without a model when it moved); the judge asked afresh, and the
    check behind its YES recorded."""

    kind = "assert"
    variables = ()
    scope = None
    evaluator: Evaluator
    instruction: str  # the claim
    screenshot: bool
    event: StepEvent
    note: str = ""  # on the check recorded or run, for the step's result
    failed: Outcome | None = None  # the recorded check that no longer holds
    witness: RecordedCheck | None = None  # the check behind the judge's YES
    why: str = ""  # why there is none

    def replay(self, recording: Recording) -> Replayed[Verdict]:
        evaluator = self.evaluator
        recorded = self._check_of(recording)
        if recorded is None:  # a YES recorded without a check: judged again, as if new
            failure = CacheMiss(self._unreplayable(recording))
            raise Stale("it was recorded with no check", failure, replaces=False)
        outcome = run_check(
            evaluator.page, recorded, evaluator.steplog.mask, evaluator.steplog.variables
        )
        if not outcome.held:
            self.failed = outcome
            raise Stale(outcome.seen, AIAssertionError(outcome.seen))
        verdict = evaluator._replayed(self.instruction, outcome, "The recorded check holds.")
        if outcome.heal is None:
            return Replayed(verdict)
        healed = recording.model_copy(update={"data": _data(outcome.check)}).noted(outcome.heal)
        return Replayed(verdict, healed, outcome.heal)

    def without_model(self, stale: Stale) -> Verdict:
        """A check that no longer holds answers NO; a claim with no check cannot be replayed."""
        if self.failed is None:
            raise stale.failure from None
        offline = self.evaluator.steps.policy.mode == "offline"
        why = "--ai-cache=offline" if offline else "no model"
        conclusion = (
            f"The recorded check no longer holds ({why}: no judge to ask again). If the "
            "page changed on purpose, re-record with a model: --ai-cache=refresh."
        )
        return self.evaluator._replayed(self.instruction, self.failed, conclusion)

    def ask(self, stale: Stale | None) -> Verdict:
        verdict, self.witness, self.why = self.evaluator._judge(
            self.instruction, self.screenshot, self.event
        )
        unchecked = self.why and f"no check recorded: {self.why}"
        if self.failed is not None:
            failed = f"the recorded check failed ({self.failed.seen})"
            if self.witness is None:
                self.note = "; ".join(filter(None, [failed, unchecked]))
            else:
                self.note = f"{failed}; re-recorded: {describe_check(self.witness)}"
        elif verdict.passed:
            self.note = (
                f"recorded check: {describe_check(self.witness)}" if self.witness else unchecked
            )
        return verdict

    def record(self, key: StepKey, value: Verdict) -> Recording | None:
        if not value.passed:
            return None
        if self.witness is not None:
            return Recording.of(key, data=_data(self.witness))
        if self.failed is not None:  # no new check: the recorded one stays, and fails
            return None
        self.event.unchecked = self.why
        return Recording.of(key, data=_unchecked(self.why))

    def summary(self, recording: Recording) -> str:
        return describe_check(RECORDED_CHECK.validate_python(recording.data.get("check")))

    def model_heal(self, stale: Stale, fresh: Recording) -> Heal:
        assert stale.recording is not None
        return Heal("rejudged", self.summary(stale.recording), self.summary(fresh))

    def _check_of(self, recording: Recording) -> RecordedCheck | None:
        """The recording's check (None: a YES recorded without one)."""
        if "unchecked" in recording.data and recording.data.get("check") is None:
            return None
        try:
            return RECORDED_CHECK.validate_python(recording.data.get("check"))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise RecordingFileError(
                f"The recording of {recording.key.describe()} in {self._file} has an invalid "
                f"check ({where}: {error['msg']}). Fix it by hand, or re-record it with a "
                "model (--ai-cache=refresh)."
            ) from None

    def _unreplayable(self, recording: Recording) -> str:
        """Why a claim recorded without a check cannot be replayed, and what to do."""
        why = recording.data.get("unchecked") or "none was given"
        return (
            f"The recording of {recording.key.describe()} in {self._file} has no "
            "check: the claim was "
            f"judged YES on {recording.recorded_at}, but no deterministic check could be "
            f"recorded ({why}). Without a model there is no judge to confirm it.\n"
            "Make it replayable: rephrase the claim about one element's text, value or state "
            "(e.g. \"the cart badge shows 2\", \"the error message says ...\") and re-record "
            "it with a model (--ai-cache=refresh); or run this test with a model, where it "
            "is judged on every run."
        )

    @property
    def _file(self) -> Path:
        recordings = self.evaluator.recordings
        assert recordings is not None  # only recordings are replayed
        return recordings_file(recordings.test_file)
