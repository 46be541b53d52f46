"""A large page shown in parts: the texts around each part of a bounded prompt."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pytest_stagehand.prompts.judge import JudgedAnswer, Judgment

# chunks.py picks the parts; each prompt says which part it shows and how to say that the
# answer is not in it, so the next part is sent.

PART_NOTE = """

The page is too large to show whole: the snapshot above is part {number} of {count}, the \
sections most relevant to the instruction, with … where lines are left out. If what the \
instruction needs is not in this part, {not_found}: the next part will be shown."""
NOT_FOUND_ACT = "answer found false"
NOT_FOUND_OBSERVE = "answer an empty list"
NOT_FOUND_JUDGE = (
    "answer in_view false. A claim that something is absent, or about the page as a whole, "
    "cannot be settled from a part: answer in_view false for it too"
)


def part_note(number: int, count: int, not_found: str) -> str:
    """The note after a part of the snapshot; "" for a whole snapshot (count 1)."""
    if count == 1:
        return ""
    return PART_NOTE.format(number=number, count=count, not_found=not_found)


NOT_FOUND_ASK = (
    "answer in_view false for each question it does not show. A question about something "
    "being absent, or about the page as a whole, cannot be settled from a part: answer "
    "in_view false for it too"
)


class PartAnswer(JudgedAnswer):
    """An answer from a part of the page, which may not show what the question is about."""

    in_view: bool = Field(
        description="false when this part of the page does not show what the question is about"
    )


class PartAnswers(BaseModel):
    answers: list[PartAnswer] = Field(description="one per question, in the order asked")


class PartJudgment(Judgment):
    """A verdict from a part of the page, which may not show what the claim is about."""

    in_view: bool = Field(
        description="false when this part of the page does not show what the claim is about"
    )
