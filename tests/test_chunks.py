"""Bounded prompts: a large page goes to the model in parts, the most relevant first, each
prompt within the token budget; a small page goes whole. Through the scripted model."""

from __future__ import annotations

import re
from typing import Any

import pytest
from scripted_answers import (
    choose,
    choose_if_shown,
    latest_snapshot,
    observed,
    scripted_ai_page,
)

from pytest_stagehand.errors import ConfigError, ElementNotFound
from pytest_stagehand.prompts.chunks import count_tokens, page_parts, rank, split
from pytest_stagehand.settings import resolve
from pytest_stagehand.snapshot.outline import snapshot
from pytest_stagehand.testing.scripted_model import ScriptedRequest

BUDGET = 2_000


def big_table(rows: int = 150) -> str:
    """A table of `rows` rows, each with its own Delete button, and a Launch button at the
    end; a click says what it did in the status line."""
    body = "".join(
        f"<tr><td>Item {i}</td><td>item{i}@example.com</td>"
        f"<td><button onclick=\"done('Deleted item {i}')\">Delete</button></td></tr>"
        for i in range(rows)
    )
    return f"""<!doctype html><title>Items</title>
    <script>function done(what) {{ document.getElementById('status').textContent = what; }}
    </script><main><h1>Items</h1><p id="status" role="status">Nothing yet</p>
    <table><thead><tr><th>Name</th><th>Email</th><th>Action</th></tr></thead>
    <tbody>{body}</tbody></table></main>
    <footer><button onclick="done('Launched')">Launch</button></footer>"""


def shown(request: ScriptedRequest) -> str:
    """The page content of a prompt, without the fence."""
    text = latest_snapshot(request.text)
    if "<page_content>" not in text:  # the judge's prompt: the snapshot, then the claim
        return text.removeprefix("Snapshot:\n").partition("\n\nClaim: ")[0]
    return text[text.index("<page_content>\n") + 15 : text.index("\n</page_content>")]


def prompt_tokens(request: ScriptedRequest) -> int:
    return count_tokens("\n\n".join(m["content"] for m in request.messages))


@pytest.fixture
def ai(page, scripted_model, pages_server):
    with scripted_ai_page(
        page, scripted_model, base_url=pages_server.url(), prompt_budget=BUDGET
    ) as ai_page:
        yield ai_page


def test_small_page_is_sent_whole_and_unchanged(ai, scripted_model):
    ai.goto("login.html")
    whole = snapshot(ai.page).text
    scripted_model.enqueue(choose("button", "Login"))
    ai.act("click the login button")
    (request,) = scripted_model.requests
    assert shown(request) == whole
    assert "part 1 of" not in request.text


def test_large_page_prompt_stays_within_budget_with_the_target_first(ai, scripted_model):
    ai.page.set_content(big_table(200))
    assert count_tokens(snapshot(ai.page).text) > 2 * BUDGET  # the whole page would not fit
    scripted_model.enqueue(delete_in_row(120))
    ai.act("delete the row of item120@example.com")
    assert ai.locator("#status").inner_text() == "Deleted item 120"
    (request,) = scripted_model.requests  # the first part held the answer: one call
    assert prompt_tokens(request) <= BUDGET
    assert "part 1 of" in request.text


