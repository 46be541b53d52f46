"""Where a link goes and what a submit button sends, as the heal rule compares them: what
a control does is more than its name ("Edit" of /users/alice/edit is not "Edit" of
/users/bob/edit). A running app changes parts of both without changing what they do: row
keys, generated ids, hashes, the query's tokens and cache-busters. Those are no part of it.
"""

from __future__ import annotations

import re
from contextlib import suppress
from ipaddress import ip_address
from urllib.parse import unquote, urlsplit

from pytest_stagehand.actions.action import VARIABLE
from pytest_stagehand.heal.identity import Identity
from pytest_stagehand.heal.words import NUMBER, numbers_in, words_in_order
from pytest_stagehand.snapshot.element import describe

RUN = re.compile(r"[^\W_]+")  # a path's or value's pieces between its separators (/ - _ . #)


# The last names of hosts on a private network or a developer's machine, never a public site.
LOCAL = frozenset({"localhost", "local", "internal", "lan", "test"})


HEX = re.compile(r"[0-9a-f]{8,}", re.IGNORECASE)  # a hash or id written with no digit in it


def sends_elsewhere(recorded: Identity, candidate: Identity) -> str | None:
    """How the candidate's link or submitted value differs from the recorded one's, or None.

    Compared where both were read (a recording, or an element, without them compares as
    before): a link's site where both name one, the words of its path and fragment, and
    the numbers of them that the element showed beside it (its name, row or card: the
    "2025" of "Invoice 2025" in /invoices/2025.pdf) where it still shows them; a button's
    submitted value the same way. Words may be gained or lost (a relative link written
    out in full), not traded for others; the query, and the pieces with a digit or that
    look like a hash (row keys, uuids, tokens), are the app's to change.
    """
    r, c = recorded.fingerprint, candidate.fingerprint
    for key in ("href", "value"):
        was, now = r.attributes.get(key), c.attributes.get(key)
        if was is None or now is None:
            continue
        shown = _shown_numbers(recorded) & _shown_numbers(candidate)
        if not _elsewhere(_target(key, VARIABLE.sub(" ", was)), _target(key, now), shown):
            continue
        if key == "href":
            return f"{describe(r)} now goes to {_shown(now)}, recorded {_shown(was)}"
        sent = f"{r.attributes['name']}=" if r.attributes.get("name") else ""
        return f"{describe(r)} now submits {sent}{now}, recorded {sent}{was}"
    return None


def _target(key: str, text: str) -> tuple[str, str]:
    """The public site a link names ("" for none) and its path and fragment, %-escapes read; a
    value's whole text."""
    if key != "href":
        return "", text
    parts = urlsplit(text)
    return _site(parts.hostname or ""), unquote(f"{parts.path} {parts.fragment}")


def _elsewhere(was: tuple[str, str], now: tuple[str, str], shown: frozenset[str]) -> bool:
    """Does the target `now` differ from `was` by its site, by words traded for others, or
    by losing a number of it that the element shows beside it (`shown`)?"""
    (site_was, where_was), (site_now, where_now) = was, now
    if site_was and site_now and site_was != site_now:
        return True
    words_was, words_now = _words(where_was), _words(where_now)
    if not (words_was <= words_now or words_now <= words_was):
        return True
    return bool((numbers_in(where_was) & shown) - numbers_in(where_now))


def _words(text: str) -> frozenset[str]:
    """The words of a path or value, but its pieces with a digit or that look like a hash:
    an app generates those ("r-7f3a", "Untitled3", a uuid, "app.3f2a9c.js")."""
    steady = (run for run in RUN.findall(text) if not NUMBER.search(run) and not HEX.fullmatch(run))
    return frozenset(word for run in steady for word in words_in_order(run))


def _site(host: str) -> str:
    """The site of a link's host ("example.com" of downloads.example.com), "" for one that
    names no public site (localhost, an address, a container's name): a staging host and
    production's, a test server's port or the name CI gives it, are the app's own."""
    with suppress(ValueError):
        ip_address(host)
        return ""
    labels = host.split(".")
    return ".".join(labels[-2:]) if len(labels) > 1 and labels[-1] not in LOCAL else ""


def _shown_numbers(identity: Identity) -> frozenset[str]:
    """The numbers an element shows with it: in its name, around it, in its containers'
    labels."""
    fp = identity.fingerprint
    labels = " ".join(label for _, label in fp.containers)
    return numbers_in(f"{fp.name} {identity.context} {labels}")


def _shown(href: str) -> str:
    """A link as a message names it: without its query, which may carry a token."""
    parts = urlsplit(href)
    site = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    return site + parts.path + (f"#{parts.fragment}" if parts.fragment else "")
