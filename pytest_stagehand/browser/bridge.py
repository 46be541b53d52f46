"""Drive the plugin's one core, written against Playwright's sync API, over async pages.

The core (act, extract, observe, judge, agent, recordings, reports) calls Playwright the
sync way. An async test runs a core call with `greenlet_spawn` on its event loop: the call
runs in a greenlet, and where it calls Playwright it holds a `Bridge` object that looks
like the sync one over the async object. Each coroutine such an object's method returns
is handed by `await_only` to the coroutine that spawned the greenlet, which awaits it and
switches back with the result. So every pipeline has one implementation, driven either
way, and an async step runs the same Playwright calls as its sync twin.

What a bridged object gives back is bridged too (pages, frames, locators, downloads...),
`expect_*` context managers become sync ones, and handlers the core registers (`on`,
`once`, `route`) run in a greenlet of their own, inline when they need no I/O, as sync
handlers do. Only Playwright's public API is used.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import playwright.async_api
from greenlet import getcurrent, greenlet

T = TypeVar("T")

# Made anew for each call, so kept only while the core holds them: not worth a cache entry.
_UNCACHED = (playwright.async_api.Locator, playwright.async_api.FrameLocator,
             playwright.async_api.JSHandle)
# Where a test registers handlers the core steps aside for (handlers.py).
_EMITTERS = (playwright.async_api.Page, playwright.async_api.BrowserContext)
_REGISTERING = ("on", "once", "remove_listener")


class _Driven(greenlet):
    """A greenlet running core code for the coroutine (or handler) that started it."""

    def __init__(self, fn: Callable[..., Any], driver: greenlet) -> None:
        super().__init__(fn, driver)
        self.driver = driver
        self.gr_context = getcurrent().gr_context  # the caller's context variables
        self.awaiting: asyncio.Future | None = None  # the call the driver awaits for it
        self.interrupt: BaseException | None = None

    def throw(self, *args: Any) -> Any:
        """A listener interrupting the core's Playwright call (a dialog opened during an
        action, dialogs.py): as with the sync API, the call is abandoned and the core goes
        on from it with the exception; the listener goes on at once."""
        if self.awaiting is None or getcurrent() is self:
            return super().throw(*args)
        self.interrupt = args[0] if len(args) == 1 else args[1] or args[0]()
        self.awaiting.cancel()
        return None


def is_async_api(value: object) -> bool:
    """Is `value` an object of Playwright's async API (Page, Locator, Tracing, Route...)?
    By its package: not every class is exported by name (Tracing, Clock)."""
    return type(value).__module__.startswith("playwright.async_api")


def in_core() -> bool:
    """Is this code running in a greenlet a coroutine drives (may it await_only)?"""
    return isinstance(getcurrent(), _Driven)


def await_only(awaitable: Awaitable[T]) -> T:
    """From core code in a driven greenlet: have the driving coroutine await `awaitable`."""
    current = getcurrent()
    assert isinstance(current, _Driven), "await_only outside a greenlet_spawn"
    return current.driver.switch(awaitable)


async def _drive(child: _Driven, handed: Any) -> Any:
    """Await what `child` hands over and switch back with the result, until it ends."""
    while not child.dead:
        child.awaiting = asyncio.ensure_future(handed)
        try:
            value = await child.awaiting
        except BaseException as exc:  # the core sees Playwright's own error
            thrown, child.interrupt = child.interrupt or exc, None
            child.awaiting = None
            handed = greenlet.throw(child, thrown)
        else:
            child.awaiting = None
            handed = child.switch(value)
    return handed


async def greenlet_spawn(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run sync core code `fn(*args, **kwargs)` from a coroutine; its Playwright calls are
    awaited here."""
    child = _Driven(fn, getcurrent())
    return await _drive(child, child.switch(*args, **kwargs))