def delete_in_row(row: int):
    """A correct model's answer: the Delete button in the row of `Item {row}`, if shown."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        outline = shown(request)
        start = outline.find(f'cell "Item {row}"')
        if start < 0:
            return {"found": False, "element_id": None, "method": "click", "arguments": [],
                    "description": "", "two_step": False}  # fmt: skip
        button = re.search(r'\b(e\d+) button "Delete"', outline[start:])
        assert button is not None
        return {"found": True, "element_id": button.group(1), "method": "click",
                "arguments": [], "description": "Delete", "two_step": False}  # fmt: skip

    return answer


def test_not_found_in_the_first_part_sends_the_next_and_the_step_succeeds(ai, scripted_model):
    ai.page.set_content(big_table())
    for _ in range(20):
        scripted_model.enqueue(choose_if_shown("button", "Launch"))
    ai.act("press the ignition control")  # no word of it is on the page: page order
    assert ai.locator("#status").inner_text() == "Launched"
    requests = scripted_model.requests
    parts = len(requests)
    assert parts >= 2
    assert 'button "Launch"' not in shown(requests[0])
    assert 'button "Launch"' in shown(requests[-1])
    assert f"part {parts} of" in requests[-1].text
    assert all(prompt_tokens(request) <= BUDGET for request in requests)


def test_not_found_in_every_part_is_element_not_found_after_the_last(ai, scripted_model):
    ai.page.set_content(big_table())
    for _ in range(20):
        scripted_model.enqueue(choose_if_shown("button", "Self-destruct"))
    with pytest.raises(ElementNotFound):
        ai.act("press the self-destruct button", vision=False)  # the text parts alone
    requests = scripted_model.requests
    count = int(re.search(r"part 1 of (\d+)", requests[0].text).group(1))
    assert len(requests) == count >= 2
    # Every line of the page was shown in some part.
    seen = set().union(*(shown(r).splitlines() for r in requests))
    assert set(snapshot(ai.page).text.splitlines()) <= seen


def test_a_part_shows_the_snapshot_lines_with_their_ids_unchanged(ai, scripted_model):
    ai.page.set_content(big_table())
    whole = snapshot(ai.page)
    scripted_model.enqueue(delete_in_row(77))
    result = ai.act("delete Item 77")
    outline = shown(scripted_model.requests[0])
    lines = [line for line in outline.splitlines() if line.strip() != "…"]
    assert "part 1 of" in scripted_model.requests[0].text
    assert set(lines) < set(whole.text.splitlines())  # some of the same lines, ids, indent
    chosen = re.search(r'\b(e\d+) button "Delete"', outline[outline.index('"Item 77"') :])
    assert result.actions[0].selector == whole.element(chosen.group(1)).selector
    assert ai.locator("#status").inner_text() == "Deleted item 77"


def test_observe_on_a_large_page_stays_within_budget(ai, scripted_model):
    ai.page.set_content(big_table())
    scripted_model.enqueue(observed(("cell", "item42@example.com", "click", [])))
    (action,) = ai.observe("the email of Item 42")
    assert action.element == 'cell "item42@example.com"'
    (request,) = scripted_model.requests
    assert prompt_tokens(request) <= BUDGET


def judged_if_shown(name: str, expected: str):
    """A correct judge on part of a page: YES with a check on `button "name"` when the part
    shows it, else in_view false."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        outline = shown(request)
        found = re.search(rf'\b(e\d+) button "{re.escape(name)}"', outline)
        if found is None:
            return {"verdict": "NO", "reasoning": "Not in this part.", "check": None,
                    "in_view": False}  # fmt: skip
        check = {"kind": "element", "element_id": found.group(1), "property": "text",
                 "match": "equals", "expected": expected}  # fmt: skip
        return {"verdict": "YES", "reasoning": f'The page shows "{name}".', "check": check,
                "in_view": True}  # fmt: skip

    return answer


def test_assertion_on_a_large_page_is_judged_in_parts(ai, scripted_model):
    ai.page.set_content(big_table())
    for _ in range(20):
        scripted_model.enqueue(judged_if_shown("Launch", "Launch"))
    verdict = ai.check("the ignition control is labelled Launch")
    assert verdict.passed, verdict.reasoning
    requests = scripted_model.requests
    assert all(prompt_tokens(request) <= BUDGET for request in requests)
    assert "in_view" in str(requests[0].body)  # asked whether the part shows it


def test_assertion_that_no_part_shows_is_no(ai, scripted_model):
    ai.page.set_content(big_table())
    for _ in range(20):
        scripted_model.enqueue(judged_if_shown("Self-destruct", "Self-destruct"))
    verdict = ai.check("the self-destruct control is there")
    assert not verdict.passed
    assert "No part of the page shows" in verdict.reasoning


