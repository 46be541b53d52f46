"""Which recording a step is: its key (kind, instruction, page, variables), and the nearest
recorded keys a miss is told about."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from urllib.parse import parse_qsl, urlencode, urlsplit

from pytest_stagehand.events import RecordedKind
from pytest_stagehand.snapshot.outline import origin_of


def normalise_url(url: str, share_origins: bool = True) -> str:
    """The part of a URL that names a page for the cache: path, sorted query, hash route.

    With `share_origins` the scheme and host are left out, so steps recorded against
    staging replay against production. Fragments are kept only when they are routes
    (`#/cart`, `#!/cart`); anchors (`#top`) do not make another page.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        return url.strip()  # about:blank, data:, file: name themselves
    origin = "" if share_origins else origin_of(url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    route = parts.fragment if parts.fragment.startswith(("/", "!")) else ""
    return (
        origin
        + (parts.path or "/")
        + (f"?{query}" if query else "")
        + (f"#{route}" if route else "")
    )


@dataclass(frozen=True)
class StepKey:
    """What identifies a recorded step: kind, instruction, page, variable NAMES, the scope
    it was limited to, and which use of the same step in one test it is (the second "click
    Continue" on one page gets its own recording).

    Variable values are never part of a key (or of anything recorded): the same step
    replays for every user name or password.
    """

    kind: RecordedKind
    instruction: str
    url: str  # already normalised; build keys with `step_key`
    variables: tuple[str, ...] = ()
    scope: str | None = None
    occurrence: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "instruction", " ".join(self.instruction.split()))
        object.__setattr__(self, "variables", tuple(sorted(set(self.variables))))

    @property
    def digest(self) -> str:
        parts: list[object] = [self.kind, self.instruction, self.url, list(self.variables)]
        if self.scope is not None or self.occurrence != 1:  # older keys keep their digest
            parts += [self.scope, self.occurrence]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    def describe(self) -> str:
        names = f" with variables {', '.join(self.variables)}" if self.variables else ""
        scope = f" in {self.scope}" if self.scope is not None else ""
        again = f" (use {self.occurrence} in the test)" if self.occurrence != 1 else ""
        return f"{self.kind} {self.instruction!r} on {self.url}{scope}{names}{again}"


def step_key(
    kind: RecordedKind,
    instruction: str,
    url: str,
    variables: Iterable[str] = (),
    *,
    share_origins: bool = True,
    scope: str | None = None,
    occurrence: int = 1,
) -> StepKey:
    """The key of a step; `variables` may be the variables dict itself (only names are used)."""
    url = normalise_url(url, share_origins)
    return StepKey(kind, instruction, url, tuple(variables), scope, occurrence)


def nearby_keys(key: StepKey, recorded: Iterable[StepKey], most: int = 3) -> list[StepKey]:
    """Recorded steps a missing one may have been meant to be: the same instruction keyed
    otherwise (another page, variables or use), then a reworded one on the same page."""
    same_words = [k for k in recorded if k.kind == key.kind and k != key]
    exact = [k for k in same_words if k.instruction == key.instruction]
    similar = sorted(
        (
            (ratio, k)
            for k in same_words
            if k.url == key.url and k.instruction != key.instruction
            if (ratio := _likeness(k.instruction, key.instruction)) >= 0.8
        ),
        key=lambda pair: -pair[0],
    )
    return (exact + [k for _, k in similar])[:most]


def _likeness(a: str, b: str) -> float:
    """1.0 for the same words; "log-in" for "login" is 0.98, "logout" for it 0.89, "click
    the Shop link" for "click the login button" 0.63."""
    return SequenceMatcher(None, a.lower(), b.lower()).ratio()


def miss_hint(key: StepKey, nearby: Sequence[StepKey]) -> str:
    """What a CacheMiss says of the recordings it found for other keys."""
    if not nearby:
        return ""
    lines = "".join(f"\n  - {k.describe()}" for k in nearby)
    hint = (
        "\nThat file has recordings of this step for another page, other variables or "
        f"another use in the test, or of one worded alike:{lines}"
    )
    keyed_by_origin = [k.url.startswith(("http://", "https://")) for k in [key, *nearby]]
    if any(keyed != keyed_by_origin[0] for keyed in keyed_by_origin[1:]):
        hint += (
            "\nRecordings made with --ai-cache-per-origin name pages with their origin, and "
            "those made without it do not: replay with the setting they were recorded with."
        )
    return hint + "\nIf the step moved or was reworded, record it again (below)."
