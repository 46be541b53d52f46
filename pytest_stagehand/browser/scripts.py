"""In-page JavaScript, kept in `.js` files beside the code that sends it, so it reads and
diffs as JavaScript: one function (or expression) per file, in the `js/` folder of the
package that uses it."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

# Where a file takes in the text of another script: `/*@NAME*/`.
PART = re.compile(r"/\*@(\w+)\*/")


def script(package: str, name: str, **parts: str) -> str:
    """The text of `<package>/js/<name>.js`, each `/*@NAME*/` in it replaced by the script
    given as `NAME`. Every marker must be given and every part used: a script that sends
    one without the other would fail in the page, far from the cause."""
    text = _read(package, name)
    wanted = set(PART.findall(text))
    if wanted != set(parts):
        raise ValueError(f"{package}/js/{name}.js takes {sorted(wanted)}, given {sorted(parts)}")
    return PART.sub(lambda marker: parts[marker.group(1)], text).rstrip("\n")


@cache
def _read(package: str, name: str) -> str:
    return resources.files(package).joinpath("js", f"{name}.js").read_text(encoding="utf-8")
