"""Record, replay and heal act steps, end to end, through real pytest runs.

Each inner run is `python -m pytest` in a subprocess (as pytester.runpytest_subprocess
runs it) over an inner suite that uses `ai_page`, with Chromium, pages served on
127.0.0.1 and a scripted model server (no real model: every answer is picked by role and
name out of the snapshot in the prompt it received). The first run, which records, is
shared by the tests of this module: each test copies the recorded suite into its own
directory, changes what it is about (the page served, the cache mode, the test file, the
recordings file) and runs it again.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from scripted_answers import act_answer, element_id
from servers import PagesServer
from session_once import once_per_session

from pytest_stagehand.browser.launch import system_chromium_path
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest

PAGES = Path(__file__).parent / "pages" / "replay"
CHECKOUT = Path(__file__).parent.parent  # the plugin under test: this checkout's, not the venv's
PASSWORD = "correct-horse-8931"  # a variable value: must never be stored or shown
USER = "ada.lovelace"
# Found once here, so inner runs skip asking a Playwright driver where its build is.
BROWSER = os.environ.get("STAGEHAND_BROWSER_PATH") or system_chromium_path()
MODEL_ENVIRONMENT = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
    "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST",
)  # fmt: skip

# --- the inner suite ---------------------------------------------------------------------

INNER_INI = "[pytest]\naddopts = -p no:cacheprovider\n"

# Which buttons each test pressed, kept after the test (even a failed one) so the outer
# test can prove what was, and was not, clicked.
INNER_CONFTEST = """
import json

import pytest


