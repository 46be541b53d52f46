"""Whether a live element means what a recorded one meant: the words and tokens of its name
and containers, scored by features, and the heal rule's gates (docs/recordings.md).

Kept whole: the features, the gates and `best_match` are one rule, read in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from itertools import pairwise

from playwright.sync_api import Page

from pytest_stagehand.events import shortened
from pytest_stagehand.heal.destination import sends_elsewhere
from pytest_stagehand.heal.identity import Identity, family, looked_at_all
from pytest_stagehand.heal.words import (
    FILLER,
    content_words,
    counts_in,
    jaccard,
    listed,
    normalised,
    numbers_in,
    numbers_in_order,
    overlap,
    same_text,
    spelling_of,
    steady,
    text_score,
    traded,
    undated,
    words_in_order,
    words_of,
)
from pytest_stagehand.recordings.format import RecordedElement
from pytest_stagehand.snapshot.element import ElementRef, Fingerprint, describe
from pytest_stagehand.snapshot.outline import Snapshot

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

def told_apart(recorded: Identity, live: Identity) -> bool:
    """Has `live` most of the words that told the recorded element from its look-alikes?"""
    wanted = words_of(recorded.distinct)
    labels = " ".join(label for _, label in live.fingerprint.containers)
    around = words_of(live.context) | words_of(live.fingerprint.name) | words_of(labels)
    return len(wanted & around) >= CONTEXT_FLOOR * len(wanted) and recorded.required <= around


def named_words(recorded: Identity) -> frozenset[str]:
    """The words of the step's instruction that were around the recorded element, other
    than its own name ("Backpack" in "remove the Backpack"): the author chose the element
    by them. A recorded hit must still have them around it; a heal needs them on the
    page: a card that now shows "Bike Light" is another card, however alike the rest."""
    said = said_in(recorded.instruction, recorded.context)
    return said - content_words(recorded.fingerprint.name)


def said_in(instruction: str, text: str) -> frozenset[str]:
    """The words of a step's instruction that `text` has: of a container's, what the
    author named it by ("Account" of "the items of the Account menu")."""
    return (frozenset(_step_words(instruction)) - FILLER) & content_words(text)


def _step_words(instruction: str) -> list[str]:
    """The instruction's words in order, a possessive counting as its word ("Jon's")."""
    return [re.sub(r"['’]s$", "", word) for word in words_in_order(instruction)]


def _joined(words: Sequence[str], i: int) -> set[str]:
    """Word i as a page may spell it: alone or run together with a neighbour ("log in"
    as "login")."""
    return {words[i], *(words[i] + after for after in words[i + 1 : i + 2])} | {
        before + words[i] for before in words[max(i - 1, 0) : i]
    }


def _attributes(a: dict[str, str], b: dict[str, str]) -> float | None:
    keys = a.keys() | b.keys()
    if not keys:
        return None
    return sum(_attribute(a.get(key), b.get(key)) for key in keys) / len(keys)


def _attribute(a: str | None, b: str | None) -> float:
    return 1.0 if a == b else text_score(a, b) or 0.0  # or 0.0: one side missing, other empty


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
    words = {w for source in _sources(fingerprint) for w in words_in_order(source)}
    return frozenset(word for word in words if len(word) > 1) - FILLER


def _spellings(texts: Sequence[str | None]) -> frozenset[str]:
    """Every word of `texts`, and each two neighbours joined: "user-name" also spells
    "username", and "Log in" "login"."""
    found: set[str] = set()
    for text in texts:
        words = words_in_order(text)
        found.update(words)
        found.update(a + b for a, b in pairwise(words))
    return frozenset(found)


def _instruction_share(instruction: str, candidate: Identity) -> float | None:
    """Share of the instruction's own words ("new", "todo") that the candidate spells out
    in its identifiers, label, text or surroundings; "log in" meets "login-button"."""
    words = words_in_order(instruction)
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
    if normalised(candidate.fingerprint.name) not in recorded.rivals:
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
    said = numbers_in(recorded.instruction)
    numbers_r, numbers_c = _label_key(r.name, said)[0], _label_key(c.name, said)[0]
    if counts_in(r.name) & said:  # a count the step names is no longer free to change
        numbers_r, numbers_c = numbers_in_order(r.name), numbers_in_order(c.name)
    if set(numbers_r) != set(numbers_c):
        return f"another number ({listed(set(numbers_r))} vs {listed(set(numbers_c))})"
    if numbers_r != numbers_c:
        return f"its numbers in another order ({', '.join(numbers_r)} vs {', '.join(numbers_c)})"
    if spelling_of(r.name) != spelling_of(c.name) and not _named_for_its_place(recorded, c):
        return f"another name ({c.name!r} for {r.name!r})"
    return (
        sends_elsewhere(recorded, candidate)
        or _moved(recorded, candidate)
        or _elsewhere(recorded, candidate)
    )


