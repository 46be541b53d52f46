"""Remote browsers, reached through Playwright's own protocols.

`--ai-connect ws://…` speaks Playwright's protocol (`playwright run-server`, a Selenium
Grid 4 or browserless endpoint that speaks it): the server launches the browser.
`--ai-cdp-url http://…` attaches to a running Chromium over the DevTools protocol. Either
way the page is an ordinary Playwright page, so snapshots, actions, heals, screenshots
and tracing work as they do locally.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserType
from playwright.sync_api import Error as PlaywrightError

from pytest_stagehand.errors import BrowserUnreachable, RemoteLaunchFailed
from pytest_stagehand.settings import Settings

CONNECT_TIMEOUT_MS = 30_000
PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class RemoteBrowser:
    """Where the session's browser runs, and by which protocol it is reached."""

    endpoint: str
    protocol: Literal["playwright", "cdp"]
    option: str  # where it was given, for messages
    extra: Mapping[str, Any] = field(default_factory=dict)  # more of `connect`'s arguments

    @classmethod
    def of(
        cls, settings: Settings, connect_options: Mapping[str, Any] | None = None
    ) -> RemoteBrowser | None:
        """The remote browser the options name; pytest-playwright's own `connect_options`
        fixture (set in a conftest) counts when neither option is given."""
        if settings.connect:
            return cls(settings.connect, "playwright", "--ai-connect")
        if settings.cdp_url:
            return cls(settings.cdp_url, "cdp", "--ai-cdp-url")
        if connect_options and connect_options.get("ws_endpoint"):
            extra = {k: v for k, v in connect_options.items() if k != "ws_endpoint"}
            return cls(connect_options["ws_endpoint"], "playwright", "connect_options", extra)
        return None

    def probe(self, timeout_s: float = PROBE_TIMEOUT_S) -> None:
        """Fail fast, once, when nothing listens at the endpoint (before any test runs)."""
        parts = urlsplit(self.endpoint)
        default_port = 443 if parts.scheme in ("https", "wss") else 80
        try:
            with socket.create_connection(
                (parts.hostname or "localhost", parts.port or default_port), timeout_s
            ):
                pass
        except OSError as exc:
            raise self._unreachable(f"nothing answers there ({exc})") from None

    def connect(self, browser_type: BrowserType, launch_options: dict[str, Any]) -> Browser:
        """The remote browser; `launch_options` go to a Playwright server, which launches it.

        BrowserUnreachable when no connection opened; RemoteLaunchFailed when a Playwright
        server answered but could not launch the browser (it says why)."""
        try:
            if self.protocol == "cdp":
                return browser_type.connect_over_cdp(self.endpoint, timeout=CONNECT_TIMEOUT_MS)
            options = {_camel(name): value for name, value in launch_options.items()}
            headers = {
                "x-playwright-launch-options": json.dumps(options),
                **(self.extra.get("headers") or {}),
            }
            arguments = {"timeout": CONNECT_TIMEOUT_MS, **self.extra, "headers": headers}
            return browser_type.connect(self.endpoint, **arguments)
        except PlaywrightError as exc:
            message = str(exc)
            if self.protocol == "playwright" and not _never_connected(message):
                raise self._launch_failed(message, "executable_path" in launch_options) from None
            raise self._unreachable(message.splitlines()[0]) from None

    def _unreachable(self, reason: str) -> BrowserUnreachable:
        hint = (
            "start one with `playwright run-server --port 3000 --host 127.0.0.1`, or check the "
            "grid's Playwright endpoint"
            if self.protocol == "playwright"
            else "start Chromium with --remote-debugging-port=9222, or check the service's "
            "CDP URL"
        )
        return BrowserUnreachable(
            f"The remote browser at {self.endpoint} ({self.option}) cannot be reached: "
            f"{reason}.\nCheck that it is running and reachable from this machine ({hint}), "
            f"or leave out {self.option} to launch a local Chromium."
        )

    def _launch_failed(self, message: str, named_browser: bool) -> RemoteLaunchFailed:
        fix = (
            "check that --browser-executable-path names a browser on the server's machine, "
            "and that the server was started with --unsafe (without it the server ignores "
            "the path and launches its own)"
            if named_browser
            else "install the server's browsers where it runs (`playwright install chromium`, "
            "with the server's Playwright version), or start it with `playwright run-server "
            "--unsafe` and name a browser on its machine with --browser-executable-path"
        )
        return RemoteLaunchFailed(
            f"The Playwright server at {self.endpoint} ({self.option}) answered, but could "
            f"not launch a browser. The server said: {_server_words(message)}\n"
            f"The server launches the browser on its own machine: {fix}."
        )


def _server_words(message: str) -> str:
    """The first line of what the server said, without the client's method name."""
    first = message.strip().splitlines()[0] if message.strip() else "no reason given"
    return first.removeprefix("BrowserType.connect: ")


def _never_connected(message: str) -> bool:
    """Whether Playwright's connection to the server never opened: its error then carries
    the call log of the attempt (refused, timed out, or answered by something that is not
    a WebSocket server). Once connected, an error is the server's own words."""
    return "<ws connecting>" in message or "WebSocket error" in message


def _camel(name: str) -> str:
    """executable_path → executablePath: the server reads the protocol's spelling."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)
