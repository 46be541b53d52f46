"""The words of a name or a text as the heal rule compares them: tokens, numbers with their
signs, counts, spellings."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from difflib import SequenceMatcher


def normalised(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def text_score(a: str | None, b: str | None) -> float | None:
    """Similarity of two texts in [0, 1]; None when neither has one (no evidence)."""
    a, b = normalised(a), normalised(b)
    if not a and not b:
        return None
    return 1.0 if a == b else SequenceMatcher(None, a, b).ratio()


def same_text(a: str | None, b: str | None) -> float | None:
    if not a and not b:
        return None
    return 1.0 if a == b else 0.0


def words_of(text: str) -> frozenset[str]:
    return frozenset(normalised(text).split())


def overlap(a: str, b: str) -> float | None:
    """Jaccard similarity of the words of two texts; None when both have none."""
    words_a, words_b = words_of(a), words_of(b)
    union = words_a | words_b
    return len(words_a & words_b) / len(union) if union else None


def jaccard(a: Collection[str], b: Collection[str]) -> float | None:
    if not a and not b:
        return None
    return len(set(a) & set(b)) / len(set(a) | set(b))


TOKEN = re.compile(r"[^\w\s]?\d+(?:[.,]\d+)*[^\w\s]?|[^\W\d_]+(?:['’][^\W\d_]+)?")


NUMBER = re.compile(r"\d")


COUNT = re.compile(r"[(\[]\s*(\d+)\s*[)\]]")


CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


# What a step calls an element's kind ("the log in button"); in a name, a word of it
# ("Copy link" is not "Copy").
KINDS = frozenset({"field", "box", "input", "button", "link"})


# Words that carry no identity: a step says "click the log in button", a label "Your email".
FILLER = frozenset({
    "a", "an", "the", "to", "into", "in", "on", "of", "for", "and", "or", "with", "at", "by",
    "from", "this", "that", "it", "its", "your", "my", "our", "here", "now", "please", "go",
    "proceed", "click", "tap", "press", "type", "enter", "fill", "select", "choose", "check",
    "uncheck", *KINDS,
})  # fmt: skip


# A decimal point that starts a number (".5x"): the number is a half, not five.
LEADING_POINT = re.compile(r"(?<![\w.])\.(?=\d)")


def _tokens(text: str | None) -> list[str]:
    """Words and numbers of a text, casefolded; a number keeps a currency sign or a percent
    sign written against it, and drops its thousands separators: "$1,000" gives "$1000"."""
    found = TOKEN.findall(CAMEL.sub(" ", LEADING_POINT.sub("0.", text or "")))
    return [
        (_signed(re.sub(r",(?=\d{3}\b)", "", token)) if NUMBER.search(token) else token).casefold()
        for token in found
    ]


def _signed(token: str) -> str:
    """A number token with the signs that say what it counts (€, $, %) or that it is
    below zero ("-5", "−5"; "+5" is 5), no other marks."""
    if not token[-1:].isdigit() and not _is_sign(token[-1]):
        token = token[:-1]
    if token[:1] in MINUS:
        return "-" + token[1:]
    if token and not token[0].isdigit() and not token[0].isalpha() and not _is_sign(token[0]):
        token = token[1:]
    return token


MINUS = frozenset("-−")  # a hyphen-minus or a minus sign written against a number


def _is_sign(char: str) -> bool:
    return char == "%" or unicodedata.category(char) == "Sc"


def numbers_in(text: str | None) -> frozenset[str]:
    return frozenset(numbers_in_order(text))


def numbers_in_order(text: str | None) -> tuple[str, ...]:
    """The numbers of a text as it reads them: "16:9" is not "9:16", nor 03/05 05/03."""
    return tuple(token for token in _tokens(text) if NUMBER.search(token))


# A time told relative to now ("3m ago", "5 minutes ago", "in 2 days"): it moves with the
# clock, on a page that did not change.
_UNITS = (
    r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mo|months?|y"
    r"|yrs?|years?)"
)
RELATIVE_TIME = re.compile(
    rf"\b\d+\s*{_UNITS}\s+ago\b|\bin\s+\d+\s*{_UNITS}\b", re.IGNORECASE
)


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# When something happened, as pages show it: a clock time, an ISO or numeric date, a day
# and month with its year. Beside an element it says when, not which: a tiddler the test
# made shows the minute it was made.
WHEN = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}\b"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",
    re.IGNORECASE,
)


def undated(text: str) -> str:
    """`text` without its dates and clock times."""
    return " ".join(WHEN.sub(" ", text).split()) if text else text


def steady(text: str) -> str:
    """`text` as it stays on a page that does not change: without times told relative to
    now."""
    return " ".join(RELATIVE_TIME.sub(" ", text).split()) if text else text


def counts_in(text: str | None) -> frozenset[str]:
    """Counts shown beside a label, "(2)" or "[2]": they change as the page is used."""
    return frozenset(COUNT.findall(text or ""))


def words_in_order(text: str | None) -> list[str]:
    return [token for token in _tokens(text) if not NUMBER.search(token)]


def name_words(name: str) -> set[str]:
    """The words of a field's name or a label as a schema spells them: camelCase and
    snake_case split, words under three letters left out."""
    spaced = CAMEL.sub(" ", name).replace("_", " ")
    return {word.casefold() for word in spaced.split() if len(word) > 2}


def name_stems(text: str) -> set[str]:
    """The name words of a text by their first five letters: "subscribed" is "Subscribe"."""
    return {word[:5] for word in name_words(text)}


def content_words(text: str | None) -> frozenset[str]:
    """The words that say what something is."""
    return frozenset(words_in_order(text)) - FILLER


def spelling_of(text: str | None) -> str:
    """A name's words as letters, with the symbols that are part of it: "Log in", "Login"
    and "LOG-IN!" spell one name, "C++" is not "C", nor "+" "−" (`symbols_of`)."""
    return "".join(words_in_order(text)) + symbols_of(text)


def symbols_of(text: str | None) -> str:
    """The symbols (+, →, ★, an emoji: Unicode's symbol categories) a name says something
    with: those written against a word or a number ("C++", "A+"), and all of them in a name
    that has no word or number ("+", "−", "→"), a dash among them. One standing apart
    beside words ("+ Add", "Next →") dresses the name up; punctuation is spelling."""
    text = text or ""
    bare = not any(char.isalnum() for char in text)
    return "".join(
        "−" if char in DASHES else char
        for piece in text.split()
        if bare or any(char.isalnum() for char in piece)
        for char in piece
        if unicodedata.category(char)[0] == "S" or (bare and char in DASHES)
    )


DASHES = frozenset("-−–")  # a minus, as a name with no word writes it ("−" on a stepper)


def traded(a: str | None, b: str | None, beside: frozenset[str] = frozenset()) -> bool:
    """Has each of `a` and `b` a word the other lacks, other than those `beside` them?
    ("file-pdf" and "file-csv"; not "file-pdf" and "filetype-pdf": a word written inside
    another is kept, nor "trash" and "trash-fill": a word gained alone is a detail.)"""
    mine, theirs = content_words(a) - beside, content_words(b) - beside

    def alone(words: frozenset[str], others: frozenset[str]) -> bool:
        return any(not any(w in o or o in w for o in others) for w in words)

    return alone(mine, theirs) and alone(theirs, mine)


def listed(words: frozenset[str] | set[str]) -> str:
    return ", ".join(sorted(words)) or "none"
