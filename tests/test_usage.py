"""Usage records, the price table and the ledger's budgets (no model involved)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_stagehand.calls import CallUsage
from pytest_stagehand.errors import BudgetExceeded, ConfigError
from pytest_stagehand.model.usage import (
    PRICES,
    Price,
    PriceTable,
    SharedSpend,
    UsageLedger,
    UsageTotals,
)


def call(model="openai/gpt-4o-mini", cost=0.01, **kw) -> CallUsage:
    numbers = {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 0, "latency_s": 0.5}
    return CallUsage(model=model, purpose=kw.pop("purpose", "act"), cost_usd=cost, **numbers | kw)


# --- prices ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai/gpt-4o-mini", "openai/gpt-4o-mini"),
        ("openai/gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini"),  # OpenAI snapshot
        ("openai/gpt-4o-2024-08-06", "openai/gpt-4o"),
        ("anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5"),
        ("anthropic/claude-3-5-haiku-latest", "anthropic/claude-3-5-haiku"),
        ("openai/gpt-4.1-mini-search", "openai/gpt-4.1-mini"),  # longest known prefix
        ("OpenAI/GPT-4o", "openai/gpt-4o"),
    ],
)
def test_snapshots_and_variants_find_their_family_price(model, family):
    table = PriceTable()
    assert table.lookup(model) is table.lookup(family) is not None


@pytest.mark.parametrize("model", ["openai/llama3.2", "openai/gpt-4", "anthropic/claude", "x"])
def test_unknown_models_have_no_price(model):
    assert PriceTable().lookup(model) is None
    assert PriceTable().cost(model, 1000, 1000) is None


def test_registered_prices_extend_and_override_the_defaults():
    table = PriceTable()
    table.register("openai/my-gateway-model", input=1.0, output=2.0)
    table.register("openai/gpt-4o-mini", input=9.0, output=9.0, cached=1.0)
    assert table.cost("openai/my-gateway-model", 1_000_000, 500_000) == pytest.approx(2.0)
    assert table.lookup("openai/gpt-4o-mini-2024-07-18") == Price(9.0, 9.0, 1.0)
    assert PriceTable().lookup("openai/gpt-4o-mini") != Price(9.0, 9.0, 1.0)  # copies, not shared
    with pytest.raises(ConfigError, match="openai/my-model"):
        table.register("my-model", 1.0, 1.0)


def test_cached_tokens_are_billed_at_the_cached_rate():
    price = Price(input=2.0, output=8.0, cached=0.5)
    assert price.cost(1_000_000, 0, cached_tokens=400_000) == pytest.approx(1.2 + 0.2)
    assert Price(2.0, 8.0).cost(1_000_000, 1_000_000, 400_000) == pytest.approx(10.0)


def test_default_prices_are_sane():
    for model in ("openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5"):
        price = PRICES.lookup(model)
        assert price is not None
        assert 0 < price.input < price.output
        assert price.cached is None or price.cached < price.input


# --- usage records and totals ------------------------------------------------------------------


def test_two_calls_for_one_answer_add_up():
    both = call(cost=0.01, retries=1) + call(cost=0.02, cached_tokens=50)
    assert (both.input_tokens, both.output_tokens, both.cached_tokens) == (200, 20, 50)
    assert both.cost_usd == pytest.approx(0.03)
    assert both.latency_s == pytest.approx(1.0)
    assert both.retries == 1
    assert (call(cost=None) + call(cost=0.01)).cost_usd is None  # unknown stays unknown


def test_totals_break_down_by_model_and_provider():
    totals = UsageTotals()
    totals.add(call("openai/gpt-4o-mini", 0.01))
    totals.add(call("openai/gpt-4o", 0.02))
    totals.add(call("anthropic/claude-haiku-4-5", 0.04, memo_hit=True))
    totals.add(call("openai/local", None))

    assert totals.calls == 4 and totals.input_tokens == 400
    assert totals.cost_usd == pytest.approx(0.07)
    assert (totals.unpriced_calls, totals.memo_hits) == (1, 1)
    assert set(totals.by_model) == {
        "openai/gpt-4o-mini",
        "openai/gpt-4o",
        "anthropic/claude-haiku-4-5",
        "openai/local",
    }
    by_provider = totals.by_provider
    assert by_provider["openai"].calls == 3
    assert by_provider["openai"].cost_usd == pytest.approx(0.03)
    assert by_provider["anthropic"].cost_usd == pytest.approx(0.04)


def test_totals_travel_as_plain_data_and_merge():
    worker = UsageTotals()
    worker.add(call("openai/gpt-4o-mini", 0.01))
    worker.add(call("anthropic/claude-haiku-4-5", 0.02))
    data = worker.to_dict()
    assert UsageTotals.from_dict(data) == worker

    controller = UsageTotals()
    controller.add(call("openai/gpt-4o-mini", 0.05))
    controller.merge(UsageTotals.from_dict(data))
    assert controller.calls == 3
    assert controller.cost_usd == pytest.approx(0.08)
    assert controller.by_model["openai/gpt-4o-mini"].calls == 2


# --- the ledger ------------------------------------------------------------------------------


def test_ledger_sums_per_test_and_per_session():
    ledger = UsageLedger()
    ledger.record(call(cost=0.5))  # e.g. from a session fixture: session only
    ledger.begin_test("t::a")
    ledger.record(call(cost=0.01))
    ledger.record(call(cost=0.02))
    assert ledger.current_test.calls == 2
    a = ledger.end_test()
    ledger.begin_test("t::b")
    b = ledger.end_test()

    assert a.cost_usd == pytest.approx(0.03) and b.calls == 0
    assert ledger.session.calls == 3
    assert ledger.session.cost_usd == pytest.approx(0.53)
    assert list(ledger.tests) == ["t::a"]  # tests without calls are not listed
    assert ledger.current_test.calls == 0


def test_session_budget():
    ledger = UsageLedger(max_cost=0.05)
    ledger.check_budget()
    ledger.record(call(cost=0.04))
    ledger.check_budget()
    ledger.record(call(cost=0.02))  # crosses: kept, it is paid for
    with pytest.raises(BudgetExceeded, match=r"\$0\.0600 of --ai-max-cost \$0\.0500"):
        ledger.check_budget()


def test_test_budget_applies_to_its_test_only():
    ledger = UsageLedger()
    ledger.begin_test("tests/test_shop.py::test_cart", max_cost=0.01)
    ledger.record(call(cost=0.01))
    with pytest.raises(BudgetExceeded, match="test_cart"):
        ledger.check_budget()
    ledger.end_test()
    ledger.begin_test("tests/test_shop.py::test_next")
    ledger.check_budget()


def test_zero_budget_allows_no_call():
    with pytest.raises(BudgetExceeded):
        UsageLedger(max_cost=0).check_budget()


def test_unpriced_calls_do_not_use_the_budget():
    ledger = UsageLedger(max_cost=0.01)
    ledger.record(call("openai/local", None))
    ledger.check_budget()
    assert ledger.session.unpriced_calls == 1


@pytest.mark.parametrize("where", ["session", "test"])
def test_negative_budget_is_a_config_error(where):
    with pytest.raises(ConfigError, match="-1"):
        if where == "session":
            UsageLedger(max_cost=-1)
        else:
            UsageLedger().begin_test("t", max_cost=-1)


# --- every answered call counts, in every report -----------------------------------------------

def priced_conftest(input_price: float, output_price: float) -> str:
    """An inner suite's conftest giving the scripted model a price (USD per 1M tokens)."""
    return (
        "from pytest_stagehand.model.usage import PRICES\n\n"
        f'PRICES.register("openai/scripted", {input_price}, {output_price})\n'
    )


