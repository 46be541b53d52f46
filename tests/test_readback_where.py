"""Recorded extracts are read again where real pages put their values: a table cell under
its column header (no class or id anywhere), text in a frame of a frameset in a frame,
lists slotted into web components' shadow roots, a <dd> after its <dt>, a checkbox's
state, a text the model joined from parts. Each is recorded with a scripted model that
reads its prompt as a correct model would, replayed offline on the same page, and fails
offline where the page's value really changed. A value the page does not show as answered
is said when it is recorded (NeedsModelWarning), not first in CI."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from pydantic import BaseModel
from scripted_answers import latest_snapshot, scripted_ai_page

from pytest_stagehand.errors import HealFailed, NeedsModelWarning
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines.replay import StepRecorder
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.testing.scripted_model import ScriptedRequest


@pytest.fixture
def ai(page, scripted_model, pages_server, store, tmp_path) -> Iterator[AIPage]:
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        use(ai_page, store, tmp_path, "auto")
        yield ai_page


def use(ai: AIPage, store, tmp_path, mode: str) -> None:
    """The next run: with the scripted model ("auto"), or with none ("offline")."""
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, tmp_path / "test_where.py", mode), ai.steplog,
        has_model=mode != "offline", model="openai/scripted",
    )  # fmt: skip


def replayed(ai, store, tmp_path, instruction: str, schema: type[BaseModel]) -> BaseModel:
    """The extract replayed offline: read again from the page, no model asked."""
    use(ai, store, tmp_path, "offline")
    value = ai.extract(instruction, schema=schema)
    assert ai.steplog.events[-1].cache == "hit"
    return value


def answering(read: Callable[[str], dict[str, Any]]) -> Callable[[ScriptedRequest], Any]:
    """An extract answer read from the snapshot of the prompt, as a model reads it."""
    return lambda request: read(latest_snapshot(request.text))


# --- a plain table --------------------------------------------------------------------------


class Person(BaseModel):
    name: str
    office: str


class Staff(BaseModel):
    people: list[Person]


def staff_answer(outline: str) -> dict[str, Any]:
    """Each row's name and office, found under the column headers the snapshot shows."""
    headers = re.findall(r'columnheader "([^"]+)"', outline)
    rows = [re.findall(r'cell "([^"]+)"', row) for row in outline.split("\n\n")[1:]]
    rows = [cells for cells in rows if cells]
    name, office = headers.index("Name"), headers.index("Office")
    return {"people": [{"name": r[name], "office": r[office]} for r in rows]}


STAFF = [("Ada", "London"), ("Grace", "Arlington"), ("Alan", "Manchester")]


def test_a_plain_table_is_read_again_by_its_column_header(ai, scripted_model, store, tmp_path):
    ai.goto("readback/staff.html")
    scripted_model.enqueue(answering(staff_answer))
    recorded = ai.extract("each person's name and office", schema=Staff)
    assert [(p.name, p.office) for p in recorded.people] == STAFF
    assert replayed(ai, store, tmp_path, "each person's name and office", Staff) == recorded
    # A redesign that moves the Office column first still reads the offices by their header.
    ai.page.evaluate(
        """for (const row of document.querySelectorAll('tr'))
             row.prepend(row.children[2]);"""
    )
    assert replayed(ai, store, tmp_path, "each person's name and office", Staff) == recorded
    assert scripted_model.calls == 1


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("document.querySelectorAll('tbody td')[5].textContent = 'Boston'",
         r"people\[1\]\.office: recorded 'Arlington', the page now shows 'Boston'"),
        ("document.querySelectorAll('th')[2].textContent = 'Building'",
         "its rows are no longer found"),  # the column the offices were read from is gone
        ("const body = document.querySelector('tbody');"
         "body.append(body.rows[0].cloneNode(true))",
         "people: 3 recorded, the page now shows 4"),
    ],
)  # fmt: skip
def test_a_plain_table_whose_values_changed_fails_offline(
    ai, scripted_model, store, tmp_path, change, why
):
    ai.goto("readback/staff.html")
    scripted_model.enqueue(answering(staff_answer))
    ai.extract("each person's name and office", schema=Staff)
    use(ai, store, tmp_path, "offline")
    ai.page.evaluate(change)
    with pytest.raises(HealFailed, match=why):
        ai.extract("each person's name and office", schema=Staff)


# --- frames at any depth --------------------------------------------------------------------


class Order(BaseModel):
    status: str
    items: list[str]


def order_answer(outline: str) -> dict[str, Any]:
    order = outline[outline.index('heading "Order 1042"') :]
    return {
        "status": re.search(r"paragraph: Status: (\w+)", order)[1],
        "items": re.findall(r"listitem: (.+)", order),
    }


def content_frame(ai):
    return ai.page.frame_locator("iframe").frame_locator("frame[name=content]")


