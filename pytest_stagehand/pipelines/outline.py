"""What the model reads of a page: the dialog that blocks it, else its snapshot, with the
open tabs listed after it."""

from __future__ import annotations

from pytest_stagehand.browser.watch import PageWatch
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.snapshot.outline import Snapshot, estimate_tokens, snapshot


def outline(watch: PageWatch) -> Snapshot:
    """What the model reads of the page: the dialog that blocks it, else its snapshot, with
    the open tabs listed after it when there are several."""
    page, dialog = watch.page, watch.dialogs.pending
    if dialog is not None:
        blocking = prompts.dialog_outline(dialog.type, dialog.message, dialog.default_value)
        return Snapshot(page.url, "", blocking, {}, estimate_tokens(blocking))
    seen = snapshot(page)
    pages = watch.tabs.pages
    if len(pages) < 2:
        return seen
    listed = prompts.open_tabs([(tab.title(), tab.url, tab is page) for tab in pages])
    text = f"{seen.text}\n\n{listed}"
    return Snapshot(seen.url, seen.title, text, seen.elements, estimate_tokens(text))
