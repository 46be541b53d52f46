"""Sharded runs: each CI job runs one shard of the suite, chosen the same way everywhere.

Shards are made of whole test modules, so each module's recordings file is written by one
shard and the merge (`python -m pytest_stagehand merge`) has nothing to reconcile for a
healthy split. Modules are dealt out largest first to the shard with the fewest tests, so
shards are even, and the deal depends only on the collected test ids: every job and every
xdist worker computes the same split.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TypeVar

import pytest

Item = TypeVar("Item", bound=pytest.Item)


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def split_modules(sizes: dict[str, int], count: int) -> list[list[str]]:
    """Modules (by test count) dealt into `count` shards: largest first, to the lightest."""
    shards: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * count
    for module in sorted(sizes, key=lambda name: (-sizes[name], name)):
        lightest = min(range(count), key=lambda index: (loads[index], index))
        shards[lightest].append(module)
        loads[lightest] += sizes[module]
    return shards


def select_shard(
    items: Sequence[Item], index: int, count: int
) -> tuple[list[Item], list[Item]]:
    """The items of shard `index` (1-based) of `count`, and the others."""
    sizes: dict[str, int] = defaultdict(int)
    for item in items:
        sizes[module_of(item.nodeid)] += 1
    mine = set(split_modules(sizes, count)[index - 1])
    kept = [item for item in items if module_of(item.nodeid) in mine]
    others = [item for item in items if module_of(item.nodeid) not in mine]
    return kept, others