def test_values_in_a_frameset_inside_a_frame_are_read_again_there(
    ai, scripted_model, store, tmp_path
):
    ai.goto("readback/frames.html")
    content_frame(ai).locator("li").last.wait_for()
    scripted_model.enqueue(answering(order_answer))
    recorded = ai.extract("the order's status and items", schema=Order)
    assert recorded == Order(status="Shipped", items=["Lamp", "Desk"])
    assert replayed(ai, store, tmp_path, "the order's status and items", Order) == recorded

    content_frame(ai).locator("b").evaluate("el => el.textContent = 'Returned'")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="status: recorded 'Shipped', the page now shows 'Ret"):
        ai.extract("the order's status and items", schema=Order)
    content_frame(ai).locator("b").evaluate("el => el.textContent = 'Shipped'")
    content_frame(ai).locator("li").last.evaluate("el => el.textContent = 'Chair'")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"items\[1\]: recorded 'Desk', the page now shows 'Ch"):
        ai.extract("the order's status and items", schema=Order)
    assert scripted_model.calls == 1


# --- web components: lists slotted into shadow roots ----------------------------------------


class Hours(BaseModel):
    hours: list[str]


class Departments(BaseModel):
    departments: list[str]


class Option(BaseModel):
    name: str
    time: str


class Delivery(BaseModel):
    options: list[Option]


def hours_answer(outline: str) -> dict[str, Any]:
    region = outline[outline.index('region "Opening hours"') : outline.index("menu")]
    return {"hours": re.findall(r"listitem: (.+)", region)}


def departments_answer(outline: str) -> dict[str, Any]:
    return {"departments": re.findall(r'menuitem "([^"]+)"', outline)}


def delivery_answer(outline: str) -> dict[str, Any]:
    pairs = re.findall(r"term: (.+)\n\s*e\d+ definition: (.+)", outline)
    return {"options": [{"name": term, "time": time} for term, time in pairs]}


SHOELACE = [
    ("the opening hours", Hours, hours_answer,
     "document.querySelector('sl-details li').textContent = 'Monday: closed'",
     r"hours\[0\]: recorded 'Monday: 9:00 to 17:00', the page now shows 'Monday: closed'"),
    ("the departments in the menu", Departments, departments_answer,
     "document.querySelector('sl-menu-item[value=kitchen]').remove()",
     "departments: 3 recorded, the page now shows 2"),
    ("the delivery options and their times", Delivery, delivery_answer,
     "document.querySelectorAll('sl-card dd')[1].textContent = 'Two days'",
     r"options\[1\]\.time: recorded 'Next day', the page now shows 'Two days'"),
]  # fmt: skip


@pytest.mark.parametrize(("instruction", "schema", "answer", "change", "why"), SHOELACE)
def test_lists_slotted_into_shoelace_components_are_read_again(
    ai, scripted_model, store, tmp_path, real, instruction, schema, answer, change, why
):
    ai.page.goto(real.url("pages/shoelace-lists.html"))
    ai.page.wait_for_function(
        "['sl-details', 'sl-menu', 'sl-card'].every((tag) => document.querySelector(tag)"
        ".shadowRoot && document.querySelector(tag).shadowRoot.childElementCount)"
    )
    scripted_model.enqueue(answering(answer))
    recorded = ai.extract(instruction, schema=schema)
    assert recorded == schema(**answer(latest_snapshot(scripted_model.requests[-1].text)))
    assert replayed(ai, store, tmp_path, instruction, schema) == recorded
    ai.page.evaluate(change)
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=why):
        ai.extract(instruction, schema=schema)
    assert scripted_model.calls == 1


SHADOW_LIST = """<h1>Team</h1><team-list></team-list><script>
customElements.define("team-list", class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = "<h2><slot name=title>Members</slot></h2><ul>" +
      ["Ada Lovelace", "Grace Hopper", "Alan Turing"].map((n) => `<li>${n}</li>`).join("") +
      "</ul>";
  }
});</script>"""


class Team(BaseModel):
    members: list[str]


def test_a_list_a_component_renders_in_its_shadow_root_is_read_again(
    ai, scripted_model, store, tmp_path
):
    ai.page.set_content(SHADOW_LIST)
    scripted_model.enqueue(answering(lambda o: {"members": re.findall(r"listitem: (.+)", o)}))
    recorded = ai.extract("the team members", schema=Team)
    assert recorded.members == ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
    assert replayed(ai, store, tmp_path, "the team members", Team) == recorded
    ai.page.evaluate(
        "document.querySelector('team-list').shadowRoot.querySelector('li').textContent"
        " = 'Ada Byron'"
    )
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"members\[0\]: recorded 'Ada Lovelace', the page now"):
        ai.extract("the team members", schema=Team)


# --- tags with their own remove buttons: Choices.js ----------------------------------------