@pytest.fixture(autouse=True)
def clicks(request, page):
    yield
    pressed = page.evaluate("() => window.__clicks || []")
    with open("clicks.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"test": request.node.nodeid, "clicks": pressed}) + "\\n")
"""

LOGIN_TEST = f"""
USER = {USER!r}
PASSWORD = {PASSWORD!r}


def test_login(ai_page):
    ai_page.goto("login.html")
    ai_page.act("type %user% into the username field", variables={{"user": USER}})
    ai_page.act("type %password% into the password field", variables={{"password": PASSWORD}})
    ai_page.act("click the login button")
    assert ai_page.get_by_role("status").inner_text() == f"Welcome back, {{USER}}"
"""

CART_TEST = """
def test_cart(ai_page):
    ai_page.goto("shop.html")
    ai_page.act("add the Bike Light to the cart")  # one of six "Add to cart" buttons
    assert ai_page.locator("[data-test=cart-count]").inner_text() == "1"
    card = ai_page.locator("li", has_text="Bike Light")
    assert card.get_by_role("button").inner_text() == "Remove"
"""

INNER_TESTS = LOGIN_TEST + CART_TEST
ACT_STEPS = 4  # act calls in INNER_TESTS

LOGIN = "click the login button"
CART = "add the Bike Light to the cart"


# --- the scripted model --------------------------------------------------------------------


def scripted_answer(request: ScriptedRequest) -> dict[str, Any]:
    """Answers an act prompt as a correct model would, by the instruction in it."""
    text = request.text
    instruction = re.search(r"^Instruction: (.*)$", text, re.MULTILINE).group(1)
    if instruction == "type %user% into the username field":
        return act_answer(element_id(text, "textbox", "Username"), "fill", ["%user%"])
    if instruction == "type %password% into the password field":
        return act_answer(element_id(text, "textbox", "Password"), "fill", ["%password%"])
    if instruction == LOGIN:  # the button says "Sign in" on a renamed page
        name = "Login" if re.search(r'\be\d+ button "Login"', text) else "Sign in"  # as shown
        return act_answer(element_id(text, "button", name))
    if instruction == CART:
        return act_answer(element_id(text, "button", "Add to cart", after="Bike Light"))
    if instruction == "type %name% into the name field":
        return act_answer(element_id(text, "textbox", "Name"), "fill", ["%name%"])
    if instruction == "click the continue button":
        return act_answer(element_id(text, "button", "Continue"))
    if instruction == "add %product% to the cart":  # the prompt shows the value masked
        return act_answer(element_id(text, "button", "Add to cart", after="%product%"))
    if found := re.fullmatch(r"click button (\d+)", instruction):
        return act_answer(element_id(text, "button", f"Button {found.group(1)}"))
    raise AssertionError(f"the scripted model has no answer for {instruction!r}")


@pytest.fixture(scope="module")
def scripted() -> ScriptedModelServer:
    with ScriptedModelServer(default=scripted_answer) as server:
        yield server


# --- pages: tests/pages/replay served from a copy, so a variant can take a page's URL ------


class Site:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.server = PagesServer(root).start()

    @property
    def base_url(self) -> str:
        return self.server.url()

    def serve(self, variant: str, as_page: str = "login.html") -> None:
        """Serve `variant` (a page of tests/pages/replay) at the URL of `as_page`."""
        shutil.copyfile(PAGES / variant, self.root / as_page)

    def reset(self) -> None:
        for page in PAGES.iterdir():
            shutil.copyfile(page, self.root / page.name)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    served = Site(tmp_path_factory.mktemp("site"))
    served.reset()
    yield served
    served.server.close()


def closed_port_url() -> str:
    """The URL of a port nothing listens on: any request to it fails."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# --- running the inner suite -----------------------------------------------------------------


@dataclass
class Run:
    result: pytest.RunResult
    requests: int  # model requests the scripted server got during the run

    def to_data(self) -> dict[str, Any]:
        r = self.result
        return {"ret": int(r.ret), "out": r.outlines, "err": r.errlines,
                "duration": r.duration, "requests": self.requests}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Run:
        result = pytest.RunResult(data["ret"], data["out"], data["err"], data["duration"])
        return cls(result, data["requests"])

    @property
    def out(self) -> str:
        return self.result.stdout.str() + "\n" + self.result.stderr.str()

    def step_lines(self, instruction: str) -> list[str]:
        """The -v lines of the steps with this instruction."""
        return [
            line for line in self.result.stdout.lines
            if line.startswith(f'  stagehand act "{instruction}"')
        ]  # fmt: skip


class Suite:
    """A directory holding an inner suite; `run` is one pytest session over it."""

    def __init__(self, path: Path, site: Site, scripted: ScriptedModelServer) -> None:
        self.path = path
        self.site = site
        self.scripted = scripted

    def copy(self, path: Path) -> Suite:
        """The suite's tests and recordings (not its .stagehand store) in another directory."""
        shutil.copytree(
            self.path, path, ignore=shutil.ignore_patterns(".stagehand", "clicks.jsonl")
        )
        return Suite(path, self.site, self.scripted)

    @property
    def recordings(self) -> Path:
        return self.path / "__stagehand__" / "test_inner.json"

    def steps(self, module: str = "test_inner") -> dict[str, dict[str, Any]]:
        """The recorded steps of a module, by instruction."""
        document = json.loads((self.path / "__stagehand__" / f"{module}.json").read_text())
        return {step["instruction"]: step for step in document["steps"]}

    def clicks(self, test: str) -> list[str]:
        """What the test (a node id, less pytest-playwright's [chromium]) pressed."""
        records = [json.loads(line) for line in (self.path / "clicks.jsonl").open()]
        return [c for r in records if r["test"].split("[")[0] == test for c in r["clicks"]]

    def run(self, *args: str, model: str | None = "scripted") -> Run:
        """pytest over the suite; `model` "scripted" (the scripted server), "closed" (a
        configured model at a port nothing listens on) or None (no model at all)."""
        options = ["--base-url", self.site.base_url]
        if model is not None:
            url = self.scripted.openai_base_url if model == "scripted" else closed_port_url()
            options += ["--ai-model", "openai/scripted", "--ai-base-url", url,
                        "--ai-retries", "0", "--ai-timeout", "10"]
        environment = {
            name: value for name, value in os.environ.items()
            if name not in MODEL_ENVIRONMENT and not name.startswith(("STAGEHAND_", "PYTEST_XDIST"))
        }  # fmt: skip
        if BROWSER:
            environment["STAGEHAND_BROWSER_PATH"] = BROWSER
        environment["COLUMNS"] = "400"  # the short summary's lines whole
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(CHECKOUT), environment.get("PYTHONPATH")])
        )
        before = self.scripted.calls
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *options, *args],
            cwd=self.path, env=environment, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        result = pytest.RunResult(
            done.returncode, done.stdout.splitlines(), done.stderr.splitlines(),
            time.monotonic() - started,
        )  # fmt: skip
        return Run(result, self.scripted.calls - before)


