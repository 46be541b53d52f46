"""Files: uploads into file fields (also hidden ones behind a custom button) and the
downloads a step starts.

Paths are variable values: the model and the recordings see only their %name%.

Each download is copied to a local file as it finishes, the same way whether the browser
is local or remote: Playwright's own `Download.path()` works only for a local browser.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Download, Locator, Page

from pytest_stagehand.errors import InvalidArgument

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


@dataclass(frozen=True)
class SavedDownload:
    """A finished download and its local copy: `path()` and `save_as()` work as on
    Playwright's Download, also when the browser runs remotely. The copy is deleted when
    the browser context closes, as Playwright deletes its own."""

    download: Download  # Playwright's, for what else it offers (`page`, `failure()`)
    local: Path

    @property
    def suggested_filename(self) -> str:
        return self.download.suggested_filename

    @property
    def url(self) -> str:
        return self.download.url

    def path(self) -> Path:
        """Where the local copy is."""
        return self.local

    def save_as(self, path: str | Path) -> None:
        """Copy the download to `path` (its folders are created)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.local, path)


class Downloads:
    """The downloads a page starts, collected until a step takes them, each copied into a
    folder made on the first one and removed when the browser context closes."""

    def __init__(self) -> None:
        self._started: list[Download] = []
        self._folder: Path | None = None

    def started(self, download: Download) -> None:
        self._started.append(download)

    def take(self) -> list[SavedDownload]:
        """The downloads started since the last take, finished and copied."""
        started, self._started = self._started, []
        return [self._save(download) for download in started]

    def remove(self, *_: object) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    def _save(self, download: Download) -> SavedDownload:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="stagehand-downloads-"))
        # A folder per download: two may suggest the same name.
        local = Path(tempfile.mkdtemp(dir=self._folder)) / Path(download.suggested_filename).name
        download.save_as(local)  # waits until it has finished; streamed from a remote browser
        return SavedDownload(download, local)