def _named_for_its_place(recorded: Identity, candidate: Fingerprint) -> bool:
    """A control recorded with no name has one now that names what told it apart from its
    look-alikes then (Django's row checkboxes, named for their row's object since 5.0):
    its meaning was its place, and the name says the same place. A name lost is never
    this: what the name said can no longer be checked."""
    if recorded.fingerprint.name or not candidate.name:
        return False
    told = [label for _, label in recorded.apart]
    named = content_words(candidate.name)
    return bool(told) and all(content_words(label) <= named for label in told)


def _label_key(text: str, said: frozenset[str]) -> tuple[tuple[str, ...], str]:
    """A label as its meaning: its numbers in order, but the counts beside it that the step
    does not name ("Cart (2)"), and its words' letters; a time told relative to now ("3s
    ago" in a file's list item) moves with the clock, and is no part of it."""
    text = steady(text)
    free = counts_in(text) - said
    return tuple(n for n in numbers_in_order(text) if n not in free), spelling_of(text)


SAYS = "description"  # the container kind of what an element's description says it does


def _description_key(text: str, said: frozenset[str]) -> tuple[tuple[str, ...], str]:
    """A description as its meaning (`_label_key`): a date or clock time in it ("Last
    saved at 14:02") says when, and moves with the clock on a page that did not change."""
    return _label_key(undated(text), said)


def _moved(recorded: Identity, candidate: Identity) -> str | None:
    """Is the candidate in another container than the recorded element: another dialog,
    form, fieldset, section, landmark, row, list item, message, frame, tab panel, menu,
    list, group, table, under another heading, or described otherwise (snapshot.js's
    `containersOf`)?

    Kind by kind, the candidate's nearest label must be among the recorded element's, or
    the recorded element's nearest among the candidate's: a container added or dropped
    around it is markup; one of the same kind with another label is another place. A
    column counts where it told the element from look-alikes in its row, or where the
    step names it (`told_apart`): a button moved to another column is the same button.
    """
    r, c = recorded.fingerprint, candidate.fingerprint
    free = numbers_in(recorded.instruction)
    # A description comes and goes with the page's state (a tooltip, a message): compared
    # where both show one, never required.
    must = {place for place in set(recorded.apart) | _named_places(recorded) if place[0] != SAYS}
    kinds = dict.fromkeys(kind for kind, _ in r.containers)  # the headings over it last:
    for kind in sorted(kinds, key=lambda kind: kind == "heading"):  # its containers say more
        if kind == "column" and not any(k == kind for k, _ in must):
            continue
        mine = [label for k, label in r.containers if k == kind]
        theirs = [label for k, label in c.containers if k == kind]
        key = _description_key if kind == SAYS else _label_key
        keys_mine = {key(label, free) for label in mine}
        keys_theirs = {key(label, free) for label in theirs}
        if theirs and not (key(mine[0], free) in keys_theirs or key(theirs[0], free) in keys_mine):
            what = repr(r.name) if r.name else describe(r)
            if kind == SAYS:
                return f"{what} is now described {theirs[0]!r}, recorded {mine[0]!r}"
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
    said = frozenset(_step_words(recorded.instruction)) - FILLER - content_words(fp.name)
    return {(kind, label) for kind, label in fp.containers if said & content_words(label)}


def _elsewhere(recorded: Identity, candidate: Identity) -> str | None:
    """Is the candidate in another section, form or row than the recorded element?

    The same test id or id says it is the same element whatever the text around it
    became (a reworded form); otherwise the words around it must be mostly kept, and a
    number there (an order, an invoice) must not be replaced by another. A date or clock
    time there says when, not which (a tiddler the test made shows the minute it was made):
    what tells look-alikes apart is held to by `told_apart`.
    """
    r, c = recorded.fingerprint, candidate.fingerprint
    if _same_anchor(r, c):
        return None
    own = content_words(r.name) | content_words(c.name)
    context_r, context_c = undated(recorded.context), undated(candidate.context)
    around_r = content_words(context_r) - own
    around_c = content_words(context_c) - own
    if around_r and around_c and len(around_r & around_c) < PLACE_FLOOR * len(around_r):
        return f"in another section ({shortened(candidate.context)!r})"
    numbers_r = numbers_in(context_r) - numbers_in(r.name)
    numbers_c = numbers_in(context_c) - numbers_in(c.name)
    if numbers_r - numbers_c and numbers_c - numbers_r:
        gone, new = listed(numbers_r - numbers_c), listed(numbers_c - numbers_r)
        return f"in another row ({gone} vs {new})"
    return None


def _same_anchor(r: Fingerprint, c: Fingerprint) -> bool:
    """The same test id or id: the markup says it is the same control."""
    return bool((r.test_id and r.test_id == c.test_id) or (r.id and r.id == c.id))


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
        "test_id": same_text(r.test_id, c.test_id),
        "context": overlap(recorded.context, candidate.context),
        "name": text_score(r.name, c.name),
        "path": _path((*r.frame_path, *r.path), (*c.frame_path, *c.path)),
        "text": text_score(r.text, c.text),
        "id": same_text(r.id, c.id),
        "tag": same_text(r.tag, c.tag),
        "classes": jaccard(r.classes, c.classes),
        "attributes": _attributes(r.attributes, c.attributes),
        "words": jaccard(_identifier_words(r), _identifier_words(c)),
        "instruction": _instruction_share(recorded.instruction, candidate),
    }


