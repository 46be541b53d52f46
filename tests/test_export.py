"""Export to plain Playwright: the example suite's recordings become pytest-playwright
modules that pass with the plugin disabled (`-p no:stagehand`), and fail, as plain
Playwright tests do, on the redesigned shop whose test ids changed."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import pytest
from example_runs import SECRETS, example_copy, offline, run_pytest

from pytest_stagehand.reporting.export_operations import PageText, Shows, Target, operations
from pytest_stagehand.reporting.playwright_module import (
    Variables,
    _argument,
    _shows_lines,
    _text_lines,
    locator,
    render_module,
)

pytestmark = pytest.mark.timeout(900)

# test_account: dialogs, an upload through a button, a new tab and a download.
MODULES = (
    "test_login", "test_checkout", "test_shopping", "test_signup", "test_support", "test_account"
)
# The exported modules' own conftest: a browser for a machine without Playwright's
# Chromium, and short timeouts, so a locator that no longer matches fails fast.
CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium"}

@pytest.fixture(autouse=True)
def short_timeouts(page):
    page.set_default_timeout(5000)
"""
VALUES = {"VAR_USER": "standard_user", "VAR_USER_2": "locked_out_user",
          "VAR_PASSWORD": "secret_sauce"}  # fmt: skip


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("export")
    copy = example_copy(tmp_path, *MODULES, failing=False)
    out = copy / "exported"
    tests = [str(copy / f"{module}.py") for module in MODULES]
    run = run_pytest(
        copy, "export", *tests, "-o", str(out), "--", *offline(copy), module="pytest_stagehand"
    )
    assert "15 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    for module in MODULES:
        assert f"pytest-stagehand export: {out / f'{module}_playwright.py'}" in run.stdout
    (out / "conftest.py").write_text(CONFTEST)
    return out


def test_the_exported_modules_pass_with_no_plugin(exported: Path):
    photo = exported / "ada.png"
    photo.write_bytes(b"\x89PNG")
    run = run_pytest(exported.parent, str(exported), "-p", "no:stagehand", "-p",
                     "no:cacheprovider", **VALUES, VAR_LIST="Birthday ideas",
                     VAR_PHOTO=str(photo))  # fmt: skip
    assert "15 passed" in run.stdout, run.stdout[-4000:] + run.stderr[-2000:]
    assert "stagehand" not in run.stdout.split("plugins:")[1].splitlines()[0]


def test_an_exported_module_says_which_variable_to_set(exported: Path):
    values = {name: value for name, value in VALUES.items() if name != "VAR_USER_2"}
    run = run_pytest(exported.parent, str(exported / "test_login_playwright.py"), "-p",
                     "no:stagehand", "-p", "no:cacheprovider", **values)  # fmt: skip
    assert "1 error" in run.stdout, run.stdout[-4000:]
    assert "LookupError: Set VAR_USER_2 in the environment to the value this module types" in (
        run.stdout
    )


def test_the_exported_modules_fail_where_the_page_changed(exported: Path):
    run = run_pytest(exported.parent, str(exported / "test_login_playwright.py"), "-p",
                     "no:stagehand", "-p", "no:cacheprovider", SHOP_VARIANT="redesign",
                     **VALUES)  # fmt: skip
    assert "2 failed" in run.stdout, run.stdout[-4000:]
    assert 'locator("[data-test=\\"login-button\\"]")' in run.stdout