FAILING_STEPS = """
from pydantic import BaseModel


class Cart(BaseModel):
    items: int


def test_extract(ai_page):
    ai_page.set_content("<p>Items: 2</p>")
    ai_page.extract("the number of items", schema=Cart)


def test_claim(ai_page):
    ai_page.set_content("<p>Items: 2</p>")
    ai_page.assert_that("the cart holds 2 items")


def test_observe(ai_page):
    ai_page.set_content("<button>Buy</button>")
    ai_page.observe("the buy button")
"""


def test_calls_answered_before_a_failure_count_in_every_report(pytester, scripted_model):
    """Each step gets answers that are not what it asked for, then (observe) an outage:
    every step fails, yet all five answered calls show in the summary, JUnit and Allure."""
    from pytest_stagehand.testing.scripted_model import Fault, Reply

    unusable = Reply("I think there are two items.", input_tokens=1000, output_tokens=100)
    scripted_model.enqueue(unusable, unusable, unusable, unusable, unusable)
    scripted_model.default = Fault(503)  # observe's repair call never gets an answer
    pytester.makeconftest(priced_conftest(1.0, 2.0))  # $0.0012 a call of 1000 in / 100 out
    pytester.makepyfile(test_inner=FAILING_STEPS)

    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "--ai-model=openai/scripted",
        f"--ai-base-url={scripted_model.openai_base_url}",
        "--ai-retries=0",
        "--junitxml=junit.xml",
        "--alluredir=allure",
    )

    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "model calls: 5 calls, 5,000 in / 500 out tokens, $0.0060",
            "cache: 3 failed",
        ]
    )
    junit = {
        case.get("name").split("[")[0]: {
            p.get("name"): p.get("value") for p in case.iter("property")
        }
        for case in ET.parse(pytester.path / "junit.xml").iter("testcase")
    }
    assert {name: props["stagehand_model_calls"] for name, props in junit.items()} == {
        "test_extract": "2",
        "test_claim": "2",
        "test_observe": "1",
    }
    assert junit["test_extract"]["stagehand_input_tokens"] == "2000"
    assert junit["test_extract"]["stagehand_output_tokens"] == "200"
    assert junit["test_observe"]["stagehand_cost_usd"] == "0.0012"
    allure = {
        result["name"].split("[")[0]: {
            p["name"]: p["value"] for p in result["steps"][0]["parameters"]
        }
        for result in map(
            json.loads, map(Path.read_text, (pytester.path / "allure").glob("*-result.json"))
        )
    }
    assert allure["test_extract"]["usage"] == "2 calls, 2,000 in / 200 out tokens, $0.0024"
    assert allure["test_observe"]["usage"] == "1 call, 1,000 in / 100 out tokens, $0.0012"