@dataclass
class Rerun:
    """A suite, run; shared by the tests that read it (see `once`)."""

    suite: Suite
    runs: list[Run]
    before: bytes  # its recordings file before the runs
    steps: dict[str, dict[str, Any]]  # its steps before the runs
    prompts: list[str] = field(default_factory=list)  # what the model was sent

    @property
    def run(self) -> Run:
        return self.runs[0]

    def to_data(self) -> dict[str, Any]:
        return {"path": str(self.suite.path), "runs": [run.to_data() for run in self.runs],
                "before": base64.b64encode(self.before).decode(), "steps": self.steps,
                "prompts": self.prompts}

    @classmethod
    def from_data(cls, data: dict[str, Any], site: Site, scripted: ScriptedModelServer) -> Rerun:
        return cls(Suite(Path(data["path"]), site, scripted),
                   [Run.from_data(run) for run in data["runs"]],
                   base64.b64decode(data["before"]), data["steps"], data["prompts"])


def once(
    factory: pytest.TempPathFactory,
    name: str,
    produce: Callable[[Path], Rerun],
    site: Site,
    scripted: ScriptedModelServer,
) -> Rerun:
    """`produce(directory)`, once per session even across pytest-xdist workers."""
    _, data = once_per_session(factory, name, lambda path: produce(path).to_data())
    return Rerun.from_data(data, site, scripted)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, site, scripted) -> Rerun:
    """The inner suite after its first run: auto mode, the scripted model, -v."""

    def record(path: Path) -> Rerun:
        suite = Suite(path, site, scripted)
        (path / "pytest.ini").write_text(INNER_INI)
        (path / "conftest.py").write_text(INNER_CONFTEST)
        (path / "test_inner.py").write_text(INNER_TESTS)
        site.reset()
        before = len(scripted.requests)
        run = suite.run("-v")
        prompts = [json.dumps(request.body) for request in scripted.requests[before:]]
        return Rerun(suite, [run], b"", {}, prompts)

    return once(tmp_path_factory, "recorded", record, site, scripted)


@pytest.fixture
def suite(recorded: Rerun, tmp_path: Path) -> Suite:
    """A copy of the recorded suite (tests and __stagehand__ files only) for one test."""
    recorded.run.result.assert_outcomes(passed=2)
    recorded.suite.site.reset()
    return recorded.suite.copy(tmp_path / "suite")


# --- recording -----------------------------------------------------------------------------


def test_the_first_run_records_each_step_with_names_placeholders_selectors_and_fingerprint(
    recorded,
):
    run = recorded.run
    run.result.assert_outcomes(passed=2)
    assert run.requests == ACT_STEPS
    steps = recorded.suite.steps()
    assert sorted(steps) == sorted([
        "type %user% into the username field", "type %password% into the password field",
        LOGIN, CART,
    ])  # fmt: skip

    password = steps["type %password% into the password field"]
    assert password["kind"] == "act"
    assert password["url"] == "/login.html"  # normalised: no origin, so staging replays on prod
    assert password["variables"] == ["password"]  # the name, never the value
    assert password["model"] == "openai/scripted"
    assert password["heals"] == []
    [fill] = password["actions"]
    assert fill["method"] == "fill"
    assert fill["arguments"] == ["%password%"]
    assert fill["element"]["selectors"][:3] == [  # best first: test id, role+name, label
        '[data-test="password"]', 'role=textbox[name="Password"s]', 'internal:label="Password"s',
    ]  # fmt: skip
    assert fill["element"]["selectors"][-1].startswith("xpath=")
    fingerprint = fill["element"]["fingerprint"]
    assert (fingerprint["role"], fingerprint["name"], fingerprint["tag"]) == (
        "textbox", "Password", "input",
    )  # fmt: skip
    assert fingerprint["test_id"] == "password"

    [click] = steps[LOGIN]["actions"]
    assert click["method"] == "click" and click["arguments"] == []
    assert click["element"]["selectors"][:2] == [
        '[data-test="login-button"]', 'role=button[name="Login"s]',
    ]  # fmt: skip
    assert steps[LOGIN]["variables"] == []

    [add] = steps[CART]["actions"]
    assert steps[CART]["url"] == "/shop.html"
    assert add["element"]["fingerprint"]["name"] == "Add to cart"
    selectors = add["element"]["selectors"]
    assert "li:nth-of-type(2)" in selectors[0]  # a selector for this button alone goes first,
    assert 'role=button[name="Add to cart"s]' in selectors[1:]  # not one shared by all six
    assert "Bike Light" in add["element"]["distinct"]  # what tells it from 5 look-alikes
    assert "Backpack" not in add["element"]["distinct"]


