"""What the model reads of a page: the dialog that blocks it, else its snapshot, with the
open tabs listed after it."""

from __future__ import annotations

from playwright.sync_api import Page

from pytest_stagehand.browser.dialogs import dialogs_of
from pytest_stagehand.browser.tabs import tabs_of
from pytest_stagehand.prompts import texts as prompts
from pytest_stagehand.snapshot.outline import Snapshot, estimate_tokens, snapshot


def outline(page: Page) -> Snapshot:
    """What the model reads of the page: the dialog that blocks it, else its snapshot, with
    the open tabs listed after it when there are several."""
    dialogs = dialogs_of(page)
    dialog = dialogs.pending if dialogs is not None else None
    if dialog is not None:
        blocking = prompts.dialog_outline(dialog.type, dialog.message, dialog.default_value)
        return Snapshot(page.url, "", blocking, {}, estimate_tokens(blocking))
    seen = snapshot(page)
    tabs = tabs_of(page)
    pages = tabs.pages if tabs is not None else []
    if len(pages) < 2:
        return seen
    listed = prompts.open_tabs([(tab.title(), tab.url, tab is page) for tab in pages])
    text = f"{seen.text}\n\n{listed}"
    return Snapshot(seen.url, seen.title, text, seen.elements, estimate_tokens(text))