class Toppings(BaseModel):
    toppings: list[str]


def test_tags_read_apart_from_their_remove_buttons_are_read_again(
    ai, scripted_model, store, tmp_path, real
):
    """Choices.js draws each chosen option as a tag holding its text and a "Remove item"
    button, which innerText runs together ("CheeseRemove item"): each tag's text is read
    apart from its button, again offline, and a tag removed shows."""
    ai.page.goto(real.url("pages/choices-multiple.html"))
    expect(ai.page.get_by_role("button", name="Remove item: ham")).to_be_visible()
    scripted_model.enqueue(answering(lambda o: {"toppings": re.findall(r'text "(.+)"\n', o)[1:]}))
    recorded = ai.extract("the toppings chosen", schema=Toppings)
    assert recorded.toppings == ["Cheese", "Ham"]
    assert replayed(ai, store, tmp_path, "the toppings chosen", Toppings) == recorded
    ai.page.get_by_role("button", name="Remove item: ham").click()
    expect(ai.page.locator("#chosen")).to_have_text("Toppings: cheese")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="toppings: 2 recorded, the page now shows 1"):
        ai.extract("the toppings chosen", schema=Toppings)
    assert scripted_model.calls == 1


# --- a checkbox's state: TodoMVC's React build -----------------------------------------------


class Todo(BaseModel):
    title: str
    completed: bool


class Todos(BaseModel):
    todos: list[Todo]


def todos_answer(outline: str) -> dict[str, Any]:
    """Each todo's title and whether its checkbox is checked, as the snapshot shows them."""
    found = re.findall(r'checkbox( checked)?(?: hint="[^"]*")?: ✔\n\s*e\d+ text "([^"]+)"', outline)
    return {"todos": [{"title": title, "completed": bool(checked)} for checked, title in found]}


TODOS = "the todos with their completed state"


def test_todomvc_react_todos_with_their_completed_state_are_read_again(
    ai, scripted_model, store, tmp_path, real
):
    ai.page.goto(real.url("node_modules/todomvc/examples/react/index.html"))
    new_todo = ai.page.get_by_placeholder("What needs to be done?")
    for title in ("Buy milk", "Walk the dog", "Pay rent"):
        new_todo.fill(title)
        new_todo.press("Enter")
    ai.page.get_by_role("listitem").filter(has_text="Walk the dog").get_by_role("checkbox").check()
    scripted_model.enqueue(answering(todos_answer))
    recorded = ai.extract(TODOS, schema=Todos)
    assert [(t.title, t.completed) for t in recorded.todos] == [
        ("Buy milk", False), ("Walk the dog", True), ("Pay rent", False),
    ]  # fmt: skip
    assert replayed(ai, store, tmp_path, TODOS, Todos) == recorded

    # The first todo completed: its checkbox's state is read, not remembered.
    ai.page.get_by_role("listitem").filter(has_text="Buy milk").get_by_role("checkbox").check()
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"todos\[0\]\.completed: recorded False, the page now"):
        ai.extract(TODOS, schema=Todos)
    assert scripted_model.calls == 1


class Preferences(BaseModel):
    subscribed: bool


NEWSLETTER = """<h1>Account</h1><form>
<label><input type=checkbox name=remember checked> Remember me</label>
<label><input type=checkbox name=news {news}> Subscribe to the newsletter</label></form>"""


def test_a_yes_no_is_read_from_the_checkbox_labelled_for_it_and_no_other(
    ai, scripted_model, store, tmp_path
):
    ai.page.set_content(NEWSLETTER.format(news="checked"))
    scripted_model.enqueue({"subscribed": True})
    ai.extract("whether the account is subscribed to the newsletter", schema=Preferences)
    assert replayed(ai, store, tmp_path, "whether the account is subscribed to the newsletter",
                    Preferences) == Preferences(subscribed=True)  # fmt: skip
    # Unsubscribed: "Remember me" is still checked, and is not what the step read.
    ai.page.set_content(NEWSLETTER.format(news=""))
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="subscribed: recorded True, the page now shows False"):
        ai.extract("whether the account is subscribed to the newsletter", schema=Preferences)


class Stock(BaseModel):
    in_stock: bool


def test_a_yes_no_no_checkbox_is_labelled_for_is_the_models_and_said_so(
    ai, scripted_model, store, tmp_path
):
    ai.page.set_content(NEWSLETTER.format(news="") + "<p>Backpack: 3 left</p>")
    scripted_model.enqueue({"in_stock": True})  # "Remember me" is checked, and says nothing
    with pytest.warns(NeedsModelWarning, match="no checkbox labelled for 'in_stock' shows it"):
        ai.extract("whether the backpack is in stock", schema=Stock)


