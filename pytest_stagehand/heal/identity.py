"""Replay a recorded element safely, and heal it without a model when the page changed.

Blind replay (acting on whatever a recorded selector now hits) is how other tools click
the wrong button. Here a hit is used only after it is verified against what was recorded,
and a heal needs a match that is both confident and clearly ahead of the runner-up.
Scoring follows Healenium (tag, id, classes, text, attributes, ancestor path by LCS),
with additions: the role is a gate; the words of the step's instruction and of the
element's own identifiers (test id, id, classes, label, placeholder) count, so a redesign
that rewords a button or renames its classes still finds it; look-alikes of the same role
and name (the "Add to cart" buttons of two products) are told apart by the words around
them that only the recorded one had ("Backpack"); and a candidate that differs in meaning
(another amount, the opposite action, an added qualifier, another section, dialog, row or
frame) is never taken, however alike it looks (`conflict`).
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from itertools import pairwise

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Locator, Page

from pytest_stagehand.actions.perform import (
    DIRECT,
    NO_SHADOW_ROOTS,
    PLAIN_QUERY,
    READ_GUARD,
    STAND_IN,
    is_plain,
)
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.events import Heal
from pytest_stagehand.recordings.store import RecordedElement
from pytest_stagehand.snapshot.outline import (
    KEEP,
    KEPT,
    ElementRef,
    Fingerprint,
    Kept,
    LiveElement,
    Snapshot,
    described,
    describer,
    frame_scope,
    inspect,
    role_and_name,
    snapshot,
)

# Evidence each feature carries. Test ids are kept stable on purpose; ids and classes get
# renamed by refactors and CSS tooling; name and role are gates, so they weigh little here.
WEIGHTS = {
    "test_id": 3.0,
    "context": 3.0,
    "name": 2.0,
    "path": 2.0,
    "text": 1.0,
    "id": 1.0,
    "tag": 1.0,
    "classes": 1.0,
    "attributes": 1.0,
    "words": 2.0,
    "instruction": 2.0,
}
FEATURE_NAMES = {
    "test_id": "test id",
    "context": "surroundings",
    "name": "name",
    "path": "position",
    "text": "text",
    "id": "id",
    "tag": "tag",
    "classes": "classes",
    "attributes": "attributes",
    "words": "identifier words",
    "instruction": "instruction words",
}
VERIFY_THRESHOLD = 0.5  # a hit that passes the gates must still look like the element
SAME_CONTEXT = 0.8  # share of words a verified hit's card, row or form has in common
CONTEXT_FLOOR = 0.5  # share of the words that told the element apart a candidate must have
NAME_FLOOR = 0.8  # a heal candidate's name may differ by a typo or a word, not more
HEAL_THRESHOLD = 0.5
HEAL_MARGIN = 0.1  # the winner's lead over the runner-up; less is ambiguous
WORDS_FLOOR = 0.5  # share of identifier or instruction words that ties a renamed element
PLACE_FLOOR = 0.34  # share of the recorded surroundings' words a candidate's must keep
SAME_PLACE = 0.5  # ...and the share that, with the same name, makes it the only candidate
DECIDING = 0.25  # a feature at least this far ahead of the runner-up's decided the heal
DECIDING_SHOWN = 3  # the strongest of them, in a heal note
POLL_MS = 100  # how often a page still rendering is looked at again
RIVALS = 8  # rivals_of keeps the names of this many elements most alike by name,
RIVAL_FLOOR = 0.5  # ...at least this alike by letters or by words,
NEIGHBOURS = 4  # ...and of this many nearest elements of the role


@dataclass(frozen=True)
class Identity:
    """What makes an element the one a step was recorded on (see RecordedElement)."""

    fingerprint: Fingerprint
    context: str = ""
    distinct: str = ""  # recorded elements only
    # Words a match must show, in its name or around it: the current values of variables
    # the element was chosen by ("add %product% to the cart").
    required: frozenset[str] = frozenset()
    instruction: str = ""  # the step's own words ("type into the new todo input")
    rivals: frozenset[str] = frozenset()  # recorded elements only, names as `_norm` gives
    # Recorded elements only: the container labels its look-alikes lacked (`apart_from`).
    apart: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(
        cls,
        element: RecordedElement,
        required: frozenset[str] = frozenset(),
        instruction: str = "",
    ) -> Identity:
        rivals = frozenset(_norm(name) for name in element.rivals)
        apart = frozenset((kind, label) for kind, label in element.apart)
        return cls(
            element.fingerprint,
            element.context,
            element.distinct,
            required,
            instruction,
            rivals,
            apart,
        )


def context_of(locator: Locator) -> str:
    """The text of the card, row or form around the one element `locator` hits."""
    return inspect(locator).context


def identity_of(locator: Locator, frame_path: Sequence[str] = ()) -> Identity | None:
    """The live identity of the one element `locator` hits; None for none or several."""
    return _identity(inspect(locator, tuple(frame_path)))


def _identity(live: LiveElement) -> Identity | None:
    return None if live.fingerprint is None else Identity(live.fingerprint, live.context)


def recorded_element(page: Page, page_snapshot: Snapshot, ref: ElementRef) -> RecordedElement:
    """What to record for an element of a snapshot, taken before acting on it."""
    own = _looked_at(page, ref)
    look_alikes = [
        _looked_at(page, other)
        for other in page_snapshot.elements.values()
        if other.role == ref.role and _norm(other.name) == _norm(ref.name) and other != ref
    ]
    return RecordedElement(
        selectors=unique_first(page, ref.frame_path, list(ref.candidates) or [ref.selector]),
        frame_path=list(ref.frame_path),
        fingerprint=own.fingerprint,
        context=own.context,
        distinct=distinct_words(own.context, [other.context for other in look_alikes]),
        rivals=rivals_of(ref, page_snapshot),
        apart=apart_from(own, look_alikes),
    )


def _looked_at(page: Page, ref: ElementRef) -> Identity:
    """A snapshot element with what only a look at it reads: the text around it and the
    labels of its containers. One gone since the snapshot keeps its other features."""
    try:
        live = inspect(ref.locator(page), ref.frame_path)
    except PlaywrightError:
        live = None
    if live is None or live.fingerprint is None:
        return Identity(ref.fingerprint)
    return Identity(replace(ref.fingerprint, containers=live.fingerprint.containers), live.context)


def apart_from(own: Identity, look_alikes: Sequence[Identity]) -> list[tuple[str, str]]:
    """The labels of the containers around an element that some look-alike's lack: which
    row, column, dialog or card tells it from the others of its role and name."""
    found = {place for other in look_alikes for place in other.fingerprint.containers}
    differs = [place for place in own.fingerprint.containers if place not in found]
    return differs if look_alikes else []


def relabelled(element: RecordedElement, change: Callable[[str], str | None]) -> RecordedElement:
    """The element with each of its containers' labels changed (None: left out), as
    variable values are masked in a recording and put back in for a replay."""

    def each(places: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        changed = ((kind, change(label)) for kind, label in places)
        return [(kind, label) for kind, label in changed if label is not None]

    containers = tuple(each(element.fingerprint.containers))
    fingerprint = replace(element.fingerprint, containers=containers)
    return element.model_copy(update={"fingerprint": fingerprint, "apart": each(element.apart)})


# Roles that mean the same to a person using them: a link redesigned as a button with the
# same name in the same place still does what it did.
FAMILIES = (
    frozenset({"button", "link"}),
    frozenset({"textbox", "searchbox", "combobox"}),
    frozenset({"checkbox", "switch"}),
)


def family(role: str) -> frozenset[str]:
    return next((roles for roles in FAMILIES if role in roles), frozenset({role}))


def distinct_words(context: str, look_alike_contexts: Sequence[str]) -> str:
    """The words of an element's surroundings that none of its look-alikes' have: what
    tells it from them ("Backpack" for one of many "Add to cart"); "" without look-alikes."""
    shared = {word for other in look_alike_contexts for word in _words(other)}
    distinct = dict.fromkeys(w for w in context.split() if w.casefold() not in shared)
    return " ".join(distinct) if look_alike_contexts else ""


def rivals_of(ref: ElementRef, page_snapshot: Snapshot) -> list[str]:
    """The names, other than its own, of the elements of its role most like it by name,
    then of its nearest neighbours of that role.

    Each was another element when the step was recorded, so a heal that finds one of
    them where the recorded element was has found that other element, however alike it
    looks: "Send to Alicia" beside "Send to Alice", "Newer posts" beside "Older posts",
    "Resume" beside "Pause" in the same card. No list of opposites could name them all.
    """
    own, numbers = _norm(ref.name), _numbers(ref.name)
    same_role = [other for other in page_snapshot.elements.values() if other.role == ref.role]
    names = [_norm(other.name) for other in same_role]
    # Another number is refused anyway (`conflict`): "Open item 750" keeps none of the
    # other 1,499 "Open item" links of its table.
    others = {
        name: other
        for name, other in zip(names, same_role, strict=True)
        if name and name != own and _numbers(name) == numbers
    }
    alike: dict[str, float] = {}
    for name in others:
        matcher = SequenceMatcher(None, own, name)
        if matcher.real_quick_ratio() < RIVAL_FLOOR and not _words(own) & _words(name):
            continue
        score = max(matcher.ratio(), _overlap(own, name) or 0.0)
        if score >= RIVAL_FLOOR:
            alike[name] = score
    rivals = sorted(alike, key=alike.__getitem__, reverse=True)[:RIVALS]
    at = next((i for i, other in enumerate(same_role) if other.id == ref.id), None)
    if at is not None:
        nearest = sorted(range(len(same_role)), key=lambda i: abs(i - at))
        beside = [names[i] for i in nearest if names[i] in others]
        rivals += list(dict.fromkeys(beside))[:NEIGHBOURS]
    return [" ".join(others[name].name.split()) for name in dict.fromkeys(rivals)]


def unique_first(page: Page, frame_path: Sequence[str], selectors: Sequence[str]) -> list[str]:
    """Selectors that hit only this element first, best first; the rest keep their order.

    A role or text selector shared with look-alikes ("Add to cart") cannot be replayed
    first: skipping it on every replay would read as a heal of an unchanged page.
    """
    scope = frame_scope(page, frame_path)
    counts = {}
    for selector in selectors:
        try:
            counts[selector] = scope.locator(selector).count()
        except PlaywrightError:
            counts[selector] = 0
    return sorted(selectors, key=lambda selector: counts[selector] != 1)


# --- scoring -------------------------------------------------------------------------


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _text(a: str | None, b: str | None) -> float | None:
    """Similarity of two texts in [0, 1]; None when neither has one (no evidence)."""
    a, b = _norm(a), _norm(b)
    if not a and not b:
        return None
    return 1.0 if a == b else SequenceMatcher(None, a, b).ratio()


def _same(a: str | None, b: str | None) -> float | None:
    if not a and not b:
        return None
    return 1.0 if a == b else 0.0


def _words(text: str) -> frozenset[str]:
    return frozenset(_norm(text).split())


def _overlap(a: str, b: str) -> float | None:
    """Jaccard similarity of the words of two texts; None when both have none."""
    words_a, words_b = _words(a), _words(b)
    union = words_a | words_b
    return len(words_a & words_b) / len(union) if union else None


def told_apart(recorded: Identity, live: Identity) -> bool:
    """Has `live` most of the words that told the recorded element from its look-alikes?"""
    wanted = _words(recorded.distinct)
    labels = " ".join(label for _, label in live.fingerprint.containers)
    around = _words(live.context) | _words(live.fingerprint.name) | _words(labels)
    return len(wanted & around) >= CONTEXT_FLOOR * len(wanted) and recorded.required <= around


def named_words(recorded: Identity) -> frozenset[str]:
    """The words of the step's instruction that were around the recorded element, other
    than its own name ("Backpack" in "remove the Backpack"): the author chose the element
    by them. A recorded hit must still have them around it; a heal needs them on the
    page: a card that now shows "Bike Light" is another card, however alike the rest."""
    return said_in(recorded.instruction, recorded.context) - _content(recorded.fingerprint.name)


def said_in(instruction: str, text: str) -> frozenset[str]:
    """The words of a step's instruction that `text` has: of a container's, what the
    author named it by ("Account" of "the items of the Account menu")."""
    return (frozenset(_step_words(instruction)) - FILLER) & _content(text)


def _step_words(instruction: str) -> list[str]:
    """The instruction's words in order, a possessive counting as its word ("Jon's")."""
    return [re.sub(r"['’]s$", "", word) for word in _words_in_order(instruction)]


