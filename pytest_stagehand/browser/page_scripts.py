"""Our larger page scripts, sent to a document once and then called by a short script.

snapshot.js's describer (about 69 KB) and readback.js would otherwise go with every outline
and every replayed step's look at the page, and be compiled again each time. A document
gets them with the first call that needs them (the page's watch sees its main frame
navigate, so a new document is known; for the describer, that is the first settle), kept
under symbols named by their hash, which no page script sees or clashes with. A page
whose every document uses one (a page the steps act on: the describer) has it given to
each new document as the document is created instead (`give_to_new_documents`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Locator, Page


@cache
def _key(library: str) -> str:
    return "pytest-stagehand." + hashlib.sha256(library.encode()).hexdigest()[:16]


def _symbol(library: str) -> str:
    return f"Symbol.for({json.dumps(_key(library))})"


def held(library: str) -> str:
    """JavaScript: `library` as the document holds it (given by a call, or as the document
    was created), or undefined."""
    return f"window[{_symbol(library)}]"


@cache
def _script(libraries: tuple[str, ...], body: str, params: str, given: tuple[int, ...]) -> str:
    """The script that gives the document the libraries at `given` (none: it is thought to
    hold them all), then calls `body(libraries..., params...)` with them: [result]; or,
    where the document lacks some still, {missing: [their indexes]}."""
    gives = "".join(
        f" Object.defineProperty(window, {_symbol(libraries[index])},"
        f" {{ value: {libraries[index]}, configurable: true }});"
        for index in given
    )
    holders = ", ".join(held(library) for library in libraries)
    return (  # awaited: a body may be async (a settle)
        f"async ({params}) => {{{gives} const held = [{holders}];"
        " const missing = held.flatMap((library, index) => library ? [] : [index]);"
        f" return missing.length ? {{ missing }} : [await ({body})(...held, {params})]; }}"
    )


def give_to_new_documents(page: Page, libraries: Sequence[str]) -> frozenset[str]:
    """Give each new document of the page's main frame `libraries` as it is created, before
    its own scripts, where they are kept as a call gives them. Sent to the browser once
    for the page rather than with each document's first call, and compiled as the
    document starts rather than in a step's round trip. Returns their keys: what a new
    document holds (`PageWatch.scripts`). A frame's documents are not given them as they
    are created (a page may hold many frames the steps never look into): each gets them
    with the first call that needs them (`call`)."""
    given = "".join(
        f" Object.defineProperty(window, {_symbol(library)},"
        f" {{ value: {library}, configurable: true }});"
        for library in libraries
    )
    page.add_init_script(f"if (window === window.top) {{{given} }}")
    return frozenset(_key(library) for library in libraries)


def _called(
    libraries: Sequence[str], run: Callable[[str], Any], body: str, params: str,
    held: set[str] | None,
) -> Any:
    """Call `body` with the libraries, giving the document those it lacks: a document
    that holds the describer is not sent it again with a library it lacks."""
    keys = [_key(library) for library in libraries]
    given = () if held is None else tuple(i for i, key in enumerate(keys) if key not in held)
    for _ in range(2):
        answer = run(_script(tuple(libraries), body, params, given))
        if isinstance(answer, list):
            break
        given = tuple(answer["missing"])  # lost, or never given: given now
    else:  # lost again as it was given: a page script takes them away
        raise PlaywrightError(f"the page takes away the scripts it is given ({keys})")
    if held is not None:
        held.update(keys)
    return answer[0]


def call(
    target: Page | Frame, libraries: Sequence[str], body: str, arg: Any = None,
    held: set[str] | None = None,
) -> Any:
    """`body(*libraries, arg)` in the page's main frame, or in a frame (body: a JavaScript
    function whose first parameters are the libraries, each a JavaScript expression). One
    round trip; a document that lost a library anyway (a page script cleared it) is given
    it in a second. `held`: the keys of the libraries the page's document was given, as its
    watch knows them (`PageWatch.scripts`): a new document gets them at once; without it
    (a frame's document, which no watch follows), the document is asked first. Raises
    Playwright's errors."""
    return _called(libraries, lambda script: target.evaluate(script, arg), body, "arg", held)


def call_on_all(
    locator: Locator, libraries: Sequence[str], body: str, arg: Any = None,
    held: set[str] | None = None,
) -> Any:
    """`body(*libraries, elements, arg)` on the elements `locator` hits now, in the main
    frame or a frame (Playwright's engine finds them; it does not wait), as `call` does."""
    run = lambda script: locator.evaluate_all(script, arg)  # noqa: E731
    return _called(libraries, run, body, "elements, arg", held)