def test_the_exported_code_reads_like_playwright_and_holds_no_secret(exported: Path):
    texts = {path.stem: path.read_text() for path in exported.glob("*_playwright.py")}
    assert sorted(texts) == sorted(f"{module}_playwright" for module in MODULES)
    for text in texts.values():
        ast.parse(text)
        assert not any(secret in text for secret in SECRETS)
    login = texts["test_login_playwright"]
    # One variable name that took two values in the run is two constants.
    assert 'USER = variable("USER")  # %user%' in login
    assert 'USER_2 = variable("USER_2")  # %user%' in login
    assert (
        "    # act: type %user% into the username field\n"
        "    page.locator('[data-test=\"username\"]').fill(USER_2)\n"
    ) in login
    assert (
        "    # assert: an error message says the user has been locked out\n"
        "    expect(page.locator('[data-test=\"error\"]')).to_contain_text("
        "'this user has been locked out', use_inner_text=True)\n"
    ) in login
    support = texts["test_support_playwright"]
    assert (
        "page.frame_locator('#contact-frame').locator('[data-test=\"contact-send\"]').click()"
        in support
    )
    checkout = texts["test_checkout_playwright"]
    assert "page.get_by_role('radio', name='PayPal', exact=True).check()" in checkout
    assert "expect(page.locator(\"body\")).to_contain_text('$74.38')" in checkout
    signup = texts["test_signup_playwright"]
    assert "page.locator('[data-test=\"signup-confirm\"]').fill(PASSWORD)" in signup
    assert "expect(page).to_have_url(re.compile('/inventory$'))" in signup
    # The agent's link click opened the sign-up page: its scripts run before the fills.
    assert (
        "    page.get_by_role('link', name='Sign up', exact=True).click()\n"
        "    # agent fill_form: Full name, Email, Password, Confirm password\n"
        "    page.wait_for_load_state()  # a new page: its scripts run first\n"
    ) in signup
    shopping = texts["test_shopping_playwright"]
    # The badge claim's recorded check is bound to the badge: exported as its text.
    assert (
        "expect(page.locator('[data-test=\"shopping-cart-badge\"]'))"
        ".to_have_text('2', use_inner_text=True)"
    ) in shopping


@pytest.mark.parametrize(
    ("selector", "frames", "code"),
    [
        ('role=button[name="Go"s]', (), "page.get_by_role('button', name='Go', exact=True)"),
        ('role=link[name="a \\"b\\""i]', (), "page.get_by_role('link', name='a \"b\"')"),
        ('internal:label="Email"s', (), "page.get_by_label('Email', exact=True)"),
        ('text="Send"', (), "page.get_by_text('Send', exact=True)"),
        ('[data-testid="cart"]', (), "page.get_by_test_id('cart')"),
        ('[data-test="cart"]', (), "page.locator('[data-test=\"cart\"]')"),
        ('role=row >> internal:has="internal:text=\\"Item 7\\"s" >> role=button[name="Delete"s]',
         (), "page.get_by_role('row').filter(has=page.get_by_text('Item 7', exact=True))"
             ".get_by_role('button', name='Delete', exact=True)"),
        ("xpath=/html/body/a", ("#outer", "iframe"),
         "page.frame_locator('#outer').frame_locator('iframe').locator('xpath=/html/body/a')"),
    ],
)  # fmt: skip
def test_locators_use_the_playwright_call_the_selector_means(selector, frames, code):
    assert locator(Target(selector, frames)) == code


def test_a_button_found_by_its_rows_key_is_exported_as_a_person_writes_it():
    """Replay finds it first by XPath (the row with the key, its place in the row); the
    export says the same with the row's key and the button's role and name."""
    in_row = 'role=row >> internal:has="internal:text=\\"Item 7\\"s" >> role=button[name="Delete"s]'
    element = {"selectors": ['xpath=//tr[.//*[normalize-space()="Item 7"]]/td[2]/button[1]',
                             "tr:nth-of-type(1) > td:nth-of-type(2) > button", in_row]}
    [do] = operations({"kind": "act", "actions": [{"method": "click", "element": element}]})
    assert do.target == Target(in_row)


def test_a_button_found_by_its_rows_key_is_the_same_button_in_the_export(page):
    page.set_content("<table>" + "".join(
        f"<tr><td>Item {i}</td><td><button>Delete</button></td></tr>" for i in (7, 70, 77)
    ) + "</table>")  # fmt: skip
    selector = (
        'role=row >> internal:has="internal:text=\\"Item 7\\"s" >> role=button[name="Delete"s]'
    )
    exported = eval(locator(Target(selector)), {"page": page})
    assert exported.count() == 1
    same = exported.evaluate("(el, other) => el === other", page.locator(selector).element_handle())
    assert same


def test_variables_in_arguments_stay_variables():
    variables = Variables()
    step = {"values": {"user": "d1", "greeting": "d2"}}
    assert _argument("%user%", step, variables) == "USER"
    assert _argument("Hi {%greeting%}!", step, variables) == "f'Hi {{{GREETING}}}!'"
    assert _argument("%user%", {"values": {"user": "d3"}}, variables) == "USER_2"
    assert _argument("plain", step, variables) == "'plain'"


