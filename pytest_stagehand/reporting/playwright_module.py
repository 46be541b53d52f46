"""The plain pytest-playwright module an export writes: each recorded step as the
Playwright call on its best recorded locator, each recorded check as an `expect(...)`, the
instruction as a comment, and variables as constants read from the environment."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_stagehand.reporting.export_operations import (
    AtUrl,
    Do,
    Expect,
    Navigate,
    Operation,
    PageText,
    Shows,
    Target,
    do_of,
    operations,
)
from pytest_stagehand.reporting.records import Record

VARIABLE = re.compile(r"%(\w+)%")
ORIGIN = "%origin%"
ROLE = re.compile(r'role=([\w-]+)\[name=("(?:[^"\\]|\\.)*")([si]?)\]')
LABEL = re.compile(r'internal:label=("(?:[^"\\]|\\.)*")([si]?)')
TEXT = re.compile(r'text=("(?:[^"\\]|\\.)*")')
TEST_ID = re.compile(r'\[data-testid=("(?:[^"\\]|\\.)*")\]')
# heal.identity.row_scoped's selector: an element by its role and name in the row of a key.
IN_ROW = re.compile(r'role=row >> internal:has=("(?:[^"\\]|\\.)*") >> (.*)')
SNAPSHOT_TOKEN = re.compile(r'([\w-]+) ("(?:[^"\\]|\\.)*")')


def _quoted(text: str) -> str | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def locator(target: Target) -> str:
    """Playwright Python for a recorded selector: get_by_role, get_by_label, get_by_text,
    get_by_test_id when the selector says so exactly, else locator(selector)."""
    scope = "page" + "".join(f".frame_locator({frame!r})" for frame in target.frame_path)
    selector = target.selector
    if (found := IN_ROW.fullmatch(selector)) and (has := _quoted(found[1])) is not None:
        key = TEXT.fullmatch(has.removeprefix("internal:").removesuffix("s"))
        inner = locator(replace(target, selector=found[2], frame_path=()))
        if key and (text := _quoted(key[1])) is not None and inner.startswith("page.get_by_"):
            has_text = f"{scope}.get_by_text({text!r}, exact=True)"
            return f"{scope}.get_by_role('row').filter(has={has_text}){inner[4:]}"
    if (found := ROLE.fullmatch(selector)) and (name := _quoted(found[2])) is not None:
        exact = ", exact=True" if found[3] == "s" else ""
        return f"{scope}.get_by_role({found[1]!r}, name={name!r}{exact})"
    if (found := LABEL.fullmatch(selector)) and (label := _quoted(found[1])) is not None:
        exact = ", exact=True" if found[2] == "s" else ""
        return f"{scope}.get_by_label({label!r}{exact})"
    if (found := TEXT.fullmatch(selector)) and (text := _quoted(found[1])) is not None:
        return f"{scope}.get_by_text({text!r}, exact=True)"
    if (found := TEST_ID.fullmatch(selector)) and (test_id := _quoted(found[1])) is not None:
        return f"{scope}.get_by_test_id({test_id!r})"
    return f"{scope}.locator({selector!r})"


@dataclass
class Variables:
    """The module's variable constants: one per (name, value digest), in order of use."""

    constants: dict[tuple[str, str], str] = field(default_factory=dict)

    def constant(self, name: str, digest: str) -> str:
        key = (name, digest)
        if key not in self.constants:
            taken = sum(1 for n, _ in self.constants if n == name)
            base = re.sub(r"\W", "_", name).upper()
            self.constants[key] = base if not taken else f"{base}_{taken + 1}"
        return self.constants[key]


def _argument(text: str, step: Record, variables: Variables) -> str:
    names = VARIABLE.findall(text)
    if not names:
        return repr(text)
    constant = {n: variables.constant(n, step["values"].get(n, "")) for n in names}
    if VARIABLE.fullmatch(text):
        return constant[names[0]]
    parts = VARIABLE.split(text)
    pieces = [
        p.replace("{", "{{").replace("}", "}}") if i % 2 == 0 else f"{{{constant[p]}}}"
        for i, p in enumerate(parts)
    ]
    return "f" + repr("".join(pieces))


