"""One exception hierarchy, with messages written for the test author.

Every error says what happened and what to do about it. Catch `StagehandError`
to handle anything this plugin raises.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_stagehand.calls import CallUsage


class StagehandError(Exception):
    """Base of every error raised by pytest-stagehand."""


# --- configuration and environment -------------------------------------------------


class ConfigError(StagehandError):
    """A bad option, ini key, environment variable or marker argument."""


class BrowserNotFound(StagehandError):
    """No usable Chromium: neither Playwright's own nor a system one."""


class BrowserUnreachable(StagehandError):
    """A remote browser (--ai-connect, --ai-cdp-url) that cannot be reached or attached to."""


class RemoteLaunchFailed(StagehandError):
    """A Playwright server (--ai-connect) that answered but could not launch its browser:
    a problem of the server's machine, not of the network."""


# --- the model layer ----------------------------------------------------------------


class ModelError(StagehandError):
    """Anything that went wrong talking to a model.

    `raw` holds what came back, if anything did (API key masked). `calls` are the calls
    the model answered before the error: they were paid for, so reports count them
    whatever happened after.
    """

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.calls: list[CallUsage] = []


def show_briefly(error: BaseException) -> None:
    """Trim how pytest shows `error`: our message, where the test called the step, no more.

    The provider SDK's exception chain (httpcore, httpx, openai) and the frames inside
    this package are dropped from the error, so a failure reads in a dozen lines instead
    of hundreds. The plugin skips this at -vv and with --full-trace.
    """
    error.__cause__ = None
    error.__suppress_context__ = True
    package = str(Path(__file__).parent)
    outside: TracebackType | None = None
    tb = error.__traceback__
    while tb is not None:
        inside = tb.tb_frame.f_code.co_filename.startswith(package)
        if inside and outside is not None:
            outside.tb_next = None  # the test's own frame is the last one shown
            return
        outside = None if inside else tb
        tb = tb.tb_next


class MissingApiKey(ModelError):
    """The provider needs a key and none was configured."""


class ModelAuthError(ModelError):
    """The provider refused the key (401/403)."""


class ModelUnavailable(ModelError):
    """The provider kept failing (429, 5xx, timeouts) after bounded retries."""


class ModelOutputError(ModelError):
    """The model's answer could not be parsed or validated, even after a repair attempt.

    `raw` holds what came back, so nothing the model said is lost.
    """


class ModelRefused(ModelError):
    """The model declined the task (a refusal, not a failure to answer)."""


class BudgetExceeded(ModelError):
    """The configured cost budget was used up; no further calls are made."""


class ModelRequired(ModelError):
    """A step needed a model but none is configured (or the cache mode forbids calls)."""


# --- acting on the page -------------------------------------------------------------


class ActionError(StagehandError):
    """A step could not be carried out on the page."""


class ElementNotFound(ActionError):
    """The model (or the recording) found no element matching the instruction."""


class InvalidModelChoice(ActionError):
    """The model chose an element id that does not exist or a method the element cannot take."""


class ActionFailed(ActionError):
    """Playwright could not perform the chosen action, even after a self-heal attempt."""


class ElementCovered(ActionError):
    """The element was right but another (an overlay, a banner) covered it for the whole
    step's timeout; asking the model again cannot help, so no heal is tried."""


class PageClosed(ActionError):
    """The page a step was asked to run on is closed."""


# --- the test author's own input ----------------------------------------------------


class InvalidArgument(StagehandError, TypeError):
    """An argument the plugin cannot use: a schema it cannot convert, a %name% with no
    variable given for it. Nothing was done."""


# --- the selector cache -------------------------------------------------------------


class CacheError(StagehandError):
    """A problem with recorded steps."""


class CacheMiss(CacheError):
    """Offline mode and no recording for this step.

    `recorded_on`: the pages this very step was recorded on instead (the same words,
    variables and use in the test). A page on its way to one of them (a redirect, an app
    that rewrites its address once it has loaded) may still get there: a step waits."""

    def __init__(self, message: str, recorded_on: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.recorded_on = recorded_on


class RecordingFileError(CacheError):
    """A recordings file is corrupt or was hand-edited into an invalid shape."""


class StoreError(CacheError):
    """The working store (the cache dir) or a recordings directory cannot be read or
    written: read-only, full, or otherwise unusable. The message names the path."""


class HealFailed(CacheError):
    """A recorded element is gone and no confident, unambiguous replacement exists."""


class NeedsModelWarning(UserWarning):
    """A step recorded with values the page does not show as they were answered (a count,
    a sum, a judgement the model made): offline its replay will fail, so the test author
    hears it when it is recorded, not from CI."""


class RegionChanged(HealFailed):
    """A step recorded as a point on a canvas, SVG or image no longer looks as it did
    there, so acting at the point could hit something else (vision.py)."""


# --- judgments and the agent --------------------------------------------------------


class AIAssertionError(AssertionError, StagehandError):
    """A plain-English assertion was judged false; the message carries the reasoning."""


class WaitTimeout(StagehandError):
    """`ai_page.wait_for(claim)` ran out of time before the claim held; `verdict` is the
    judge's last verdict (its reasoning says what the page showed)."""

    def __init__(self, message: str, verdict: object = None) -> None:
        super().__init__(message)
        self.verdict = verdict


class AgentError(StagehandError):
    """The agent could not run (not: the agent ran and did not reach its goal)."""


class SafetyCheckPending(AgentError):
    """A computer-use model asked for a person's confirmation before an action (OpenAI's
    pending safety checks) and the test does not allow it."""