def test_a_list_whose_checkboxes_all_show_one_state_is_not_taken_for_its_yes_nos(
    ai, scripted_model, store, tmp_path, real
):
    """Every todo active, every checkbox unchecked: as true of any row of unchecked boxes
    (a "compare" column) as of these, so it is the model's to answer, and said so."""
    ai.page.goto(real.url("node_modules/todomvc/examples/react/index.html"))
    new_todo = ai.page.get_by_placeholder("What needs to be done?")
    for title in ("Buy milk", "Pay rent"):
        new_todo.fill(title)
        new_todo.press("Enter")
    scripted_model.enqueue(answering(todos_answer))
    with pytest.warns(NeedsModelWarning, match=r"todos\[\]\.completed \(its rows' checkboxes"):
        ai.extract(TODOS, schema=Todos)


# --- a text joined from parts, and values only a model can read --------------------------------


PRODUCTS = """<h1>Products</h1><ul>
<li><h3>Sauce Labs Backpack</h3><span>$29.99</span></li>
<li><h3>Sauce Labs Bike Light</h3><span>$9.99</span></li>
<li><h3>Sauce Labs Onesie</h3><span>$7.99</span></li></ul>"""


def test_a_text_the_model_joined_from_two_names_is_read_again_part_by_part(
    ai, scripted_model, store, tmp_path
):
    ai.page.set_content(PRODUCTS)

    def two_names(outline: str) -> dict[str, Any]:
        names = re.findall(r'heading "([^"]+)" level=3', outline)
        return {"text": ", ".join(names[:2])}

    scripted_model.enqueue(answering(two_names))
    instruction = "the names of the first two products"
    with warnings.catch_warnings():  # nothing to warn of: every part is read again
        warnings.simplefilter("error", NeedsModelWarning)
        assert ai.extract(instruction) == "Sauce Labs Backpack, Sauce Labs Bike Light"
    use(ai, store, tmp_path, "offline")
    assert ai.extract(instruction) == "Sauce Labs Backpack, Sauce Labs Bike Light"
    assert ai.steplog.events[-1].cache == "hit"

    ai.page.evaluate("document.querySelectorAll('h3')[1].textContent = 'Sauce Labs Headlamp'")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="now shows 'Sauce Labs Backpack, Sauce Labs Headlamp'"):
        ai.extract(instruction)


class Total(BaseModel):
    total: str


def test_a_value_the_model_made_is_said_when_it_is_recorded(ai, scripted_model, store, tmp_path):
    ai.page.set_content(PRODUCTS)
    scripted_model.enqueue({"total": "$47.97"})  # the model added up the three prices
    with pytest.warns(NeedsModelWarning, match=r"total \(the page does not show it as it was"):
        ai.extract("the total of all prices", schema=Total)
    assert "Replayed with no model it will fail" in ai.steplog.events[-1].unchecked
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="cannot be read again from the page: total"):
        ai.extract("the total of all prices", schema=Total)


# --- tables and ARIA grids: a column, rows of several fields ----------------------------------


def grid_rows(outline: str) -> list[dict[str, str]]:
    """The body rows of the grid or table in a snapshot, each cell under its column header,
    as a model reads them. A grid that shows a pinned column apart (its header row and rows
    in a part of their own, then the other columns' part) is joined part by part, row by row."""
    rows: list[tuple[bool, list[str]]] = []  # (a header row, its cells' names)
    depth = -1
    for line in outline.splitlines():
        if not line:  # a row with nothing of its own: its cells follow, at its place
            rows.append((True, []))
            depth = -1
            continue
        found = re.match(r'(\s*)(?:e\d+ )?(row|columnheader|gridcell|cell)\b(?: "([^"]*)")?', line)
        if not found:
            continue
        indent, role, name = len(found[1]), found[2], found[3] or ""
        if role == "row":
            rows.append((True, []))
            depth = indent + 1
            continue
        if rows and depth < 0:
            depth = indent
        if rows and indent == depth:
            rows[-1] = (rows[-1][0] and role == "columnheader", [*rows[-1][1], name])
    heads = [cells for header, cells in rows if header and cells]
    body = [cells for header, cells in rows if not header and cells]
    count = len(body) // len(heads)
    parts = [body[at * count : (at + 1) * count] for at in range(len(heads))]
    names = [name for head in heads for name in head]
    joined = [[cell for part in parts for cell in part[row]] for row in range(count)]
    return [dict(zip(names, cells, strict=True)) for cells in joined]


class Column(BaseModel):
    values: list[str]


def column_answer(header: str) -> Callable[[ScriptedRequest], Any]:
    return answering(lambda outline: {"values": [row[header] for row in grid_rows(outline)]})


AGES = ["36", "85", "41", "101", "55"]


def tabulator(ai, real, page: str = "pages/tabulator.html"):
    """The Tabulator team table, drawn (in the frame in a frame on frames.html)."""
    ai.page.goto(real.url(page))
    scope = ai.page
    if page.endswith("frames.html"):
        scope = ai.page.frame_locator("#outer").frame_locator("#team")
    scope.get_by_role("gridcell", name="Portland").wait_for()
    return scope