# Playwright answers a dialog only through a handler set before the dialog opens.
DIALOG_ANSWER = 'page.once("dialog", '


def _do_lines(do: Do, step: Record, variables: Variables) -> list[str]:
    args = [_argument(a, step, variables) for a in do.arguments]
    if do.target is None:
        if do.method == "press":
            return [f"page.keyboard.press({args[0]})"]
        if do.method in ("accept_dialog", "dismiss_dialog"):
            answer = f"accept({', '.join(args)})" if do.method == "accept_dialog" else "dismiss()"
            return [f"{DIALOG_ANSWER}lambda dialog: dialog.{answer})"]
        if do.method == "switch_tab":
            return [f"page = next(p for p in page.context.pages if p.title() == {args[0]})"]
        return [f"page.mouse.wheel(0, {int(float(do.arguments[0].rstrip('%')))})  # scroll"]
    target, joined = locator(do.target), ", ".join(args)
    if do.point is not None:  # a spot on an element with no element of its own (a chart's bar)
        at = f'position={{"x": {do.point[0]}, "y": {do.point[1]}}}'
        call = {"double_click": "dblclick", "hover": "hover"}.get(do.method, "click")
        return [f"{target}.{call}({at})"]
    if do.method == "upload" and do.target.tag not in ("", "input", "label"):
        # A button in front of a hidden file field: set_input_files takes only the field.
        return [
            "with page.expect_file_chooser() as chooser:",
            f"    {target}.click()",
            f"chooser.value.set_files([{joined}])",
        ]
    calls = {
        "click": "click()",
        "double_click": "dblclick()",
        "right_click": 'click(button="right")',
        "upload": f"set_input_files([{joined}])",
        "fill": f"fill({joined})",
        "type": f"press_sequentially({joined})",
        "press": f"press({joined})",
        "select_option": f"select_option({args[0] if len(args) == 1 else f'[{joined}]'})",
        "check": "check()",
        "uncheck": "uncheck()",
        "hover": "hover()",
        "scroll": "scroll_into_view_if_needed()",
        "drag_and_drop": f"drag_to(page.locator({joined}))",
    }
    return [f"{target}.{calls.get(do.method, do.method + '()')}"]


def _expect_line(check: Expect) -> str:
    target, expected = locator(check.target), check.expected
    if check.property in ("text", "value"):
        matcher = {
            ("text", "equals"): f"to_have_text({expected!r}, use_inner_text=True)",
            ("text", "contains"): f"to_contain_text({expected!r}, use_inner_text=True)",
            ("text", "regex"): f"to_have_text(re.compile({expected!r}), use_inner_text=True)",
            ("value", "equals"): f"to_have_value({expected!r})",
            ("value", "contains"): f"to_have_value(re.compile(re.escape({expected!r})))",
            ("value", "regex"): f"to_have_value(re.compile({expected!r}))",
        }[(check.property, check.match)]
    else:
        negate = "" if expected.strip().lower() == "true" else "not_"
        matcher = f"{negate}to_be_{check.property}()"
    return f"expect({target}).{matcher}"


def _text_lines(check: PageText) -> list[str]:
    """A page-text check is snapshot text (`link "Cart" -> /cart text "2"`): each named
    element in it must be on the page (or, for absent text, the one element must not)."""
    tokens = SNAPSHOT_TOKEN.findall(check.text)
    rest = SNAPSHOT_TOKEN.sub("", check.text)
    targets = [
        f"page.get_by_text({name!r}, exact=True)"
        if role == "text"
        else f"page.get_by_role({role!r}, name={name!r}, exact=True)"
        for role, quoted in tokens
        if (name := _quoted(quoted)) is not None
    ]
    if targets and len(targets) == len(tokens) and not re.sub(r"->\s*\S+", "", rest).strip():
        if check.present:
            return [f"expect({target}.first).to_be_visible()" for target in targets]
        if len(targets) == 1:
            return [f"expect({targets[0]}).to_have_count(0)"]
    matcher = "to_contain_text" if check.present else "not_to_contain_text"
    return [f'expect(page.locator("body")).{matcher}({check.text!r})']


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)


