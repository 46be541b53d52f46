"""The examples' scripted oracle (examples/record.py, also the real-apps benchmark's)
reads the snapshot as the prompt explains it: it must see what a model sees."""

from __future__ import annotations

from itertools import pairwise

from playwright.sync_api import Page

from examples.record import snapshot_lines
from pytest_stagehand.snapshot.outline import snapshot

TABLE = """<table><thead><tr><th>Name</th><th>Link</th></tr></thead><tbody>
<tr><td>Item 1</td><td><a href="/items/1">Open item 1</a></td></tr>
<tr aria-selected="true"><td>Item 2</td><td><a href="/items/2">Open item 2</a></td></tr>
<tr><td>Item 3</td><td><a href="/items/3">Open item 3</a></td></tr></tbody></table>"""


def test_the_oracle_reads_each_table_row_with_its_cells(page: Page):
    page.set_content(TABLE)
    lines = snapshot_lines(f"Snapshot:\n{snapshot(page).text}")
    # Each row holds its own cells only: the next row's line ends it.
    starts = [at for at, line in enumerate(lines) if line.role == "row"] + [len(lines)]
    cells = [
        [line.name for line in lines[start + 1 : end] if line.depth == lines[start].depth + 1]
        for start, end in pairwise(starts)
    ]
    assert cells == [
        ["Name", "Link"],
        ["Item 1", "Open item 1"],
        ["Item 2", "Open item 2"],
        ["Item 3", "Open item 3"],
    ]