def _joined(words: Sequence[str], i: int) -> set[str]:
    """Word i as a page may spell it: alone or run together with a neighbour ("log in"
    as "login")."""
    return {words[i], *(words[i] + after for after in words[i + 1 : i + 2])} | {
        before + words[i] for before in words[max(i - 1, 0) : i]
    }


def _jaccard(a: Collection[str], b: Collection[str]) -> float | None:
    if not a and not b:
        return None
    return len(set(a) & set(b)) / len(set(a) | set(b))


def _attributes(a: dict[str, str], b: dict[str, str]) -> float | None:
    keys = a.keys() | b.keys()
    if not keys:
        return None
    return sum(_attribute(a.get(key), b.get(key)) for key in keys) / len(keys)


def _attribute(a: str | None, b: str | None) -> float:
    return 1.0 if a == b else _text(a, b) or 0.0  # or 0.0: one side missing, other empty


def _step(a: str, b: str) -> float:
    """Two ancestor steps such as "ul#cart.items": another tag 0, a renamed id or class
    keeps half or more."""
    if a == b:
        return 1.0
    tag_a, tag_b = (step.split("#")[0].split(".")[0] for step in (a, b))
    if tag_a != tag_b:
        return 0.0
    return 0.5 + 0.5 * SequenceMatcher(None, a[len(tag_a) :], b[len(tag_b) :]).ratio()


