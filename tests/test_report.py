"""Reports from step events: -v lines, the terminal summary (with xdist), JUnit properties,
evidence folders and Allure results. Inner test files open StepLog steps directly, so no
browser and no model are involved; the "screenshots" are a fixed PNG."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
SECRET = "hunter2-s3cr3t"

# The inner suites' conftest: what the ai_page fixture does, minus the browser.
CONFTEST = f"""
import pytest
from pytest_stagehand.reporting import report, terminal
from pytest_stagehand.events import Exchange, Heal
from pytest_stagehand.plugin.hooks import session_settings
from pytest_stagehand.calls import CallUsage

PNG = {PNG!r}

@pytest.fixture
def steplog(request):
    return report.start_test(request.node, session_settings(request.config),
                             screenshot=lambda: PNG)

def call(model="openai/gpt-4.1-mini", i=100, o=10, cached=0, cost=0.001, memo=False):
    return CallUsage(model, "act", i, o, cached, 0.1, cost, memo)
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    # pytest-playwright's soft-assertion scope is global, so it cannot nest in-process.
    pytester.makeini("[pytest]\naddopts = -p no:playwright\n")
    return pytester


def test_verbose_prints_one_line_per_step(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        import pytest
        from conftest import Heal

        def test_login(steplog):
            with steplog.step("act", "click the login button") as step:
                step.cache, step.element, step.method = "hit", 'button "Log in"', "click"
            with steplog.step("act", "open the menu") as step:
                step.cache, step.element, step.method = "healed", 'link "Menu"', "click"
                step.heal = Heal("fingerprint", "#menu", "[data-test=menu]", 0.91)
            with pytest.raises(TimeoutError), steplog.step("act", "press save"):
                raise TimeoutError("no save button")
        """
    )
    # A subprocess, so pytest captures the real stdout as in any run: the lines must get past it.
    result = suite.runpytest_subprocess("-v")
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines([
        r'  stagehand act "click the login button" → button "Log in" click \[hit\] \d\.\d\ds',
        r'  stagehand act "open the menu" → link "Menu" click \[healed\] \d\.\d\ds',
        r'  stagehand act "press save" \d\.\d\ds FAILED: TimeoutError: no save button',
        r".*test_login PASSED.*",
    ])
    quiet = suite.runpytest()
    assert "stagehand act" not in quiet.stdout.str()


def test_summary_sums_usage_lists_heals_unused_and_slowest(suite: pytest.Pytester) -> None:
    suite.makeconftest(
        CONFTEST
        + """
def pytest_sessionfinish(session):
    terminal.session_summary(session.config).unused = ["tests/old.py::test_gone: click x"]
"""
    )
    suite.makepyfile(
        """
        from conftest import Heal, call

        def test_shop(steplog):
            with steplog.step("act", "add the backpack") as step:
                step.cache = "miss"
                step.calls = [call(i=1000, o=50, cached=200, cost=0.002)]
            with steplog.step("extract", "the cart total") as step:
                step.calls = [call("anthropic/claude-haiku-4-5", i=3000, o=300, cost=0.0045),
                              call("openai/local", i=10, o=1, cost=None)]
            for number in range(5):
                with steplog.step("act", f"replayed step {number}") as step:
                    step.cache = "hit"
                step.duration_s = number  # set after the step, so the order is certain
            with steplog.step("act", "click the login button") as step:
                step.cache = "healed"
                step.heal = Heal("fingerprint", "#login", "[data-test=login-button]", 0.92,
                                 ("test id", "id"))

        def test_memo(steplog):
            with steplog.step("act", "type the name") as step:
                step.calls = [call(i=0, o=0, cost=0.0, memo=True)]
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "*= pytest-stagehand =*",
        "AI steps: 9 in 2 test(s), *s",
        "model calls: 4 calls, 4,010 in / 351 out tokens (200 cached), $0.0065 + 1 unpriced,"
        " 1 memo hit",
        "  anthropic: 1 call, 3,000 in / 300 out tokens, $0.0045",
        "  openai: 3 calls, 1,010 in / 51 out tokens (200 cached), $0.0020 + 1 unpriced,"
        " 1 memo hit",
        "cache: 5 hit, 1 miss, 1 healed",
        '  healed in test_summary_sums_usage_lists_heals_unused_and_slowest.py::test_shop:'
        ' "click the login button" #login → [data-test=login-button]'
        " (fingerprint, 0.92; changed: test id, id)",
        "unused recordings (1):",
        "  tests/old.py::test_gone: click x",
    ])
    result.stdout.fnmatch_lines([
        "slowest AI steps:",
        '  4.00s act "replayed step 4" (*::test_shop)',
        '  3.00s act "replayed step 3" (*::test_shop)',
        '  2.00s act "replayed step 2" (*::test_shop)',
        '  1.00s act "replayed step 1" (*::test_shop)',
        "  0.*s * (*)",
        "=* 2 passed*",
    ], consecutive=True)