def test_no_variable_value_is_stored_shown_or_sent(recorded):
    run, path = recorded.run, recorded.suite.path
    stored = [recorded.suite.recordings, *(p for p in (path / ".stagehand").rglob("*")
                                           if p.is_file())]
    assert len(stored) > 1  # the store under .stagehand exists and was looked at
    for value in (PASSWORD, USER):
        for file in stored:
            assert value.encode() not in file.read_bytes(), file
        assert value not in run.out
        for prompt in recorded.prompts:
            assert value not in prompt
    assert '%password%' in recorded.suite.recordings.read_text()


def test_verbose_lines_show_each_step_as_a_miss_while_recording(recorded):
    lines = recorded.run.step_lines("type %password% into the password field")
    assert len(lines) == 1
    assert '→ textbox "Password" fill [miss]' in lines[0]
    assert "cache: 4 miss" in recorded.run.out


# --- replaying -----------------------------------------------------------------------------


def rerun(
    factory: pytest.TempPathFactory,
    name: str,
    recorded: Rerun,
    *runs: tuple[str, ...],
    model: str | None = None,
    page: str | None = None,
    prepare: Callable[[Suite], None] | None = None,
) -> Rerun:
    """Runs (each a tuple of options) over a copy of the recorded suite, with `page` served
    as login.html; `prepare` changes the copy first."""

    def produce(path: Path) -> Rerun:
        suite = recorded.suite.copy(path / "suite")
        before, steps = suite.recordings.read_bytes(), suite.steps()
        if prepare:
            prepare(suite)
        suite.site.reset()
        if page:
            suite.site.serve(page)
        try:
            return Rerun(suite, [suite.run(*args, model=model) for args in runs], before, steps)
        finally:
            suite.site.reset()

    return once(factory, name, produce, recorded.suite.site, recorded.suite.scripted)


@pytest.fixture(scope="module")
def offline(recorded, tmp_path_factory) -> Rerun:
    """The recorded suite, replayed offline; a model is configured, at a closed port."""
    return rerun(tmp_path_factory, "offline", recorded, ("-v", "--ai-cache=offline"),
                 model="closed")


@pytest.fixture(scope="module")
def per_origin(recorded, tmp_path_factory) -> Rerun:
    """The recorded suite (recorded without --ai-cache-per-origin), replayed offline with it."""
    return rerun(tmp_path_factory, "per-origin", recorded,
                 ("--ai-cache=offline", "--ai-cache-per-origin"), model="closed")


def test_a_miss_under_another_origin_setting_names_the_recording_it_left(per_origin):
    """Each page is keyed with its origin now: the first step of each test misses, and
    says what was recorded and which setting keys it; nothing recorded is touched."""
    run = per_origin.run
    run.result.assert_outcomes(failed=2)
    assert run.requests == 0
    # In each failure's traceback (with CI set, pytest's summary repeats whole messages).
    said = re.findall(r"^E +(.*)$", run.out, re.MULTILINE)
    assert said.count("That file has recordings of this step for another page, other "
                      "variables or another use in the test, or of one worded alike:") == 2
    assert "- act 'type %user% into the username field' on /login.html with variables user" in (
        said
    )
    assert said.count("Recordings made with --ai-cache-per-origin name pages with their origin, "
                      "and those made without it do not: replay with the setting they were "
                      "recorded with.") == 2
    assert per_origin.suite.recordings.read_bytes() == per_origin.before