def verify(recorded: Identity, live: Identity) -> bool:
    """Is the element a recorded selector now hits still the recorded one?

    Strict on purpose (a rejected hit only costs a heal, a wrong one clicks the wrong
    thing): the same role and name (ignoring case and spacing), no other test id than the
    recorded one, nearly the same text around it including the words that told it apart
    from look-alikes and those its step names, no `conflict` in meaning (a dialog, a
    frame, a row, another icon), and a close fingerprint.
    """
    r, live_fp = recorded.fingerprint, live.fingerprint
    return (
        r.role == live_fp.role
        and normalised(r.name) == normalised(live_fp.name)
        and (not r.test_id or not live_fp.test_id or r.test_id == live_fp.test_id)
        and _at_least(overlap(undated(recorded.context), undated(live.context)), SAME_CONTEXT)
        and told_apart(recorded, live)
        and named_words(recorded) <= content_words(live.context) | content_words(live_fp.name)
        and conflict(recorded, live) is None
        # The instruction helps choose among candidates; a recorded hit is checked
        # against what was recorded alone.
        and similarity(replace(recorded, instruction=""), live) >= VERIFY_THRESHOLD
    )


def _same_icon(recorded: Fingerprint, live: Fingerprint) -> bool:
    """An icon-only control's icon is its name: another one in its place is another
    control. A named control's glyph may say what its name does not ("file-pdf" beside
    "Download"): a glyph that trades those words for others is another control; one
    another icon set draws ("filetype-pdf"), that pictures the name, or that is gone is
    the same. A recording made before its kind of icon was read (an icon font) has none."""
    icon = recorded.attributes.get("icon")
    if not icon:
        return True
    if not recorded.name:
        return bool(live.name) or live.attributes.get("icon") == icon
    named = content_words(recorded.name) | content_words(live.name)
    return not traded(icon, live.attributes.get("icon"), named)


def describe_recorded(element: RecordedElement) -> str:
    """What a recorded element was and where, for a model asked to find it again."""
    fp = element.fingerprint
    parts = [describe(fp)]
    if fp.test_id:
        parts.append(f'with test id "{fp.test_id}"')
    if fp.id:
        parts.append(f'with id "{fp.id}"')
    if element.context:
        parts.append(f'among the words "{shortened(element.context, 120)}"')
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


def best_match(
    recorded: Identity,
    page: Page,
    page_snapshot: Snapshot,
    candidates: Sequence[tuple[ElementRef, Identity]] | None = None,
) -> Match:
    """The one element of a fresh snapshot that is clearly the recorded one, if any.

    Candidates need the recorded role, no `conflict` in meaning and the words that told
    the element apart from look-alikes. The winner must be tied to the recorded element
    by its name (within NAME_FLOOR), its test id or id, most of its identifier or
    instruction words, or a name it gained that names its place; score at least
    HEAL_THRESHOLD; and lead the runner-up by HEAL_MARGIN. The runner-up is any
    candidate, tied or not: a renamed button is not taken while an untied one looks as
    much like it.
    `candidates`: the elements to choose among, each with its identity, where the caller
    knows them (an extract's value: the elements showing one); else the snapshot's.
    """
    wanted = recorded.fingerprint
    named = named_words(recorded)  # most steps name nothing: the page text is not read then
    gone = named - content_words(page_snapshot.text) if named else frozenset()
    if gone:
        return Match(None, 0.0, f"the page no longer shows {listed(gone)}, which the step names")
    ranked: list[_Scored] = []
    refused: list[tuple[float, ElementRef, str]] = []
    same_name_and_place: list[ElementRef] = []
    if candidates is None:
        refs = [
            ref
            for ref in page_snapshot.elements.values()
            if ref.fingerprint.role in family(wanted.role)
        ]
        candidates = list(zip(refs, looked_at_all(page, refs), strict=True))
    for ref, candidate in candidates:
        if candidate.fingerprint.role not in family(wanted.role):
            continue
        features = _features(recorded, candidate)
        score = _weighted(features)
        why = conflict(recorded, candidate)
        if why is None and not told_apart(recorded, candidate):
            among = shortened(recorded.distinct)
            why = f"not near the words {among!r} that told the recorded one apart"
        if why is not None:
            refused.append((score, ref, why))
            continue
        tied = _anchored(features) or _named_for_its_place(recorded, candidate.fingerprint)
        ranked.append(_Scored(score, ref, features, tied))
        same_name = normalised(candidate.fingerprint.name) == normalised(wanted.name)
        if same_name and _kept_place(recorded, candidate):
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
    kept = _share(content_words(recorded.context), content_words(candidate.context))
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