def test_no_section_without_ai_steps(suite: pytest.Pytester) -> None:
    suite.makepyfile("def test_plain(): pass")
    result = suite.runpytest()
    result.assert_outcomes(passed=1)
    assert "pytest-stagehand" not in result.stdout.str()


def test_xdist_controller_gathers_every_workers_steps(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        import pytest
        from conftest import call

        @pytest.mark.parametrize("n", range(6))
        def test_step(steplog, n):
            with steplog.step("act", f"step of test {n}") as step:
                step.cache = "miss"
                step.calls = [call(i=100, o=10, cost=0.001)]
        """
    )
    result = suite.runpytest_subprocess("-n", "2", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    assert "[gw0]" in out and "[gw1]" in out
    result.stdout.fnmatch_lines([
        "AI steps: 6 in 6 test(s), *s",
        "model calls: 6 calls, 600 in / 60 out tokens, $0.0060",
        "cache: 6 miss",
    ])
    for n in range(6):  # the workers' step lines, shown by the controller, naming the test
        result.stdout.re_match_lines(
            [rf'  stagehand act "step of test {n}" \[miss\] .*s \(.*::test_step\[{n}\]\)']
        )


def test_junit_xml_gets_usage_properties(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        from conftest import call

        def test_usage(steplog):
            with steplog.step("act", "one") as step:
                step.cache = "miss"
                step.calls = [call(i=1200, o=34, cached=100, cost=0.00125), call(i=5, o=1)]
            with steplog.step("act", "two") as step:
                step.cache = "hit"

        def test_plain():
            pass
        """
    )
    result = suite.runpytest("--junitxml=junit.xml")
    result.assert_outcomes(passed=2)
    cases = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(suite.path / "junit.xml").iter("testcase")
    }
    assert cases["test_plain"] == {}
    assert cases["test_usage"] == {
        "stagehand_steps": "2",
        "stagehand_model_calls": "2",
        "stagehand_input_tokens": "1205",
        "stagehand_output_tokens": "35",
        "stagehand_cached_tokens": "100",
        "stagehand_cost_usd": "0.00225",
        "stagehand_cache_hits": "1",
        "stagehand_cache_misses": "1",
        "stagehand_cache_healed": "0",
    }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_evidence_folder_has_log_screenshots_and_checksums(
    suite: pytest.Pytester, request: pytest.FixtureRequest
) -> None:
    suite.makepyfile(
        """
        from conftest import call

        def test_checkout(steplog):
            with steplog.step("act", "click the login button") as step:
                step.cache, step.element, step.method = "hit", 'button "Log in"', "click"
            with steplog.step("extract", "the cart total") as step:
                step.calls = [call(i=500, o=20, cost=0.0003)]
                step.result = "$29.99"
            assert False, "the total is wrong"
        """
    )
    result = suite.runpytest("--ai-evidence=evidence", "--ai-screenshots=every-step")
    result.assert_outcomes(failed=1)
    (folder,) = (suite.path / "evidence").iterdir()
    assert folder.name == f"{request.node.name}.py__test_checkout"
    assert sorted(p.name for p in folder.iterdir()) == [
        "001-act.png", "002-extract.png", "003-failure.png", "SHA256SUMS", "actions.json",
    ]
    log = json.loads((folder / "actions.json").read_text())
    assert log["outcome"] == "failed"
    assert [s["instruction"] for s in log["steps"]] == ["click the login button", "the cart total"]
    first, second = log["steps"]
    assert (first["cache"], first["element"]) == ("hit", 'button "Log in"')
    assert second["result"] == "$29.99" and second["duration_s"] >= 0
    assert second["calls"][0]["input_tokens"] == 500
    assert log["usage"]["calls"] == 1 and log["usage"]["cost_usd"] == 0.0003
    assert log["cache"] == {"hit": 1, "none": 1}
    assert first["screenshot"] == {"file": "001-act.png", "sha256": _sha256(folder / "001-act.png")}
    assert log["failure_screenshot"]["sha256"] == _sha256(folder / "003-failure.png")
    assert (folder / "003-failure.png").read_bytes() == PNG
    sums = dict(
        reversed(line.split("  ")) for line in (folder / "SHA256SUMS").read_text().splitlines()
    )
    assert sums == {p.name: _sha256(p) for p in folder.iterdir() if p.name != "SHA256SUMS"}


def test_evidence_of_a_rerun_replaces_the_old_folder(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        """
        import os

        def test_a(steplog):
            for n in range(int(os.environ["STEPS"])):
                with steplog.step("act", f"step {n}"):
                    pass
        """
    )
    for steps in ("3", "1"):
        monkeypatch.setenv("STEPS", steps)
        suite.runpytest("--ai-evidence=ev", "--ai-screenshots=every-step").assert_outcomes(passed=1)
    (folder,) = (suite.path / "ev").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["001-act.png", "SHA256SUMS", "actions.json"]