def test_offline_replay_needs_no_model_and_hits_every_step(offline):
    offline.run.result.assert_outcomes(passed=2)
    assert offline.run.requests == 0
    for instruction in ("type %user% into the username field",
                        "type %password% into the password field", LOGIN):
        [line] = offline.run.step_lines(instruction)
        assert "[hit]" in line, line
    assert "cache: 4 hit\n" in offline.run.out
    assert "model calls: none" in offline.run.out
    assert offline.suite.recordings.read_bytes() == offline.before


def test_offline_replay_of_one_of_many_look_alikes_is_a_clean_hit(offline):
    """The step was recorded on the 2nd of six "Add to cart" buttons; the page is unchanged;
    the inner test checks that the Bike Light's button was the one pressed."""
    offline.run.result.assert_outcomes(passed=2)
    [line] = offline.run.step_lines(CART)
    assert '→ button "Add to cart" click [hit]' in line, line
    assert "healed in" not in offline.run.out
    assert offline.suite.clicks("test_inner.py::test_cart") == ["Add to cart"]


# --- healing -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def restyled(recorded, tmp_path_factory) -> Rerun:
    """The login page restyled (ids, classes and the button's test id renamed, a wrapper
    added, the button moved; roles and names kept). First offline, the login test only,
    --ai-prune; then the whole suite in auto mode with no model configured at all."""
    return rerun(
        tmp_path_factory, "restyled", recorded,
        ("-v", "--ai-cache=offline", "--ai-prune", "-k", "login"), ("-v",),
        page="login-restyled.html",
    )  # fmt: skip


def test_a_restyled_page_heals_without_a_model_and_the_heal_is_recorded(restyled):
    run = restyled.run
    run.result.assert_outcomes(passed=1)
    assert "[healed]" in run.step_lines(LOGIN)[0]
    assert "[hit]" in run.step_lines("type %user% into the username field")[0]
    heal = re.search(
        r'healed in test_inner.py::test_login\S*: "click the login button" '
        r'\[data-test="login-button"\] → \[data-test="submit-login"\] \(fingerprint, (0\.\d+); '
        r"changed: ([a-z ,]+); decided by: ([a-z ,]+)\)",
        run.out,
    )
    assert heal, run.out
    step = restyled.suite.steps()[LOGIN]
    assert step["actions"][0]["element"]["selectors"][0] == '[data-test="submit-login"]'
    assert step["actions"][0]["element"]["fingerprint"]["id"] == "v2-login"
    [note] = step["heals"]
    assert note["strategy"] == "fingerprint"
    assert {"test id", "id"} <= set(note["changed"]) == set(heal.group(2).split(", "))
    assert note["decided_by"] == heal.group(3).split(", ")  # what a reviewer judges it by
    assert (note["before"], note["after"]) == ('[data-test="login-button"]',
                                              '[data-test="submit-login"]')
    assert note["score"] == pytest.approx(float(heal.group(1)), abs=0.01)


def test_with_k_nothing_is_reported_unused_or_pruned(restyled):
    """The first run selected the login test only (and passed --ai-prune): the cart
    test's recording was not used, and must be neither reported nor pruned."""
    assert "unused recordings" not in restyled.run.out
    assert restyled.suite.steps()[CART] == restyled.steps[CART]


def test_after_a_heal_auto_mode_with_no_model_configured_replays_green_with_clean_hits(
    restyled,
):
    again = restyled.runs[1]  # no --ai-model, no key, no base URL
    again.result.assert_outcomes(passed=2)
    assert again.requests == 0
    assert "[hit]" in again.step_lines(LOGIN)[0]
    assert "[hit]" in again.step_lines(CART)[0]
    assert "healed in" not in again.out
    assert "model calls: none" in again.out
    assert len(restyled.suite.steps()[LOGIN]["heals"]) == 1  # the one heal, not noted again


NEW_STEP = """

def test_new_step(ai_page):
    ai_page.goto("login.html")
    ai_page.act("click the Shop link")
"""


