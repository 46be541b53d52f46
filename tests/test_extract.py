"""extract: validated schema instances, exact link URLs, page text, and split pages."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel, HttpUrl
from scripted_answers import element_id, latest_snapshot, scripted_ai_page

from pytest_stagehand.errors import InvalidModelChoice, ModelOutputError, ModelRequired
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.extract import extract, merge, model_schema, split
from pytest_stagehand.prompts.texts import ExtractedText
from pytest_stagehand.snapshot.outline import TAKE, snapshot


class Order(BaseModel):
    number: str
    status: str
    details: HttpUrl


class Orders(BaseModel):
    orders: list[Order]


class Product(BaseModel):
    name: str
    url: HttpUrl


class Catalogue(BaseModel):
    products: list[Product]
    contact: HttpUrl | None = None


@pytest.fixture
def ai(page, scripted_model, pages_server):
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        yield ai_page


def orders_answer(request):
    """What a correct model answers for table.html: each row's number, status and link id."""
    outline = latest_snapshot(request.text)
    orders = []
    for number in re.findall(r'cell "#(\d+)"', outline):
        row = outline[outline.index(f'cell "#{number}"') :]
        status = re.search(r'cell "([A-Za-z]+)"', row).group(1)  # the one-word cell
        orders.append(
            {
                "number": number,
                "status": status,
                "details": element_id(request.text, "link", "View", after=f'cell "#{number}"'),
            }
        )
    return {"orders": orders}


def catalogue_answer(request):
    """A correct model's answer for the part of long-list.html in this prompt."""
    outline = latest_snapshot(request.text)
    products = [
        {"name": name, "url": found}
        for found, name in re.findall(r'\b(e\d+) link "(Product \d+)"', outline)
    ]
    contact = re.search(r'\b(e\d+) link "Contact us"', outline)
    return {"products": products, "contact": contact.group(1) if contact else None}


def test_schema_with_links_gives_exact_urls(ai, scripted_model, pages_server):
    ai.goto("table.html")
    scripted_model.enqueue(orders_answer)
    result = ai.extract("the orders with their status and details link", schema=Orders)
    assert [(o.number, o.status) for o in result.orders] == [
        ("1001", "Shipped"),
        ("1002", "Pending"),
        ("1003", "Cancelled"),
    ]
    assert [str(o.details) for o in result.orders] == [
        pages_server.url(f"orders/{n}") for n in (1001, 1002, 1003)
    ]
    schema = scripted_model.last_request.body["response_format"]["json_schema"]["schema"]
    details = schema["$defs"]["Order"]["properties"]["details"]
    assert details["type"] == "string" and "element id" in details["description"]
    assert "description" not in schema["properties"]["orders"]


def test_an_answer_s_links_are_taken_from_the_page_in_one_call(ai, scripted_model, page):
    ai.goto("table.html")
    scripted_model.enqueue(orders_answer)
    taken: list[object] = []
    evaluate = page.main_frame.evaluate

    def counted(script, *args):
        if script == TAKE:
            taken.append(args)
        return evaluate(script, *args)

    page.main_frame.evaluate = counted
    try:
        result = ai.extract("the orders with their status and details link", schema=Orders)
    finally:
        del page.main_frame.evaluate

    assert len({str(order.details) for order in result.orders}) == 3
    assert len(taken) == 1  # not one call per link


def test_without_a_schema_the_answer_is_text(ai, scripted_model):
    ai.goto("table.html")
    scripted_model.enqueue({"text": "Grace Hopper"})
    assert ai.extract("who placed the cancelled order?") == "Grace Hopper"
    assert "Extract: who placed the cancelled order?" in scripted_model.last_request.text


def test_without_an_instruction_it_is_the_page_text_with_no_model_call(ai, scripted_model):
    ai.goto("table.html")
    text = ai.extract()
    assert 'cell "Ada Lovelace"' in text and 'link "View" -> /orders/1001' in text
    assert not re.search(r"^ *e\d+ ", text, re.MULTILINE)  # no element ids: text to read
    assert scripted_model.calls == 0
    assert ai.steplog.events[-1].instruction == "the page text"  # as reports show the step