def test_screenshots_follow_the_option(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        def test_fails(steplog):
            with steplog.step("act", "click"):
                pass
            assert False
        """
    )
    for mode, expected in (
        ("on-failure", ["002-failure.png", "SHA256SUMS", "actions.json"]),
        ("off", ["SHA256SUMS", "actions.json"]),
    ):
        suite.runpytest("--ai-evidence=ev", f"--ai-screenshots={mode}").assert_outcomes(failed=1)
        (folder,) = (suite.path / "ev").iterdir()
        assert sorted(p.name for p in folder.iterdir()) == expected, mode


def _allure_results(path: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in path.glob("*-result.json")]


def test_allure_results_hold_steps_parameters_and_attachments(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        from conftest import Exchange, Heal, call

        def test_agent(steplog):
            with steplog.step("agent", "buy the cheapest item") as agent:
                with steplog.step("act", "open the menu") as step:
                    step.cache, step.element, step.method = "healed", 'link "Menu"', "click"
                    step.heal = Heal("fingerprint", "#menu", "[data-test=menu]", 0.9)
                    step.calls = [call(i=700, o=7, cost=0.0002)]
                    step.exchanges = [Exchange("act", "PROMPT TEXT", "ANSWER TEXT")]
                agent.result = "bought"
            assert False, "boom"
        """
    )
    result = suite.runpytest("--alluredir=allure", "--ai-screenshots=every-step")
    result.assert_outcomes(failed=1)
    (test,) = _allure_results(suite.path / "allure")
    (agent,) = test["steps"]
    assert agent["name"] == "agent: buy the cheapest item"
    assert agent["status"] == "passed"
    assert {"name": "result", "value": "bought"} in agent["parameters"]
    (act,) = agent["steps"]
    assert act["name"] == "act: open the menu"
    assert {p["name"]: p["value"] for p in act["parameters"]} == {
        "element": 'link "Menu"',
        "method": "click",
        "cache": "healed",
        "heal": "#menu → [data-test=menu] (fingerprint, 0.90)",
        "usage": "1 call, 700 in / 7 out tokens, $0.0002",
    }
    names = [a["name"] for a in act["attachments"]]
    assert names == ["act prompt", "act answer", "screenshot"]
    texts = {a["name"]: (suite.path / "allure" / a["source"]).read_bytes()
             for a in act["attachments"]}
    assert texts["act prompt"] == b"PROMPT TEXT" and texts["act answer"] == b"ANSWER TEXT"
    assert texts["screenshot"] == PNG
    failure = [a for a in test["attachments"] if a["name"] == "screenshot on failure"]
    assert len(failure) == 1 and failure[0]["type"] == "image/png"


def test_failed_step_is_a_failed_allure_step(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        def test_fails(steplog):
            with steplog.step("assert", "the badge shows 1"):
                raise AssertionError("the badge shows 2")
        """
    )
    suite.runpytest("--alluredir=allure").assert_outcomes(failed=1)
    (test,) = _allure_results(suite.path / "allure")
    (step,) = test["steps"]
    assert step["status"] == "failed"
    assert step["statusDetails"]["message"] == "AssertionError: the badge shows 2"


def test_a_secret_reaches_no_report(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        f"""
        import pytest
        from conftest import Exchange, Heal, call

        def test_secret(steplog):
            secret = {SECRET!r}
            steplog.add_secrets(secret)
            with steplog.step("act", f"type {{secret}} into the password") as step:
                step.cache, step.element, step.method = "healed", f"textbox {{secret}}", "fill"
                step.selector, step.arguments = f"#{{secret}}", [secret]
                step.heal = Heal("model", f"#old-{{secret}}", f"#new-{{secret}}")
                step.calls = [call()]
                step.exchanges = [Exchange(f"act {{secret}}", f"p {{secret}}", f"a {{secret}}")]
                step.result = step.url = secret
            with pytest.raises(ValueError), steplog.step("act", "fails"):
                raise ValueError(secret)
        """
    )
    result = suite.runpytest(
        "-v", "--junitxml=junit.xml", "--alluredir=allure", "--ai-evidence=ev",
        "--ai-screenshots=every-step",
    )
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert 'stagehand act "type *** into the password" → textbox *** fill [healed]' in out
    assert "#old-*** → #new-***" in out
    assert SECRET not in out
    written = [p for p in suite.path.rglob("*") if p.is_file() and p.suffix != ".py"]
    assert {p.name for p in written} >= {"junit.xml", "actions.json", "001-act.png"}
    assert any(p.name.endswith("-result.json") for p in written)
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.skipif(shutil.which("allure") is None, reason="the allure CLI is not on PATH "
                    "(npm install -g allure-commandline; it needs Java)")
def test_allure_html_report_renders_in_chromium() -> None:
    script = Path(__file__).parents[1] / "scripts" / "allure_check.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
