"""The house's rule (docs/architecture.md), read from the package's own imports: each folder
imports only the folders below it in the flow, no modules import each other in a loop, and
no private name crosses a module's edge."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import pytest_stagehand

PACKAGE = Path(pytest_stagehand.__file__).parent
NAME = "pytest_stagehand"

# Bottom to top. A module may import its own layer and those before it.
LAYERS = [
    {"calls", "errors", "events", "settings"},
    {"browser"},
    {"snapshot"},
    {"model"},
    {"prompts"},
    {"recordings"},
    {"actions"},
    {"heal"},
    {"pipelines"},
    {"page"},
    {"agent"},
    {"async_face"},
    {"reporting"},
    {"plugin"},
    {"testing", "__main__", ""},  # the scripted model server, `python -m`, the package's face
]


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import of this package, including
    those made inside functions and under TYPE_CHECKING."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module and (node.module + ".").startswith(NAME + "."):
                module = node.module[len(NAME) + 1 :]
            elif node.module == NAME:
                module = ""
            else:
                continue
            for alias in node.names:
                submodule = f"{module}.{alias.name}".lstrip(".")
                if submodule in known:
                    found.append((submodule, []))
                else:
                    found.append((module, [alias.name]))
        elif isinstance(node, ast.Import):
            found += [
                (alias.name[len(NAME) + 1 :], [])
                for alias in node.names
                if alias.name.startswith(NAME + ".")
            ]
    return found


def layer(module: str) -> int:
    top = module.split(".")[0]
    return next(index for index, names in enumerate(LAYERS) if top in names)


KNOWN = modules()
GRAPH = {name: imports(name, path, KNOWN) for name, path in KNOWN.items()}


def test_the_architecture_page_lists_the_layers_in_order():
    table = (PACKAGE.parent / "docs" / "architecture.md").read_text().split("## Folders")[1]
    rows = [
        {name.removesuffix("/").removesuffix(".py") for name in re.findall(r"`([\w/.]+)`", cells)}
        for cells in re.findall(r"^\| (`[^|]+)\|", table, re.MULTILINE)
    ]
    assert rows == [*LAYERS[:-1], {"testing"}]


def test_every_module_has_a_place():
    assert [name for name in KNOWN if not any(name.split(".")[0] in s for s in LAYERS)] == []


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_imports_only_go_down_the_flow(name):
    upward = [
        target for target, _ in GRAPH[name] if target != name and layer(target) > layer(name)
    ]
    assert upward == [], f"{name} imports from above it: {upward}"


def test_no_modules_import_each_other_in_a_loop():
    edges = {
        name: {target for target, _ in targets if target != name and target in KNOWN}
        for name, targets in GRAPH.items()
    }
    loops = []

    def visit(name: str, path: list[str]) -> None:
        for target in sorted(edges[name]):
            if target in path:
                loops.append([*path[path.index(target) :], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(name)

    done: set[str] = set()
    for name in sorted(edges):
        if name not in done:
            visit(name, [name])
    assert loops == []


def test_no_private_name_crosses_a_module_edge():
    crossing = [
        f"{name} takes {taken} from {target}"
        for name, targets in GRAPH.items()
        for target, names in targets
        for taken in names
        if taken.startswith("_") and target != name
    ]
    assert crossing == []


@pytest.mark.parametrize(
    ("folder", "allowed"),
    [
        ("model", {"calls", "errors", "events", "model"}),
        ("prompts", {"model.messages", "snapshot", "prompts"}),
        ("recordings", {"calls", "errors", "events", "settings", "snapshot", "recordings"}),
    ],
)
def test_the_narrow_folders_import_only_what_they_need(folder, allowed):
    """The model layer knows no page, the prompts know only messages and snapshots, and
    the recordings know no pipeline."""
    taken = {
        target
        for name, targets in GRAPH.items()
        if name.split(".")[0] == folder
        for target, _ in targets
    }
    assert {t for t in taken if not any(t == a or t.startswith(a + ".") for a in allowed)} == set()


def test_the_model_layer_never_touches_playwright():
    assert [
        name
        for name, path in KNOWN.items()
        if name.startswith("model.") and "playwright" in path.read_text()
    ] == []


LONG = 500  # lines


@pytest.mark.parametrize(
    "path",
    sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js")),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_a_long_module_says_at_its_top_why_it_is_kept_whole(path):
    text = path.read_text()
    if text.count("\n") <= LONG:
        return
    top = ast.get_docstring(ast.parse(text)) or "" if path.suffix == ".py" else text[:2000]
    assert "Kept whole:" in top, f"{path.name} has over {LONG} lines and does not say why"


def test_no_playwright_private_attribute_is_used():
    used = [
        path.relative_to(PACKAGE).as_posix()
        for path in KNOWN.values()
        if "_impl_obj" in path.read_text()
    ]
    assert used == []


# What a module may not hold: a container made at import to be filled while tests run, or
# a weak map from pages to what is kept about them. Per-page and per-test state lives in
# an object its owner makes (browser/watch.py, the fixtures); tables written out in full
# are constants.
WEAK = {"WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}
CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"}
def module_state(tree: ast.Module) -> list[str]:
    """The names a module's top level binds to a weak map or to a container made empty,
    and the names its functions declare `global`."""

    def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
        for node in body:
            if isinstance(node, ast.If | ast.Try | ast.With):  # still the module's level
                nested = [getattr(node, part, []) for part in ("body", "orelse", "finalbody")]
                yield from statements([s for part in nested for s in part])
                for handler in getattr(node, "handlers", []):
                    yield from statements(handler.body)
            else:
                yield node

    def mutable(value: ast.expr) -> bool:
        if isinstance(value, ast.Dict):
            return not value.keys
        if isinstance(value, ast.List | ast.Set):
            return not value.elts
        if isinstance(value, ast.Call):
            func = value.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            factory = called == "defaultdict"  # its first argument makes the values
            empty = len(value.args) <= int(factory) and not value.keywords
            return called in WEAK or (called in CONTAINERS and empty)
        return False

    found = []
    for node in statements(tree.body):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if mutable(value):
            found += [target.id for target in targets if isinstance(target, ast.Name)]
    globals_ = [node for node in ast.walk(tree) if isinstance(node, ast.Global)]
    return found + [name for node in globals_ for name in node.names]


def test_no_module_holds_state_that_belongs_to_a_page_or_a_test():
    held = [
        f"{name}.{state}"
        for name, path in KNOWN.items()
        for state in module_state(ast.parse(path.read_text()))
    ]
    assert held == []


@pytest.mark.parametrize(
    "source",
    [
        "from weakref import WeakKeyDictionary\n_HELD: WeakKeyDictionary = WeakKeyDictionary()",
        "import weakref\n_HELD = weakref.WeakKeyDictionary()",
        "_SEEN: dict[str, int] = {}",
        "if True:\n    _OPEN = []",
        "_PAGES = set()",
        "from collections import defaultdict\n_BY_PAGE = defaultdict(list)",
        "def watch():\n    global _CURRENT\n    _CURRENT = 1",
    ],
)
def test_the_state_check_sees_each_way_to_hold_state(source):
    assert module_state(ast.parse(source)) != []


def test_the_state_check_lets_constants_be():
    constants = 'NAMES = ("a", "b")\nTABLE = {"a": 1}\n__all__ = ["x"]\nSPECIAL = set("^$")'
    assert module_state(ast.parse(constants)) == []


# A script of the page, as a Python string: an arrow function or a `function` over lines.
SCRIPT = re.compile(r"=>|\bfunction\b")


def scripts_in_strings(tree: ast.Module) -> list[str]:
    """The names of string constants of a module that hold a script of more than one line
    (one-liners, such as a locator's `el => el.value`, may stay beside their call)."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        texts = [n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant)]
        text = "".join(t for t in texts if isinstance(t, str))
        if "\n" in text.strip() and SCRIPT.search(text):
            found.append(node.targets[0].id)
    return found


def test_in_page_scripts_live_in_js_files():
    held = [
        f"{name}.{constant}"
        for name, path in KNOWN.items()
        for constant in scripts_in_strings(ast.parse(path.read_text()))
    ]
    assert held == []


def test_the_script_check_sees_a_script_in_a_string():
    source = 'LOOK = f"""(el) => {{\n  return el.id;\n}}"""\nNAME = "a => b"'
    assert scripts_in_strings(ast.parse(source)) == ["LOOK"]