def test_page_text_checks_and_read_values_become_expectations():
    assert _text_lines(PageText('heading "Done"', present=False)) == [
        "expect(page.get_by_role('heading', name='Done', exact=True)).to_have_count(0)"
    ]
    assert _text_lines(PageText("Free shipping", present=True)) == [
        "expect(page.locator(\"body\")).to_contain_text('Free shipping')"
    ]
    lines = _shows_lines(Shows({"name": "Bike", "page": "%origin%/p/bike", "count": 1}))
    assert lines[1:] == [
        "expect(page.locator(\"body\")).to_contain_text('Bike')",
        "expect(page.locator('a[href$=\"/p/bike\"]').first).to_be_visible()",
    ]


def test_a_judged_claim_with_no_recorded_check_is_said_not_exported():
    recording = {"kind": "assert", "data": {}}
    module = _exported(
        {"kind": "assert", "instruction": "looks right", "recording": recording, "values": {}},
    )  # fmt: skip
    assert "# a judged claim with no recorded check: not exported" in module
    assert [type(o).__name__ for o in operations(recording)] == ["Note"]


def test_a_step_that_failed_in_the_run_is_not_exported():
    recording = {"kind": "act", "actions": [{"method": "click", "element": {
        "selectors": ["#gone"], "fingerprint": {}}}]}  # fmt: skip
    module = render_module("t.py", [{"name": "test_x", "steps": [
        {"kind": "act", "instruction": "click save", "recording": recording, "values": {},
         "ok": False},
    ]}])  # fmt: skip
    assert "#gone" not in module
    assert "# not exported: this step failed in the run" in module


def test_a_step_on_a_page_the_step_before_opened_waits_for_it_to_load():
    def step(instruction: str, url: str, selector: str) -> dict:
        recording = {"kind": "act", "actions": [{"method": "click", "element": {
            "selectors": [selector], "fingerprint": {}}}]}  # fmt: skip
        return {"kind": "act", "instruction": instruction, "url": url, "recording": recording,
                "values": {}}

    module = render_module("t.py", [{"name": "test_x", "steps": [
        {"kind": "goto", "instruction": "http://shop/", "url": "", "path": "/"},
        step("log in", "http://shop/", "#login"),  # the goto waited for the page
        step("add the jacket", "http://shop/inventory", "#add"),  # the login took it there
        step("add the hat", "http://shop/inventory", "#hat"),  # still there
    ]}])  # fmt: skip
    lines = [line.strip() for line in module.splitlines()]
    body = lines[lines.index("def test_x(page: Page) -> None:".strip()) + 1:]
    assert [line.split("  #")[0] for line in body if "locator" in line or "wait" in line] == [
        "page.locator('#login').click()",
        "page.wait_for_load_state()",
        "page.locator('#add').click()",
        "page.locator('#hat').click()",
    ]


def test_an_agent_action_on_a_page_its_action_before_opened_waits_for_it_to_load():
    """One agent step holds many actions: the run noted where each ran, and a new page
    loads (its scripts run) before plain Playwright acts on it."""
    actions = [_click("#signup", "a"), _click("#name", "input"), _click("#terms", "input"),
               _click("#next", "a"), _click("#done")]  # fmt: skip
    steps = [{"tool": "act", "instruction": "open sign-up", "actions": [0]},
             {"tool": "fill_form", "fields": ["Name", "Terms"], "actions": [1, 2]},
             {"tool": "goto", "url": "/elsewhere"},
             {"tool": "act", "instruction": "go on", "actions": [3]},
             {"tool": "act", "instruction": "finish", "actions": [4]}]  # fmt: skip
    recording = {"kind": "agent", "actions": actions, "data": {"steps": steps}}
    agent = {"kind": "agent", "instruction": "sign up", "url": "http://shop/", "values": {},
             "recording": recording}  # fmt: skip
    urls = ["http://shop/", "http://shop/signup", "http://shop/signup",
            "http://shop/elsewhere", "http://shop/next"]  # fmt: skip
    body = _body(_exported({**agent, "action_urls": urls}))
    waits_before = [after for line, after in pairwise(body)
                    if line == "page.wait_for_load_state()"]  # fmt: skip
    # Not before the goto's page (goto waits for its load), nor within one page.
    assert waits_before == ["page.locator('#name').click()", "page.locator('#done').click()"]
    # A run that noted a different number of actions says nothing about where they ran.
    assert "page.wait_for_load_state()" not in _body(_exported({**agent, "action_urls": urls[:4]}))