def test_a_column_of_a_tabulator_grid_is_read_again_under_its_header(
    ai, scripted_model, store, tmp_path, real
):
    tabulator(ai, real)
    scripted_model.enqueue(column_answer("Age"))
    recorded = ai.extract("the ages in the team table", schema=Column)
    assert recorded.values == AGES
    assert replayed(ai, store, tmp_path, "the ages in the team table", Column) == recorded
    # The Age column moved first: its cells are read under its header, not at its place.
    ai.page.evaluate("table.moveColumn('age', 'name', false)")
    assert ai.page.get_by_role("columnheader").first.inner_text() == "Age"
    assert replayed(ai, store, tmp_path, "the ages in the team table", Column) == recorded
    assert scripted_model.calls == 1


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("table.updateData([{id: 2, age: 86}])",
         r"values\[1\]: recorded '85', the page now shows '86'"),
        ("table.setSort('age', 'asc')", r"values\[1\]: recorded '85', the page now shows '41'"),
        # The headers of Age and City swapped: the cities are now what "Age" says.
        ("Promise.all([table.updateColumnDefinition('age', {title: 'City'}),"
         " table.updateColumnDefinition('city', {title: 'Age'})])",
         r"values\[0\]: recorded '36', the page now shows 'London'"),
    ],
)  # fmt: skip
def test_a_tabulator_column_whose_values_changed_fails_offline(
    ai, scripted_model, store, tmp_path, real, change, why
):
    tabulator(ai, real)
    scripted_model.enqueue(column_answer("Age"))
    ai.extract("the ages in the team table", schema=Column)
    ai.page.evaluate(change)
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=why):
        ai.extract("the ages in the team table", schema=Column)


def test_a_column_of_a_grid_in_a_frame_in_a_frame_is_read_again_there(
    ai, scripted_model, store, tmp_path, real
):
    team = tabulator(ai, real, "pages/frames.html")
    scripted_model.enqueue(column_answer("Age"))
    recorded = ai.extract("the ages in the team table", schema=Column)
    assert recorded.values == AGES
    assert replayed(ai, store, tmp_path, "the ages in the team table", Column) == recorded
    team.locator(":root").evaluate("() => table.updateData([{id: 2, age: 86}])")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"values\[1\]: recorded '85', the page now shows '86'"):
        ai.extract("the ages in the team table", schema=Column)


def test_a_selection_of_a_grids_rows_in_a_frame_in_a_frame_names_why_that_frame_cannot_read_it(
    ai, scripted_model, store, tmp_path, real
):
    """The ages of the oldest two only: a choice of rows. The warning says why the frame
    that shows them cannot read them again, not why the main frame does not show them."""
    tabulator(ai, real, "pages/frames.html")
    scripted_model.enqueue({"values": ["85", "101"]})
    with pytest.warns(NeedsModelWarning, match="values \\(a list: it is a selection of the rows"):
        assert ai.extract("the ages of the two oldest", schema=Column).values == ["85", "101"]


def test_a_column_of_a_plain_table_is_read_again_under_its_header(
    ai, scripted_model, store, tmp_path
):
    ai.goto("readback/staff.html")
    scripted_model.enqueue(column_answer("Office"))
    recorded = ai.extract("the offices", schema=Column)
    assert recorded.values == ["London", "Arlington", "Manchester"]
    assert replayed(ai, store, tmp_path, "the offices", Column) == recorded
    ai.page.evaluate(
        "for (const row of document.querySelectorAll('tr')) row.prepend(row.children[2])"
    )
    assert replayed(ai, store, tmp_path, "the offices", Column) == recorded
    ai.page.evaluate("document.querySelectorAll('tbody td')[3].textContent = 'Boston'")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"values\[1\]: recorded 'Arlington', the page now shows"):
        ai.extract("the offices", schema=Column)


class Member(BaseModel):
    name: str
    age: int


class Members(BaseModel):
    members: list[Member]


def members_answer(outline: str) -> dict[str, Any]:
    return {"members": [{"name": row["Name"], "age": int(row["Age"])}
                        for row in grid_rows(outline)]}  # fmt: skip


MEMBERS = "each team member's name and age"
TEAM = [("Ada Lovelace", 36), ("Grace Hopper", 85), ("Alan Turing", 41),
        ("Katherine Johnson", 101), ("Linus Torvalds", 55)]  # fmt: skip


def ag_grid(ai, real) -> None:
    ai.page.goto(real.url("pages/ag-grid.html"))
    ai.page.get_by_role("gridcell", name="Portland").wait_for()


