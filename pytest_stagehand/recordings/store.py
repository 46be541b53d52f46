"""Recorded steps: keys, the recording format, the shared store and the cache modes.

A step resolved once by a model is recorded and replayed later with no model. Recordings
live in two places:

- a JSON file per test module next to the tests (`__stagehand__/<module>.json`), which a
  team commits and reviews: one stable text form, so a new step or a heal is a small diff;
- a diskcache store under the cache dir, which pytest-xdist workers share safely during a
  run (new recordings, heals and "used" marks). The session's controller merges it into
  the JSON files at the end of the run (`RecordingStore.flush`).

What gets replayed (with verification and healing) is `heal.py`'s job; this module only
keeps recordings safe and says which mode allows what (`CachePolicy`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import sqlite3
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

import diskcache
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from pytest_stagehand.errors import CacheError, CacheMiss, RecordingFileError, StoreError
from pytest_stagehand.events import SHORT_SECRET, Heal, secret_pattern
from pytest_stagehand.settings import CacheMode
from pytest_stagehand.snapshot.outline import Fingerprint

StepKind = Literal["act", "extract", "observe", "assert", "agent"]
FILE_VERSION = 1
RECORDINGS_DIR = "__stagehand__"
MAX_HEAL_NOTES = 10  # the history a reviewer needs, without growing forever
USED_MARK_S = 7 * 24 * 3600  # a session's "used" marks outlive any session that flushes
FLUSH_LOCK_S = 600  # a flusher that died holding the lock holds it no longer than this


# --- keys ----------------------------------------------------------------------------


def normalise_url(url: str, share_origins: bool = True) -> str:
    """The part of a URL that names a page for the cache: path, sorted query, hash route.

    With `share_origins` the scheme and host are left out, so steps recorded against
    staging replay against production. Fragments are kept only when they are routes
    (`#/cart`, `#!/cart`); anchors (`#top`) do not make another page.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        return url.strip()  # about:blank, data:, file: name themselves
    origin = "" if share_origins else f"{parts.scheme}://{parts.netloc.lower()}"
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    route = parts.fragment if parts.fragment.startswith(("/", "!")) else ""
    return (
        origin
        + (parts.path or "/")
        + (f"?{query}" if query else "")
        + (f"#{route}" if route else "")
    )


@dataclass(frozen=True)
class StepKey:
    """What identifies a recorded step: kind, instruction, page, variable NAMES, the scope
    it was limited to, and which use of the same step in one test it is (the second "click
    Continue" on one page gets its own recording).

    Variable values are never part of a key (or of anything recorded): the same step
    replays for every user name or password.
    """

    kind: StepKind
    instruction: str
    url: str  # already normalised; build keys with `step_key`
    variables: tuple[str, ...] = ()
    scope: str | None = None
    occurrence: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "instruction", " ".join(self.instruction.split()))
        object.__setattr__(self, "variables", tuple(sorted(set(self.variables))))

    @property
    def digest(self) -> str:
        parts: list[object] = [self.kind, self.instruction, self.url, list(self.variables)]
        if self.scope is not None or self.occurrence != 1:  # older keys keep their digest
            parts += [self.scope, self.occurrence]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    def describe(self) -> str:
        names = f" with variables {', '.join(self.variables)}" if self.variables else ""
        scope = f" in {self.scope}" if self.scope is not None else ""
        again = f" (use {self.occurrence} in the test)" if self.occurrence != 1 else ""
        return f"{self.kind} {self.instruction!r} on {self.url}{scope}{names}{again}"


def step_key(
    kind: StepKind,
    instruction: str,
    url: str,
    variables: Iterable[str] = (),
    *,
    share_origins: bool = True,
    scope: str | None = None,
    occurrence: int = 1,
) -> StepKey:
    """The key of a step; `variables` may be the variables dict itself (only names are used)."""
    url = normalise_url(url, share_origins)
    return StepKey(kind, instruction, url, tuple(variables), scope, occurrence)


def nearby_keys(key: StepKey, recorded: Iterable[StepKey], most: int = 3) -> list[StepKey]:
    """Recorded steps a missing one may have been meant to be: the same instruction keyed
    otherwise (another page, variables or use), then a reworded one on the same page."""
    same_words = [k for k in recorded if k.kind == key.kind and k != key]
    exact = [k for k in same_words if k.instruction == key.instruction]
    similar = sorted(
        (
            (ratio, k)
            for k in same_words
            if k.url == key.url and k.instruction != key.instruction
            if (ratio := _likeness(k.instruction, key.instruction)) >= 0.8
        ),
        key=lambda pair: -pair[0],
    )
    return (exact + [k for _, k in similar])[:most]


