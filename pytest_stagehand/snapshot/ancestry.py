"""The table of ancestors snapshot.js describes a frame's elements against, in Python.

A large page's elements share their ancestors: snapshot.js sends each ancestor once, as a
row, and outline.py turns an element's row into its CSS path, XPath and fingerprint path
when the element is first asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class Ancestry:
    """snapshot.js's shared table of ancestors, expanded into CSS paths, XPaths and paths.

    Rows are `[parent row, css tag, nth-of-type, anchor, path item, xpath-able]`, parents
    first, without the fields at their end that are as ENDS (most rows' are: a large page's
    answer is shorter); nth-of-type 0 where the tag alone tells the element from its
    siblings. Given by row number: the whole table, or the rows some elements need. A row
    is expanded when an element that needs it is, so a large page costs only what is used.
    """

    ENDS = (0, "", "", 1)  # nth-of-type, anchor, path item ("": the tag), xpath-able

    def __init__(self, rows: Sequence[list[Any]] | Mapping[int, list[Any]]) -> None:
        self.rows = rows
        self._css: dict[int, str] = {}
        self._xpath: dict[int, str | None] = {}
        self._path: dict[int, tuple[str, ...]] = {}

    def css(self, row: int) -> str:
        return self._expanded(self._css, row, self._css_step)

    def xpath(self, row: int) -> str | None:
        return self._expanded(self._xpath, row, self._xpath_step)

    def path(self, row: int) -> tuple[str, ...]:
        return self._expanded(self._path, row, self._path_step)

    def _expanded(self, memo: dict[int, Any], row: int, step: Any) -> Any:
        """memo[row], computing the rows above it first (a loop: pages can be deep)."""
        chain = []
        while row >= 0 and row not in memo:
            chain.append(row)
            row = self.rows[row][0]
        for below in reversed(chain):
            parent = self.rows[below][0]
            memo[below] = step(below, memo[parent] if parent >= 0 else None)
        return memo[chain[0]] if chain else memo[row]

    def _fields(self, row: int) -> tuple[Any, ...]:
        return (*self.rows[row], *self.ENDS[len(self.rows[row]) - 2 :])

    def _css_step(self, row: int, up: str | None) -> str:
        _, tag, nth, anchor, _, _ = self._fields(row)
        step = f"{tag}:nth-of-type({nth})" if nth else tag
        return anchor or f"{up} > {step}"

    def _xpath_step(self, row: int, up: str | None) -> str | None:
        _, tag, nth, _, _, xpathable = self._fields(row)
        step = f"{tag}[{nth}]" if nth else tag
        return f"{up or ''}/{step}" if xpathable else None

    def _path_step(self, row: int, up: tuple[str, ...] | None) -> tuple[str, ...]:
        if up is None:
            return ()
        _, tag, _, _, item, _ = self._fields(self.rows[row][0])  # the parent's path item
        return (*up, item or tag)