def _act(instruction: str, *actions: dict, url: str = "http://shop/") -> dict:
    return {"kind": "act", "instruction": instruction, "url": url, "values": {"name": "d1"},
            "recording": {"kind": "act", "actions": list(actions)}}  # fmt: skip


def _click(selector: str, tag: str = "button") -> dict:
    return {"method": "click", "element": {"selectors": [selector], "fingerprint": {"tag": tag}}}


ACCEPT = {"method": "accept_dialog", "arguments": ["%name%"]}


def _exported(*steps: dict) -> str:
    """The module exported for one test, test_x, of these steps: valid Python."""
    module = render_module("t.py", [{"name": "test_x", "steps": list(steps)}])
    ast.parse(module)
    return module


def _body(module: str) -> list[str]:
    lines = [line.strip().split("  #")[0] for line in module.splitlines()]
    body = lines[lines.index("def test_x(page: Page) -> None:") + 1 :]
    return [line for line in body if line and not line.startswith("#")]


def test_a_dialog_is_answered_by_a_handler_set_before_the_action_that_opens_it():
    """Playwright dismisses a dialog no handler was waiting for: the answer the AI step gave
    to the dialog it held open goes above the action that opened it."""
    module = _exported(
        {"kind": "goto", "instruction": "http://shop/", "url": "", "path": "/"},
        _act("log in", _click("#login")),
        _act("rename the list", _click("#rename"), url="http://shop/lists"),  # arrived
        _act("type %name% into the prompt and accept it", ACCEPT, url="http://shop/lists"),
        _act("delete it and confirm", _click("#delete"), ACCEPT, url="http://shop/lists"),
    )  # fmt: skip
    assert _body(module) == [
        "page.goto('/')",
        "page.locator('#login').click()",
        "page.wait_for_load_state()",
        'page.once("dialog", lambda dialog: dialog.accept(NAME))',
        "page.locator('#rename').click()",
        'page.once("dialog", lambda dialog: dialog.accept(NAME))',
        "page.locator('#delete').click()",
    ]
    assert "# answered by the dialog handler set before the action above" in module


def test_an_upload_through_a_button_answers_the_file_chooser_it_opens():
    upload = {"method": "upload", "arguments": ["%name%"]}
    module = _exported(
        _act("upload %name% with the button", {**_click("#choose", "button"), **upload}),
        _act("upload %name% into the field", {**_click("#file", "input"), **upload}),
    )  # fmt: skip
    assert _body(module) == [
        "with page.expect_file_chooser() as chooser:",
        "page.locator('#choose').click()",
        "chooser.value.set_files([NAME])",
        "page.locator('#file').set_input_files([NAME])",
    ]


def test_a_click_at_a_point_of_its_element_is_exported_at_that_point(page):
    """A bar of a canvas chart has no element of its own: the recorded click is at a
    point of the canvas, which the export keeps (the canvas's centre is another bar)."""
    bar = {**_click("#chart", "canvas"), "point": {"x": 30.0, "y": 12.0, "look": "00"}}
    module = _exported(_act("click the first bar", bar))
    assert _body(module) == ["page.locator('#chart').click(position={\"x\": 30.0, \"y\": 12.0})"]
    page.set_content(
        '<canvas id="chart" width="200" height="100"></canvas><output></output><script>'
        "chart.onclick = (e) => { document.querySelector('output').textContent = "
        "`${e.offsetX},${e.offsetY}`; };</script>"
    )
    exec(_body(module)[0], {"page": page})
    assert page.locator("output").text_content() == "30,12"


def test_a_new_tab_or_a_download_is_waited_for_around_the_action_that_started_it():
    """The AI step logged them after the step whose action started them; Playwright
    catches them only by waiting around that action."""
    module = _exported(
        _act("open help", _click("#help", "a")),
        {"kind": "tab", "instruction": "http://shop/help", "url": "http://shop/help",
         "path": "/help"},
        _act("get the invoice", _click("#invoice", "a"), url="http://shop/help"),
        {"kind": "download", "instruction": "invoice-7.csv", "url": "http://shop/help"},
    )  # fmt: skip
    assert _body(module) == [
        "with page.context.expect_page() as opened:",
        "page.locator('#help').click()",
        "page = opened.value",
        "page.wait_for_load_state()",
        "with page.expect_download() as downloaded:",
        "page.locator('#invoice').click()",
        "assert downloaded.value.suggested_filename == 'invoice-7.csv'",
    ]
    assert "    # tab: /help\n" in module
