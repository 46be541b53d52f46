"""Files: uploads into file fields (also hidden ones behind a custom button) and the
downloads a step starts.

Paths are variable values: the model and the recordings see only their %name%.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from weakref import WeakKeyDictionary

from playwright.sync_api import Download, Locator, Page

from .errors import InvalidArgument

FILE_INPUT = "el => el instanceof HTMLInputElement && el.type === 'file'"


def upload(page: Page, target: Locator, paths: list[str], timeout: float | None) -> None:
    """Set `paths` on a file field; for any other element (a "Choose file" button in front
    of a hidden field), click it and answer the file chooser it opens."""
    if target.evaluate(FILE_INPUT, timeout=timeout):
        target.set_input_files(paths, timeout=timeout)
        return
    with page.expect_file_chooser(timeout=timeout) as chooser:
        target.click(timeout=timeout)
    chooser.value.set_files(paths, timeout=timeout)


def upload_variables(instruction: str, files: Mapping[str, str | Path]) -> dict[str, str]:
    """The variables of an upload step, each an existing file the instruction names as
    %name%; InvalidArgument says what is wrong otherwise."""
    if not files:
        raise InvalidArgument(
            f"upload({instruction!r}) got no files: pass files={{'resume': 'cv.pdf'}} and "
            "name each in the instruction as %resume%."
        )
    values = {}
    for name, path in files.items():
        if f"%{name}%" not in instruction:
            raise InvalidArgument(
                f"upload({instruction!r}) does not name the file %{name}%: write it into the "
                f"instruction, e.g. 'upload %{name}% to the resume field'."
            )
        if not Path(path).is_file():
            raise InvalidArgument(
                f"upload({instruction!r}): the file for %{name}% does not exist; pass the "
                "path of an existing file."
            )
        values[name] = str(path)
    return values


class Downloads:
    """The downloads a page starts, collected until a step takes them."""

    def __init__(self) -> None:
        self._started: list[Download] = []

    def started(self, download: Download) -> None:
        self._started.append(download)

    def take(self) -> list[Download]:
        """The downloads started since the last take, finished (each saved by Playwright)."""
        started, self._started = self._started, []
        for download in started:
            download.path()  # waits until it has finished
        return started


_DOWNLOADS: WeakKeyDictionary[Page, Downloads] = WeakKeyDictionary()


def watch_downloads(page: Page) -> Downloads:
    downloads = _DOWNLOADS.get(page)
    if downloads is None:
        downloads = _DOWNLOADS[page] = Downloads()
        page.on("download", downloads.started)
    return downloads