def test_scope_limits_what_the_model_reads(ai, scripted_model):
    ai.goto("table.html")
    scripted_model.enqueue({"text": "3"})
    ai.extract("how many orders are there?", scope="#orders")
    prompt = scripted_model.last_request.text
    assert "Ada Lovelace" in prompt and "Pagination" not in prompt


def test_a_large_page_is_split_with_one_call_per_part(ai, scripted_model, pages_server):
    ai.goto("act/long-list.html")
    budget = 600
    parts = split(snapshot(ai.page).text, budget)
    assert len(parts) > 2
    scripted_model.default = catalogue_answer
    result = extract(
        ai.watch, ai.client, ai.steplog, "all products", Catalogue, chunk_tokens=budget
    )
    assert scripted_model.calls == len(parts)
    assert [p.name for p in result.products] == [f"Product {n}" for n in range(1, 151)]
    assert str(result.products[6].url) == pages_server.url("products/7?ref=list")
    assert str(result.contact) == pages_server.url("contact")  # only in the last part
    assert f"part {len(parts)} of {len(parts)}" in scripted_model.last_request.text


def test_parts_that_all_miss_a_required_field_are_a_model_output_error(ai, scripted_model):
    ai.goto("table.html")
    scripted_model.default = {"orders": None}  # each part: "no orders here"
    with pytest.raises(ModelOutputError, match="is not a valid Orders"):
        extract(ai.watch, ai.client, ai.steplog, "the orders", Orders, chunk_tokens=100)
    assert scripted_model.calls > 1


def test_a_link_id_that_is_not_a_link_gets_one_retry_then_invalid_model_choice(
    ai, scripted_model
):
    ai.goto("table.html")
    answer = {"orders": [{"number": "1001", "status": "Shipped", "details": "e1"}]}
    scripted_model.enqueue(answer, answer)
    with pytest.raises(InvalidModelChoice, match="'e1' is not the id of a link"):
        ai.extract("the first order", schema=Orders)
    assert "'e1' is not the id of a link" in scripted_model.last_request.text


def test_no_model_is_model_required(page, pages_server):
    ai = AIPage(page, None)
    ai.goto(pages_server.url("table.html"))
    with pytest.raises(ModelRequired):
        ai.extract("the orders", schema=Orders)


# --- the pieces, without a browser ---------------------------------------------------------


def test_url_fields_become_element_ids_everywhere_and_partial_allows_null():
    class Page(BaseModel):
        home: HttpUrl
        links: list[HttpUrl]
        product: Product | None
        title: str

    asked = model_schema(Page)
    data = {"home": "e1", "links": ["e2"], "product": {"name": "x", "url": "e3"}, "title": "t"}
    assert asked.model_validate(data).model_dump() == data
    assert model_schema(Page, partial=True).model_validate({}).model_dump() == {
        "home": None, "links": None, "product": None, "title": None
    }
    assert model_schema(Orders) is not Orders and model_schema(Orders).__name__ == "Orders"
    assert model_schema(ExtractedText) is ExtractedText  # nothing to change: sent as it is


def test_split_keeps_whole_lines_within_the_budget():
    text = "\n".join(f"line {n:03}" for n in range(100))  # 9 characters, 3 tokens a line
    parts = split(text, 30)
    assert "\n".join(parts) == text
    assert all(len(part.splitlines()) == 10 for part in parts)
    assert split("", 30) == [""]


def test_merge_concatenates_lists_and_keeps_the_first_value():
    first = {"items": [1], "title": None, "total": "9", "nested": {"a": [1], "b": None}}
    second = {"items": [2], "title": "T", "total": "8", "nested": {"a": [2], "b": 3}}
    assert merge(merge(None, first), second) == {
        "items": [1, 2], "title": "T", "total": "9", "nested": {"a": [1, 2], "b": 3}
    }
