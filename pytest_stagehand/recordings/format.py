"""The recording format: what one recorded step holds, its one stable text form in
`__stagehand__/<module>.json`, and the check that no variable's value is in it."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

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

from pytest_stagehand.errors import CacheError, RecordingFileError
from pytest_stagehand.events import SHORT_SECRET, Heal, RecordedKind, secret_pattern
from pytest_stagehand.recordings.keys import StepKey
from pytest_stagehand.snapshot.element import Fingerprint

FILE_VERSION = 1


RECORDINGS_DIR = "__stagehand__"


MAX_HEAL_NOTES = 10  # the history a reviewer needs, without growing forever


def canonical(value: Any) -> Any:
    """Dicts with sorted keys, all the way down, so free-form payloads print stably."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [canonical(item) for item in value]
    return value


def fingerprint_of(value: Any) -> Fingerprint:
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
    PlainValidator(fingerprint_of),
    PlainSerializer(lambda fp: canonical(fp.to_dict())),
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

    kind: RecordedKind
    instruction: Annotated[str, AfterValidator(lambda text: " ".join(text.split()))]
    url: str
    variables: Annotated[list[str], AfterValidator(lambda names: sorted(set(names)))] = []
    scope: str | None = None  # written only when set, like occurrence (see `_as_written`)
    occurrence: int = Field(default=1, ge=1)
    actions: list[RecordedAction] = []
    data: Annotated[dict[str, Any], AfterValidator(canonical)] = {}  # kind-specific payload
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


def shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _file_error(path: Path, problem: str) -> RecordingFileError:
    test_module = path.parent.parent / f"{path.stem}.py"
    return RecordingFileError(
        f"{shown_path(path)} is not a valid recordings file: {problem}\n"
        f"Fix it by hand, or delete the file (or the broken step) and re-record with a "
        f"model: pytest {shown_path(test_module)} --ai-cache=refresh. Until then this file is "
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
