"""Judging claims and questions about the page: the verdict shapes and the judge's prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from pytest_stagehand.model.messages import Message
from pytest_stagehand.prompts.texts import SNAPSHOT_FORMAT

CheckProperty = Literal["text", "value", "checked", "enabled", "visible"]
CheckMatch = Literal["equals", "contains", "regex"]


class ElementCheck(BaseModel):
    """An element of the snapshot and the value it must have: replayed without a model."""

    kind: Literal["element"]
    element_id: str = Field(description="id from the snapshot, e.g. e12")
    property: CheckProperty
    match: CheckMatch
    expected: str = Field(description='for checked, enabled and visible: "true" or "false"')


class PageTextCheck(BaseModel):
    """Text the page must (or must not) contain: replayed without a model."""

    kind: Literal["page_text"]
    text: str = Field(
        description="words the page shows, exactly: visible text, never roles, ids or states"
    )
    present: bool = Field(description="false when the page must not contain it")


class JudgedAnswer(BaseModel):
    """A judge's verdict on one claim or question."""

    verdict: Literal["YES", "NO"]
    reasoning: str = Field(description="one or two sentences quoting what the page shows")


class Judgment(JudgedAnswer):
    """A verdict on a claim, and a check that would confirm a YES without a model."""

    check: ElementCheck | PageTextCheck | None = Field(
        default=None, description="null when the verdict is NO or no such check exists"
    )


class JudgedAnswers(BaseModel):
    answers: list[JudgedAnswer] = Field(description="one per question, in the order asked")


PAGE_INPUTS = """\
You may be given a snapshot of the page, a screenshot of it, or both. Judge only from what
you are given; when it does not show enough to decide, the verdict is NO."""

JUDGE_SYSTEM = f"""\
You check claims about a web page for an automated test. Decide whether the claim is true
of the page as it is now: verdict YES or NO, and a short reasoning that quotes what the
page shows.

{PAGE_INPUTS}

{SNAPSHOT_FORMAT}

When the verdict is YES and you were given a snapshot, also give a check: one exact,
deterministic test that confirms the claim on this page and would fail on a page where
the claim is false, so later runs can confirm it without you. Either
- element: an element by its [id] from the snapshot, one of its properties (text: its
  visible text; value: the value of a form field as the snapshot shows it, for a select
  its chosen option's label; checked, enabled, visible: "true" or "false"), and how that
  property must compare to expected: equals, contains (whole words), or regex (Python
  syntax); or
- page_text: words the page must show (present true), or must not show (present false),
  as a person reads them: never roles, ids, states or other snapshot markup.
Prefer an element check on the element the claim is about; short text such as a badge,
a count or a status word has an id of its own (`e7 text "2"`). For a number, compare
the element's text with equals, so that one more or one less fails. A page_text check
must be words that appear once on the page, never a number, a symbol or a single word
alone. Use only ids that appear in the snapshot. Answer check null when the verdict is
NO, when you have no snapshot, or when no exact check can confirm the claim (for example
a claim about colours or layout)."""
JUDGE_RETRY = """That check cannot be recorded: {problem}.
A check must fail on a page where the claim is false. Answer again, with the verdict, the
reasoning and a better check: the element the claim is about, by its [id], compared with
equals; or check null if no exact check can confirm the claim."""

ASK_SYSTEM = f"""\
You answer questions about a web page for an automated test. For each question, answer
YES or NO with a short reasoning that quotes what the page shows. When a question comes
with a proposed answer, judge that answer instead: YES when it is correct and complete for
the page as it is now, NO otherwise.

{PAGE_INPUTS}

{SNAPSHOT_FORMAT}"""


def _judged_page(url: str, snapshot_text: str | None, screenshot: bool) -> str:
    shown = f"Page: {url}"
    if snapshot_text is not None:
        shown += f"\n\nSnapshot:\n{snapshot_text}"
    if screenshot:
        shown += "\n\nA screenshot of the page is attached."
    return shown


def judge_messages(
    claim: str, url: str, snapshot_text: str | None, screenshot: bytes | None, part: str = ""
) -> list[Message]:
    """Judge one claim from the snapshot text, a screenshot, or both; `part` says which
    part of a large page the snapshot shows (`part_note`)."""
    images = (screenshot,) if screenshot else ()
    return [
        Message("system", JUDGE_SYSTEM),
        Message(
            "user",
            f"{_judged_page(url, snapshot_text, bool(images))}{part}\n\nClaim: {claim}",
            images,
        ),
    ]


def judge_feedback(messages: Sequence[Message], answer: BaseModel, problem: str) -> list[Message]:
    """The judgment so far, its answer, and why its check cannot be recorded."""
    return [
        *messages,
        Message("assistant", answer.model_dump_json()),
        Message("user", JUDGE_RETRY.format(problem=problem.rstrip("."))),
    ]


def ask_messages(
    questions: Sequence[tuple[str, str | None]],
    url: str,
    snapshot_text: str | None,
    screenshot: bytes | None,
    part: str = "",
) -> list[Message]:
    """Several (question, proposed answer or None) pairs about one page state, one call;
    `part` says which part of a large page the snapshot shows (`part_note`)."""
    lines = []
    for number, (question, answer) in enumerate(questions, 1):
        lines.append(f"{number}. {question}")
        if answer is not None:
            lines.append(f"   Proposed answer: {answer}")
    images = (screenshot,) if screenshot else ()
    return [
        Message("system", ASK_SYSTEM),
        Message(
            "user",
            f"{_judged_page(url, snapshot_text, bool(images))}{part}\n\nQuestions:\n"
            + "\n".join(lines)
            + f"\n\nGive exactly {len(questions)} answers, one per question, in order.",
            images,
        ),
    ]