def break_things(suite: Suite) -> None:
    """A step never recorded; and a second module whose recordings file is hand-broken."""
    with (suite.path / "test_inner.py").open("a") as module:
        module.write(NEW_STEP)
    (suite.path / "test_other.py").write_text(INNER_TESTS)
    shutil.copyfile(suite.recordings, suite.path / "__stagehand__" / "test_other.json")
    other = suite.path / "__stagehand__" / "test_other.json"
    other.write_bytes(other.read_bytes().replace(b'"steps": [', b'"steps": [,', 1))


@pytest.fixture(scope="module")
def failures(recorded, tmp_path_factory) -> Rerun:
    """Offline with the scripted model configured, on a page whose Login button is gone,
    a "Delete account" button having taken its id, classes and test id; with a step never
    recorded, and another module's recordings file broken."""
    return rerun(tmp_path_factory, "failures", recorded, ("--ai-cache=offline",),
                 model="scripted", page="login-decoy.html", prepare=break_things)


def failed_lines(run: Run) -> dict[str, str]:
    """The short summary's FAILED lines by test (pytest-playwright's [chromium] removed)."""
    found = (re.match(r"FAILED (\S+?)(?:\[[^]]*\])? - (.*)", line) for line in
             run.result.stdout.lines)
    return {match.group(1): match.group(2) for match in found if match}


def test_a_decoy_that_took_the_recorded_selectors_is_never_clicked(failures):
    suite, run = failures.suite, failures.run
    run.result.assert_outcomes(passed=1, failed=4)
    assert failed_lines(run)["test_inner.py::test_login"].startswith(
        'pytest_stagehand.errors.HealFailed: The recorded button "Login" was not found safely.'
    )
    assert '[data-test="login-button"] → button "Delete account", not the recorded element' in (
        run.out
    )
    assert 'no button "Login" (or a renamed one) on the page' in run.out
    assert 'button "Delete account"' in run.out.split("the nearest, ")[1]  # the near miss
    assert "Delete account" not in suite.clicks("test_inner.py::test_login")
    assert suite.steps()[LOGIN] == failures.steps[LOGIN]  # nothing healed or recorded


def test_an_offline_miss_names_the_step_the_file_and_how_to_record_it(failures):
    run = failures.run
    assert run.requests == 0  # a model is configured, and offline never calls it
    assert failed_lines(run)["test_inner.py::test_new_step"].startswith(
        "pytest_stagehand.errors.CacheMiss: No recording for act 'click the Shop link' on "
        "/login.html in test_inner.py, and --ai-cache=offline never calls a model."
    )
    assert "Record it by running once with a model, e.g. pytest test_inner.py --ai-model" in (
        run.out
    )
    assert "then commit __stagehand__/test_inner.json" in run.out
    assert "click the Shop link" not in failures.suite.steps()


def test_a_corrupt_file_fails_its_own_tests_only_and_is_left_byte_identical(failures):
    run, other = failures.run, failures.suite.path / "__stagehand__" / "test_other.json"
    failed = failed_lines(run)
    for test in ("test_other.py::test_login", "test_other.py::test_cart"):
        assert re.match(
            r"pytest_stagehand.errors.RecordingFileError: __stagehand__/test_other.json is not "
            r"a valid recordings file: invalid JSON at line \d+, column \d+", failed[test],
        ), failed[test]  # fmt: skip
    assert "test_inner.py::test_cart" not in failed  # another module's recordings still work
    assert "recordings files left untouched:" in run.out
    broken = failures.before.replace(b'"steps": [', b'"steps": [,', 1)
    assert other.read_bytes() == broken


