"""Export to plain Playwright: a test module that runs with no plugin (`--ai-export=DIR`).

A recordings file holds each step once, keyed by instruction and page, not the order in
which tests take them. So the export replays the tests (offline: no model) and notes, per
test, the top-level steps in order with the recording each one used; the controller then
writes `<module>_playwright.py` with each step as the Playwright call on its best recorded
locator, each recorded check as an `expect(...)`, and the instruction as a comment.
Variable values are never written: each variable is a constant read from the environment
(`VAR_<NAME>`); a name that took two values in the run gets two constants.

`operations` is the one reader of the recording format: a change to the format changes it
alone.

Kept whole: the step tap and the module writer share the steps' format and are one
feature behind one option.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_stagehand.events import StepEvent, StepLog
from pytest_stagehand.recordings.format import Recording
from pytest_stagehand.recordings.keys import StepKey
from pytest_stagehand.recordings.store import RecordingStore
from pytest_stagehand.reporting.report import Record
from pytest_stagehand.settings import Settings
from pytest_stagehand.snapshot.outline import origin_of

REPORT_ATTR = "stagehand_export"
TAP_KEY = pytest.StashKey["StepTap"]()
PLUGIN_NAME = "stagehand-export"
SUFFIX = "_playwright"
VARIABLE = re.compile(r"%(\w+)%")
ORIGIN = "%origin%"


# --- what a run tells: each test's top-level steps and the recordings they used -----------


class StepTap:
    """The session's recording store as one test sees it, noting which recording each of
    the test's top-level steps looked up (or re-recorded, when it healed), and a keyed
    digest of each variable's value, so two values of one name are told apart unseen."""

    def __init__(self, store: RecordingStore, salt: str, base_url: str | None = None) -> None:
        self._store = store
        self._salt = salt.encode()
        self.base_url = base_url
        self.steplog: StepLog | None = None
        self.steps: list[Record] = []
        self._depth = 0

    # the store, as Recordings uses it
    def lookup(self, test_file: Path, key: StepKey) -> Recording | None:
        recording = self._store.lookup(test_file, key)
        self._note(recording)
        return recording

    def put(
        self, test_file: Path, recording: Recording, variables: Mapping[str, object] | None = None
    ) -> None:
        self._store.put(test_file, recording, variables)
        self._note(recording)

    def _note(self, recording: Recording | None) -> None:
        """The first recording a step uses is its own; a later put of it is its heal."""
        if recording is None or not self._depth:
            return
        step = self._current
        if "recording" not in step or step["key"] == recording.key.digest:
            step["recording"] = recording.model_dump(mode="json")
            step["key"] = recording.key.digest

    @property
    def _current(self) -> Record:
        return self.steps[-1]

    # the step listener
    def step_started(self, event: StepEvent) -> None:
        if self._depth == 0:
            step = {"kind": event.kind, "instruction": event.instruction, "url": event.url}
            self.steps.append(step)
        elif event.kind == "act" and self._current["kind"] == "agent":
            # Where each of the agent's actions ran: a new page between two of them must
            # load (its scripts run) before plain Playwright acts on it.
            self._current.setdefault("action_urls", []).append(event.url)
        self._depth += 1

    def step_finished(self, event: StepEvent) -> None:
        self._depth -= 1
        if self._depth:
            return
        step = self._current
        step.update(ok=event.ok, selector=event.selector, method=event.method,
                    arguments=list(event.arguments))
        if event.kind in ("goto", "tab"):
            step["path"] = _relative(event.instruction, self.base_url)
        values = self.steplog.variables if self.steplog else {}
        step["values"] = {
            name: hmac.new(self._salt, value.encode(), hashlib.sha256).hexdigest()[:16]
            for name, value in values.items()
        }


def _relative(url: str, base_url: str | None) -> str:
    """A URL on the base URL's origin as the path goto takes with pytest-playwright's base_url."""
    origin = origin_of(base_url or "")
    if origin and origin_of(url) == origin:
        return url[len(origin) :] or "/"
    return url


def tapped(item: pytest.Item, store: RecordingStore) -> RecordingStore:
    """The store the test's recordings go through: tapped when the run exports."""
    exporter = item.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if exporter is None:
        return store
    tap = item.stash[TAP_KEY] = StepTap(store, exporter.salt)
    return tap  # type: ignore[return-value]  # the store's interface, as Recordings uses it


def attach(item: pytest.Item, steplog: StepLog, base_url: str | None) -> None:
    tap = item.stash.get(TAP_KEY, None)
    if tap is not None:
        tap.steplog, tap.base_url = steplog, base_url
        steplog.listeners.append(tap)


# --- the recording format, read in one place ------------------------------------------------


@dataclass(frozen=True)
class Target:
    selector: str
    frame_path: tuple[str, ...] = ()
    tag: str = ""  # the recorded element's tag; "" when not known


@dataclass(frozen=True)
class Do:
    method: str
    arguments: tuple[str, ...]
    target: Target | None
    description: str = ""


@dataclass(frozen=True)
class Expect:
    target: Target
    property: str
    match: str
    expected: str


@dataclass(frozen=True)
class PageText:
    text: str
    present: bool


@dataclass(frozen=True)
class Shows:
    """Values a step read from the page; the page must show them."""

    value: Any


