"""The test's own event handlers, so that the plugin steps aside for them.

What a test set up itself wins over the plugin: a dialog is answered by the test's own
`page.on("dialog", ...)` or `context.on("dialog", ...)`, not by the plugin; a popup the
test's handler closes is not followed. Playwright keeps its listeners to itself (it
dismisses a dialog only when none is registered, and its public API does not say whether
one is), so the handlers a test registers are seen as it registers them: the `on`, `once`
and `remove_listener` of a watched Page or BrowserContext note each call and pass it on to
Playwright. A `once` handler is passed on inside a wrapper that notes when it has run.

The plugin's own listeners (`listen`) are kept behind the test's: Playwright calls
listeners in the order they were registered, so the test's have run (and returned) when
the plugin's run. Every page the context opens is watched before the test's own
`context.on("page", ...)` sees it. Handlers registered before the plugin watched the page
(before `ai_page` was set up) are not seen.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page

Handler = Callable[..., Any]
Target = Page | BrowserContext


class Registered:
    """The handlers a test registered on one Page or BrowserContext, by event."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.playwright_on = target.on  # registers with Playwright, unseen
        self._once, self._remove = target.once, target.remove_listener
        self._handlers: dict[str, list[Handler]] = {}  # as registered, in order
        self._own: dict[str, list[Handler]] = {}  # the plugin's, kept behind the test's
        self._wrapped: dict[tuple[str, Handler], Handler] = {}  # a `once` handler's wrapper
        self._took: dict[str, object] = {}  # by event: what a `once` handler last ran for
        target.on = self.on  # type: ignore[method-assign]
        target.once = self.once  # type: ignore[method-assign]
        target.remove_listener = self.remove_listener  # type: ignore[method-assign]

    def on(self, event: str, f: Handler) -> None:
        self.playwright_on(event, f)
        self._handlers.setdefault(event, []).append(f)
        self._keep_behind(event)

    def once(self, event: str, f: Handler) -> None:
        # Playwright passes a handler as many arguments as it takes, read from the
        # signature `wraps` carries over (not its attributes: Playwright keeps its own
        # wrapper of `f` among them).
        @functools.wraps(f, updated=())
        def ran(*args: Any) -> Any:
            self._forget(event, f)
            if args:
                self._took[event] = args[0]
            return f(*args)

        self._wrapped[(event, f)] = ran
        self._once(event, ran)
        self._handlers.setdefault(event, []).append(f)
        self._keep_behind(event)

    def own(self, event: str, f: Handler, sole: bool = False) -> None:
        """Register one of the plugin's handlers, behind the test's; `sole`: in place of
        the plugin's handlers of `event` registered before."""
        if sole:
            for old in self._own.pop(event, []):
                self._remove(event, old)
        self.playwright_on(event, f)
        self._own.setdefault(event, []).append(f)

    def _keep_behind(self, event: str) -> None:
        # Registered again after the test's handler (the event keeps a listener throughout).
        for f in self._own.get(event, []):
            self._remove(event, f)
            self.playwright_on(event, f)

    def remove_listener(self, event: str, f: Handler) -> None:
        self._remove(event, self._wrapped.get((event, f), f))
        self._forget(event, f)

    def _forget(self, event: str, f: Handler) -> None:
        handlers = self._handlers.get(event, [])
        if f in handlers:
            handlers.remove(f)
        if f not in handlers:
            self._wrapped.pop((event, f), None)

    def take(self, event: str, arg: object) -> bool:
        """Does a handler of the test take `event` for `arg` (the event's object): one
        registered now, or a `once` handler that has run for it (a context's runs before
        its page's)?"""
        took = self._took.get(event)
        return bool(self._handlers.get(event)) or (took is not None and took is arg)


def registered(target: Target) -> Registered | None:
    """What the test registered on `target`, when it is watched."""
    seen = getattr(target.on, "__self__", None)
    return seen if isinstance(seen, Registered) and seen.target is target else None


def watch_handlers(page: Page) -> None:
    """See the handlers the test registers on `page`, its context, and every page the
    context opens from now on."""
    context = page.context
    if registered(context) is None:
        # Ahead of the test's handlers: a page is watched before they see it.
        Registered(context).playwright_on("page", _watch_page)
    _watch_page(page)


def _watch_page(page: Page) -> None:
    if registered(page) is None:
        Registered(page)


def listen(target: Target, event: str, f: Handler, sole: bool = False) -> None:
    """Register one of the plugin's own handlers: not one of the test's, and called after
    them. `sole`: the plugin's only handler of `event` on `target`, in place of one an
    earlier owner of the page registered."""
    (registered(target) or Registered(target)).own(event, f, sole)


def handled_by_test(page: Page, event: str, arg: object) -> bool:
    """Does a handler the test registered on `page` or its context take `event` for `arg`?"""
    return any(
        seen is not None and seen.take(event, arg)
        for seen in (registered(page.context), registered(page))
    )