def test_rows_of_an_ag_grid_split_by_its_pinned_column_are_read_again(
    ai, scripted_model, store, tmp_path, real
):
    """AG Grid draws the pinned Name column's rows in a container of their own, joined to
    the other columns' rows by aria-rowindex, and places columns by aria-colindex."""
    ag_grid(ai, real)
    scripted_model.enqueue(answering(members_answer))
    recorded = ai.extract(MEMBERS, schema=Members)
    assert [(m.name, m.age) for m in recorded.members] == TEAM
    assert replayed(ai, store, tmp_path, MEMBERS, Members) == recorded
    # The Age column moved before Role: the grid renumbers it, it stays last in the document.
    ai.page.evaluate("gridApi.moveColumns(['age'], 1)")
    assert ai.page.get_by_role("columnheader", name="Age").get_attribute("aria-colindex") == "3"
    assert replayed(ai, store, tmp_path, MEMBERS, Members) == recorded
    assert scripted_model.calls == 1


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("gridApi.getRowNode('1').setDataValue('age', 86)",
         r"members\[1\]\.age: recorded 85, the page now shows 86"),
        # Sorted, the grid moves its rows on screen and renumbers them, in the same DOM order.
        ("gridApi.applyColumnState({state: [{colId: 'age', sort: 'desc'}]})",
         r"members\[0\]\.name: recorded 'Ada Lovelace', the page now shows 'Katherine Johnson'"),
        ("gridApi.setGridOption('columnDefs', gridApi.getColumnDefs().map((d) =>"
         " ({...d, headerName: {Age: 'City', City: 'Age'}[d.headerName] || d.headerName})))",
         r"members\[0\]\.age: the page shows 'London'"),
    ],
)  # fmt: skip
def test_rows_of_an_ag_grid_whose_values_changed_fail_offline(
    ai, scripted_model, store, tmp_path, real, change, why
):
    ag_grid(ai, real)
    scripted_model.enqueue(answering(members_answer))
    ai.extract(MEMBERS, schema=Members)
    ai.page.evaluate(change)
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=why):
        ai.extract(MEMBERS, schema=Members)


# --- a custom select: its chosen value shown before its options -------------------------------


def options_answer(outline: str) -> dict[str, Any]:
    """The options of the open list (after the chosen value, shown in a list of its own)."""
    open_list = outline.split('listbox hint="choices list"')[1]
    return {"values": re.findall(r'option "([^"]+)"', open_list)}


COUNTRIES = ["Choose a country", "France", "Germany", "Italy", "Spain"]


def test_the_options_of_a_choices_select_are_read_again_from_its_open_list(
    ai, scripted_model, store, tmp_path, real
):
    ai.page.goto(real.url("pages/choices.html"))
    ai.page.locator(".choices").click()
    ai.page.get_by_role("option", name="Spain").wait_for()
    scripted_model.enqueue(answering(options_answer))
    recorded = ai.extract("the countries the country select offers", schema=Column)
    assert recorded.values == COUNTRIES
    assert replayed(ai, store, tmp_path, "the countries the country select offers",
                    Column) == recorded  # fmt: skip
    ai.page.get_by_role("option", name="Germany").evaluate("el => el.textContent = 'Austria'")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=r"values\[2\]: recorded 'Germany', the page now shows"):
        ai.extract("the countries the country select offers", schema=Column)


class Newsletter(BaseModel):
    newsletter: bool


def test_a_shoelace_checkbox_is_read_again_by_its_slotted_label(ai, scripted_model, store,
                                                               tmp_path, real):
    """Shoelace's <sl-checkbox> labels its input with a <label> in its shadow root whose
    text is a <slot>: the label's innerText is empty. The state is read again from the
    checkbox its slotted text names: unticked, the replay fails offline."""
    ai.page.goto(real.url("pages/shoelace-components.html"))
    ai.page.wait_for_function("document.querySelector('#newsletter').shadowRoot?.querySelector"
                              "('input') && document.querySelector('sl-dialog').shadowRoot")
    box = ai.page.locator("#newsletter")  # its input is covered by its drawn box
    box.click()
    expect(ai.page.locator("#chosen")).to_have_text("Newsletter: yes")
    scripted_model.enqueue(answering(
        lambda o: {"newsletter": bool(re.search(r'checkbox "Send me the newsletter" checked', o))}
    ))
    instruction = "whether the newsletter box is ticked"
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeedsModelWarning)  # said at once, not first offline
        assert ai.extract(instruction, schema=Newsletter) == Newsletter(newsletter=True)
    assert replayed(ai, store, tmp_path, instruction, Newsletter) == Newsletter(newsletter=True)
    box.click()
    expect(ai.page.locator("#chosen")).to_have_text("Newsletter: no")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="newsletter: recorded True, the page now shows False"):
        ai.extract(instruction, schema=Newsletter)
    assert scripted_model.calls == 1


# --- a value shown only as an element's name ---------------------------------------------------