def test_shared_spend_adds_up_across_ledgers(tmp_path):
    """Two ledgers of one run (two xdist workers) share one budget; another run does not."""
    first = UsageLedger(max_cost=0.05, shared=SharedSpend(tmp_path, "run-1"))
    second = UsageLedger(max_cost=0.05, shared=SharedSpend(tmp_path, "run-1"))
    other_run = UsageLedger(max_cost=0.05, shared=SharedSpend(tmp_path, "run-2"))
    first.record(call(cost=0.03))
    second.check_budget()
    second.record(call(cost=0.03))
    with pytest.raises(BudgetExceeded, match=r"this run spent \$0\.0600 of --ai-max-cost"):
        first.check_budget()
    other_run.check_budget()
    assert first.session.cost_usd == pytest.approx(0.03)  # its own calls, for its reports


SPENDING_TEST = """
import os

import pytest
from pydantic import BaseModel

from pytest_stagehand.errors import BudgetExceeded
from pytest_stagehand.model.messages import Message


class Answer(BaseModel):
    ok: bool


def test_spend(ai_model_client):
    worker = os.environ["PYTEST_XDIST_WORKER"]
    with pytest.raises(BudgetExceeded, match="this run spent"):
        for _ in range(20):
            ai_model_client.complete([Message("user", worker)], Answer)
"""


def test_the_budget_caps_the_whole_run_across_xdist_workers(pytester, scripted_model):
    """--ai-max-cost 2.50 with -n 2, both workers spending $0.50 a call: the run stops
    at the cap (one call in flight per worker may cross it), not at 2.50 per worker."""
    from pytest_stagehand.testing.scripted_model import Reply

    scripted_model.default = Reply({"ok": True}, input_tokens=500_000, output_tokens=0)
    pytester.makeconftest(priced_conftest(1.0, 0.0))  # $0.50 a call of 500,000 in
    pytester.makepyfile(test_inner=SPENDING_TEST)

    result = pytester.runpytest_subprocess(
        "-n",
        "2",
        "--dist",
        "each",
        "-p",
        "no:cacheprovider",
        "--ai-max-cost",
        "2.50",
        "--ai-model=openai/scripted",
        f"--ai-base-url={scripted_model.openai_base_url}",
    )

    result.assert_outcomes(passed=2)  # each worker ran the test and was stopped by the budget
    spent = 0.50 * scripted_model.calls
    assert 2.50 <= spent <= 2.50 + 0.50  # without sharing: $2.50 per worker, $5.00
