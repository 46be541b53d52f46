"""Where recorded steps are kept: the shared store, one test module's recordings, and the
cache modes (keys are keys.py's, the format format.py's).

A step resolved once by a model is recorded and replayed later with no model. Recordings
live in two places:

- a JSON file per test module next to the tests (`__stagehand__/<module>.json`), which a
  team commits and reviews: one stable text form, so a new step or a heal is a small diff;
- a diskcache store under the cache dir, which pytest-xdist workers share safely during a
  run (new recordings, heals and "used" marks). The session's controller merges it into
  the JSON files at the end of the run (`RecordingStore.flush`).

What gets replayed (with verification and healing) is heal/'s job; this module only
keeps recordings safe and says which mode allows what (`CachePolicy`).

Kept whole: the cache modes, a module's recordings and the store are the one path from a
step to disk, and each fault on it is handled in one place.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import diskcache

from pytest_stagehand.errors import CacheError, CacheMiss, RecordingFileError, StoreError
from pytest_stagehand.events import RecordedKind
from pytest_stagehand.recordings.format import (
    Recording,
    check_secrets,
    read_recordings,
    recordings_file,
    shown_path,
    write_recordings,
)
from pytest_stagehand.recordings.keys import StepKey, miss_hint, nearby_keys, step_key
from pytest_stagehand.settings import CacheMode

USED_MARK_S = 7 * 24 * 3600  # a session's "used" marks outlive any session that flushes
FLUSH_LOCK_S = 600  # a flusher that died holding the lock holds it no longer than this


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
                f"{said}: {key.describe()} in {shown_path(test_file)} cannot run.\n"
                "Configure a model (--ai-model provider/name, or OPENAI_API_KEY / "
                "ANTHROPIC_API_KEY), or replay the committed recordings: --ai-cache=auto."
            )
        if self.mode == "offline":
            why = "and --ai-cache=offline never calls a model"
        else:
            why = "and no model is configured"
        elsewhere = tuple(
            other.url for other in nearby if other == replace(key, url=other.url)
        )
        raise CacheMiss(
            f"No recording for {key.describe()} in {shown_path(test_file)}, {why}."
            f"{miss_hint(key, nearby)}\n"
            f"Record it by running once with a model, e.g. "
            f"pytest {shown_path(test_file)} --ai-model openai/gpt-4.1-mini (or set "
            f"OPENAI_API_KEY / ANTHROPIC_API_KEY; add --ai-cache=refresh to re-record every "
            f"step), then commit {shown_path(recordings_file(test_file))}.",
            recorded_on=elsewhere,
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
        kind: RecordedKind,
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
        kind: RecordedKind,
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
            f"Could not {doing} the working store {shown_path(self.directory)} "
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
                report.lost.append(f"{shown_path(path)}: {recording.key.describe()}")

    def _unwritten(self, path: Path, exc: OSError, lost: Sequence[str]) -> StoreError:
        problem = f"Could not write {shown_path(path)} ({type(exc).__name__}: {exc})."
        advice = f"Make {shown_path(path.parent)} writable, or free space on its disk."
        if lost:
            return StoreError(
                f"{problem} The working store {shown_path(self.directory)} could not take this "
                f"run's {len(lost)} new recording(s) for it either: they are lost (named "
                f"above). {advice}"
            )
        return StoreError(
            f"{problem} Nothing recorded is lost: this run's recordings for it wait in "
            f"the working store {shown_path(self.directory)} and the next run writes them. "
            f"{advice}"
        )