def test_a_step_that_cannot_heal_without_a_model_is_re_resolved_by_the_model(suite):
    suite.site.serve("login-renamed.html")  # the button says "Sign in" now
    run = suite.run("-v", "-k", "login", model="scripted")
    run.result.assert_outcomes(passed=1)
    assert run.requests == 1  # the click only: the fields still replay
    # The model is told what the recording acted on and where, to find the same thing.
    prompt = suite.scripted.requests[-1].text
    assert 'This step was recorded on button "Login", with test id "login-button"' in prompt
    assert "among the words" in prompt
    assert "[hit]" in run.step_lines("type %password% into the password field")[0]
    assert "[healed]" in run.step_lines(LOGIN)[0]
    heal = re.search(
        r'healed in test_inner.py::test_login\S*: "click the login button" '
        r'\[data-test="login-button"\] → \[data-test="signin-button"\] '
        r"\(model; changed: ([a-z ,]+)\)", run.out,
    )  # fmt: skip
    assert heal, run.out
    assert {"test id", "name", "text"} <= set(heal.group(1).split(", "))
    step = suite.steps()[LOGIN]
    element = step["actions"][0]["element"]
    assert element["selectors"][:2] == ['[data-test="signin-button"]',
                                        'role=button[name="Sign in"s]']
    assert element["fingerprint"]["name"] == "Sign in"
    assert [(n["strategy"], n["before"], n["after"]) for n in step["heals"]] == [
        ("model", '[data-test="login-button"]', '[data-test="signin-button"]'),
    ]


# --- values shown on the page --------------------------------------------------------------

VALUES_TESTS = """
import pytest


def test_greeting(ai_page):
    ai_page.goto("greeting.html")  # the form says "Hello, <name>!" as the name is typed
    ai_page.act("type %name% into the name field", variables={"name": "ada.lovelace"})
    ai_page.act("click the continue button")
    assert ai_page.get_by_role("status").inner_text() == "Continued"


@pytest.mark.parametrize("product", ["Bike Light", "Backpack"], ids=["bike", "backpack"])
def test_add(ai_page, product):
    ai_page.goto("shop.html")
    ai_page.act("add %product% to the cart", variables={"product": product})
    assert ai_page.locator("li", has_text=product).get_by_role("button").inner_text() == "Remove"
    assert ai_page.locator("[data-test=cart-count]").inner_text() == "1"
"""


@pytest.fixture(scope="module")
def values(tmp_path_factory, site, scripted) -> Rerun:
    """Steps whose page shows a variable's value: recorded in auto mode with the model
    (test_add[bike] records, test_add[backpack] has the same key), then the greeting
    replayed offline on the unchanged page."""

    def produce(path: Path) -> Rerun:
        suite = Suite(path, site, scripted)
        (path / "pytest.ini").write_text(INNER_INI)
        (path / "conftest.py").write_text(INNER_CONFTEST)
        (path / "test_inner.py").write_text(VALUES_TESTS)
        site.reset()
        first = suite.run("-v")
        recorded = suite.recordings.read_bytes()
        replay = suite.run("-v", "--ai-cache=offline", "-k", "greeting", model=None)
        return Rerun(suite, [first, replay], recorded, {})

    return once(tmp_path_factory, "values", produce, site, scripted)


def test_a_step_choosing_its_element_by_a_variable_value_never_replays_another_values_element(
    values,
):
    run = values.runs[0]
    lines = failed_lines(run)
    assert "test_inner.py::test_add" not in lines, lines  # backpack: Bike Light's was pressed
    run.result.assert_outcomes(passed=3)
    assert values.suite.clicks("test_inner.py::test_add") == ["Add to cart", "Add to cart"]


def test_a_variable_value_shown_near_the_element_replays_as_a_clean_hit(values):
    step = values.suite.steps()["click the continue button"]
    assert "Hello, %name% !" in step["actions"][0]["element"]["context"]  # never the value
    replay = values.runs[1]
    replay.result.assert_outcomes(passed=1)
    [line] = replay.step_lines("click the continue button")
    assert "[hit]" in line, line
    assert "healed in" not in replay.out
    assert values.suite.recordings.read_bytes() == values.before


# --- cache modes ---------------------------------------------------------------------------


UNUSED = "__stagehand__/test_inner.json: act 'add the Bike Light to the cart' on /shop.html"


def stale_login_step(suite: Suite) -> None:
    """The cart test deleted; every step dated 2020, so a rewrite would show; the login
    click's description hand-changed, so it differs from what the model will answer."""
    (suite.path / "test_inner.py").write_text(LOGIN_TEST)
    document = json.loads(suite.recordings.read_text())
    for step in document["steps"]:
        step["recorded_at"] = "2020-01-01"
        if step["instruction"] == LOGIN:
            step["actions"][0]["description"] = "a stale description"
    suite.recordings.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


