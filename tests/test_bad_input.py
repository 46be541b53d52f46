"""Bad input from the test author, and pages that cannot take a step: each is one typed
error that says what happened and what to do, raised before anything wrong is done."""

from __future__ import annotations

import dataclasses
import json
from typing import TypedDict

import pytest
from pydantic import BaseModel
from scripted_answers import choose

from pytest_stagehand.errors import (
    ElementCovered,
    InvalidArgument,
    InvalidModelChoice,
    PageClosed,
)
from pytest_stagehand.pipelines.replay import RecordingResolver
from pytest_stagehand.recordings.store import Recordings, RecordingStore

FIRST_ORDER = {"number": "#1001", "customer": "Ada Lovelace"}


# --- extract's schema ---------------------------------------------------------------------


@dataclasses.dataclass
class OrderData:
    number: str
    customer: str
    note: str = "none"


class OrderDict(TypedDict):
    number: str
    customer: str


class Order(BaseModel):
    number: str
    customer: str


@pytest.mark.parametrize(
    "schema, expected",
    [
        (OrderData, OrderData("#1001", "Ada Lovelace")),
        (OrderData("x", "y"), OrderData("#1001", "Ada Lovelace")),  # an instance: its class
        (OrderDict, {"number": "#1001", "customer": "Ada Lovelace"}),
        (Order(number="x", customer="y"), Order(**FIRST_ORDER)),
    ],
    ids=["dataclass", "dataclass instance", "TypedDict", "model instance"],
)
def test_extract_converts_what_describes_fields_and_answers_in_that_type(
    ai, scripted_model, schema, expected
):
    ai.goto("table.html")
    scripted_model.enqueue(FIRST_ORDER)
    value = ai.extract("the first order", schema=schema)
    assert value == expected and type(value) is type(expected)
    sent = json.dumps(scripted_model.last_request.body)
    assert '"customer": {' in sent  # the fields were asked for, as the schema


@pytest.mark.parametrize("schema", [dict, {"number": str}, list[str], "Order", int])
def test_extract_refuses_a_schema_that_describes_no_fields_in_one_sentence(
    ai, scripted_model, schema
):
    ai.goto("table.html")
    with pytest.raises(InvalidArgument) as caught:
        ai.extract("the first order", schema=schema)
    message = str(caught.value)
    assert message.startswith("extract(schema=") and "pydantic model class" in message
    assert message.replace("e.g. ", "").count(". ") == 0  # one sentence
    assert scripted_model.calls == 0


# --- act's variables ----------------------------------------------------------------------


def test_a_placeholder_without_a_variable_is_refused_and_nothing_is_typed(ai, scripted_model):
    ai.goto("login.html")
    with pytest.raises(InvalidArgument, match=r"uses %password% but no value was given") as caught:
        ai.act("type %password% into the password field", variables={"user": "standard_user"})
    assert "variables={'password': ...}" in str(caught.value)
    assert scripted_model.calls == 0
    assert ai.locator("#password").input_value() == ""


def test_a_model_inventing_a_placeholder_is_refused_and_nothing_is_typed(ai, scripted_model):
    ai.goto("login.html")
    # A steered or confused model answers with a variable the step does not have, twice.
    invented = choose("textbox", "Password", "fill", ["%password%"])
    scripted_model.enqueue(invented, invented)
    with pytest.raises(InvalidModelChoice, match=r"%password% is not a variable of this step"):
        ai.act("type the password into the password field")
    assert scripted_model.calls == 2  # one retry with the feedback
    assert ai.locator("#password").input_value() == ""


# --- pages that cannot take the step ------------------------------------------------------


@pytest.mark.parametrize(
    "step",
    [
        lambda ai: ai.act("click the login button"),
        lambda ai: ai.extract("the heading"),
        lambda ai: ai.observe(),
        lambda ai: ai.goto("login.html"),
        lambda ai: ai.assert_that("the page has a login button"),
    ],
    ids=["act", "extract", "observe", "goto", "assert_that"],
)
def test_a_step_on_a_closed_page_is_one_typed_error(ai, scripted_model, step):
    ai.goto("login.html")
    ai.page.close()
    with pytest.raises(PageClosed, match=r"cannot run: the page is closed"):
        step(ai)
    assert scripted_model.calls == 0


def test_a_covered_button_fails_within_the_step_timeout_naming_what_covers_it(
    ai, scripted_model
):
    ai.goto("act/covered.html")
    scripted_model.default = choose("button", "Pay now")
    with pytest.raises(ElementCovered) as caught:
        ai.act("click pay now", timeout=1000)
    message = str(caught.value)
    assert '<div role="dialog" aria-label="Cookies" class="cookie-banner">' in message
    assert "intercepts pointer events" in message and "dismiss it first" in message
    # No self-heal: the element was right, a second attempt would only wait again.
    assert scripted_model.calls == 1
    assert ai.locator("#paid").inner_text() == ""


def test_a_recorded_click_on_a_covered_button_fails_without_asking_the_model(
    ai, scripted_model, tmp_path
):
    store = RecordingStore(tmp_path / "store")
    recordings = Recordings(store, tmp_path / "test_checkout.py", "auto")
    ai.resolver = RecordingResolver(
        ai.page, ai.resolver, recordings, ai.steplog, has_model=True
    )
    ai.goto("act/covered.html")
    ai.page.evaluate("document.querySelector('.cookie-banner').hidden = true")
    scripted_model.enqueue(choose("button", "Pay now"))
    ai.act("click pay now")  # recorded while nothing covers the button
    assert ai.locator("#paid").inner_text() == "Paid"

    # The next run (its own Recordings: within one test a second use is another step).
    ai.resolver = RecordingResolver(
        ai.page, ai.resolver.inner, Recordings(store, tmp_path / "test_checkout.py", "auto"),
        ai.steplog, has_model=True,
    )
    ai.goto("act/covered.html")  # the banner is back: the recorded button is right, covered
    with pytest.raises(ElementCovered, match=r'class="cookie-banner"'):
        ai.act("click pay now", timeout=1000)
    assert scripted_model.calls == 1  # replay did not fall back to the model
    store.close()
