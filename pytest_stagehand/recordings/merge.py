"""Fold several shards' workspaces into the repository's recordings files.

    python -m pytest_stagehand merge shard-1/ shard-2/ shard-3/ [--into .]

Each DIR is what one shard left: a checkout, or an artifact holding its
`**/__stagehand__/*.json` files at their paths in the repository, and its
`.stagehand/last-run.json`. A step a shard changed (recorded, healed, pruned) replaces
the repository's; two shards changing one step differently is a conflict: it is shown,
the repository's version is kept for that step, and the command exits 1. The result
depends only on the files, not on the order of the DIRs, and merging again changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_stagehand.recordings.format import (
    RECORDINGS_DIR,
    Recording,
    read_recordings,
    write_recordings,
)

SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__"}
LAST_RUN = "last-run.json"
REMOVED = None  # a shard's version of a step it pruned


@dataclass(frozen=True)
class Conflict:
    path: str
    step: str
    versions: tuple[tuple[str, str], ...]  # (shard dir, what it did)

    def __str__(self) -> str:
        shown = "; ".join(f"{where}: {what}" for where, what in self.versions)
        return f"{self.path}: {self.step}: {shown}"


@dataclass
class MergeReport:
    written: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)  # each shard's last-run summary



def _walk(directory: Path) -> Iterator[Path]:
    for child in sorted(directory.iterdir()):
        if child.is_dir() and child.name not in SKIPPED_DIRS:
            yield child
            yield from _walk(child)


def recordings_files(directory: Path) -> dict[str, Path]:
    """Every recordings file below `directory`, by its path relative to it."""
    return {
        str(path.relative_to(directory)): path
        for folder in [directory, *_walk(directory)]
        if folder.name == RECORDINGS_DIR
        for path in sorted(folder.glob("*.json"))
    }


def last_runs(directory: Path) -> list[dict]:
    runs = []
    for folder in [directory, *_walk(directory)]:
        path = folder / LAST_RUN
        if path.is_file():
            runs.append(json.loads(path.read_text(encoding="utf-8")))
    return runs


def _what(recording: Recording | None) -> str:
    if recording is REMOVED:
        return "removed it"
    elements = [a.element for a in recording.actions if a.element is not None]
    heal = f" ({recording.heals[-1].strategy} heal)" if recording.heals else ""
    return (f"→ {elements[-1].selectors[0]}" if elements else "changed it") + heal


def _same(a: Recording | None, b: Recording | None) -> bool:
    return a is b or (a is not None and b is not None and a.same_content(b))


@dataclass(frozen=True)
class ShardFile:
    """One shard's version of a recordings file, and the steps it started from (by content
    digest), when its last-run.json says; without it, the repository's are the start."""

    shard: str
    steps: dict[str, Recording]
    base: dict[str, str] | None

    def changes(self, repository: dict[str, Recording]) -> dict[str, Recording | None]:
        """The steps this shard recorded, healed or removed, by digest."""
        if self.base is None:
            digests = set(self.steps) | set(repository)
            return {
                d: self.steps.get(d)
                for d in digests
                if not _same(self.steps.get(d), repository.get(d))
            }
        digests = set(self.steps) | set(self.base)
        return {
            d: self.steps.get(d)
            for d in digests
            if (self.steps[d].content_digest if d in self.steps else None) != self.base.get(d)
        }


def merge_file(
    repository: dict[str, Recording], shards: Sequence[ShardFile], path: str
) -> tuple[dict[str, Recording], list[Conflict]]:
    merged = dict(repository)
    conflicts = []
    changes = [(shard.shard, shard.changes(repository)) for shard in shards]
    for digest in sorted({digest for _, changed in changes for digest in changed}):
        versions = [(where, changed[digest]) for where, changed in changes if digest in changed]
        first = versions[0][1]
        if any(not _same(version, first) for _, version in versions[1:]):
            step = next(v for _, v in versions if v is not None).key.describe()
            conflicts.append(
                Conflict(path, step, tuple((where, _what(v)) for where, v in versions))
            )
        elif first is REMOVED:
            merged.pop(digest, None)
        else:
            merged[digest] = first
    return merged, conflicts


def _shard_files(directory: Path) -> dict[str, ShardFile]:
    """The recordings files a shard changed, by path relative to its directory; every one
    found when it left no last-run.json to say which."""
    found = recordings_files(directory)
    runs = last_runs(directory)
    if not runs:
        return {
            relative: ShardFile(str(directory), read_recordings(path), None)
            for relative, path in found.items()
        }
    bases = {name: base for run in runs for name, base in run.get("written", {}).items()}
    files = {}
    for relative, path in found.items():
        # last-run.json names files from the shard's rootdir, which may sit lower down.
        named = [n for n in bases if relative == n or relative.endswith(f"/{n}")]
        if named:
            base = bases[max(named, key=len)]
            files[relative] = ShardFile(str(directory), read_recordings(path), base)
    return files


def merge(directories: Sequence[Path], into: Path) -> MergeReport:
    """Fold the shards' recordings into the files under `into` (see the module docstring)."""
    report = MergeReport()
    shards = [_shard_files(directory) for directory in sorted(directories)]
    for relative in sorted({name for files in shards for name in files}):
        target = into / relative
        repository = read_recordings(target)
        versions = [files[relative] for files in shards if relative in files]
        merged, conflicts = merge_file(repository, versions, relative)
        report.conflicts += conflicts
        if write_recordings(target, repository, merged):
            report.written.append(relative)
    report.runs = [run for directory in sorted(directories) for run in last_runs(directory)]
    return report

