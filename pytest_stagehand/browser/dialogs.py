"""Native dialogs (alert, confirm, prompt, beforeunload): seen by the model, answered by act.

A native dialog blocks its page: Playwright's action that opened it does not return until
the dialog is answered, and Playwright dismisses every dialog no listener takes. So that
"click Delete" then "accept the confirmation" reads as two steps, the dialog an action
opens is held: the action returns at once (`Dialogs.may_open`), the page stays blocked,
and the next act step sees the dialog instead of the page (`outline`) and answers it with
`accept_dialog` / `dismiss_dialog`. An answer given while no dialog is open is kept for
the next one (Playwright's `page.once("dialog", ...)`).

Nothing waits forever on a held dialog: any other step of the page dismisses it first, and
a Playwright call left blocked by it dismisses it after DIALOG_HOLD_S. Every dialog no
step answered is dismissed, as Playwright does, and shows in the step log as a "dialog"
step saying so (one the hold expired on, at the next step or the test's end).

A dialog a handler of the test takes (its own `page.on("dialog", ...)`, `page.once`, or
the context's) is the test's: the plugin neither holds nor answers it (handlers.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import greenlet
from playwright.sync_api import Dialog, Page

from pytest_stagehand.browser.handlers import handled_by_test, listen
from pytest_stagehand.errors import ActionFailed
from pytest_stagehand.events import StepLog

DIALOG_METHODS: frozenset[str] = frozenset({"accept_dialog", "dismiss_dialog"})
DIALOG_HOLD_S = 2.0  # how long a Playwright call may stay blocked by a held dialog


class _DialogOpened(Exception):
    """Interrupts the Playwright call that a dialog blocks (internal to `may_open`)."""


@dataclass(frozen=True)
class SeenDialog:
    """A dialog the page showed and what became of it, for the log and the test."""

    kind: str  # alert, confirm, prompt, beforeunload
    message: str
    outcome: str  # "accepted", "dismissed", "held", "left to the test"


class Dialogs:
    """The native dialogs of one page: the one held for the next act step, the answer
    kept for the next dialog, and every dialog seen so far (`seen`)."""

    def __init__(self, page: Page, steplog: StepLog) -> None:
        self.page = page
        self.steplog = steplog
        self.pending: Dialog | None = None
        self.seen: list[SeenDialog] = []
        self._armed: tuple[bool, str | None] | None = None  # accept?, and a prompt's text
        self._acting: greenlet.greenlet | None = None  # the test, inside an action
        self._answering = False
        self._expired: list[Dialog] = []  # dismissed by the expiry, not logged yet
        # A dialog is held or answered once: by the page's newest owner (an AIPage made
        # on a page another drove before), not dismissed by the one that took no step.
        listen(page, "dialog", self._opened, sole=True)

    # --- the listener -------------------------------------------------------------------

    def _opened(self, dialog: Dialog) -> None:
        if handled_by_test(self.page, "dialog", dialog):  # the test's own handler answers it
            self.seen.append(SeenDialog(dialog.type, dialog.message, "left to the test"))
            return
        if self._armed is not None:
            (accept, value), self._armed = self._armed, None
            self._answer(dialog, accept, value)
            return
        if self._acting is not None and self.pending is None:
            self.pending = self._held(dialog)
            self.seen.append(SeenDialog(dialog.type, dialog.message, "held"))
            acting, self._acting = self._acting, None
            acting.throw(_DialogOpened())  # the action returns; the page stays blocked
            return
        self._dismiss_unanswered(dialog, "no step answered it")

    def _held(self, dialog: Dialog) -> Dialog:
        """Hold `dialog`, and dismiss it if a Playwright call is still blocked by it after
        DIALOG_HOLD_S (the event loop runs only during Playwright calls)."""

        def expire() -> None:
            if self.pending is dialog and not self._answering:
                self.pending = None
                # A sync call in a greenlet of its own, as Playwright runs a listener: it
                # gives the loop back while the call waits, and ends when it has returned.
                greenlet.greenlet(self._dismiss_quietly).switch(dialog)
                self._record_outcome(dialog, "dismissed")
                # Its step is logged by the test's own flow (`log_expired`): here, in
                # Playwright's event loop, a listener's page call (a report's screenshot)
                # would never return.
                self._expired.append(dialog)

        asyncio.get_running_loop().call_later(DIALOG_HOLD_S, expire)
        return dialog

    @contextmanager
    def may_open(self) -> Iterator[None]:
        """Run an action that may open a dialog: the action returns when one opens, and
        the dialog is held for the next step."""
        self._acting = greenlet.getcurrent()
        try:
            yield
        except _DialogOpened:
            pass
        finally:
            self._acting = None

    # --- answering ----------------------------------------------------------------------

    def answer(self, method: str, value: str | None) -> None:
        """Answer the held dialog (`value`: a prompt's text, variables put in); with none
        held, keep the answer for the next dialog the page opens."""
        accept = method == "accept_dialog"
        if self.pending is None:
            self._armed = (accept, value)
            return
        dialog, self.pending = self.pending, None
        self._answer(dialog, accept, value)

    def _answer(self, dialog: Dialog, accept: bool, value: str | None) -> None:
        self._answering = True
        try:
            if accept:
                dialog.accept(value) if value is not None else dialog.accept()
            else:
                dialog.dismiss()
        except Exception as exc:
            raise ActionFailed(
                f"Could not answer the {dialog.type} {dialog.message!r}: "
                f"{self.steplog.mask(str(exc).splitlines()[0])}"
            ) from None
        finally:
            self._answering = False
        outcome = "accepted" if accept else "dismissed"
        self._record_outcome(dialog, outcome)

    def dismiss_pending(self, why: str) -> None:
        """Dismiss the held dialog before a step that does not answer it (it would block)."""
        if self.pending is not None:
            dialog, self.pending = self.pending, None
            self._dismiss_unanswered(dialog, why)

    def _dismiss_unanswered(self, dialog: Dialog, why: str) -> None:
        self._answering = True
        try:
            self._dismiss_quietly(dialog)
        finally:
            self._answering = False
        self._log(dialog, f"dismissed: {why}")

    @staticmethod
    def _dismiss_quietly(dialog: Dialog) -> None:
        with suppress(Exception):  # answered meanwhile, or its page closed
            dialog.dismiss()

    def _record_outcome(self, dialog: Dialog, outcome: str) -> None:
        for index in range(len(self.seen) - 1, -1, -1):
            seen = self.seen[index]
            if seen.outcome == "held" and seen.message == dialog.message:
                self.seen[index] = SeenDialog(seen.kind, seen.message, outcome)
                return
        self.seen.append(SeenDialog(dialog.type, dialog.message, outcome))

    def log_expired(self) -> None:
        """Log the held dialogs that expired since the last call: before each step of the
        page and at the test's end."""
        expired, self._expired = self._expired, []
        for dialog in expired:
            self._step(dialog, f"dismissed: no step answered it in {DIALOG_HOLD_S:g} s")

    def _log(self, dialog: Dialog, result: str) -> None:
        self._record_outcome(dialog, "dismissed")
        self._step(dialog, result)

    def _step(self, dialog: Dialog, result: str) -> None:
        with self.steplog.step("dialog", f"{dialog.type} {dialog.message!r}", self.page.url) as e:
            e.result = result