class Day(BaseModel):
    day: str


def day_answer(outline: str) -> dict[str, Any]:
    """The day cell holding the event, as a model reads the month grid (the cell's name)."""
    cells = re.findall(r'gridcell "([^"]+)"|: (Design review)$', outline, re.MULTILINE)
    return {"day": next(cells[at - 1][0] for at, (_, event) in enumerate(cells) if event)}


def test_a_value_a_page_shows_only_as_a_name_is_read_again_from_it(
    ai, scripted_model, store, tmp_path, real
):
    """FullCalendar's day cell shows "10"; its link's aria-label, the cell's name in the
    snapshot, says "March 10, 2026", and the model answers that. It is read again there
    offline, and fails once the month shown is another."""
    ai.page.goto(real.url("pages/fullcalendar.html"))
    ai.page.get_by_role("gridcell", name="March 10, 2026").wait_for()
    scripted_model.enqueue(answering(day_answer))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeedsModelWarning)
        recorded = ai.extract("the day of the Design review", schema=Day)
    assert recorded.day == "March 10, 2026"
    assert replayed(ai, store, tmp_path, "the day of the Design review", Day) == recorded
    ai.page.get_by_role("button", name="Next month").click()
    expect(ai.page.get_by_role("heading", level=2)).to_have_text("April 2026")
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match="the day of the Design review"):
        ai.extract("the day of the Design review", schema=Day)
    assert scripted_model.calls == 1


# --- rows under a group row: a field read from the row that heads them ------------------------


def grouped_rows(outline: str) -> list[tuple[str, list[str]]]:
    """Each body row's texts with the group above it, as a model reads a snapshot: a row of
    one header cell heads the rows after it (a calendar list's day, a table's section), a
    row header beside cells heads its row and those after it (a cell spanning them)."""
    rows: list[list[tuple[str, str]]] = []
    for line in outline.splitlines():
        found = re.match(r'\s*(?:e\d+ )?(row|\w*header|gridcell|cell|generic)\b'
                         r'(?: "([^"]*)")?(?:[^:]*: (.*))?$', line)  # fmt: skip
        if not line or (found and found[1] == "row"):  # "": a row with nothing of its own
            rows.append([])
        elif found and rows:
            rows[-1].append((found[1], found[2] or found[3] or ""))
    group, found_rows = "", []
    for cells in rows:
        if len(cells) == 1 and cells[0][0].endswith("header"):
            group = cells[0][1]
        elif any(role != "columnheader" for role, _ in cells):
            group = next((text for role, text in cells if role == "rowheader"), group)
            found_rows.append((group, [text for role, text in cells if role != "rowheader"]))
    return found_rows


class Event(BaseModel):
    day: str
    title: str


class Events(BaseModel):
    events: list[Event]


def events_answer(outline: str) -> dict[str, Any]:
    """A list view's events, each with the day whose row heads it."""
    return {"events": [{"day": day, "title": texts[-1]} for day, texts in grouped_rows(outline)]}


EVENTS = "the events of the month with their days"
LISTED = [("March 3, 2026", "Team standup"), ("March 10, 2026", "Design review"),
          ("March 18, 2026", "Release 2.0"), ("March 25, 2026", "Offsite"),
          ("March 26, 2026", "Offsite")]  # fmt: skip


def calendar_list(ai, real) -> None:
    """FullCalendar's list view of March 2026: a header row per day, its events after it."""
    ai.page.goto(real.url("pages/fullcalendar.html"))
    ai.page.get_by_role("button", name="list").click()
    ai.page.get_by_role("columnheader", name="March 26, 2026").wait_for()


def test_a_calendar_lists_events_each_read_again_with_the_day_heading_it(
    ai, scripted_model, store, tmp_path, real
):
    """The day of an event is not in its row but in the day's row above it (a header cell
    spanning the columns); the titles repeat ("Offsite" on two days)."""
    calendar_list(ai, real)
    scripted_model.enqueue(answering(events_answer))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeedsModelWarning)  # every value reads again
        recorded = ai.extract(EVENTS, schema=Events)
    assert [(e.day, e.title) for e in recorded.events] == LISTED
    assert replayed(ai, store, tmp_path, EVENTS, Events) == recorded
    # Drawn again (the month view, then the list): new rows, new ids, the same events.
    ai.page.get_by_role("button", name="month", exact=True).click()
    ai.page.get_by_role("button", name="list").click()
    ai.page.get_by_role("columnheader", name="March 26, 2026").wait_for()
    assert replayed(ai, store, tmp_path, EVENTS, Events) == recorded
    assert scripted_model.calls == 1