def _likeness(a: str, b: str) -> float:
    """1.0 for the same words; "log-in" for "login" is 0.98, "logout" for it 0.89, "click
    the Shop link" for "click the login button" 0.63."""
    return SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _miss_hint(key: StepKey, nearby: Sequence[StepKey]) -> str:
    """What a CacheMiss says of the recordings it found for other keys."""
    if not nearby:
        return ""
    lines = "".join(f"\n  - {k.describe()}" for k in nearby)
    hint = (
        "\nThat file has recordings of this step for another page, other variables or "
        f"another use in the test, or of one worded alike:{lines}"
    )
    keyed_by_origin = [k.url.startswith(("http://", "https://")) for k in [key, *nearby]]
    if any(keyed != keyed_by_origin[0] for keyed in keyed_by_origin[1:]):
        hint += (
            "\nRecordings made with --ai-cache-per-origin name pages with their origin, and "
            "those made without it do not: replay with the setting they were recorded with."
        )
    return hint + "\nIf the step moved or was reworded, record it again (below)."


# --- the recording format ------------------------------------------------------------


def _canonical(value: Any) -> Any:
    """Dicts with sorted keys, all the way down, so free-form payloads print stably."""
    if isinstance(value, dict):
        return {key: _canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value


def _fingerprint(value: Any) -> Fingerprint:
    if isinstance(value, Fingerprint):
        return value
    if not isinstance(value, dict):
        raise ValueError("expected an object with the element's tag, role, name, ...")
    try:
        return Fingerprint.from_dict(value)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a valid fingerprint ({type(exc).__name__}: {exc})") from None


FingerprintField = Annotated[
    Fingerprint,
    PlainValidator(_fingerprint),
    PlainSerializer(lambda fp: _canonical(fp.to_dict())),
]


class _Model(BaseModel):
    # Frozen: recordings are values; change them with model_copy. Extra keys are refused
    # so a typo in a hand-edited file is reported, not silently ignored.
    model_config = ConfigDict(frozen=True, extra="forbid")


class RecordedElement(_Model):
    """The element an action targets: locators best first, and what it looked like."""

    selectors: list[str] = Field(min_length=1)
    frame_path: list[str] = []  # iframe selectors, top first
    fingerprint: FingerprintField
    # The text of the card, row or form around the element, and the words of it that its
    # look-alikes (same role and name) lacked: "Backpack" for one of many "Add to cart".
    context: str = ""
    distinct: str = ""
    # The names of other elements of its role beside it when it was recorded, most alike
    # first ("Transfer $1000" beside "Transfer $100"): a heal never lands on one of them.
    rivals: list[str] = []
    # The labels of its containers that its look-alikes' lacked, as (kind, label): the row
    # ("row", "Order 1001") or column ("column", "Price") that tells it from the others.
    apart: list[tuple[str, str]] = []
    # A value read by an extract outside any card, row or form: the text of its own line
    # but itself ("Shipping" for the <dd> of "Shipping $5.00"), what says which value it is.
    line: str = ""

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`rivals`, `apart` and `line` only where there are any: most elements have none."""
        data = handler(self)
        for name in ("rivals", "apart", "line"):
            if not data.get(name):
                data.pop(name, None)
        return data


class RecordedPoint(_Model):
    """Where on its element an action acts, when no element of its own is there (a bar of
    a canvas chart): CSS pixels from the element's top-left corner, and what made it that
    target, which replay checks first (vision.py): the colour of the region around the
    point (`look`), and the label, legend or axis text that named it, where the model said
    it is (`label`: x, y, width, height from the same corner; `label_look` its colours).
    `width` and `height`: the element's size then, so a page zoomed or scaled as a whole
    replays at the same place on it."""

    x: float
    y: float
    look: str
    width: float = 0.0  # 0: recorded before sizes were (a point then never scales)
    height: float = 0.0
    label: list[float] = []
    label_look: str = ""

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A label only where the model named one."""
        data = handler(self)
        for name in ("label", "label_look"):
            if not data.get(name):
                data.pop(name, None)
        return data


class RecordedAction(_Model):
    method: str  # click, fill, press, select_option, ...
    arguments: list[str] = []  # with %name% placeholders, never values
    description: str = ""  # e.g. 'button "Log in"', for readers of the file
    element: RecordedElement | None = None
    # What the click went to in the element's place (it was covered or invisible), e.g.
    # 'label "Dark mode"': for reviewers; replay decides again on the page it finds.
    via: str = ""
    point: RecordedPoint | None = None  # a point on the element (vision), else its centre

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`via` only where a stand-in was clicked, `point` only where one was chosen:
        most actions have neither."""
        data = handler(self)
        if not data.get("via"):
            data.pop("via", None)
        if data.get("point") is None:
            data.pop("point", None)
        return data


class HealNote(_Model):
    """A repair of this recording, kept in the file so a reviewer can judge it."""

    strategy: str
    before: str
    after: str
    score: float | None = None
    changed: list[str] = []
    decided_by: list[str] = []  # what put a fingerprint heal ahead of the runner-up
    date: str


def _today() -> str:
    return datetime.date.today().isoformat()


class Recording(_Model):
    """One recorded step, exactly as it appears in the committed file."""

    kind: StepKind
    instruction: Annotated[str, AfterValidator(lambda text: " ".join(text.split()))]
    url: str
    variables: Annotated[list[str], AfterValidator(lambda names: sorted(set(names)))] = []
    scope: str | None = None  # written only when set, like occurrence (see `_as_written`)
    occurrence: int = Field(default=1, ge=1)
    actions: list[RecordedAction] = []
    data: Annotated[dict[str, Any], AfterValidator(_canonical)] = {}  # kind-specific payload
    model: str | None = None
    recorded_at: str = Field(default_factory=_today)
    heals: list[HealNote] = []

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Scope and occurrence only where they tell steps apart: most steps have neither."""
        data = handler(self)
        if data.get("scope") is None:
            data.pop("scope", None)
        if data.get("occurrence") == 1:
            data.pop("occurrence", None)
        return data

    @classmethod
    def of(cls, key: StepKey, actions: Iterable[RecordedAction] = (), **fields: Any) -> Recording:
        return cls(
            kind=key.kind,
            instruction=key.instruction,
            url=key.url,
            variables=list(key.variables),
            scope=key.scope,
            occurrence=key.occurrence,
            actions=list(actions),
            **fields,
        )

    @property
    def key(self) -> StepKey:
        return StepKey(
            self.kind, self.instruction, self.url, tuple(self.variables), self.scope,
            self.occurrence,
        )

    def healed(
        self, action_index: int, element: RecordedElement, heal: Heal, via: str = ""
    ) -> Recording:
        """This recording with one action's element (and what stood in for it) replaced,
        and the heal noted."""
        actions = list(self.actions)
        update = {"element": element, "via": via}
        actions[action_index] = actions[action_index].model_copy(update=update)
        return self.model_copy(update={"actions": actions}).noted(heal)

    def noted(self, heal: Heal) -> Recording:
        """This recording with `heal` added to its history, for reviewers of the file."""
        note = HealNote(
            strategy=heal.strategy,
            before=heal.before,
            after=heal.after,
            score=None if heal.score is None else round(heal.score, 3),
            changed=list(heal.changed),
            decided_by=list(heal.decided_by),
            date=_today(),
        )
        return self.model_copy(update={"heals": [*self.heals, note][-MAX_HEAL_NOTES:]})

    def masked(self, mask: Callable[[str], str]) -> Recording:
        """This recording with `mask` applied to every text in it (variable values become
        their %name% placeholders), whatever page text it picked up."""
        return Recording.model_validate_json(mask(self.model_dump_json()))

    def same_content(self, other: Recording) -> bool:
        """Equal in everything replayed; a re-record that changes nothing leaves no diff."""
        return self.content_digest == other.content_digest

    @property
    def content_digest(self) -> str:
        """What `same_content` compares, short: a merge knows a shard's starting point by it."""
        content = self.model_dump(mode="json", exclude={"recorded_at", "model"})
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]