def answered_if_shown(request: ScriptedRequest) -> dict[str, Any]:
    """A correct judge of the questions below on part of a page: each is in view when the
    part shows the row or button it asks about."""
    outline = shown(request)
    questions = re.findall(r"^\d+\. (.*)$", request.text, re.MULTILINE)
    answers = []
    for question in questions:
        if "Item 140" in question:
            seen = 'cell "Item 140"' in outline
            answers.append({"verdict": "YES", "reasoning": "Row Item 140 is listed.",
                            "in_view": seen})  # fmt: skip
        elif "Launch" in question:
            seen = 'button "Launch"' in outline
            answers.append({"verdict": "YES", "reasoning": "A Launch button is shown.",
                            "in_view": seen})  # fmt: skip
        else:
            answers.append({"verdict": "YES", "reasoning": "Guessed.", "in_view": False})
    return {"answers": answers}


def test_questions_on_a_large_page_are_answered_in_parts(ai, scripted_model):
    """Each part is asked the questions no part before it showed; a question no part shows
    is NO, whatever the judge guessed without seeing it."""
    ai.page.set_content(big_table())
    scripted_model.default = answered_if_shown
    yes_140, yes_launch, unseen = ai.evaluator.ask_many(
        ["Is Item 140 listed?", "Is there a Launch button?", "Is there a Self-destruct button?"]
    )
    assert (yes_140.passed, yes_launch.passed) == (True, True)
    assert not unseen.passed and "No part of the page shows" in unseen.reasoning
    requests = scripted_model.requests
    assert len(requests) > 1 and all(prompt_tokens(r) <= BUDGET for r in requests)
    asked_last = re.findall(r"^\d+\. (.*)$", requests[-1].text, re.MULTILINE)
    assert asked_last == ["Is there a Self-destruct button?"]  # the answered are not asked again


# --- the chunker itself ----------------------------------------------------------------------


# A blank line before each row, as the snapshot writes a table's rows.
OUTLINE = "\n".join(
    ["banner", ' e1 link "Home" -> /']
    + ["main", ' e2 heading "Orders" level=1', " table", "", '  columnheader "Order"']
    + [f'\n  e{3 + 2 * i} cell "Order {i}"\n  e{4 + 2 * i} button "Cancel"' for i in range(200)]
    + ["contentinfo", ' e999 link "Privacy" -> /privacy']
)  # fmt: skip


def test_chunks_keep_every_line_once_under_their_sections():
    chunks = split(OUTLINE, 120)
    own = [line for chunk in chunks for line in chunk.lines]
    assert len(own) == len(set(own))  # no line is a chunk's own twice
    shown_lines = set(own).union(*(chunk.context for chunk in chunks))
    assert [line for _, line in sorted(shown_lines)] == OUTLINE.splitlines()
    assert all(chunk.tokens <= 120 for chunk in chunks)
    row_chunk = next(c for c in chunks if 'cell "Order 150"' in c.text())
    assert row_chunk.text().startswith('main\n table\n\n  columnheader "Order"\n\n')  # header row


def test_ranking_puts_the_chunk_named_by_the_instruction_first():
    chunks = split(OUTLINE, 120)
    assert 'cell "Order 150"' in rank(chunks, "cancel order 150")[0].text()
    assert "Privacy" in rank(chunks, "open the privacy policy")[0].text()
    assert 'cell "Order 199"' in rank(chunks, "cancel the last order")[0].text()


def test_a_page_that_fits_is_one_whole_part():
    (part,) = page_parts(OUTLINE, "cancel order 3", 100_000, count_tokens)
    assert part.whole and part.text == OUTLINE


def test_prompt_budget_is_an_option_with_a_floor():
    settings, _ = resolve({"prompt_budget": "3000"}, {}, {})
    assert settings.prompt_budget == 3000
    assert resolve({}, {}, {})[0].prompt_budget == 6000
    with pytest.raises(ConfigError, match="at least 1000"):
        resolve({"prompt_budget": "200"}, {}, {})
