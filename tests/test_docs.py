"""Every code sample in docs/*.md and README.md runs, and the reference cannot drift.

Each fenced block is checked by its language:

- python: the blocks that define tests are written into one temporary suite (a folder per
  page; `# conftest.py` blocks joined into its root conftest) and run in one pytest
  subprocess against the example shop and a scripted model (the real SDKs over HTTP to
  127.0.0.1; nothing here is a model: `DocsModel` reads the snapshot in each prompt and
  answers as a correct model would). The getting-started test then replays offline from
  what that run recorded, with no model. Other python blocks are executed.
- ini, toml: parsed; every key is a known ini key and every plugin value is valid.
- bash, console: every pytest command (also behind `./dev`) uses only options that
  pytest, its plugins or this plugin define, with valid values; bash blocks pass `bash -n`.
- yaml: parsed, and the pytest commands in its `run:` steps are checked as above.
- json: parsed; a recordings file validates as one.
- diff: well formed, and names only fields of the recording format.
- text: the exception tree matches errors.py; output shown after `<!-- output: KIND -->`
  has the shape the plugin prints (step lines, the summary, a failed assertion).

A block preceded by `<!-- not-run: reason -->` is only an illustration; there are few.
"""

from __future__ import annotations

import ast
import configparser
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from scripted_answers import (
    NOT_FOUND,
    act_answer,
    choose,
    choose_described,
    latest_snapshot,
    pointing,
)

import pytest_stagehand
from pytest_stagehand import errors
from pytest_stagehand.pipelines.judge import Verdict
from pytest_stagehand.recordings.format import (
    HealNote,
    RecordedAction,
    RecordedElement,
    Recording,
    read_recordings,
)
from pytest_stagehand.settings import OPTIONS, Option
from pytest_stagehand.snapshot.element import Fingerprint
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # make `examples` importable
    sys.path.insert(0, str(ROOT))

from examples.app.server import serve_shop  # noqa: E402
from examples.record import COMPUTER_USE  # noqa: E402

DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]
LANGUAGES = {"python", "ini", "toml", "bash", "console", "yaml", "json", "diff", "text"}
MOST_EXEMPT = 4  # illustrations that run nowhere: keep them rare

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)\s*$")
MARK = re.compile(r"^\s*<!--\s*(?P<mark>not-run|output):\s*(?P<value>.+?)\s*-->\s*$")
FILE_HINT = re.compile(r"^#\s*(?P<path>[\w./-]+\.py)\s*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    code: str
    exempt: str | None  # the reason of a `<!-- not-run: ... -->` before the block
    output: str | None  # the kind of output of an `<!-- output: ... -->` before the block

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def file_name(self) -> str | None:
        """The file a python block says it is, from a first line such as `# conftest.py`."""
        first = self.code.splitlines()[0] if self.code.strip() else ""
        found = FILE_HINT.match(first)
        return Path(found["path"]).name if found else None

    @property
    def kind(self) -> str:
        if self.output:
            return "output"
        if self.lang != "python":
            return self.lang
        if self.file_name == "conftest.py":
            return "conftest"
        return "tests" if count_tests(self.code) else "script"


def blocks_of(page: Path) -> Iterator[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        previous = next((line for line in reversed(lines[:index]) if line.strip()), "")
        mark = MARK.match(previous)
        kind, value = (mark["mark"], mark["value"]) if mark else (None, None)
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != fence:
            body.append(lines[index][indent:] if lines[index][:indent].isspace() else lines[index])
            index += 1
        if index == len(lines):
            raise AssertionError(f"{page.name}: the block opened at line {index} is not closed")
        line = index - len(body)
        yield Block(
            page,
            line,
            opening["lang"],
            "\n".join(body) + "\n",
            value if kind == "not-run" else None,
            value if kind == "output" else None,
        )
        index += 1


def count_tests(code: str) -> int:
    """Test functions and methods of test classes at the top of a module."""
    count = 0
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            count += 1
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            count += sum(
                isinstance(item, ast.FunctionDef) and item.name.startswith("test")
                for item in node.body
            )
    return count


BLOCKS = [block for page in PAGES for block in blocks_of(page)]
CHECKED = [block for block in BLOCKS if not block.exempt]


def of_kind(*kinds: str) -> list[Any]:
    return [pytest.param(b, id=str(b)) for b in CHECKED if b.kind in kinds]


def test_every_block_has_a_known_language_and_few_are_exempt():
    unknown = [f"{b}: ```{b.lang}" for b in BLOCKS if b.lang not in LANGUAGES]
    assert not unknown, f"give these blocks one of {sorted(LANGUAGES)}: {unknown}"
    exempt = [f"{b} ({b.exempt})" for b in BLOCKS if b.exempt]
    assert len(exempt) <= MOST_EXEMPT, f"too many blocks that run nowhere: {exempt}"
    assert len(CHECKED) > 30  # the docs were found


# --- what pytest and its plugins accept -------------------------------------------------------


@dataclass(frozen=True)
class PytestOptions:
    flags: dict[str, bool]  # option → takes a value
    ini_keys: frozenset[str]


@cache
def pytest_options() -> PytestOptions:
    """Options and ini keys of pytest with every installed plugin, from `pytest --help`;
    with the async environment's too (pytest-asyncio's keys, which async suites set)."""
    async_python = ROOT / ".venv-async" / "bin" / "python"
    commands = [[sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"]]
    if async_python.exists():
        commands.append([str(async_python), *commands[0][1:], "-p", "no:playwright"])
    help_text = "\n".join(
        subprocess.run(command, capture_output=True, text=True, check=True, cwd=DOCS).stdout
        for command in commands
    )
    flags: dict[str, bool] = {}
    ini_keys: set[str] = set()
    in_ini = False
    for line in help_text.splitlines():
        if "configuration options" in line or "ini-options" in line:
            in_ini = True
        elif line and not line.startswith(" "):
            in_ini = False
        if in_ini:
            key = re.match(r"^  ([\w-]+) \(", line)
            if key:
                ini_keys.add(key[1])
            continue
        head = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
        if not head:
            continue
        for part in head[1].split(", "):
            found = re.match(r"^(--?[\w-]+)(?:[= ](\S+))?$", part.strip())
            if found:
                flags[found[1]] = found[2] is not None
    return PytestOptions(flags, frozenset(ini_keys))


OPTION_BY_FLAG = {option.flag: option for option in OPTIONS}
OPTION_BY_INI = {option.ini: option for option in OPTIONS}


def check_value(option: Option, value: str, where: str) -> None:
    try:
        option.parse(value)
    except ValueError as exc:
        raise AssertionError(f"{where}: {option.flag} {value!r} is not valid: {exc}") from None


def check_ini_key(key: str, value: Any, where: str) -> None:
    known = pytest_options().ini_keys
    assert key in known, f"{where}: {key!r} is not an ini key of pytest or its plugins"
    if key in OPTION_BY_INI:
        check_value(
            OPTION_BY_INI[key], str(value).lower() if isinstance(value, bool) else str(value), where
        )


def check_pytest_arguments(arguments: list[str], where: str) -> None:
    flags = pytest_options().flags
    tokens = iter(arguments)
    for token in tokens:
        if not token.startswith("-") or token == "-":
            continue  # a path or a node id
        name, has_value, value = token.partition("=")
        if not name.startswith("--") and len(name) > 2:  # -vv, -rA, -n4
            name, value, has_value = name[:2], name[2:], "=" if name[2:] else ""
            if name in ("-v", "-q") and set(value) <= set(name[1]):
                continue
        # pytest's help shows only one of two spellings that differ in hyphens alone
        # (--junitxml, --junit-xml). This plugin's options have one spelling each.
        if name not in flags and name.startswith("--"):
            plain = name.replace("-", "")
            aliases = (f for f in flags if f not in OPTION_BY_FLAG and f.replace("-", "") == plain)
            name = next(aliases, name)
        assert name in flags, f"{where}: pytest has no option {name} ({' '.join(arguments)})"
        if flags[name] and not has_value:
            value = next(tokens, None)
            assert value is not None, f"{where}: {name} needs a value"
        if name in OPTION_BY_FLAG:
            option = OPTION_BY_FLAG[name]
            if not option.is_flag:
                check_value(option, value, where)
        if name in ("-o", "--override-ini"):
            key, _, ini_value = value.partition("=")
            check_ini_key(key, ini_value, where)


@cache
def dev_commands() -> frozenset[str]:
    script = (ROOT / "dev").read_text()
    return frozenset(re.findall(r"^  (\w+)\)", script, re.MULTILINE))


KNOWN_VARIABLES = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"}


def check_command(words: list[str], where: str) -> None:
    """One shell command: pytest's options, `./dev`'s commands, stagehand variables."""
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        check_variable(words.pop(0).partition("=")[0], where)
    if not words:
        return
    if words[0] == "export":
        for assignment in words[1:]:
            check_variable(assignment.partition("=")[0], where)
        return
    program = Path(words[0]).name
    if program == "pytest":
        check_pytest_arguments(words[1:], where)
    elif program.startswith("python") and words[1:3] == ["-m", "pytest"]:
        check_pytest_arguments(words[3:], where)
    elif program == "dev":
        assert len(words) > 1 and words[1] in dev_commands(), f"{where}: ./dev {words[1:2]}?"
        check_pytest_arguments(words[2:], where)


def check_variable(name: str, where: str) -> None:
    if name.startswith(("STAGEHAND_", "OPENAI_", "ANTHROPIC_")):
        assert name in all_variables(), f"{where}: the plugin reads no variable {name}"


@cache
def all_variables() -> frozenset[str]:
    """Environment variables the plugin (or this repository's code) reads."""
    names = {option.env for option in OPTIONS if option.env} | KNOWN_VARIABLES
    for path in [
        *ROOT.glob("pytest_stagehand/*.py"),
        *ROOT.glob("tests/*.py"),
        *ROOT.glob("examples/**/*.py"),
    ]:
        if path.name != Path(__file__).name:
            names |= set(re.findall(r"""["'](STAGEHAND_[A-Z_]+)["']""", path.read_text()))
    return frozenset(names)


def shell_commands(script: str, console: bool) -> Iterator[list[str]]:
    """Each command of a script (or of the `$ ` lines of a console transcript), as words."""
    lines = script.splitlines()
    if console:
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    for line in joined.splitlines():
        words: list[str] = []
        for word in shlex.split(line, comments=True):
            if word in ("&&", "||", ";", "|", "&"):
                yield words
                words = []
            else:
                words.append(word.rstrip(";&"))
        if words:
            yield words


@pytest.mark.parametrize("block", of_kind("bash", "console"))
def test_shell_commands_use_real_options(block: Block):
    if block.lang == "bash":
        syntax = subprocess.run(["bash", "-n"], input=block.code, capture_output=True, text=True)
        assert syntax.returncode == 0, f"{block}: {syntax.stderr}"
    commands = list(shell_commands(block.code, console=block.lang == "console"))
    assert commands, f"{block}: no command found"
    for words in commands:
        check_command(words, str(block))


@pytest.mark.parametrize("block", of_kind("ini"))
def test_ini_samples_use_real_keys(block: Block):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(block.code)
    sections = [s for s in parser.sections() if s in ("pytest", "tool:pytest")]
    assert sections == parser.sections() and sections, f"{block}: sections {parser.sections()}"
    for section in sections:
        for key, value in parser.items(section):
            check_ini_key(key, value, str(block))


@pytest.mark.parametrize("block", of_kind("toml"))
def test_toml_samples_use_real_keys(block: Block):
    document = tomllib.loads(block.code)
    options = document["tool"]["pytest"]["ini_options"]
    assert options, f"{block}: no [tool.pytest.ini_options]"
    for key, value in options.items():
        check_ini_key(key, value, str(block))


@pytest.mark.parametrize("block", of_kind("yaml"))
def test_yaml_samples_parse_and_run_real_commands(block: Block):
    document = yaml.safe_load(block.code)
    assert document, f"{block}: empty"

    def runs(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "run" and isinstance(value, str):
                    yield value
                else:
                    yield from runs(value)
        elif isinstance(node, list):
            for item in node:
                yield from runs(item)

    scripts = list(runs(document))
    assert scripts, f"{block}: no run steps"
    for script in scripts:
        for words in shell_commands(script, console=False):
            check_command(words, str(block))


@pytest.mark.parametrize("block", of_kind("json"))
def test_json_samples_parse_and_recordings_validate(block: Block, tmp_path: Path):
    document = json.loads(block.code)
    if isinstance(document, dict) and "steps" in document:
        path = tmp_path / "__stagehand__" / "test_sample.json"
        path.parent.mkdir()
        path.write_text(block.code)
        assert read_recordings(path), f"{block}: no steps"


RECORDING_FIELDS = (
    {
        name
        for model in (Recording, RecordedAction, RecordedElement, HealNote)
        for name in model.model_fields
    }
    | set(inspect.signature(Fingerprint).parameters)
    | {"version", "steps", "check"}
)


@pytest.mark.parametrize("block", of_kind("diff"))
def test_diff_samples_name_real_recording_fields(block: Block):
    lines = block.code.splitlines()
    assert lines[0].startswith("@@"), f"{block}: a diff starts with a hunk header"
    for line in lines:
        assert line[:1] in (" ", "+", "-", "@", "\\"), f"{block}: not a diff line: {line!r}"
    keys = set(re.findall(r'^[ +-]\s*"(\w+)":', block.code, re.MULTILINE))
    assert keys and keys <= RECORDING_FIELDS, f"{block}: unknown fields {keys - RECORDING_FIELDS}"


@pytest.mark.parametrize("block", of_kind("text"))
def test_text_samples_are_the_exception_tree(block: Block):
    assert block.code.startswith("StagehandError\n"), (
        f"{block}: a text block must be the exception tree, or marked not-run"
    )
    parents: list[str] = []
    documented: dict[str, str | None] = {}
    for line in block.code.splitlines():
        name = re.search(r"(\w+)", line)[1]
        depth = 0 if line == name else (line.index(name) - 4) // 4 + 1
        parents[depth:] = [name]
        documented[name] = parents[depth - 1] if depth else None
    actual = {
        name: (
            None
            if cls is errors.StagehandError
            else next(
                base.__name__ for base in cls.__bases__ if issubclass(base, errors.StagehandError)
            )
        )
        for name, cls in public_errors().items()
    }
    assert documented == actual


STATUS = r"\[(?:hit|miss|healed|refreshed|off)\]"
USAGE = (
    r"\d+ calls?, [\d,]+ in / [\d,]+ out tokens(?: \([\d,]+ cached\))?, \$\d+\.\d{4}"
    r"(?: \+ \d+ unpriced)?(?:, \d+ memo hits?)?"
)
STEP_LINE = (
    r"  stagehand (?:goto|act|observe|extract|assert|agent) \"[^\"]*\"(?: → .+?)?"
    rf"(?: [a-z_]+)?(?: {STATUS})? \d+\.\d\ds(?: FAILED: .+)?"
)
SUMMARY_LINES = [
    r"AI steps: \d+ in \d+ test\(s\), \d+\.\d\ds",
    rf"model calls: (?:none|{USAGE})",
    rf"  (?:openai|anthropic): {USAGE}",
    r"cache: \d+ \w+(?:, \d+ \w+)*",
    r"  healed in \S+: \".+\" .+ → .+ \((?:locator|fingerprint|model|rejudged)(?:, \d\.\d\d)?"
    r"(?:; changed: [a-z ,]+)?\)",
    r"unused recordings \(\d+\):",
    r"  \S+\.json: (?:act|assert|agent) '.+' on \S+.*",
    r"slowest AI steps:",
    r"  \d+\.\d\ds (?:goto|act|observe|extract|assert|agent) \".+\" \(\S+\)",
]


@pytest.mark.parametrize("block", of_kind("output"))
def test_output_samples_have_the_shape_the_plugin_prints(block: Block):
    lines = block.code.splitlines()
    if block.output == "step-lines":
        patterns = [STEP_LINE, "", r"\S+::\S+(?: (?:PASSED|FAILED|ERROR).*)?"]
    elif block.output == "summary":
        patterns = SUMMARY_LINES
    elif block.output == "assertion":
        claim, answer, reasoning, url = (line.partition(": ")[2] for line in lines)
        judged = Verdict(
            claim.removeprefix("Claim: "),
            answer[: answer.index(" ")],
            reasoning,
            re.search(r"\(judged from (.+)\)", answer)[1],
            url,
        )
        assert block.code == f"AIAssertionError: {judged}\n"
        return
    else:
        raise AssertionError(f"{block}: unknown output kind {block.output!r}")
    for line in lines:
        assert any(re.fullmatch(p, line) for p in patterns), f"{block}: {line!r}"


@pytest.mark.parametrize("block", of_kind("script"))
def test_python_scripts_run(block: Block):
    namespace: dict[str, Any] = {"__name__": "docs_sample"}
    exec(compile(block.code, str(block), "exec"), namespace)


# --- the reference cannot drift -----------------------------------------------------------------


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def options_table() -> str:
    def default(option: Option) -> str:
        value = option.default
        if value in (None, ()):
            return "none"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return f"`{value}`"

    rows = [
        "| Setting (marker argument) | Command line | ini key | Environment variable | Default |",
        "| --- | --- | --- | --- | --- |",
    ]
    for option in OPTIONS:
        env = f"`{option.env}`" if option.env else "—"
        rows.append(
            f"| `{option.name}` | `{option.flag}` | `{option.ini}` | {env} | {default(option)} |"
        )
    return "\n".join(rows)


def test_the_options_table_is_the_plugins_table():
    text = page("reference.md")
    documented = text.split("<!-- options:start -->\n", 1)[1].split("\n<!-- options:end -->")[0]
    assert documented == options_table(), (
        "docs/reference.md's options table differs from settings.OPTIONS; it should read:\n"
        + options_table()
    )


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.flag)
def test_every_option_is_explained(option: Option):
    text = page("reference.md")
    assert f"\n### `{option.flag}`\n" in text, f"reference.md: no section for {option.flag}"
    if option.env:
        assert f"| `{option.env}` | `{option.flag}` |" in text, f"{option.env} not listed"
    assert f"`{option.name}`" in text


def test_every_fixture_is_in_the_reference():
    source = (ROOT / "pytest_stagehand" / "plugin" / "fixtures.py").read_text()
    fixtures = [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
        and any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list)
    ]
    text = page("reference.md")
    assert fixtures and all(f"| `{name}` |" in text for name in fixtures), fixtures


def public_errors() -> dict[str, type]:
    return {
        name: value
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.StagehandError)
    }


def test_the_package_exports_exactly_the_documented_names():
    api = page("reference.md").split("## Python API")[1].split("\n### ")[0]
    block = re.search(r"from pytest_stagehand import \((.*?)\)", api, re.S)[1]
    documented = set(re.findall(r"\b[A-Z]\w+", re.sub(r"#.*", "", block)))
    exported = pytest_stagehand.__all__
    assert exported == sorted(exported)
    assert set(exported) == documented | set(public_errors())  # every error is exported
    assert all(hasattr(pytest_stagehand, name) for name in exported)


@pytest.mark.parametrize("name", sorted(public_errors()))
def test_every_error_is_in_troubleshooting(name: str):
    assert f"\n### {name}\n" in page("troubleshooting.md"), f"troubleshooting.md: no {name}"


@cache
def flattened_source() -> str:
    """The plugin's source with adjacent string literals joined and string constants put
    in where f-strings use them, so a message split over lines reads as one."""
    text = "\n".join(path.read_text() for path in sorted(ROOT.glob("pytest_stagehand/**/*.py")))
    constants = {
        name: "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body))
        for name, body in re.findall(r"^([A-Z_]+) = \(\n(.*?)\n\)", text, re.M | re.S)
    }
    text = re.sub(r"\"\s*\n\s*(?:f|rf|r)?\"", "", text)
    return re.sub(r"\{([A-Z_]+)\}", lambda m: constants.get(m[1], m[0]), text)


def test_troubleshooting_quotes_the_real_messages():
    quotes = re.findall(r"^> (.+)$", page("troubleshooting.md"), re.MULTILINE)
    assert len(quotes) > 20
    source = flattened_source()
    for quote in quotes:
        for piece in quote.split("…"):
            piece = piece.strip(" .,:;()'\"")
            if len(piece.replace(" ", "")) >= 4:
                assert piece in source, f"troubleshooting.md quotes {piece!r}: not in the code"


def test_stagehand_variables_in_the_docs_are_real():
    for path in PAGES:
        for name in set(re.findall(r"\b(STAGEHAND_[A-Z_]+)\b", path.read_text())):
            assert name in all_variables(), f"{path.name}: the plugin reads no {name}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_between_pages_resolve():
    for path in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            assert linked.is_file(), f"{path.name}: broken link {target}"
            if anchor:
                headings = re.findall(r"^#+ (.+)$", linked.read_text(), re.MULTILINE)
                assert anchor in {slug(h) for h in headings}, f"{path.name}: no #{anchor}"


def test_the_index_maps_every_page():
    index = page("index.md")
    for path in DOCS.glob("*.md"):
        assert path.name == "index.md" or f"]({path.name})" in index, path.name


# --- the scripted model that answers the samples -----------------------------------------------

Answer = dict[str, Any]


class Unanswered(AssertionError):
    """A sample asked something the scripted model has no answer for."""


def instruction(text: str, label: str) -> str:
    found = re.findall(rf"^{label}: (.+)$", text, re.MULTILINE)
    if not found:
        raise Unanswered(f"no {label!r} line in the prompt")
    return found[-1].strip()


def line_id(outline: str, pattern: str) -> str:
    found = re.search(rf"\b(e\d+) {pattern}", outline)
    if found is None:
        raise Unanswered(f"the page has no {pattern!r}")
    return found[1]


def products(outline: str) -> list[tuple[str, str, str]]:
    """(link id, name, price) of each product card of a snapshot or outline, in page order."""
    card = re.compile(
        r'^\s*(?:\b(e\d+) )?link "([^"]+)" -> /products/[\w-]+\n'
        r"(?:.*\n)*?\s*(?:e\d+ )?paragraph: (\$[\d.]+)",
        re.MULTILINE,
    )
    return [(found[1], found[2], found[3]) for found in card.finditer(outline)]


def cheapest(outline: str) -> tuple[str, str]:
    _, name, price = min(products(outline), key=lambda product: float(product[2][1:]))
    return name, price


def summary(outline: str, term: str) -> tuple[str, str]:
    """(id, value) of a term of the cart's order summary."""
    found = re.search(rf"term: {term}\n\s*\b(e\d+) definition: (.+)", outline)
    if found is None:
        raise Unanswered(f"the page has no order summary {term}")
    return found[1], found[2].strip()


def element_check(element: str, expected: str) -> Answer:
    return {
        "kind": "element",
        "element_id": element,
        "property": "text",
        "match": "equals",
        "expected": expected,
    }


def verdict(holds: bool, reasoning: str, check: Answer | None = None) -> Answer:
    return {
        "verdict": "YES" if holds else "NO",
        "reasoning": reasoning,
        "check": check if holds else None,
    }


def products_page(outline: str) -> Answer:
    shown = 'heading "Products" level=1' in outline
    check = element_check(line_id(outline, 'heading "Products"'), "Products") if shown else None
    return verdict(
        shown,
        'The page\'s heading reads "Products".' if shown else 'There is no "Products" heading.',
        check,
    )


def order_lists(count: int) -> Callable[[str], Answer]:
    def judge(outline: str) -> Answer:
        element, items = summary(outline, "Items")
        return verdict(
            items == str(count),
            f"The order summary shows Items {items}.",
            element_check(element, items),
        )

    return judge


def only_the_mug(outline: str) -> Answer:
    names = [name for _, name, _ in products(outline)]
    counter = re.search(r"\b(e\d+) paragraph: (Showing \d+ of \d+ products)", outline)
    return verdict(
        names == ["Enamel Camp Mug"],
        f"The list shows {', '.join(names)}.",
        element_check(counter[1], counter[2]) if counter else None,
    )


def order_status(outline: str) -> tuple[str, str]:
    """The tracking status line's id and text; ("", "") while the carrier has not answered."""
    found = re.search(r"\b(e\d+) status: (Order #1001[^\n]*)", outline)
    return (found[1], found[2].strip()) if found else ("", "")


def price_of(name: str, outline: str) -> str:
    return next(price for _, product, price in products(outline) if product == name)


def on_no_element(request: ScriptedRequest, shown: str, method: str, *arguments: str) -> Answer:
    """A dialog's answer or a tab switch, given only when the prompt shows `shown` (the
    dialog in place of the page, or the tab among the open tabs)."""
    if shown not in request.text:
        raise Unanswered(f"the prompt does not show {shown!r}")
    return act_answer(None, method, arguments)


ACTS: dict[str, Callable[[ScriptedRequest], Answer]] = {
    "type %user% into the username field": choose("textbox", "Username", "fill", ["%user%"]),
    "type %password% into the password field": choose(
        "textbox", "Password", "fill", ["%password%"]
    ),
    "click the log in button": choose("button", "Log in"),
    "tick the remember me box": choose("checkbox", "Remember me", "check"),
    "type mug into the search box": choose("searchbox", "Search", "fill", ["mug"]),
    "add the Trail Backpack to the cart": choose("button", "Add to cart", after="Trail Backpack"),
    "open the cart": choose("link", "Cart"),
    "open the cart by its icon": choose_described("cart"),
    "show only bags": choose("checkbox", "Bags", "check"),
    "click the gift wrap button": lambda request: NOT_FOUND,
    # the account page: dialogs, tabs, files
    "delete the saved addresses": choose("button", "Delete saved addresses"),
    "accept the confirmation": lambda request: on_no_element(request, "[dialog] confirm ",
                                                              "accept_dialog"),
    "rename the wishlist": choose("button", "Rename wishlist"),
    "type %list% into the prompt and accept it": lambda request: on_no_element(
        request, "[dialog] prompt ", "accept_dialog", "%list%"
    ),
    "open help in a new tab": choose("link", "Open help in a new tab"),
    "switch back to the account tab": lambda request: on_no_element(
        request, '- "Your account', "switch_tab", "Your account · Trailhead Outfitters"
    ),
    "upload %photo% as the profile photo": choose("button", "Choose photo", "upload", ["%photo%"]),
    "download the last invoice": choose("link", "Download the last invoice"),
    # drawn on a canvas pinned at (40, 300): nothing in the text; the Feb bar on a screenshot
    "click the Feb bar of the sales chart": lambda request: (
        pointing(40 + 185, 300 + 125, 1280)(request) if request.images else NOT_FOUND
    ),
    "hover over Help": choose("button", "Help", "hover"),
    "click Delivery times in the Help menu": lambda request: (
        choose("link", "Delivery times")(request)
        if 'link "Delivery times"' in latest_snapshot(request.text)
        else NOT_FOUND  # the submenu is not there yet
    ),
    "click track order": choose("button", "Track order"),
    "sort the products by price, low to high": choose(
        "combobox", "Sort by", "select_option", ["Price (low to high)"]
    ),
}
OBSERVATIONS: dict[str, Callable[[str], Answer]] = {
    "the Add to cart buttons": lambda outline: {
        "elements": [
            {"element_id": found, "description": "Add to cart", "method": "click", "arguments": []}
            for found in re.findall(r'\b(e\d+) button "Add to cart"', outline)
        ]
    },
}
EXTRACTS: dict[str, Callable[[str], Answer]] = {
    "every product with its price and link": lambda outline: {
        "products": [
            {"name": name, "price": price, "page": link} for link, name, price in products(outline)
        ]
    },
    "the price of the Bike Light": lambda outline: {"text": price_of("Bike Light", outline)},
    "the number of items and the total": lambda outline: {
        "items": int(summary(outline, "Items")[1]),
        "total": summary(outline, "Total")[1],
    },
    "the name and price of the cheapest product": lambda outline: {
        "text": ", ".join(cheapest(outline))
    },
    "the status of order #1001": lambda outline: {"text": order_status(outline)[1]},
}
CLAIMS: dict[str, Callable[[str], Answer]] = {
    "the products page is shown": products_page,
    "the order summary lists 1 item": order_lists(1),
    "the order summary lists 3 items": order_lists(3),
    "only the Enamel Camp Mug is listed": only_the_mug,
    "the page says order #1001 has shipped": lambda outline: verdict(
        "has shipped" in order_status(outline)[1],
        f"The status reads {order_status(outline)[1]!r}.",
        element_check(*order_status(outline)),
    ),
}
QUESTIONS: dict[tuple[str, str | None], Callable[[str], bool]] = {
    ("Is the Baby Onesie the cheapest product?", None): lambda outline: (
        cheapest(outline)[0] == "Baby Onesie"
    ),
    ("Are eight products listed?", None): lambda outline: len(products(outline)) == 8,
    ("What does the Bike Light cost?", "$9.99"): lambda outline: (
        price_of("Bike Light", outline) == "$9.99"
    ),
}


def step(tool: str, **arguments: Any) -> Answer:
    return {"thought": f"next: {tool}", "call": {"tool": tool, **arguments}}


def done(output: Any, reasoning: str) -> Answer:
    return step("done", success=True, reasoning=reasoning, output=output)


def add_the_cheapest(request: ScriptedRequest, called: list[str]) -> Answer:
    saved = re.search(
        r"^- the name and price of the cheapest product: (.+), (\$[\d.]+)$",
        request.text,
        re.MULTILINE,
    )
    if saved:
        return done({"name": saved[1], "price": saved[2]}, "Added it; its name and price saved.")
    if "act" not in called:
        name, _ = cheapest(request.text.rpartition("Current page:")[2])
        return step("act", instruction=f'click "Add to cart" for the {name}')
    return step("extract", instruction="the name and price of the cheapest product")


def count_bike_lights(request: ScriptedRequest, called: list[str]) -> Answer:
    if "stock_level" in called:
        result = re.findall(r"^Result: ok: (.+)$", request.text, re.MULTILINE)[-1]
        return done(result, "The warehouse tool answered.")
    return step("stock_level", product="Bike Light")


GOALS: dict[str, Callable[[ScriptedRequest, list[str]], Answer]] = {
    "add the cheapest product to the cart and tell me its name and price": add_the_cheapest,
    "find out how many Bike Lights are in stock": count_bike_lights,
}


class DocsModel:
    """Answers the samples' prompts as a correct model would, from the page in the prompt.

    Not a model: a table of the instructions the docs use, each answered by reading the
    snapshot it was sent. An instruction missing from the table is reported, not guessed.
    """

    def __init__(self) -> None:
        self.unanswered: list[str] = []
        self.asked: set[str] = set()  # the table entries the samples used

    def __call__(self, request: ScriptedRequest) -> Answer:
        try:
            return self.answer(request)
        except (Unanswered, KeyError, StopIteration) as exc:
            self.unanswered.append(f"{type(exc).__name__}: {exc}")
            raise

    def pick(self, table: dict[Any, Any], key: Any) -> Any:
        self.asked.add(repr(key))
        return table[key]

    def answer(self, request: ScriptedRequest) -> Answer:
        text = request.text
        if request.api == "responses":  # a computer-use run: the plan's action at this step
            step = int(re.findall(r"^Step (\d+) of \d+\.", text, re.MULTILINE)[-1])
            return self.pick(COMPUTER_USE, instruction(text, "Goal"))(step)
        schema = request.body["response_format"]["json_schema"]["name"]
        if schema in ("NextStep", "FinalStep"):
            called = [
                json.loads(m["content"])["call"]["tool"]
                for m in request.messages
                if m["role"] == "assistant"
            ]
            return self.pick(GOALS, instruction(text, "Goal"))(request, called)
        if schema == "JudgedAnswers":
            outline = latest_snapshot(text)
            asked = re.findall(r"^\d+\. (.+)\n(?:   Proposed answer: (.+)\n)?", text, re.M)
            return {
                "answers": [
                    verdict(self.pick(QUESTIONS, (q, a or None))(outline), "Read off the page.")
                    for q, a in asked
                ]
            }
        if schema in ("ActChoice", "VisionActChoice"):
            wanted = instruction(text, "Instruction")
            bought = re.match(r'click "Add to cart" for the (.+)$', wanted)
            if bought:
                return choose("button", "Add to cart", after=bought[1])(request)
            return self.pick(ACTS, wanted)(request)
        outline = latest_snapshot(text)
        if schema == "Observation":
            return self.pick(OBSERVATIONS, instruction(text, "Instruction"))(outline)
        if schema == "Judgment":
            return self.pick(CLAIMS, instruction(text, "Claim"))(outline)
        return self.pick(EXTRACTS, instruction(text, "Extract"))(outline)


# --- the python samples, run by pytest against the shop and the scripted model ----------------


def folder(block: Block) -> str:
    return block.page.stem.replace("-", "_").lower()


def write_samples(root: Path) -> dict[str, int]:
    """The samples as a test suite, one folder per page; the number of tests per folder."""
    conftest = [b.code for b in CHECKED if b.kind == "conftest"]
    (root / "conftest.py").write_text("\n\n".join(conftest))
    counts: dict[str, int] = {}
    for block in CHECKED:
        if block.kind != "tests":
            continue
        name = block.file_name or f"test_{folder(block)}_{block.line}.py"
        path = root / folder(block) / name
        assert not path.exists(), f"{block}: two samples named {name} on one page"
        path.parent.mkdir(exist_ok=True)
        path.write_text(block.code)
        counts[folder(block)] = counts.get(folder(block), 0) + count_tests(block.code)
    return counts


@dataclass(frozen=True)
class Run:
    """One pytest run of the samples: its output and each test's outcome."""

    output: str
    outcomes: dict[str, str]  # test id → "passed", or the failure message

    @classmethod
    def of(cls, root: Path, arguments: list[str], env: dict[str, str], name: str) -> Run:
        junit = root / f"{name}.xml"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--import-mode=importlib",
                f"--junitxml={junit}",
                *arguments,
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,  # a loaded CI machine: the whole docs suite runs in here
        )
        outcomes: dict[str, str] = {}
        if junit.exists():
            for case in ET.parse(junit).iter("testcase"):
                problem = next(iter(case.findall("failure") + case.findall("error")), None)
                test = f"{case.get('classname')}::{case.get('name')}"
                outcomes[test] = "passed" if problem is None else problem.get("message", "?")
        return cls(done.stdout + done.stderr, outcomes)

    def failures(self) -> dict[str, str]:
        return {test: outcome for test, outcome in self.outcomes.items() if outcome != "passed"}


@dataclass(frozen=True)
class SamplesRun:
    root: Path
    counts: dict[str, int]
    unanswered: list[str]
    unasked: list[str]  # answers of the scripted model that no sample needed
    recording: Run  # every sample, with the scripted model: resolves and records
    replay: Run  # the getting-started sample again, offline, with no model
    calls: tuple[int, int]  # model calls after the first run and after the replay


def run_samples(root: Path) -> SamplesRun:
    """Every sample with the scripted model (resolving and recording), then the
    getting-started sample again, offline, with no model."""
    counts = write_samples(root)
    env = {name: value for name, value in os.environ.items() if name not in all_variables()}
    model = DocsModel()
    with serve_shop() as shop, ScriptedModelServer(default=model) as server:
        recording = Run.of(
            root,
            [
                "--ai-model=openai/scripted",
                f"--ai-base-url={server.openai_base_url}",
                "--ai-retries=0",
                f"--base-url={shop.url}",
            ],
            {**env, "OPENAI_API_KEY": "sk-placeholder-not-a-key"},
            "recording",
        )
        after_recording = server.calls
        replay = Run.of(
            root,
            ["getting_started", "--ai-cache=offline", f"--base-url={shop.url}"],
            env,
            "replay",
        )
        calls = (after_recording, server.calls)
    tables = (ACTS, OBSERVATIONS, EXTRACTS, CLAIMS, QUESTIONS, GOALS, COMPUTER_USE)
    unasked = [repr(key) for table in tables for key in table if repr(key) not in model.asked]
    return SamplesRun(root, counts, model.unanswered, unasked, recording, replay, calls)


@pytest.mark.long
def test_python_samples_pass_and_replay_offline(tmp_path: Path):
    """One test, so that pytest-xdist runs the samples once."""
    samples = run_samples(tmp_path)

    # Every sample passes with a model (the scripted one).
    assert not samples.unanswered, samples.unanswered
    assert not samples.unasked, f"no sample needs these scripted answers: {samples.unasked}"
    assert not samples.recording.failures(), samples.recording.output[-5000:]
    assert len(samples.recording.outcomes) == sum(samples.counts.values()), (
        samples.recording.output[-3000:]
    )

    # getting-started.md: the recording replays offline with no model.
    replay = samples.replay
    assert len(replay.outcomes) == samples.counts["getting_started"], replay.output[-3000:]
    assert not replay.failures(), replay.output[-5000:]
    assert samples.calls[1] == samples.calls[0], "the offline replay called the model"
    recorded = read_recordings(samples.root / "getting_started/__stagehand__/test_login.json")
    assert sorted(step.kind for step in recorded.values()) == ["act", "act", "act", "assert"]
    assert "cache: 4 hit" in replay.output  # three acts and the claim, replayed

    # recordings.md: unused recordings are those no step used, so a replay that used every
    # recording of its module reports none.
    assert "unused recordings" not in replay.output, replay.output[-2000:]