def recordings_file(test_file: Path) -> Path:
    """Where a test module's recordings are committed: next to it, like syrupy's snapshots."""
    test_file = test_file.resolve()  # one spelling per file, whoever names it
    return test_file.parent / RECORDINGS_DIR / f"{test_file.stem}.json"


def render(recordings: Iterable[Recording]) -> str:
    """The one text form of a recordings file: sorted steps, fixed field order, indent 2."""
    steps = sorted(
        recordings,
        key=lambda r: (r.url, r.instruction, r.kind, r.variables, r.scope or "", r.occurrence),
    )
    document = {"version": FILE_VERSION, "steps": [r.model_dump(mode="json") for r in steps]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _file_error(path: Path, problem: str) -> RecordingFileError:
    test_module = path.parent.parent / f"{path.stem}.py"
    return RecordingFileError(
        f"{_shown(path)} is not a valid recordings file: {problem}\n"
        f"Fix it by hand, or delete the file (or the broken step) and re-record with a "
        f"model: pytest {_shown(test_module)} --ai-cache=refresh. Until then this file is "
        f"left untouched and steps recorded for it wait in the cache dir."
    )


def read_recordings(path: Path) -> dict[str, Recording]:
    """A recordings file as {digest: recording}; a missing file is an empty one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise _file_error(path, f"cannot be read ({exc}).") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _file_error(
            path, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}."
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
        raise _file_error(path, 'expected an object {"version": 1, "steps": [...]}.')
    if document.get("version") != FILE_VERSION:
        raise _file_error(
            path,
            f"version {document.get('version')!r} is not {FILE_VERSION} (written by another "
            "version of pytest-stagehand?).",
        )
    recordings: dict[str, Recording] = {}
    for index, raw in enumerate(document["steps"]):
        try:
            recording = Recording.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'step'}: {error['msg']}"
                for error in exc.errors()[:3]
            )
            raise _file_error(path, f"steps[{index}]: {problems}.") from None
        digest = recording.key.digest
        if digest in recordings:
            raise _file_error(
                path, f"steps[{index}] repeats {recording.key.describe()}; keep one of them."
            )
        recordings[digest] = recording
    return recordings


def _write_atomically(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    _write_atomically(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def write_recordings(path: Path, before: dict[str, Recording], after: dict[str, Recording]) -> bool:
    """Write `after` over a file that held `before`; False when nothing changed."""
    if not after:
        if path.exists():
            path.unlink()
            return True
        return False
    text = render(after.values())
    if before and text == render(before.values()):
        return False
    _write_atomically(path, text)
    return True


# --- secrets -------------------------------------------------------------------------


def _strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def check_secrets(recording: Recording, variables: Mapping[str, object]) -> None:
    """Refuse (raise, never write) a recording that contains a variable's value.

    Values of 4 characters or more are refused anywhere inside a text, in any spelling
    (URL-encoded, HTML- or JSON-escaped, in another case); shorter ones only as a whole
    text, since "1" or "no" occur in any selector by chance.
    """
    patterns = {
        name: re.compile(secret_pattern(str(value)), re.IGNORECASE)
        for name, value in variables.items()
        if str(value)
    }
    for where, text in _strings(recording.model_dump(mode="json")):
        for name, pattern in patterns.items():
            secret = str(variables[name])
            if pattern.fullmatch(text) or (len(secret) >= SHORT_SECRET and pattern.search(text)):
                raise CacheError(
                    f"Refusing to record {recording.key.describe()}: the value of variable "
                    f"{name!r} appears in {where}, and variable values are never stored. "
                    f"Write %{name}% in the instruction and arguments instead of the value; "
                    "if the value is not secret, put it in the instruction itself."
                )


# --- modes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CachePolicy:
    """What the cache mode allows, so pipelines ask instead of re-deriving modes.

    auto: replay, ask the model on a miss, record. offline: replay and heal without a
    model; a miss fails. refresh: ask the model for every step and re-record. off: ask
    the model, record nothing.
    """

    mode: CacheMode
    has_model: bool

    @property
    def may_replay(self) -> bool:
        return self.mode in ("auto", "offline")

    @property
    def may_call_model(self) -> bool:
        return self.mode != "offline" and self.has_model

    @property
    def may_record(self) -> bool:
        """New steps and heals (including offline, model-free heals) are recorded."""
        return self.mode != "off"

    def check_miss(self, key: StepKey, test_file: Path, nearby: Sequence[StepKey] = ()) -> None:
        """Raise CacheMiss when a step without a usable recording cannot ask a model;
        `nearby`: recorded steps it may have been meant to be (nearby_keys)."""
        if self.may_call_model:
            return
        if not self.may_replay:  # a recording there may be, but this mode does not use it
            said = {
                "refresh": "--ai-cache=refresh records every step anew, and no model is configured",
                "off": "--ai-cache=off asks a model always, and no model is configured",
            }[self.mode]
            raise CacheMiss(
                f"{said}: {key.describe()} in {_shown(test_file)} cannot run.\n"
                "Configure a model (--ai-model provider/name, or OPENAI_API_KEY / "
                "ANTHROPIC_API_KEY), or replay the committed recordings: --ai-cache=auto."
            )
        if self.mode == "offline":
            why = "and --ai-cache=offline never calls a model"
        else:
            why = "and no model is configured"
        raise CacheMiss(
            f"No recording for {key.describe()} in {_shown(test_file)}, {why}."
            f"{_miss_hint(key, nearby)}\n"
            f"Record it by running once with a model, e.g. "
            f"pytest {_shown(test_file)} --ai-model openai/gpt-4.1-mini (or set "
            f"OPENAI_API_KEY / ANTHROPIC_API_KEY; add --ai-cache=refresh to re-record every "
            f"step), then commit {_shown(recordings_file(test_file))}."
        )


# --- one test module's recordings ---------------------------------------------------


@dataclass(frozen=True)
class Recordings:
    """A test module's recorded steps in the session's store, under one cache mode."""

    store: RecordingStore
    test_file: Path
    mode: CacheMode = "auto"
    share_origins: bool = True
    # The test's secret mask (StepLog.mask): a page URL that holds a variable's value, in
    # any spelling, is keyed (and recorded) with its %name% placeholder instead.
    mask: Callable[[str], str] | None = None

    # (kind, instruction, url, variables, scope) -> how often the test has taken that step
    taken: dict[StepKey, int] = field(default_factory=dict, compare=False, repr=False)

    def key(
        self,
        kind: StepKind,
        instruction: str,
        url: str,
        variables: Iterable[str] = (),
        scope: str | None = None,
    ) -> StepKey:
        """The key of the step this test is taking now (after `step`: its latest use)."""
        first = step_key(
            kind, instruction, url, variables, share_origins=self.share_origins, scope=scope
        )
        if self.mask:
            first = replace(first, url=self.mask(first.url))
        return replace(first, occurrence=max(1, self.taken.get(first, 0)))

    def step(
        self,
        kind: StepKind,
        instruction: str,
        url: str,
        variables: Iterable[str] = (),
        scope: str | None = None,
    ) -> StepKey:
        """The key of the next use of a step in this test: each use has its own recording."""
        first = replace(self.key(kind, instruction, url, variables, scope), occurrence=1)
        self.taken[first] = self.taken.get(first, 0) + 1
        return replace(first, occurrence=self.taken[first])

    def bookmark(self) -> Callable[[], None]:
        """A function that takes back the uses of steps counted after now: a step tried
        again while it waits for its element (waiting.py) is one use, with one recording."""
        taken = dict(self.taken)

        def back() -> None:
            self.taken.clear()
            self.taken.update(taken)

        return back

    def lookup(self, key: StepKey) -> Recording | None:
        return self.store.lookup(self.test_file, key)

    def nearby(self, key: StepKey) -> list[StepKey]:
        """Recorded steps a missing one may have been meant to be (nearby_keys)."""
        return nearby_keys(key, self.store.recorded_keys(self.test_file))

    def put(self, recording: Recording, variables: Mapping[str, object] | None = None) -> None:
        self.store.put(self.test_file, recording, variables)


# --- the store -----------------------------------------------------------------------


@dataclass(frozen=True)
class Unused:
    file: Path
    recording: Recording


@dataclass
class FlushReport:
    """What the end-of-session merge did, for the terminal summary."""

    written: list[Path] = field(default_factory=list)
    # Each written file's steps before the write (digest -> content digest): the starting
    # point a merge of sharded runs compares this run's changes with.
    bases: dict[Path, dict[str, str]] = field(default_factory=dict)
    unused: list[Unused] = field(default_factory=list)  # reported, not pruned
    pruned: list[Unused] = field(default_factory=list)
    errors: list[CacheError] = field(default_factory=list)  # files left untouched, and why
    held: int = 0  # recordings the run held in memory, the store having failed it
    lost: list[str] = field(default_factory=list)  # held ones neither a file nor the store took


STORE_FAULTS = (sqlite3.Error, OSError, diskcache.Timeout)
STORE_ADVICE = (
    "It is a cache of this run's recordings (the committed ones are the __stagehand__/*.json "
    "files next to the tests): make it writable, free space on its disk, or point "
    "--ai-cache-dir (ini ai_cache_dir) at a writable place."
)


@dataclass
class Held:
    """What a process recorded this run, kept in memory and sent to the controller with
    each test's report (`take_news`), so its flush writes every step a model answered to
    the files even when the working store failed, and nothing is paid for twice.

    `recordings`: file -> digest -> data of those the store could not take (the newest);
    `stored`: copies of those it took, written only when the merge cannot read the store;
    `used`: file -> digests replayed while the store could not note it.
    """

    fault: str = ""
    recordings: dict[str, dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    stored: dict[str, dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    used: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def __bool__(self) -> bool:
        return bool(self.recordings or self.stored or self.used)

    def add(self, other: Held) -> None:
        self.fault = self.fault or other.fault
        for mine, theirs in ((self.recordings, other.recordings), (self.stored, other.stored)):
            for path, recordings in theirs.items():
                mine[path].update(recordings)
        for path, digests in other.used.items():
            self.used[path] |= digests

    def to_json(self) -> dict[str, Any]:
        def rows(by_file: dict[str, dict[str, dict]]) -> list[list]:
            return [[p, d, data] for p, datas in by_file.items() for d, data in datas.items()]

        return {
            "fault": self.fault,
            "recordings": rows(self.recordings),
            "stored": rows(self.stored),
            "used": [[p, d] for p, digests in self.used.items() for d in sorted(digests)],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Held:
        held = cls(fault=data["fault"])
        for name in ("recordings", "stored"):
            for path, digest, recording in data[name]:
                getattr(held, name)[path][digest] = recording
        for path, digest in data["used"]:
            held.used[path].add(digest)
        return held


class RecordingStore:
    """Recordings for a session: committed files plus the store shared by xdist workers.

    Every process opens one on the same directory (`<cache dir>/recordings`); pipelines
    `lookup` and `put`; at the end of the session the controller (never an xdist worker)
    calls `flush` and reports what it returns.

    Keys in the diskcache store: ("rec", file, digest) -> recording as JSON data, and
    ("used", file, digest, run) -> True. One diskcache `set` is atomic across processes, so
    concurrent workers lose nothing. `run` names the session (shared by its xdist workers):
    two sessions on one cache directory then never count or clear each other's uses, and
    their flushes take turns. A recording left by a session that never flushed (it
    crashed) is merged by the next flush.

    A store that cannot be opened or written (read-only, disk full) does not stop the run:
    `fault` says why, and from then on this process holds what it records in memory
    (`Held`) for the controller's flush to write to the files.
    """

    def __init__(self, directory: Path, run: str = "") -> None:
        self.directory = directory
        self.moved_aside: Path | None = None  # where a corrupt store went, if one did
        self.fault: StoreError | None = None  # why recordings are held in memory, if they are
        self._held = Held()
        self._news = Held()  # held since the last `take_news`
        self._run = run
        self._files: dict[Path, dict[str, Recording] | RecordingFileError] = {}
        self._cache: diskcache.Cache | None = None
        try:
            self._cache = self._open()
        except StoreError as exc:
            self._lose(exc)

    def _open(self) -> diskcache.Cache:
        """The diskcache store; a corrupt one is moved aside (never deleted) and started
        afresh: it is a cache, and the committed files hold what was merged."""
        try:
            return self._diskcache()
        except sqlite3.OperationalError as exc:  # read-only, full, locked: not corrupt
            raise self._fault("open", exc) from None
        except sqlite3.DatabaseError:
            self._move_aside()
        except STORE_FAULTS as exc:
            raise self._fault("open", exc) from None
        with self._guarded("reopen"):
            return self._diskcache()

    def _diskcache(self) -> diskcache.Cache:
        # No eviction: a recording waiting to be flushed is never dropped for space.
        return diskcache.Cache(str(self.directory), eviction_policy="none")

    def _move_aside(self) -> None:
        aside = self.directory.with_name(
            f"{self.directory.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        )
        try:
            os.replace(self.directory, aside)
        except FileNotFoundError:  # another process of this run moved it first
            return
        except OSError as exc:
            raise self._fault("move aside", exc) from None
        self.moved_aside = aside

    def _fault(self, doing: str, exc: BaseException) -> StoreError:
        return StoreError(
            f"Could not {doing} the working store {_shown(self.directory)} "
            f"({type(exc).__name__}: {exc}).\n{STORE_ADVICE}"
        )

    @contextmanager
    def _guarded(self, doing: str) -> Iterator[None]:
        """sqlite and file-system faults of the store become one StoreError naming it."""
        try:
            yield
        except STORE_FAULTS as exc:
            raise self._fault(doing, exc) from None

    def _lose(self, fault: StoreError) -> None:
        """From now on this process holds what it records in memory (the first fault is
        the one named: the later ones follow from it)."""
        if self.fault is None:
            self.fault = fault
            self._held.fault = self._news.fault = str(fault)  # sent once: take_news

    def _read(self, key: tuple) -> Any:
        """A value of the store; None when it has none or cannot be read."""
        if self._cache is None:
            return None
        try:
            return self._cache.get(key)
        except STORE_FAULTS as exc:
            self._lose(self._fault("read from", exc))
            return None

    def _write(self, doing: str, key: tuple, value: Any, expire: float | None = None) -> bool:
        """Set a value in the store; False (and the store lost) when it cannot take it."""
        if self._cache is None:
            return False
        try:
            self._cache.set(key, value, expire=expire)
        except STORE_FAULTS as exc:
            self._lose(self._fault(doing, exc))
            return False
        return True

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()

    def lookup(self, test_file: Path, key: StepKey) -> Recording | None:
        """The step's recording (newest first: this run's store, then the file), marked used.

        Raises RecordingFileError when the module's file is corrupt.
        """
        path = recordings_file(test_file)
        pending = self._held.recordings.get(str(path), {}).get(key.digest)
        if pending is None:
            pending = self._read(("rec", str(path), key.digest))
        if pending is None:  # taken by a store that cannot be read now
            pending = self._held.stored.get(str(path), {}).get(key.digest)
        recording = (
            Recording.model_validate(pending)
            if pending is not None
            else self._committed(path).get(key.digest)
        )
        if recording is not None:
            used = ("used", str(path), key.digest, self._run)
            if self.fault or not self._write("note a use in", used, True, expire=USED_MARK_S):
                for held in (self._held, self._news):
                    held.used[str(path)].add(key.digest)
        return recording

    def put(
        self, test_file: Path, recording: Recording, variables: Mapping[str, object] | None = None
    ) -> None:
        """Record a new or healed step; refuses one that contains a variable's value."""
        check_secrets(recording, variables or {})
        path, digest = str(recordings_file(test_file)), recording.key.digest
        data = recording.model_dump(mode="json")
        doing = f"save the recording of {recording.key.describe()} in"
        taken = not self.fault and self._write(doing, ("rec", path, digest), data)
        for held in (self._held, self._news):
            (held.stored if taken else held.recordings)[path][digest] = data

    def take_news(self) -> Held:
        """What this process held since the last call (and the fault, the first time),
        for the controller's flush."""
        news, self._news = self._news, Held()
        return news

    def recorded_keys(self, test_file: Path) -> list[StepKey]:
        """The keys of a module's recordings: committed, and this run's."""
        path = recordings_file(test_file)
        pending: dict[str, dict] = {}
        if self._cache is not None:
            try:
                pending = {
                    key[2]: data
                    for key in list(self._cache)
                    if key[:2] == ("rec", str(path)) and (data := self._cache.get(key)) is not None
                }
            except STORE_FAULTS as exc:
                self._lose(self._fault("read from", exc))
        pending.update(self._held.recordings.get(str(path), {}))
        committed = self._committed(path)
        return [recording.key for recording in committed.values()] + [
            Recording.model_validate(data).key for data in pending.values()
        ]

    def _committed(self, path: Path) -> dict[str, Recording]:
        if path not in self._files:
            try:
                self._files[path] = read_recordings(path)
            except RecordingFileError as exc:
                self._files[path] = exc
        found = self._files[path]
        if isinstance(found, RecordingFileError):
            raise RecordingFileError(str(found))
        return found

    def flush(
        self, complete: Iterable[Path] = (), prune: bool = False, held: Held | None = None
    ) -> FlushReport:
        """Merge this run's recordings into the committed files (controller only).

        `complete`: test files whose every test ran; their recordings that nothing used
        are reported, or removed with `prune` (pass prune only after a green run). A
        corrupt file is left untouched and its pending recordings stay in the store.
        `held`: what the run's other processes held in memory (`take_news`); with this
        store's own, it is written to the files even when the store cannot be used.
        """
        everything = Held()
        everything.add(self._held)
        everything.add(held or Held())
        if self._cache is not None:  # tried again: a disk that was full may have room now
            try:
                with diskcache.Lock(self._cache, ("lock", "flush"), expire=FLUSH_LOCK_S):
                    return self._flush(complete, prune, everything, with_store=True)
            except STORE_FAULTS as exc:
                self._lose(self._fault("merge recordings from", exc))
        # The store's recordings and uses unread: they wait there, and nothing is "unused".
        return self._flush((), False, everything, with_store=False)

    def _flush(
        self, complete: Iterable[Path], prune: bool, held: Held, with_store: bool
    ) -> FlushReport:
        stored: dict[Path, dict[str, dict]] = defaultdict(dict)  # in the store, by file
        used: dict[Path, set[str]] = defaultdict(set)
        own_uses = []
        if with_store:
            self._cache.expire()  # uses marked by sessions that never flushed
            for key in list(self._cache):
                if key[0] == "used" and key[3:] == (self._run,):
                    used[Path(key[1])].add(key[2])
                    own_uses.append(key)
                elif key[0] == "rec" and (data := self._cache.get(key)) is not None:
                    stored[Path(key[1])][key[2]] = data
        else:  # what the run's processes gave the store, as they sent it
            for name, recordings in held.stored.items():
                stored[Path(name)].update(recordings)
        pending = {path: dict(recordings) for path, recordings in stored.items()}
        for name, recordings in held.recordings.items():
            pending.setdefault(Path(name), {}).update(recordings)  # held last: the newer
        for name, digests in held.used.items():
            used[Path(name)] |= digests
        complete_files = {recordings_file(test_file) for test_file in complete}
        report = FlushReport(held=sum(len(r) for r in held.recordings.values()))
        for path in sorted(set(pending) | complete_files):
            try:
                committed = read_recordings(path)
            except RecordingFileError as exc:
                report.errors.append(exc)
                self._keep_unwritten(path, held, report)
                continue
            merged = dict(committed)
            for digest, data in pending.get(path, {}).items():
                new = Recording.model_validate(data)
                old = merged.get(digest)
                merged[digest] = old if old is not None and old.same_content(new) else new
            if path in complete_files:
                seen = used[path] | pending.get(path, {}).keys()
                unused = [Unused(path, r) for d, r in merged.items() if d not in seen]
                if prune:
                    report.pruned.extend(unused)
                    merged = {d: r for d, r in merged.items() if d in seen}
                else:
                    report.unused.extend(unused)
            try:
                if write_recordings(path, committed, merged):
                    report.written.append(path)
                    report.bases[path] = {d: r.content_digest for d, r in committed.items()}
            except OSError as exc:  # read-only or full: the recordings wait in the store
                lost = len(report.lost)
                self._keep_unwritten(path, held, report)
                report.errors.append(self._unwritten(path, exc, report.lost[lost:]))
                continue
            if with_store:
                with self._cache.transact():
                    for digest, data in stored.get(path, {}).items():
                        # A worker may have healed the step again since: keep the newer one.
                        if self._cache.get(("rec", str(path), digest)) == data:
                            self._cache.delete(("rec", str(path), digest))
        if with_store:
            with self._cache.transact():
                for key in own_uses:
                    self._cache.delete(key)
        self._files.clear()
        return report

    def _keep_unwritten(self, path: Path, held: Held, report: FlushReport) -> None:
        """Recordings held in memory for a file that could not be written go to the store,
        for the next run's flush; where the store cannot take them either, they are lost,
        and the report says which."""
        for digest, data in held.recordings.get(str(path), {}).items():
            recording = Recording.model_validate(data)
            doing = f"save the recording of {recording.key.describe()} in"
            if not self._write(doing, ("rec", str(path), digest), data):
                report.lost.append(f"{_shown(path)}: {recording.key.describe()}")

    def _unwritten(self, path: Path, exc: OSError, lost: Sequence[str]) -> StoreError:
        problem = f"Could not write {_shown(path)} ({type(exc).__name__}: {exc})."
        advice = f"Make {_shown(path.parent)} writable, or free space on its disk."
        if lost:
            return StoreError(
                f"{problem} The working store {_shown(self.directory)} could not take this "
                f"run's {len(lost)} new recording(s) for it either: they are lost (named "
                f"above). {advice}"
            )
        return StoreError(
            f"{problem} Nothing recorded is lost: this run's recordings for it wait in "
            f"the working store {_shown(self.directory)} and the next run writes them. "
            f"{advice}"
        )