def _path(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Weighted longest common subsequence of two ancestor paths, over the longer one.

    An added wrapper costs one step out of the path's length.
    """
    if not a and not b:
        return None
    row = [0.0] * (len(b) + 1)
    for x in a:
        diagonal, row[0] = 0.0, 0.0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], max(row[j], row[j - 1], diagonal + _step(x, y))
    return row[-1] / max(len(a), len(b))


# --- words and meaning ---------------------------------------------------------------

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


def _tokens(text: str | None) -> list[str]:
    """Words and numbers of a text, casefolded; a number keeps a currency sign or a percent
    sign written against it, and drops its thousands separators: "$1,000" gives "$1000"."""
    found = TOKEN.findall(CAMEL.sub(" ", text or ""))
    return [
        (_signed(re.sub(r",(?=\d{3}\b)", "", token)) if NUMBER.search(token) else token).casefold()
        for token in found
    ]


def _signed(token: str) -> str:
    """A number token with the signs that say what it counts (€, $, %), no other marks."""
    if not token[-1:].isdigit() and not _is_sign(token[-1]):
        token = token[:-1]
    if token and not token[0].isdigit() and not token[0].isalpha() and not _is_sign(token[0]):
        token = token[1:]
    return token


def _is_sign(char: str) -> bool:
    return char == "%" or unicodedata.category(char) == "Sc"


def _numbers(text: str | None) -> frozenset[str]:
    return frozenset(token for token in _tokens(text) if NUMBER.search(token))


def _counts(text: str | None) -> frozenset[str]:
    """Counts shown beside a label, "(2)" or "[2]": they change as the page is used."""
    return frozenset(COUNT.findall(text or ""))


def _words_in_order(text: str | None) -> list[str]:
    return [token for token in _tokens(text) if not NUMBER.search(token)]


def _content(text: str | None) -> frozenset[str]:
    """The words that say what something is."""
    return frozenset(_words_in_order(text)) - FILLER


def _sources(fingerprint: Fingerprint) -> list[str | None]:
    """Where an element's own words are: test id, id, classes, name, placeholder, ..."""
    attributes = fingerprint.attributes
    return [
        fingerprint.test_id,
        fingerprint.id,
        *fingerprint.classes,
        fingerprint.name,
        *(attributes.get(key) for key in ("name", "placeholder", "title", "aria-label", "alt")),
    ]


def _identifier_words(fingerprint: Fingerprint) -> frozenset[str]:
    """What an element is called in its markup and its labels. Numbers and one-letter
    pieces are generated ("r-7f3a"); left out."""
    words = {w for source in _sources(fingerprint) for w in _words_in_order(source)}
    return frozenset(word for word in words if len(word) > 1) - FILLER


def _spellings(texts: Sequence[str | None]) -> frozenset[str]:
    """Every word of `texts`, and each two neighbours joined: "user-name" also spells
    "username", and "Log in" "login"."""
    found: set[str] = set()
    for text in texts:
        words = _words_in_order(text)
        found.update(words)
        found.update(a + b for a, b in pairwise(words))
    return frozenset(found)


def _instruction_share(instruction: str, candidate: Identity) -> float | None:
    """Share of the instruction's own words ("new", "todo") that the candidate spells out
    in its identifiers, label, text or surroundings; "log in" meets "login-button"."""
    words = _words_in_order(instruction)
    if not words:
        return None
    fp = candidate.fingerprint
    spelled = _spellings([*_sources(fp), fp.text, candidate.context])
    wanted = [i for i, word in enumerate(words) if word not in FILLER]
    if not wanted:
        return None

    return sum(bool(_joined(words, i) & spelled) for i in wanted) / len(wanted)


def _share(wanted: frozenset[str], found: frozenset[str]) -> float | None:
    """Share of `wanted` words in `found`; None when nothing is wanted."""
    return len(wanted & found) / len(wanted) if wanted else None


def _in_dialog(fingerprint: Fingerprint) -> bool:
    return any(
        re.match(r"dialog\b|[^#.]*[#.][^#.]*(modal|dialog)", step) for step in fingerprint.path
    )


def conflict(recorded: Identity, candidate: Identity) -> str | None:
    """How `candidate` differs in meaning from the recorded element, or None.

    One rule (`docs/recordings.md`): a heal may change how an element is found, never what
    it means. What it means is its role's family, its name's words and numbers (with their
    currency and percent signs), and the labels of the containers around it (`_moved`).
    Spelling is not meaning (case, spaces, punctuation, "Log in" and "Login"), nor is a
    count beside a label ("Cart (2)") that the step does not name. Another name is the
    model's call, never a heal's: no list of opposites or negations could name them all.
    """
    return _differs_in_meaning(recorded, candidate) or _rival(recorded, candidate)


def _rival(recorded: Identity, candidate: Identity) -> str | None:
    """The candidate has the name of another element that was beside the recorded one
    (`rivals_of`) when the step was recorded."""
    if _norm(candidate.fingerprint.name) not in recorded.rivals:
        return None
    return "another element of that name was beside it when the step was recorded"


def _differs_in_meaning(recorded: Identity, candidate: Identity) -> str | None:
    r, c = recorded.fingerprint, candidate.fingerprint
    # Frames are told apart by depth: a redesign may rename the iframe itself (its
    # selector changes), but an element never moves into or out of a frame unasked.
    if len(r.frame_path) != len(c.frame_path):
        return "in another frame"
    if family(r.role) != family(c.role):
        return f"another kind of control ({r.role} vs {c.role})"
    if _in_dialog(r) != _in_dialog(c):
        return "inside a dialog" if _in_dialog(c) else "outside the dialog it was in"
    if not _same_icon(r, c):
        return f"another icon ({r.attributes['icon']} vs {c.attributes.get('icon') or 'none'})"
    said = _numbers(recorded.instruction)
    numbers_r, numbers_c = _label_key(r.name, said)[0], _label_key(c.name, said)[0]
    if _counts(r.name) & said:  # a count the step names is no longer free to change
        numbers_r, numbers_c = _numbers(r.name), _numbers(c.name)
    if numbers_r != numbers_c:
        return f"another number ({_listed(numbers_r)} vs {_listed(numbers_c)})"
    if _spelled(r.name) != _spelled(c.name):
        return f"another name ({c.name!r} for {r.name!r})"
    return _moved(recorded, candidate) or _elsewhere(recorded, candidate)


def _spelled(text: str | None) -> str:
    """A name's words as letters only: "Log in", "Login" and "LOG-IN!" spell one name."""
    return "".join(_words_in_order(text))


def _label_key(text: str, said: frozenset[str]) -> tuple[frozenset[str], str]:
    """A label as its meaning: its numbers, but the counts beside it that the step does
    not name ("Cart (2)"), and its words' letters."""
    return _numbers(text) - (_counts(text) - said), _spelled(text)


def _moved(recorded: Identity, candidate: Identity) -> str | None:
    """Is the candidate in another container than the recorded element: another dialog,
    form, fieldset, section, landmark, row, frame, or under another heading?

    Kind by kind, the candidate's nearest label must be among the recorded element's, or
    the recorded element's nearest among the candidate's: a container added or dropped
    around it is markup; one of the same kind with another label is another place. A
    column counts where it told the element from look-alikes in its row, or where the
    step names it (`told_apart`): a button moved to another column is the same button.
    """
    r, c = recorded.fingerprint, candidate.fingerprint
    free = _numbers(recorded.instruction)
    must = set(recorded.apart) | _named_places(recorded)
    kinds = dict.fromkeys(kind for kind, _ in r.containers)  # the headings over it last:
    for kind in sorted(kinds, key=lambda kind: kind == "heading"):  # its containers say more
        if kind == "column" and not any(k == kind for k, _ in must):
            continue
        mine = [label for k, label in r.containers if k == kind]
        theirs = [label for k, label in c.containers if k == kind]
        keys_mine = {_label_key(label, free) for label in mine}
        keys_theirs = {_label_key(label, free) for label in theirs}
        if theirs and not (
            _label_key(mine[0], free) in keys_theirs or _label_key(theirs[0], free) in keys_mine
        ):
            what = repr(r.name) if r.name else describe(r)
            gone = f"{what} is gone from {kind} {mine[0]!r}"
            return f"{gone}; it remains only in {kind} {theirs[0]!r}"
    for kind, label in sorted(must):
        key = _label_key(label, free)
        if not any(k == kind and _label_key(other, free) == key for k, other in c.containers):
            return f"not in {kind} {label!r}, which told it apart when it was recorded"
    return None


def _named_places(recorded: Identity) -> set[tuple[str, str]]:
    """The container labels the step names a word of, other than the element's own name
    ("Confirm" in "confirm deleting the project" names the dialog "Delete project")."""
    fp = recorded.fingerprint
    said = frozenset(_step_words(recorded.instruction)) - FILLER - _content(fp.name)
    return {(kind, label) for kind, label in fp.containers if said & _content(label)}


def _elsewhere(recorded: Identity, candidate: Identity) -> str | None:
    """Is the candidate in another section, form or row than the recorded element?

    The same test id or id says it is the same element whatever the text around it
    became (a reworded form); otherwise the words around it must be mostly kept, and a
    number there (an order, an invoice) must not be replaced by another.
    """
    r, c = recorded.fingerprint, candidate.fingerprint
    if _same_anchor(r, c):
        return None
    own = _content(r.name) | _content(c.name)
    around_r = _content(recorded.context) - own
    around_c = _content(candidate.context) - own
    if around_r and around_c and len(around_r & around_c) < PLACE_FLOOR * len(around_r):
        return f"in another section ({_preview(candidate.context)!r})"
    numbers_r = _numbers(recorded.context) - _numbers(r.name)
    numbers_c = _numbers(candidate.context) - _numbers(c.name)
    if numbers_r - numbers_c and numbers_c - numbers_r:
        gone, new = _listed(numbers_r - numbers_c), _listed(numbers_c - numbers_r)
        return f"in another row ({gone} vs {new})"
    return None


def _same_anchor(r: Fingerprint, c: Fingerprint) -> bool:
    """The same test id or id: the markup says it is the same control."""
    return bool((r.test_id and r.test_id == c.test_id) or (r.id and r.id == c.id))


def _listed(words: frozenset[str] | set[str]) -> str:
    return ", ".join(sorted(words)) or "none"


def _preview(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…"


def similarity(recorded: Identity, candidate: Identity) -> float:
    """How much `candidate` looks like the recorded element, in [0, 1]; 0 for another role.

    Features absent on both sides carry no weight, so an element without a test id is
    not penalised for it.
    """
    if family(recorded.fingerprint.role) != family(candidate.fingerprint.role):
        return 0.0
    return _weighted(_features(recorded, candidate))


def differences(recorded: Identity, live: Identity) -> tuple[str, ...]:
    """What changed since the recording, in the words a reviewer of a heal reads."""
    return tuple(
        FEATURE_NAMES[name]
        for name, value in _features(recorded, live).items()
        # Identifier words repeat the features they come from; the instruction is no
        # part of the element.
        if value is not None and value < 1.0 and name not in ("words", "instruction")
    )


def _features(recorded: Identity, candidate: Identity) -> dict[str, float | None]:
    """Each feature's agreement in [0, 1]; None when neither side has it."""
    r, c = recorded.fingerprint, candidate.fingerprint
    return {
        "test_id": _same(r.test_id, c.test_id),
        "context": _overlap(recorded.context, candidate.context),
        "name": _text(r.name, c.name),
        "path": _path((*r.frame_path, *r.path), (*c.frame_path, *c.path)),
        "text": _text(r.text, c.text),
        "id": _same(r.id, c.id),
        "tag": _same(r.tag, c.tag),
        "classes": _jaccard(r.classes, c.classes),
        "attributes": _attributes(r.attributes, c.attributes),
        "words": _jaccard(_identifier_words(r), _identifier_words(c)),
        "instruction": _instruction_share(recorded.instruction, candidate),
    }


def verify(recorded: Identity, live: Identity) -> bool:
    """Is the element a recorded selector now hits still the recorded one?

    Strict on purpose (a rejected hit only costs a heal, a wrong one clicks the wrong
    thing): the same role and name (ignoring case and spacing), no other test id than the
    recorded one, nearly the same text around it including the words that told it apart
    from look-alikes and those its step names, no `conflict` in meaning (a dialog, a
    frame, a row, another icon on a nameless control), and a close fingerprint.
    """
    r, live_fp = recorded.fingerprint, live.fingerprint
    return (
        r.role == live_fp.role
        and _norm(r.name) == _norm(live_fp.name)
        and (not r.test_id or not live_fp.test_id or r.test_id == live_fp.test_id)
        and _at_least(_overlap(recorded.context, live.context), SAME_CONTEXT)
        and told_apart(recorded, live)
        and named_words(recorded) <= _content(live.context) | _content(live_fp.name)
        and conflict(recorded, live) is None
        # The instruction helps choose among candidates; a recorded hit is checked
        # against what was recorded alone.
        and similarity(replace(recorded, instruction=""), live) >= VERIFY_THRESHOLD
    )


def _same_icon(recorded: Fingerprint, live: Fingerprint) -> bool:
    """An icon-only control's icon is its name: another one in its place is another
    control. A recording made before its kind of icon was read (an icon font) has none."""
    icon = recorded.attributes.get("icon")
    return not icon or bool(live.name) or live.attributes.get("icon") == icon


def describe(fingerprint: Fingerprint) -> str:
    kind = fingerprint.role or fingerprint.tag
    icon = fingerprint.attributes.get("icon")
    if icon and not fingerprint.name:  # an icon-only control: its icon is its name
        return f"{kind} with icon {icon}"
    return f'{kind} "{fingerprint.name}"'


def describe_recorded(element: RecordedElement) -> str:
    """What a recorded element was and where, for a model asked to find it again."""
    fp = element.fingerprint
    parts = [describe(fp)]
    if fp.test_id:
        parts.append(f'with test id "{fp.test_id}"')
    if fp.id:
        parts.append(f'with id "{fp.id}"')
    if element.context:
        parts.append(f'among the words "{_preview(element.context, 120)}"')
    if fp.frame_path:
        parts.append("inside a frame")
    return ", ".join(parts)


def _at_least(score: float | None, floor: float) -> bool:
    """No evidence (None) passes; evidence must reach the floor."""
    return score is None or score >= floor


@dataclass(frozen=True)
class Match:
    """The outcome of scoring a snapshot against a recorded element."""

    element: ElementRef | None  # None: no confident, unambiguous candidate
    score: float
    reason: str
    decided_by: tuple[str, ...] = ()  # the signals that put the winner ahead


@dataclass(frozen=True)
class _Scored:
    score: float
    ref: ElementRef
    features: dict[str, float | None]
    anchored: bool  # tied to the recorded element by more than its place on the page


def best_match(recorded: Identity, page: Page, page_snapshot: Snapshot) -> Match:
    """The one element of a fresh snapshot that is clearly the recorded one, if any.

    Candidates need the recorded role, no `conflict` in meaning and the words that told
    the element apart from look-alikes. The winner must be tied to the recorded element
    by its name (within NAME_FLOOR), its test id or id, or most of its identifier or
    instruction words; score at least HEAL_THRESHOLD; and lead the runner-up by
    HEAL_MARGIN. The runner-up is any candidate, tied or not: a renamed button is not
    taken while an untied one looks as much like it.
    """
    wanted = recorded.fingerprint
    named = named_words(recorded)  # most steps name nothing: the page text is not read then
    gone = named - _content(page_snapshot.text) if named else frozenset()
    if gone:
        return Match(None, 0.0, f"the page no longer shows {_listed(gone)}, which the step names")
    ranked: list[_Scored] = []
    refused: list[tuple[float, ElementRef, str]] = []
    same_name_and_place: list[ElementRef] = []
    for ref in page_snapshot.elements.values():
        if ref.fingerprint.role not in family(wanted.role):
            continue
        candidate = _looked_at(page, ref)
        features = _features(recorded, candidate)
        score = _weighted(features)
        why = conflict(recorded, candidate)
        if why is None and not told_apart(recorded, candidate):
            among = _preview(recorded.distinct)
            why = f"not near the words {among!r} that told the recorded one apart"
        if why is not None:
            refused.append((score, ref, why))
            continue
        ranked.append(_Scored(score, ref, features, _anchored(features)))
        if _norm(ref.fingerprint.name) == _norm(wanted.name) and _kept_place(recorded, candidate):
            same_name_and_place.append(ref)
    near_miss = _near_miss(refused)
    ranked.sort(key=lambda scored: scored.score, reverse=True)
    tied = [scored for scored in ranked if scored.anchored]
    if not tied:
        among = f" near the words {recorded.distinct!r}" if recorded.distinct else ""
        return Match(
            None, 0.0, f"no {describe(wanted)} (or a renamed one){among} on the page" + near_miss
        )
    best = tied[0]
    shown = f"{describe(best.ref.fingerprint)} scored {best.score:.2f}"
    runner = next((scored for scored in ranked if scored is not best), None)
    if best.score < HEAL_THRESHOLD:
        # A redesign may rename the test id, the classes and the path all at once. The
        # only element with the recorded role and exact name, in the same surroundings,
        # is still the recorded one: nothing else on the page could be mistaken for it.
        if same_name_and_place == [best.ref]:
            return Match(
                best.ref,
                best.score,
                f"{shown}, the only one with its name and surroundings",
                ("name", "the only one of its role and name", "surroundings"),
            )
        return Match(
            None, best.score, f"the best candidate, {shown}, is below {HEAL_THRESHOLD}" + near_miss
        )
    if runner is not None and best.score - runner.score < HEAL_MARGIN:
        other = f"{describe(runner.ref.fingerprint)} scored {runner.score:.2f}"
        return Match(
            None,
            best.score,
            f"ambiguous: {shown} and {other} (a lead of {HEAL_MARGIN} is needed)" + near_miss,
        )
    return Match(best.ref, best.score, shown, _deciding(best, runner))


def _kept_place(recorded: Identity, candidate: Identity) -> bool:
    """Most words around the recorded element are around the candidate, in any order (a
    rebuilt page reorders its blocks); or, recorded outside any card, row or form, the
    candidate is outside one too."""
    if not recorded.context:
        return not candidate.context
    kept = _share(_content(recorded.context), _content(candidate.context))
    return kept is not None and kept >= SAME_PLACE


def _weighted(features: dict[str, float | None]) -> float:
    present = {name: value for name, value in features.items() if value is not None}
    total = sum(WEIGHTS[name] for name in present)
    return sum(WEIGHTS[name] * value for name, value in present.items()) / total if total else 0.0


def _anchored(features: dict[str, float | None]) -> bool:
    return (
        _at_least(features["name"], NAME_FLOOR)
        or features["test_id"] == 1.0
        or features["id"] == 1.0
        or (features["words"] or 0.0) >= WORDS_FLOOR
        or (features["instruction"] or 0.0) >= WORDS_FLOOR
    )


def _deciding(best: _Scored, runner: _Scored | None) -> tuple[str, ...]:
    """The signals in which the winner is well ahead of the runner-up (or, alone, agrees)."""

    def lead(name: str) -> float:
        value = best.features[name]
        if value is None:
            return 0.0
        against = (runner.features[name] or 0.0) if runner is not None else 0.0
        return WEIGHTS[name] * (value - against)

    ahead = [name for name in WEIGHTS if lead(name) >= DECIDING * WEIGHTS[name]]
    ahead.sort(key=lead, reverse=True)
    return tuple(FEATURE_NAMES[name] for name in ahead[:DECIDING_SHOWN])


def _near_miss(refused: list[tuple[float, ElementRef, str]]) -> str:
    """The look-alike a careless heal would have taken, and why it was not."""
    if not refused:
        return ""
    score, ref, why = max(refused, key=lambda item: item[0])
    return f"; the nearest, {describe(ref.fingerprint)} ({score:.2f}), was refused: {why}"


# --- replay --------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolution:
    """Where a recorded element is now, and the heal that found it, if one was needed."""

    locator: Locator
    # What to record from now on (unchanged without a heal). Its first selector hits the
    # element alone: the one to act with.
    element: RecordedElement
    heal: Heal | None = None
    stand_in: str | None = None  # STAND_IN as read with the lookup; None: not read
    kept: Kept | None = None  # where the page keeps the element found (KEEP); None: not kept


def resolve(
    page: Page,
    element: RecordedElement,
    *,
    wait_ms: float = 2000,
    required: frozenset[str] = frozenset(),
    instruction: str = "",
    click: bool = False,
    at_once: bool = False,
) -> Resolution:
    """Find a recorded element, verified, healing without a model if the page changed.

    1. Each recorded selector in order: it must hit exactly one element, and that element
       must `verify`. A later selector verifying is a "locator" heal. A page still
       rendering gets `wait_ms` for one to verify.
    2. Otherwise score a fresh snapshot (`best_match`): a "fingerprint" heal.
    3. Otherwise raise HealFailed saying what each selector hit and why no candidate was
       taken; the caller may then ask a model, if the cache mode allows.

    `instruction`, the step's own words, is one more signal for the fingerprint heal.
    `click`: a click on the element follows at once. The look then readies it (LOOK),
    which saves the click a round trip; a click it readied for an element that is not
    the one resolved is called off.
    `at_once`: only the first selector's element, verified in one look; anything else
    (nothing, several, another element, a heal) raises HealFailed with no wait and no
    heal tried, for a caller that settles the page and resolves again.
    """
    readied: Kept | None = None  # the element of the last click a look readied

    def look() -> list[LiveElement | None]:
        nonlocal readied
        lives = light_hits(page, element, click=click)
        first = lives[0] if lives else None
        if first is not None and first.kept is not None and first.kept.point is not None:
            readied = first.kept  # its guard replaced any an earlier look set
        return lives

    recorded = Identity.of(element, required, instruction)
    resolution = None
    try:
        if at_once:
            resolution = _replay(frame_scope(page, element.frame_path), element, recorded,
                                 [], [], look())  # fmt: skip
            if resolution is None or resolution.heal is not None:
                resolution = None
                raise HealFailed(
                    f"The recorded {describe(recorded.fingerprint)} did not verify at once."
                )
        else:
            resolution = _resolve(page, element, recorded, look, wait_ms)
        return resolution
    finally:
        if readied is not None and (resolution is None or resolution.kept != readied):
            with suppress(PlaywrightError):
                page.evaluate(READ_GUARD)  # which also lets the guard go


def _resolve(
    page: Page,
    element: RecordedElement,
    recorded: Identity,
    look: Callable[[], list[LiveElement | None]],
    wait_ms: float,
) -> Resolution:
    scope = frame_scope(page, element.frame_path)
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        tried: list[str] = []
        settled: list[str] = []
        found = _replay(scope, element, recorded, tried, settled, look())
        if found is not None and found.heal is not None:
            # The element may have rendered mid-pass, after its first selectors found
            # nothing: a second look keeps that from passing for a heal.
            found = _replay(scope, element, recorded, [], [], look()) or found
        if found is not None:
            return found
        # While some selector finds nothing or several, the page may still be rendering:
        # wait. When each finds one element and none verifies, waiting will not help.
        if len(settled) == len(element.selectors) or time.monotonic() >= deadline:
            break
        page.wait_for_timeout(POLL_MS)
    fresh = snapshot(page)
    match = best_match(recorded, page, fresh)
    if match.element is None:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was not found safely.\n"
            + "".join(f"  {line}\n" for line in tried)
            + f"  without a model: {match.reason}."
        )
    healed = recorded_element(page, fresh, match.element)
    if frame_scope(page, healed.frame_path).locator(healed.selectors[0]).count() != 1:
        raise HealFailed(
            f"The recorded {describe(recorded.fingerprint)} was found by its fingerprint, "
            "but no selector hits it alone: it cannot be acted on safely."
        )
    changed = differences(recorded, Identity.of(healed))
    if not changed and healed.selectors[0] == element.selectors[0]:
        # The recorded element itself, rendered after the look above gave up: no heal.
        return Resolution(match.element.locator(page), element)
    heal = Heal(
        "fingerprint",
        element.selectors[0],
        healed.selectors[0],
        match.score,
        changed,
        match.decided_by,
    )
    return Resolution(match.element.locator(page), healed, heal)


def _replay(
    scope: Page | FrameLocator,
    element: RecordedElement,
    recorded: Identity,
    tried: list[str],
    settled: list[str],
    light: Sequence[LiveElement | None],
) -> Resolution | None:
    """The first recorded selector that hits one element which verifies; notes the rest
    in `tried`, and in `settled` those that hit exactly one element. `light` holds what
    each selector hits as `light_hits` read it; where it is None, Playwright looks."""
    for index, selector in enumerate(element.selectors):
        hits = light[index]
        # What our roles found, the selector that found it alone finds for Playwright too.
        confirmed_by = hits.kept.confirmed_by if hits and hits.kept else ""
        locator = scope.locator(confirmed_by or selector)
        try:
            hits = hits or inspect(locator, tuple(element.frame_path))
        except PlaywrightError as exc:
            tried.append(f"{selector} → invalid ({str(exc).splitlines()[0]})")
            continue
        if hits.count == 1:
            settled.append(selector)
        live = _identity(hits)
        if live is None:
            tried.append(f"{selector} → {hits.count} elements")
        elif not verify(recorded, live):
            tried.append(f"{selector} → {describe(live.fingerprint)}, not the recorded element")
        elif index == 0:
            return Resolution(locator, element, stand_in=hits.stand_in, kept=hits.kept)
        else:
            healed = element.model_copy(
                update={
                    "selectors": element.selectors[index:],
                    "fingerprint": live.fingerprint,
                    "context": live.context,
                }
            )
            heal = Heal(
                "locator",
                element.selectors[0],
                selector,
                similarity(recorded, live),
                differences(recorded, live),
            )
            return Resolution(locator, healed, heal, kept=hits.kept)
    return None


# --- reading what recorded selectors hit, in one round trip ----------------------------

# Which of `found` (what plain selectors found, each an array or null) holds alone the one
# element our roles and names find for [role, name] (describer's byRole); -1 for none:
# then only Playwright's engine can tell what the role selector finds. Confirmed so, the
# element is the recorded one where it was recorded: the role query never stands alone.
CONFIRMED_BY = """(describe, [role, name], found, memo) => {
  const byRole = describe.byRole(role, name, memo, 2);
  if (byRole.length !== 1) return -1;
  return found.findIndex((f) => f !== null && f.length === 1 && f[0] === byRole[0]);
}"""

# [the key the elements found are kept by (KEEP), per selector: [count, description of
# the one element, what stands in for it when clicked (STAND_IN; for the first selector
# only), the index of the plain selector that confirms it (for a role selector)] where
# the page itself can tell, else null]. A plain selector is found with the browser's own
# querySelectorAll or document.evaluate (`PLAIN_QUERY`). A role selector, given as [role,
# name], ahead of the first plain selector that finds one element, with our roles and
# names (describer's byRole), and only when that finds one element which a plain
# selector also finds alone: the recorded element, where it was. Anything else is
# Playwright's engine's to tell. An element hit by several selectors is described once;
# what the selectors and descriptions need to know of the whole document (its shadow
# roots, ids, labels) is read once.
LIGHT_HITS = f"""(describe, selectors) => {{
  const query = {PLAIN_QUERY};
  let light;
  const lightOnly = () => light ??= ({NO_SHADOW_ROOTS})();
  const memo = {{}};
  const plain = (index) => typeof selectors[index] === "string";
  const found = selectors.map((s, index) => plain(index) ? query(s, lightOnly) : null);
  const one = (f) => f !== null && f.length === 1;
  const first = found.findIndex(one);
  const confirmed = [];
  selectors.forEach((selector, index) => {{
    if (plain(index) || index > first) return;
    const by = ({CONFIRMED_BY})(describe, selector, found, memo);
    if (by >= 0) [found[index], confirmed[index]] = [found[by], by];
  }});
  const described = new Map();
  const kept = [];
  const hits = found.map((f, index) => {{
    kept.push(f && f.length === 1 ? f[0] : null);
    if (f === null || f.length !== 1) return f && [f.length, null, null, null];
    const el = f[0];
    if (!described.has(el)) described.set(el, describe(el, memo));
    const standIn = index === 0 ? ({STAND_IN})(el) : null;
    return [1, described.get(el), standIn, confirmed[index] ?? null];
  }});
  return [({KEEP})(kept), hits];
}}"""


# LIGHT_HITS, and where `click` and the first selector finds one element in view that a
# click would reach, that click readied there and then (DIRECT, without scrolling): its
# point, else null. The element is yet to be verified: the point goes to the action only
# with the element verified, and `resolve` lets the guard go otherwise. As JSON:
# Playwright's own serialization of the descriptions would cost more than the look.
LOOK = f"""(describe, [selectors, click]) => {{
  const [key, hits] = ({LIGHT_HITS})(describe, selectors);
  const ready = click && hits[0] && hits[0][0] === 1 && hits[0][2] === "";
  const point = ready ? ({DIRECT})([{KEPT}.elements[0]], ["click", "", true]) : null;
  return JSON.stringify([key, hits, point]);
}}"""


def light_hits(
    page: Page, element: RecordedElement, click: bool = False
) -> list[LiveElement | None]:
    """What each recorded selector hits now, read in the page itself in one round trip
    (LIGHT_HITS): no Playwright selector engine is injected into the page's world for it,
    which a raw Playwright action does not pay for either. The describer goes to a
    document once (`page_scripts`).
    None where only Playwright can tell: its own selector syntax (but for a role selector
    whose element a plain selector confirms), elements inside frames, CSS on a page with
    shadow roots. With `click`, the first selector's element is readied for a click (LOOK).
    """
    selectors = element.selectors
    asked: list[str | tuple[str, str]] = [
        s if is_plain(s) else role_and_name(s) or "" for s in selectors
    ]
    if element.frame_path or not any(isinstance(s, str) and s for s in asked):
        return [None] * len(selectors)
    try:
        seen = page_scripts.call(page, [describer()], LOOK, [asked, click])
        key, hits, point = json.loads(seen)
    except PlaywrightError:
        return [None] * len(selectors)  # a navigation replaced the document: ask Playwright
    lives: list[LiveElement | None] = []
    for index, (hit, selector) in enumerate(zip(hits, asked, strict=True)):
        if hit is None or selector == "":
            lives.append(None)
        elif hit[1] is None:
            lives.append(LiveElement(hit[0]))
        else:
            ref, context = described(hit[1])
            confirmed_by = "" if hit[3] is None else selectors[hit[3]]
            kept = Kept(key, index, confirmed_by, tuple(point) if point and not index else None)
            lives.append(LiveElement(1, ref.fingerprint, context, hit[2], kept=kept))
    return lives