class Bridge:
    """The sync-looking face of one test's async Playwright objects: the same object
    always gets the same bridged one (the core compares pages and keys state by them),
    and the same core handler the same async one (so `remove_listener` finds it)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._synced: dict[int, tuple[Any, Synced]] = {}
        self._handlers: dict[Callable[..., Any], Callable[..., Any]] = {}

    def wrap(self, value: Any) -> Any:
        """`value` as the core sees it: async Playwright objects bridged, containers too."""
        if is_async_api(value):
            if isinstance(value, _UNCACHED):
                return Synced(value, self)
            kept = self._synced.get(id(value))
            if kept is None:
                kept = self._synced[id(value)] = (value, Synced(value, self))
                if isinstance(value, _EMITTERS):
                    self._route_test_handlers(value, kept[1])
            return kept[1]
        if hasattr(value, "__aenter__") and hasattr(value, "__aexit__"):
            return SyncedContext(value, self)
        if type(value) in (list, tuple):  # not a named tuple of the core's
            return type(value)(self.wrap(item) for item in value)
        return value

    def _route_test_handlers(self, emitter: Any, synced: Synced) -> None:
        """The test registers handlers on the async Page or BrowserContext itself: pass
        them through the bridged one's `on`, `once` and `remove_listener`, which the core
        watches (handlers.py), so its own listeners step aside for them as in sync tests."""
        for name in _REGISTERING:
            synced.originals[name] = getattr(emitter, name)

            def registering(event: str, f: Callable[..., Any], name: str = name) -> None:
                getattr(synced, name)(event, TestHandler(f, self))

            setattr(emitter, name, registering)

    def unwrap(self, value: Any) -> Any:
        """`value` as Playwright's async API takes it: bridged objects back to their own,
        the core's callables (handlers, predicates) as async-API handlers."""
        if isinstance(value, Synced):
            return value.async_object
        if isinstance(value, TestHandler):
            return value.handler
        if type(value) in (list, tuple):  # not a named tuple of the core's
            return type(value)(self.unwrap(item) for item in value)
        if type(value) is dict:
            return {key: self.unwrap(item) for key, item in value.items()}
        if callable(value) and not isinstance(value, type):
            return self.handler(value)
        return value

    def handler(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` as an async-API handler: run in its own greenlet with bridged arguments,
        inline (its answer returned, as a sync handler's or predicate's) unless it needs
        I/O, then finished by a coroutine Playwright awaits or schedules."""
        adapted = self._handlers.get(f)
        if adapted is not None:
            return adapted

        # Playwright passes as many arguments as the signature `wraps` carries over takes.
        @functools.wraps(f, updated=())
        def adapted(*args: Any) -> Any:
            child = _Driven(f, getcurrent())
            handed = child.switch(*self.wrap(args))
            return handed if child.dead else _drive(child, handed)

        self._handlers[f] = adapted
        return adapted

    def resolve(self, value: Any) -> Any:
        """A value an async-API call returned, as the sync call would have: awaited
        (through the driving coroutine, or on the idle loop from a pytest hook), bridged."""
        if inspect.isawaitable(value):
            if in_core():
                value = await_only(value)
            elif not self.loop.is_running():  # a hook after the test (a failure screenshot)
                value = self.loop.run_until_complete(_awaited(value))
            else:  # a timer of the core's on the loop (a held dialog's expiry): no answer
                self.loop.create_task(_awaited(value))
                return None
        return self.wrap(value)


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


class TestHandler:
    """A handler the test registered on an async page or context, on its way through the
    core's watch: Playwright gets it as it is; called by the core (a `once` that noted its
    run), it gets Playwright's async objects back."""

    def __init__(self, handler: Callable[..., Any], bridge: Bridge) -> None:
        self.handler = handler
        self._bridge = bridge
        self.__wrapped__ = handler  # Playwright passes as many arguments as it takes

    def __call__(self, *args: Any) -> Any:
        return self.handler(*(self._bridge.unwrap(arg) for arg in args))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TestHandler) and other.handler == self.handler

    def __hash__(self) -> int:
        return hash(self.handler)


class Synced:
    """An async Playwright object as the core sees it: the sync API's shape."""

    def __init__(self, async_object: Any, bridge: Bridge) -> None:
        self.async_object = async_object
        self._bridge = bridge
        self.originals: dict[str, Any] = {}  # the emitter's own methods, under the test's

    def __getattr__(self, name: str) -> Any:
        value = self.originals.get(name) or getattr(self.async_object, name)
        bridge = self._bridge
        if not callable(value) or is_async_api(value):
            return bridge.resolve(value)

        def call(*args: Any, **kwargs: Any) -> Any:
            return bridge.resolve(value(*bridge.unwrap(args), **bridge.unwrap(kwargs)))

        return call

    def __repr__(self) -> str:
        return f"<sync bridge of {self.async_object!r}>"


class SyncedContext:
    """An async `expect_*` context manager as a sync one; `.value` of what it gives is the
    event's object, bridged."""

    def __init__(self, manager: Any, bridge: Bridge) -> None:
        self._manager = manager
        self._bridge = bridge

    def __enter__(self) -> SyncedEventInfo:
        return SyncedEventInfo(self._bridge.resolve(self._manager.__aenter__()), self._bridge)

    def __exit__(self, *exc_info: Any) -> bool:
        return bool(self._bridge.resolve(self._manager.__aexit__(*exc_info)))


class SyncedEventInfo:
    def __init__(self, info: Any, bridge: Bridge) -> None:
        self._info = info
        self._bridge = bridge

    @property
    def value(self) -> Any:
        return self._bridge.resolve(self._info.value)

    def is_done(self) -> bool:
        return self._info.is_done()


def run_core(fn: Callable[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
    """`fn` (a sync core method) as a coroutine function that runs it in a greenlet."""

    @functools.wraps(fn)
    async def spawned(*args: Any, **kwargs: Any) -> T:
        return await greenlet_spawn(fn, *args, **kwargs)

    return spawned