@dataclass(frozen=True)
class Navigate:
    """goto(path), go_back() or reload()."""

    method: str
    path: str | None = None


@dataclass(frozen=True)
class AtUrl:
    path: str


@dataclass(frozen=True)
class Note:
    text: str


Operation = Do | Expect | PageText | Shows | Navigate | AtUrl | Note


def _target(element: Mapping[str, Any] | None) -> Target | None:
    if not element:
        return None
    tag = (element.get("fingerprint") or {}).get("tag") or ""
    return Target(element["selectors"][0], tuple(element.get("frame_path", ())), tag)


def _do(action: Mapping[str, Any]) -> Do:
    return Do(action["method"], tuple(action.get("arguments", ())), _target(action.get("element")),
              action.get("description", ""))


def operations(recording: Mapping[str, Any]) -> list[Operation]:
    """What a recorded step does, as Playwright can do it: the one reader of the format."""
    kind, data = recording["kind"], recording.get("data", {})
    actions = recording.get("actions", [])
    if kind == "act":
        return [_do(action) for action in actions]
    if kind == "observe":
        return [Note(f"observed: {a.get('description') or a['method']}") for a in actions]
    if kind == "extract":
        return [Shows(data.get("value"))]
    if kind == "assert":
        check = data.get("check", {})
        if check.get("kind") == "element":
            return [Expect(_target(check["element"]), check["property"], check["match"],
                           check["expected"])]
        if check.get("kind") == "page_text":
            return [PageText(check["text"], check["present"])]
        return [Note("a judged claim with no recorded check: not exported")]
    if kind == "agent":
        return list(_agent_operations(recording))
    return [Note(f"{kind} step: not exported")]


def _agent_operations(recording: Mapping[str, Any]) -> Iterator[Operation]:
    data, actions = recording.get("data", {}), recording.get("actions", [])
    for step in data.get("steps", []):
        tool = step["tool"]
        what = step.get("instruction") or ", ".join(step.get("fields", [])) or tool
        yield Note(f"agent {tool}: {what}")
        if "actions" in step:
            yield from (_do(actions[index]) for index in step["actions"])
        elif tool == "extract":
            yield Shows(step.get("value"))
        elif tool == "goto":
            yield Navigate("goto", step["url"])
        elif tool in ("back", "refresh"):
            yield Navigate({"back": "go_back", "refresh": "reload"}[tool])
        elif tool == "wait":
            yield Note(f"waited {step.get('seconds')} s: Playwright's expect waits instead")
        else:
            yield Note(f"custom tool {tool}: not exported, write it by hand")
    if "end_url" in data:
        yield AtUrl(data["end_url"])
    if data.get("output") is not None:
        yield Shows(data["output"])


# --- Python from operations ----------------------------------------------------------------

ROLE = re.compile(r'role=([\w-]+)\[name=("(?:[^"\\]|\\.)*")([si]?)\]')
LABEL = re.compile(r'internal:label=("(?:[^"\\]|\\.)*")([si]?)')
TEXT = re.compile(r'text=("(?:[^"\\]|\\.)*")')
TEST_ID = re.compile(r'\[data-testid=("(?:[^"\\]|\\.)*")\]')
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
            do = _do(action)
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


# --- the plugin: ships each test's steps to the controller, which writes the modules ---------


class Exporter:
    def __init__(self, config: pytest.Config, directory: Path, salt: str) -> None:
        self._config = config
        self.directory = directory
        self.salt = salt
        self.tests: dict[str, Record] = {}  # nodeid → test, in order of completion
        self.failed: set[str] = set()
        self.written: list[tuple[Path, int]] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        tap = item.stash.get(TAP_KEY, None)
        if tap is not None and report.when == "teardown":
            name = getattr(item, "originalname", item.name)
            setattr(report, REPORT_ATTR, {"file": str(item.path), "name": name,
                                          "order": _order(item), "steps": tap.steps})
            del item.stash[TAP_KEY]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        payload = getattr(report, REPORT_ATTR, None)
        if payload and report.nodeid not in self.failed:
            self.tests[report.nodeid] = payload

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return
        by_file: dict[str, dict[str, Record]] = {}
        for test in sorted(self.tests.values(), key=lambda t: (t["file"], t["order"])):
            by_file.setdefault(test["file"], {}).setdefault(test["name"], test)  # one per name
        self.directory.mkdir(parents=True, exist_ok=True)
        for file, tests in by_file.items():
            path = self.directory / f"{Path(file).stem}{SUFFIX}.py"
            source = _shown(Path(file), self._config.rootpath)
            path.write_text(render_module(source, list(tests.values())), encoding="utf-8")
            self.written.append((path, len(tests)))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(self._config, "workerinput"):
            return
        for path, count in self.written:
            terminalreporter.write_line(f"pytest-stagehand export: {path} ({count} tests)")
        for nodeid in sorted(self.failed):
            terminalreporter.write_line(f"pytest-stagehand export: not exported (failed): {nodeid}")


def _order(item: pytest.Item) -> int:
    return item.location[1] or 0


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def register(config: pytest.Config, settings: Settings, salt: str) -> None:
    if settings.export_dir:
        directory = config.rootpath / Path(settings.export_dir).expanduser()
        config.pluginmanager.register(Exporter(config, directory, salt), PLUGIN_NAME)