def _shows_lines(shows: Shows) -> list[str]:
    lines = [f"# recorded value: {json.dumps(shows.value, ensure_ascii=False)}"]
    for text in dict.fromkeys(_leaves(shows.value)):
        if text.startswith(ORIGIN):
            link = f"a[href$={json.dumps(text[len(ORIGIN):])}]"
            lines.append(f"expect(page.locator({link!r}).first).to_be_visible()")
        elif text.strip():
            lines.append(f'expect(page.locator("body")).to_contain_text({text!r})')
    return lines


def step_lines(step: Record, variables: Variables, observed: dict[str, Do]) -> list[str]:
    """The Python lines of one test step, the instruction first as a comment."""
    if step["kind"] == "goto":
        return [f"page.goto({step['path']!r})"]
    if step["kind"] in STARTED:  # its lines come with the wait around its step's actions
        return [f"# {step['kind']}: {step.get('path') or step['instruction']}"]
    lines = [f"# {step['kind']}: {step['instruction']}"]
    if not step.get("ok", True):
        return [*lines, "# not exported: this step failed in the run (the test expected it to)"]
    recording = step.get("recording")
    if recording is None:
        if step["kind"] == "act" and step.get("method"):
            # An observed action replayed by act: its recorded element, if observe noted it.
            do = observed.get(step.get("selector") or "") or Do(
                step["method"], tuple(step["arguments"]),
                Target(step["selector"]) if step.get("selector") else None,
            )
            return [*lines, *_do_lines(do, step, variables)]
        return [*lines, "# not exported: no recording was used for this step"]
    done = operations(recording)
    arrivals = _arrivals(step, recording, done)
    for index, operation in enumerate(done):
        if index in arrivals:
            lines.append(LOAD_WAIT)
        if isinstance(operation, Do):
            lines.extend(_do_lines(operation, step, variables))
            if recording["kind"] == "observe" and operation.target:
                observed[operation.target.selector] = operation
        elif isinstance(operation, Expect):
            lines.append(_expect_line(operation))
        elif isinstance(operation, PageText):
            lines.extend(_text_lines(operation))
        elif isinstance(operation, Shows):
            lines.extend(_shows_lines(operation))
        elif isinstance(operation, Navigate):
            path = "" if operation.path is None else repr(operation.path)
            lines.append(f"page.{operation.method}({path})")
        elif isinstance(operation, AtUrl):
            ending = re.escape(operation.path) + "$"
            lines.append(f"expect(page).to_have_url(re.compile({ending!r}))")
        else:
            lines.append(f"# {operation.text}")
    if recording["kind"] == "observe":  # the acts that follow replay these
        for action in recording.get("actions", []):
            do = do_of(action)
            if do.target:
                observed[do.target.selector] = do
    return lines


# The AI step settled the page before it read it; plain Playwright waits for an element,
# not for the page's scripts, so a button that is there before its handler is clicked in vain.
LOAD_WAIT = "page.wait_for_load_state()  # a new page: its scripts run first"


def _arrived(before: Record | None, step: Record) -> bool:
    """Did the step before this one (not a goto, which waits for the load itself) take the
    page to another URL?"""
    if before is None or before["kind"] == "goto" or step["kind"] in ("goto", *STARTED):
        return False
    return bool(before.get("url") and step.get("url") and before["url"] != step["url"])


def _arrivals(step: Record, recording: Mapping[str, Any], done: list[Operation]) -> set[int]:
    """The agent's actions (as indexes into `done`) that ran on another page than the one
    before them, when the run noted where each ran; a navigation's own wait covers the
    page it goes to."""
    urls = step.get("action_urls", [])
    if recording["kind"] != "agent" or len(urls) != sum(isinstance(o, Do) for o in done):
        return set()
    arrivals, url, where = set(), step.get("url"), iter(urls)
    for index, operation in enumerate(done):
        if isinstance(operation, Navigate):
            url = None
        elif isinstance(operation, Do):
            here = next(where)
            if url is not None and here != url:
                arrivals.add(index)
            url = here
    return arrivals