@pytest.fixture(scope="module")
def refreshed(recorded, tmp_path_factory) -> Rerun:
    """--ai-cache=refresh with the scripted model, after `stale_login_step`."""
    return rerun(tmp_path_factory, "refresh", recorded, ("-v", "--ai-cache=refresh"),
                 model="scripted", prepare=stale_login_step)


def test_refresh_re_resolves_every_step_and_rewrites_only_what_changed(refreshed):
    run = refreshed.run
    run.result.assert_outcomes(passed=1)
    assert run.requests == 3  # every step of the login test asked the model, though recorded
    for instruction in ("type %user% into the username field", LOGIN):
        assert "[refreshed]" in run.step_lines(instruction)[0]

    expected = json.loads(refreshed.before)
    for step in expected["steps"]:
        if step["instruction"] != LOGIN:  # re-recorded the same: left as it was, 2020 and all
            step["recorded_at"] = "2020-01-01"
    text = json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    assert refreshed.suite.recordings.read_text() == text  # the login click re-recorded too


def test_unused_recordings_are_reported_and_kept(refreshed):
    assert f"unused recordings (1):\n  {UNUSED}\n" in refreshed.run.out
    assert refreshed.suite.steps()[CART]["recorded_at"] == "2020-01-01"  # untouched


def test_unused_recordings_are_pruned_after_a_full_green_run_on_request(suite):
    (suite.path / "test_inner.py").write_text(LOGIN_TEST)  # the cart test was deleted
    before = suite.steps()
    pruned = suite.run("--ai-cache=offline", "--ai-prune", model=None)
    pruned.result.assert_outcomes(passed=1)
    assert f"unused recordings (1):\n  {UNUSED} (pruned)\n" in pruned.out
    steps = suite.steps()
    assert sorted(steps) == sorted(
        ["type %user% into the username field", "type %password% into the password field", LOGIN]
    )
    assert steps[LOGIN] == before[LOGIN]  # the used ones kept as they were


def test_off_mode_never_reads_or_writes_recordings(suite):
    broken = suite.recordings.read_bytes()[:50]  # would fail any test that read it
    suite.recordings.write_bytes(broken)
    (suite.path / "test_fresh.py").write_text(CART_TEST)
    run = suite.run("-v", "--ai-cache=off", model="scripted")
    run.result.assert_outcomes(passed=3)
    assert run.requests == ACT_STEPS + 1
    assert all("[off]" in run.step_lines(i)[0] for i in (LOGIN, CART))
    assert suite.recordings.read_bytes() == broken
    assert not (suite.path / "__stagehand__" / "test_fresh.json").exists()


# --- pytest-xdist --------------------------------------------------------------------------

MANY_TESTS = """
import pytest


@pytest.mark.parametrize("n", range(20))
def test_button(ai_page, n):
    ai_page.goto("buttons.html")
    ai_page.act(f"click button {n}")
    assert ai_page.get_by_role("status").inner_text() == f"clicked {n}"
"""


def test_xdist_workers_record_every_step(tmp_path, site, scripted):
    suite = Suite(tmp_path, site, scripted)
    (tmp_path / "pytest.ini").write_text(INNER_INI)
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(MANY_TESTS)
    run = suite.run("-n", "2", model="scripted")
    run.result.assert_outcomes(passed=20)
    assert run.requests == 20
    steps = suite.steps()
    assert sorted(steps) == sorted(f"click button {n}" for n in range(20))
    assert len(json.loads(suite.recordings.read_text())["steps"]) == 20  # once each
    assert {s["actions"][0]["element"]["fingerprint"]["name"] for s in steps.values()} == {
        f"Button {n}" for n in range(20)
    }
    # The workers' uses count for the session that flushes: none is reported unused.
    replay = suite.run("-n", "2", "--ai-cache=offline", model=None)
    replay.result.assert_outcomes(passed=20)
    assert "cache: 20 hit" in replay.out and "unused recordings" not in replay.out