DESIGN_REVIEW = "calendar.getEvents().find((e) => e.title === 'Design review')"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (f"{DESIGN_REVIEW}.moveDates({{days: 1}})",
         r"events\[1\]\.day: recorded 'March 10, 2026', the page now shows 'March 11, 2026'"),
        # Onto a day that lists another event: two rows under one day.
        (f"{DESIGN_REVIEW}.moveDates({{days: -7}})",
         r"events\[1\]\.day: recorded 'March 10, 2026', the page now shows 'March 3, 2026'"),
        ("calendar.next()", r"events: 5 recorded, the page now shows 1"),
    ],
    ids=["a day later", "onto another event's day", "the next month"],
)  # fmt: skip
def test_a_calendar_list_whose_events_or_days_changed_fails_offline(
    ai, scripted_model, store, tmp_path, real, change, why
):
    calendar_list(ai, real)
    scripted_model.enqueue(answering(events_answer))
    ai.extract(EVENTS, schema=Events)
    shown = ai.page.locator("tr").all_inner_texts()
    ai.page.evaluate(change)
    expect(ai.page.locator("tr")).not_to_have_text(shown)
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=why):
        ai.extract(EVENTS, schema=Events)


class TeamMember(BaseModel):
    team: str
    name: str


class Teams(BaseModel):
    people: list[TeamMember]


class Shift(BaseModel):
    day: str
    person: str
    hours: str


class Shifts(BaseModel):
    shifts: list[Shift]


class Office(BaseModel):
    city: str
    person: str
    floor: int


class Offices(BaseModel):
    offices: list[Office]


def teams_answer(outline: str) -> dict[str, Any]:
    table = outline.split('heading "Offices"')[0]
    return {"people": [{"team": team, "name": texts[0]} for team, texts in grouped_rows(table)]}


def offices_answer(outline: str) -> dict[str, Any]:
    table = outline.split('heading "Offices"')[1].split('heading "Shifts"')[0]
    return {"offices": [{"city": city, "person": texts[0], "floor": int(texts[1])}
                        for city, texts in grouped_rows(table)]}  # fmt: skip


def shifts_answer(outline: str) -> dict[str, Any]:
    grid = outline.split('heading "Shifts"')[1]
    return {"shifts": [{"day": day, "person": texts[0], "hours": texts[1]}
                       for day, texts in grouped_rows(grid)]}  # fmt: skip


GROUPED = [
    ("each person's team and name", Teams, teams_answer,
     [{"team": "Compilers", "name": "Grace"}, {"team": "Compilers", "name": "Frances"},
      {"team": "Engines", "name": "Ada"}, {"team": "Engines", "name": "Charles"}],
     # Frances moved into the Engines section, before Ada.
     "const [, engines] = document.querySelectorAll('tbody');"
     " engines.rows[0].after(document.querySelectorAll('tbody')[0].rows[2])",
     r"people\[1\]\.team: recorded 'Compilers', the page now shows 'Engines'"),
    ("each person's office and floor", Offices, offices_answer,
     [{"city": "London", "person": "Ada", "floor": 2},
      {"city": "London", "person": "Charles", "floor": 3},
      {"city": "Boston", "person": "Frances", "floor": 1}],
     # Charles's row split off London's group into one of Boston.
     "const [london, boston] = [...document.querySelectorAll('tbody')].slice(2);"
     " london.rows[0].cells[0].rowSpan = 1;"
     " london.rows[1].prepend(boston.rows[0].cells[0].cloneNode(true))",
     r"offices\[1\]\.city: recorded 'London', the page now shows 'Boston'"),
    ("the shifts with their days", Shifts, shifts_answer,
     [{"day": "Monday", "person": "Alan", "hours": "9-17"},
      {"day": "Monday", "person": "Edsger", "hours": "8-12"},
      {"day": "Tuesday", "person": "Barbara", "hours": "10-18"}],
     "document.querySelector('[role=rowheader]').textContent = 'Wednesday'",
     r"shifts\[0\]\.day: recorded 'Monday', the page now shows 'Wednesday'"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("instruction", "schema", "answer", "expected", "change", "why"), GROUPED,
    ids=["row group", "row group spanning down", "aria grid"],
)  # fmt: skip
def test_rows_of_a_grouped_table_are_read_again_with_the_group_heading_them(
    ai, scripted_model, store, tmp_path, instruction, schema, answer, expected, change, why
):
    """A section's own row of a header cell scoped to its row group, an ARIA grid's row of
    one spanning row header: no class or id anywhere."""
    ai.goto("readback/grouped.html")
    scripted_model.enqueue(answering(answer))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeedsModelWarning)
        recorded = ai.extract(instruction, schema=schema)
    assert recorded.model_dump()[next(iter(schema.model_fields))] == expected
    assert replayed(ai, store, tmp_path, instruction, schema) == recorded
    ai.page.evaluate(change)
    use(ai, store, tmp_path, "offline")
    with pytest.raises(HealFailed, match=why):
        ai.extract(instruction, schema=schema)
    assert scripted_model.calls == 1