def _acts(line: str) -> bool:
    return not line.startswith(("#", DIALOG_ANSWER)) and line != LOAD_WAIT


def _answer_dialogs_before_they_open(steps: list[list[str]]) -> None:
    """Each dialog answer moves to just before the actions of the step that opened the
    dialog (the AI step held it open for the answer): its own step when it acts before the
    answer, else the step before."""
    for index, step in enumerate(steps):
        answers = [line for line in step if line.startswith(DIALOG_ANSWER)]
        if not answers:
            continue
        acted = any(_acts(line) for line in step[: step.index(answers[0])])
        if not acted and index == 0:
            continue  # nothing before it opened the dialog: it stays where it was recorded
        step[:] = [line for line in step if not line.startswith(DIALOG_ANSWER)]
        if not acted:
            step.append("# answered by the dialog handler set before the action above")
        opener = step if acted else steps[index - 1]
        at = next((i for i, line in enumerate(opener) if _acts(line)), len(opener))
        opener[at:at] = [f"{line}  # answers the dialog the action below opens" for line in answers]


# What a step started that Playwright sees only by waiting for it around the actions that
# start it: the wait, the name it is caught as, and the lines that go on from it.
STARTED = {
    "tab": ("page.context.expect_page()", "opened",
            lambda step: ["page = opened.value", LOAD_WAIT]),
    "download": ("page.expect_download()", "downloaded",
                 lambda step: [f"assert downloaded.value.suggested_filename == "
                               f"{step['instruction']!r}"]),
}  # fmt: skip


def _wait_around_what_started_them(steps: list[list[str]], records: list[Record]) -> None:
    """A new tab or a download is logged as a step after the one whose action started it:
    that step's actions go inside the wait for it."""
    for index, record in enumerate(records):
        if record["kind"] not in STARTED or not index:
            continue
        wait, name, going_on = STARTED[record["kind"]]
        before = steps[index - 1]
        at = next((i for i, line in enumerate(before) if _acts(line)), None)
        if at is None:
            steps[index].append("# not exported: the step that started it has no action here")
            continue
        before[at:] = [f"with {wait} as {name}:", *(f"    {line}" for line in before[at:])]
        steps[index].extend(going_on(record))


def render_module(source: str, tests: list[Record]) -> str:
    """A pytest-playwright module: one test per exported test, variables as constants."""
    variables = Variables()
    bodies = []
    for test in tests:
        observed: dict[str, Do] = {}
        steps = []
        for before, step in zip([None, *test["steps"]], test["steps"], strict=False):
            lines = [LOAD_WAIT] if _arrived(before, step) else []
            steps.append(lines + step_lines(step, variables, observed))
        _answer_dialogs_before_they_open(steps)
        _wait_around_what_started_them(steps, test["steps"])
        body = [line for lines in steps for line in lines]
        if all(line.startswith("#") for line in body):
            body.append("pass")
        indented = "\n".join(f"    {line}" for line in body)
        bodies.append(f"def {test['name']}(page: Page) -> None:\n{indented}\n")
    constants = "".join(
        f'{constant} = variable("{constant}")  # %{name}%\n'
        for (name, _), constant in variables.constants.items()
    )
    header = [
        f'"""Exported by pytest-stagehand from {source} and its recordings: plain Playwright.',
        "",
        "Each step is the recorded locator and action, its instruction the comment above it.",
        '"""',
        "",
        "import os  # noqa: F401",
        "import re  # noqa: F401",
        "",
        "from playwright.sync_api import Page, expect  # noqa: F401",
        "",
    ]
    if constants:
        header += [
            "",
            "def variable(name: str) -> str:",
            '    """A variable\'s value, which the recordings never held: VAR_<NAME> in the',
            '    environment (or write the value below)."""',
            '    if f"VAR_{name}" not in os.environ:',
            "        raise LookupError(",
            '            f"Set VAR_{name} in the environment to the value this module types "',
            '            "(the recordings hold only the variable\'s name)."',
            "        )",
            '    return os.environ[f"VAR_{name}"]',
            "",
            "",
            constants,
            "",
        ]
    return "\n".join(header) + "\n" + "\n\n".join(bodies)
