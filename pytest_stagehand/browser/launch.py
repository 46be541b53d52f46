"""Find a Chromium that Playwright can drive.

Playwright's own build is preferred; on machines where `playwright install` cannot
download (offline CI, Debian images) a system Chromium or Chrome is used instead,
started with flags that keep it off the network so it does not stall on refused
connections.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_stagehand.errors import BrowserNotFound

if TYPE_CHECKING:
    from playwright.sync_api import BrowserType

SYSTEM_CANDIDATES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
)
USUAL_PATHS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
# Without these a system Chromium phones home at start-up; on a closed network the
# refused connections pile up and the browser stalls.
OFFLINE_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--disable-gpu",
)
INSTALL_HINT = (
    "Install one of:\n"
    "  * Playwright's Chromium:   python -m playwright install chromium\n"
    "  * Debian/Ubuntu Chromium:  apt-get install -y chromium\n"
    "or point at an existing binary with --browser-executable-path PATH "
    "(ini: browser_executable_path, env: STAGEHAND_BROWSER_PATH)."
)


@dataclass(frozen=True)
class BrowserChoice:
    """The Chromium to launch and the extra launch options it needs."""

    executable_path: str | None  # None: Playwright's own build
    source: str  # "playwright", "option" or "system"
    args: tuple[str, ...] = field(default_factory=tuple)

    def launch_options(self) -> dict:
        if self.executable_path is None:
            return {}
        options: dict = {"executable_path": self.executable_path, "args": list(self.args)}
        return options


def playwright_chromium_path(chromium: BrowserType | None = None) -> str | None:
    """Path of Playwright's bundled Chromium if it is installed, else None. `chromium`:
    a running Playwright's, which knows; else a Playwright is started to ask (a second
    driver for a session that runs one anyway: a second of start-up)."""
    if chromium is not None:
        path = chromium.executable_path
    else:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
    return path if path and Path(path).exists() else None


def system_chromium_path() -> str | None:
    for name in SYSTEM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    for path in USUAL_PATHS:
        if Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return None


# A full Chromium (a system one, unlike Playwright's headless shell) gives every context's
# window an address bar whose suggestion popups are two WebUI pages, loaded at once in a
# renderer of their own: about a third of a second of CPU per test that no test uses.
UNUSED_UI_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")


def playwright_disabled_features() -> list[str] | None:
    """The Chromium features the installed Playwright disables (its `--disable-features`),
    read from its driver; None when they cannot be read for sure."""
    import playwright

    lib = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for source in (lib / "coreBundle.js", lib / "server" / "chromium" / "chromiumSwitches.js"):
        try:
            text = source.read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.search(r"\bdisabledFeatures = \[(.*?)\]", text, re.DOTALL)
        if found is None:
            continue
        body = re.sub(r"//[^\n]*", "", found.group(1))
        names = re.findall(r'"(\w+)"', body)
        if not names or re.sub(r'"\w+"|[\s,]', "", body):
            return None  # more than a plain list of names: not read for sure
        return names
    return None


def _without_unused_ui() -> list[str]:
    """A `--disable-features` for UNUSED_UI_FEATURES that carries Playwright's own list:
    Chromium honours only the last one given, and Playwright's (which keeps HTTP routes on
    HTTP, among others) comes first. Nothing where that list cannot be read: the popups
    then stay, rather than Playwright's list be lost."""
    features = playwright_disabled_features()
    if features is None:
        return []
    return ["--disable-features=" + ",".join([*features, *UNUSED_UI_FEATURES])]


def _flags_for(executable: str) -> tuple[str, ...]:
    flags = [*OFFLINE_FLAGS, *_without_unused_ui()]
    # Chromium refuses to start as root without this (containers, CI runners).
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.insert(0, "--no-sandbox")
    return tuple(flags)


def find_chromium(
    explicit: str | None = None, *, bundled: str | bool | None = True
) -> BrowserChoice:
    """Choose the Chromium to launch: explicit path > Playwright's build > system install.

    `bundled=True` asks Playwright where its build lives; tests pass a path or None.
    """
    if explicit:
        path = Path(explicit).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise BrowserNotFound(
                f"The browser executable {explicit!r} does not exist or is not executable.\n"
                + INSTALL_HINT
            )
        return BrowserChoice(str(path), "option", _flags_for(str(path)))
    if bundled is True:
        bundled = playwright_chromium_path()
    if bundled:
        return BrowserChoice(None, "playwright")
    system = system_chromium_path()
    if system:
        return BrowserChoice(system, "system", _flags_for(system))
    raise BrowserNotFound(
        "No Chromium found: Playwright's browser is not installed and no system "
        "Chromium or Chrome is on PATH or at the usual paths.\n" + INSTALL_HINT
    )
