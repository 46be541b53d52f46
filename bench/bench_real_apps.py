"""Benchmark: plain-English flows on third-party UIs, recorded, then replayed offline.

Run: .venv/bin/python bench/bench_real_apps.py [--only APP] [--errors] [--other-django DIR]

The apps are the libraries as released on npm (tests/real/package.json), set up by the
host pages in tests/real/pages as their docs show, and TodoMVC's own vanilla JS build:
jQuery UI's menu, Bootstrap 5 dropdowns, Shoelace's web components (shadow DOM), flatpickr,
Choices.js, Tabulator, SweetAlert2, Swagger UI, TodoMVC (its vanilla JS and React builds),
widgets inside nested frames, plain HTML with no class or id (a table, a definition list,
a table two frames down, native dialogs), Tom Select (a searchable select drawn beside a
hidden native one, tags with remove buttons), FullCalendar (a month grid of day cells
holding events, prev/next, a list view), Quill (a contenteditable editor and its toolbar),
Grid.js (search, sort buttons in headers, pages), noUiSlider (slider handles moved by
their keys, a native range input), SortableJS (items dragged within a list and across),
AG Grid (a pinned column), DataTables (a plain table it sorts, searches and pages),
TiddlyWiki (its single-file wiki, built by its own command line; its editor in an iframe,
its own confirm dialog), web components that draw their controls in shadow roots and slot
their labels in (Ionic's standalone build: selects drawn as an action sheet and an alert, a
modal; Material Web: a select, a menu, a dialog, a list) and Vaadin's grid and combo box
(rows and options drawn by virtual scrolling); and apps from PyPI: Datasette, JupyterLab
(its Lumino menus, launcher, file browser and a notebook run by its kernel;
`pip install jupyterlab`), and
Django's admin on a tutorial-sized project (its login's password a variable; the database
put back before each run and read as the truth; a second app with autocomplete fields, the
related-object popup window, sidebar filters, a date hierarchy, an action's confirmation page
and an inline formset). React component libraries: Ant Design 5 (and the same app on antd 4)
and MUI 5, their UMD builds on React 18 with no bundler. Select2 (search, tags), TinyMCE
(its editor in an iframe, also two frames down), and more of Bootstrap 5 (offcanvas, toggle
buttons, a popover, a toast) and jQuery UI (selectmenu, spinner, slider, datepicker menus,
an autocomplete with categories, a form dialog).

Each flow is recorded in `auto` mode with the scripted widgets oracle (`oracle` below): it
is NOT a model; it reads the snapshot in each prompt it receives and answers as a correct
model would, naming the element the instruction means (or "not found" while the page does
not show it yet) and reading extracted values out of the snapshot text. The flow is then
replayed in `offline` mode, with no model, on the unchanged app in a fresh browser context.
Native dialogs are answered by the flow's own `page.once("dialog", ...)` handler.

Per flow the truth is checked on the page itself, never through the plugin: what the app
says it did (`#chosen`, the todo list) and, for an extract, the values the page shows.
Printed per app: recorded / self-replayed offline / wrong (an act on another element: the
page did something else) / false pass (a step passed with a value the page does not show).
Targets: self-replay 100%, wrong 0, false pass 0.

Then the real redesign: flows recorded on one released version of a UI are replayed
offline on another at the same URL (jQuery UI 1.14 → 1.12, Bootstrap 5 → 4 markup of the
same page, DataTables 3 → 1.13, Swagger UI 5 → 4, Ant Design 5 → 4 and 4 → 5), and with
--other-django (a folder made by `pip install --target DIR django==4.2.30`) Django's admin
flows recorded on each release and replayed on the other: wrong 0; every heal and refusal
is listed with what decided it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from django_admin import AUTHORS as AUTHOR_NAMES  # noqa: E402
from django_admin import BOOKS as DJANGO_BOOKS  # noqa: E402
from django_admin import USER, DjangoAdmin  # noqa: E402
from real_widgets import REAL, RealWidgetsServer  # noqa: E402
from scripted_answers import recorded_ai_page  # noqa: E402
from servers import PagesServer  # noqa: E402

from examples.record import (  # noqa: E402
    Evidence,
    Line,
    Pick,
    asked,
    click,
    fill,
    find,
    judged,
    snapshot_lines,
    terms,
)
from pytest_stagehand.browser.launch import find_chromium  # noqa: E402
from pytest_stagehand.page import AIPage  # noqa: E402
from pytest_stagehand.recordings.store import RecordingStore  # noqa: E402
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest  # noqa: E402

WAIT_MS = 8_000
TODOMVC = "/node_modules/todomvc/examples/vanillajs/index.html"
REACT_TODOMVC = "/node_modules/todomvc/examples/react/index.html"


class Names(BaseModel):
    """A list read off the page, in its order."""

    names: list[str]


class Member(BaseModel):
    name: str
    city: str
    age: int


class Members(BaseModel):
    """Rows of several fields read off a grid, in its order."""

    members: list[Member]


class Value(BaseModel):
    """One value read off the page."""

    value: str


class Count(BaseModel):
    count: int


class Newsletter(BaseModel):
    newsletter: bool


class Pickup(BaseModel):
    pickup: bool


class OrderLine(BaseModel):
    item: str
    qty: int
    price: str


class OrderLines(BaseModel):
    """A plain table's rows, each cell under its column."""

    lines: list[OrderLine]


class StockRow(BaseModel):
    item: str
    shelf: str
    count: int


class Stock(BaseModel):
    stock: list[StockRow]


class BookForm(BaseModel):
    """The values of a change form's fields."""

    title: str
    author: str
    published: str
    in_print: bool


class Todo(BaseModel):
    title: str
    completed: bool


class Todos(BaseModel):
    """A todo list's items with the state of each one's checkbox."""

    todos: list[Todo]


class Book(BaseModel):
    title: str
    author: str
    year: int


class Books(BaseModel):
    """A grid's rows of several fields, in its order."""

    books: list[Book]


class Event(BaseModel):
    day: str
    title: str


class Events(BaseModel):
    """A calendar's events, each with the day it is on."""

    events: list[Event]


class PriceRange(BaseModel):
    """The two handles of a range slider."""

    lowest: int
    highest: int


# --- a flow: acts, extracts, the test's own dialog handler, and the truth ------------------

Reader = Callable[[list[Line]], list[Any]]


@dataclass(frozen=True)
class Act:
    instruction: str
    pick: Pick
    # The row header of the table row the element is in: a control its page may leave
    # unnamed (Django 4.2's action checkboxes), as a model tells it by its row.
    row: str | None = None
    # The text an unnamed element shows on its line (`listitem clickable: New`, a Lumino
    # submenu item), as a model reads it.
    shows: str | None = None
    # The values of this step's %variables% (a loop typing `%item%` with one value each time)
    values: tuple[tuple[str, str], ...] = ()
    # drag_and_drop: the drop target's role and the name (or text) its line shows; the model
    # gives its id as the argument
    onto: tuple[str, str] | None = None
    # Where a release leaves the element unnamed (antd 4's tree checkboxes and date picker
    # arrows): its role and what its hint says, as a model reads them there.
    hinted: tuple[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Extract:
    """An extract of a list (or of one value); `read` is how a correct model reads it off
    the snapshot, `truth` what the page shows (checked against the result, never given to
    the oracle)."""

    instruction: str
    read: Reader
    truth: Any  # a tuple for a list
    # One field (the list, or the value); else `read` and `truth` give all its fields
    schema: type[BaseModel] = Names

    @property
    def field(self) -> str | None:
        fields = list(self.schema.model_fields)
        return fields[0] if len(fields) == 1 else None

    def answer(self, value: Any) -> dict[str, Any]:
        return value if self.field is None else {self.field: value}

    def got(self, result: BaseModel) -> Any:
        return result.model_dump() if self.field is None else result.model_dump()[self.field]

    @property
    def expected(self) -> Any:
        return list(self.truth) if isinstance(self.truth, tuple) else self.truth


@dataclass(frozen=True)
class Dialog:
    """The test's own handler for the next native dialog: accept (with text) or dismiss."""

    accept: bool
    text: str | None = None


@dataclass(frozen=True)
class Claim:
    """A claim the test asserts (assert_that), true of the page, and what a correct judge
    checks it on."""

    instruction: str
    evidence: Evidence


Step = Act | Extract | Dialog | Claim


@dataclass(frozen=True)
class Flow:
    app: str
    url: str
    steps: tuple[Step, ...]
    shows: str | None = None  # the app's own report of what was done (#chosen)
    frames: tuple[str, ...] = ()  # the frame #chosen is in: each frame's selector, outermost first
    todos: tuple[str, ...] | None = None  # TodoMVC: the list as it must end
    visible: str | None = None  # a selector the app shows once the flow is done
    hidden: str | None = None  # a selector the app no longer shows once the flow is done
    address: str | None = None  # a pattern the page's URL matches once the flow is done
    # "npm": tests/real served here; "datasette", "django": Datasette, Django's admin (PyPI);
    # "tiddlywiki": TiddlyWiki's single-file wiki, built by its own command line (npm);
    # "jupyterlab": JupyterLab (PyPI) over a folder of its own
    server: str = "npm"
    # The app's own database once the flow is done: a query and the rows it must give.
    table: tuple[str, tuple[tuple[Any, ...], ...]] | None = None


@dataclass(frozen=True)
class Served:
    """An app as the flows reach it: its URL, the values of the flows' %variables%, and
    for an app with a database, how to put it back as it was built (before each run) and
    what its tables hold."""

    url: str
    variables: dict[str, str] = field(default_factory=dict)
    reset: Callable[[], None] = lambda: None
    rows: Callable[[str], list[tuple[Any, ...]]] | None = None
    version: str = ""  # the release serving it, where two are compared


@dataclass
class Outcome:
    recorded: bool = False
    replayed: bool = False
    wrong: bool = False
    false_pass: bool = False
    error: str = ""
    heals: list[str] = field(default_factory=list)


def hover(name: str, role: str = "menuitem") -> Pick:
    return Pick(role, name, "hover")


def names_of(role: str, after: str | None = None, until: str | None = None, *,
             shown: bool = False) -> Reader:
    """The names of the `role` lines after the line mentioning `after`, up to `until`; with
    `shown`, the text each line shows instead where it has one (`listitem: Plan: Team`)."""

    def read(lines: list[Line]) -> list[str]:
        start = 0 if after is None else next(
            (i + 1 for i, line in enumerate(lines) if after in line.raw), len(lines))
        found = []
        for line in lines[start:]:
            if until is not None and until in line.raw:
                break
            name = line.raw.split(": ", 1)[1] if shown and ": " in line.rest else line.name
            if line.role == role and name:
                found.append(name)
        return found

    return read


def table_rows(lines: list[Line]) -> list[dict[str, str]]:
    """The body rows of a grid of gridcells (Tabulator, AG Grid) or an HTML table whose
    first cell is a link (Datasette), each cell under its column header, as a model reads
    them. A grid that shows a pinned column apart (its header row and rows in a part of
    their own, then the other columns' part: AG Grid) is joined part by part, row by row."""
    rows: list[tuple[bool, list[str]]] = []  # (a header row, its cells' names)
    row: Line | None = None
    for line in lines:
        if line.role == "row":
            row = line
            rows.append((True, []))
        elif row is not None and line.depth == row.depth + 1 and line.role in (
            "columnheader", "gridcell", "cell", "link"
        ):
            header, cells = rows[-1]
            rows[-1] = (header and line.role == "columnheader", [*cells, line.name])
    heads = [cells for header, cells in rows if header and cells]
    body = [cells for header, cells in rows if not header and cells]
    count = len(body) // max(len(heads), 1)
    parts = [body[at * count:(at + 1) * count] for at in range(len(heads))]
    names = [name for head in heads for name in head]
    joined = [[cell for part in parts for cell in part[at]] for at in range(count)]
    return [dict(zip(names, cells, strict=False)) for cells in joined]


def column(header: str) -> Reader:
    """The cells under the column header named `header` (or starting with it), row by row."""

    def read(lines: list[Line]) -> list[str]:
        rows = table_rows(lines)
        named = next(name for name in rows[0] if name.startswith(header))
        return [row[named] for row in rows]

    return read


def admin_column(header: str) -> Reader:
    """The cells under the column header named `header` (or starting or ending with it: a
    sort link's words around it), row by row, in the table whose headers have it: a grid of
    gridcells (Tabulator), an HTML table whose first cell is a link (Datasette), or whose
    rows start with a checkbox and a row header (Django's admin, beside its sidebar's
    tables)."""

    def read(lines: list[Line]) -> list[str]:
        cells: list[str] = []
        at: int | None = None
        headers: list[str] = []
        row: Line | None = None
        header_row: Line | None = None
        count = 0
        for line in lines:
            if line.role == "columnheader":
                if count or row is not header_row:
                    headers, at, header_row = [], None, row  # another table's headers
                if at is None and (line.name.startswith(header)
                                   or line.name.endswith(f" {header}")):
                    at = len(headers)
                headers.append(line.name)
            elif line.role == "row":
                row, count = line, 0
            elif row is not None and line.depth == row.depth + 1 and line.role in (
                "gridcell", "cell", "link", "rowheader", "checkbox", "img"
            ):
                if count == at:
                    cells.append(line.name)
                count += 1
        return cells

    return read


def members(lines: list[Line]) -> list[dict[str, Any]]:
    """Each row's name, city and age."""
    return [{"name": row["Name"], "city": row["City"], "age": int(row["Age"])}
            for row in table_rows(lines)]


def jq_menu(*path: str, end: str = "click") -> tuple[Step, ...]:
    """Hover over each of `path` but the last, then click (or hover) the last."""
    steps: list[Step] = [Act(f"hover over {name}", hover(name)) for name in path[:-1]]
    last = path[-1]
    steps.append(Act(f"{end} {last}" if end == "click" else f"hover over {last}",
                     click("menuitem", last) if end == "click" else hover(last)))
    return tuple(steps)


JQ = "/pages/jquery-ui-menu.html"
JQW = "/pages/jquery-ui-widgets.html"
BSC = "/pages/bootstrap-components.html"
SLC = "/pages/shoelace-components.html"
TAB_EDIT = "/pages/tabulator-edit.html"
CH_MULTI = "/pages/choices-multiple.html"
FP_RANGE = "/pages/flatpickr-range.html"
SWAL_SELECT = "/pages/sweetalert2-select.html"
PLAIN = "/pages/plain.html"
JQ_LINKS = "/pages/jquery-ui-links-menu.html"
BS = "/pages/bootstrap-dropdown.html"
SL = "/pages/shoelace.html"
FP = "/pages/flatpickr.html"
CH = "/pages/choices.html"
TAB = "/pages/tabulator.html"
SWAL = "/pages/sweetalert2.html"
FRAMES = "/pages/frames.html"
SWAGGER = "/pages/swagger-ui.html"
BOOKS = "/bookshop/books"
BOOK_ROWS = (
    ("Notes on the Analytical Engine", "Ada Lovelace", 1843),
    ("Computing Machinery and Intelligence", "Alan Turing", 1950),
    ("The Education of a Computer", "Grace Hopper", 1952),
    ("Orbital Mechanics Notes", "Katherine Johnson", 1961),
    ("Just for Fun", "Linus Torvalds", 2001),
)
TITLES = tuple(title for title, _, _ in BOOK_ROWS)
AUTHORS = tuple(author for _, author, _ in BOOK_ROWS)
TEAM = ("Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Linus Torvalds")
AGES = ("36", "85", "41", "101", "55")


CITIES = ("London", "Arlington", "Wilmslow", "Hampton", "Portland")
ROLES = ("Engineer", "Admiral", "Researcher", "Mathematician", "Maintainer")
MEMBERS = tuple({"name": name, "city": city, "age": int(age)}
                for name, city, age in zip(TEAM, CITIES, AGES, strict=True))
AG = "/pages/ag-grid.html"


DT = "/pages/datatables.html"
STAFF_AGES = {  # tests/real/pages/datatables.html
    "Ada Lovelace": "36", "Grace Hopper": "85", "Alan Turing": "41", "Katherine Johnson": "101",
    "Linus Torvalds": "55", "Margaret Hamilton": "34", "Dennis Ritchie": "30",
    "Barbara Liskov": "49", "Ken Thompson": "29", "Frances Allen": "50", "John Backus": "33",
    "Radia Perlman": "39", "Donald Knuth": "40", "Edsger Dijkstra": "44",
    "Tim Berners-Lee": "35", "Hedy Lamarr": "27",
}
STAFF = tuple(sorted(STAFF_AGES))  # as DataTables sorts them first: by the first column
BY_AGE = tuple(sorted(STAFF_AGES, key=lambda name: int(STAFF_AGES[name])))


WIKI = "/empty.html"
LAB = "/lab?reset"


def lab_tab(title: str) -> str:
    """A document's tab in JupyterLab's main area, as the page itself marks it."""
    return f".lm-DockPanel-tabBar .lm-TabBar-tab:has-text({title!r})"


def tiddler(title: str, more: str = "") -> str:
    """A tiddler shown in the story river, as the page itself marks it."""
    return f".tc-tiddler-frame[data-tiddler-title={title!r}]{more}"


def new_tiddler(title: str, text: str) -> tuple[Step, ...]:
    return (Act("create a new tiddler", click("button", "new tiddler")),
            Act(f"type {title} as its title", Pick("textbox", "", "fill", (title,))),
            Act(f"type {text} as its text", fill("Type the text for this tiddler", text)),
            Act("confirm the changes", click("button", "Confirm changes to this tiddler")))


def ag_row(verb: str, name: str) -> Act:
    """Promote (the row's button) or select (its checkbox) the row of `name`. The pinned
    Name column is drawn apart, so the oracle finds the row by its other cells: the button
    after the row's role, the checkbox (its first cell) after the row before it."""
    at = TEAM.index(name)
    if "Promote" in verb:
        return Act(f"{verb} {name}", Pick("button", "Promote", after=f'gridcell "{ROLES[at]}"'))
    before = f'gridcell "{ROLES[at - 1]}"' if at else 'columnheader "Action"'
    return Act(f"{verb} {name}", Pick("checkbox", "Press Space to toggle row selection",
                                      after=before, prefix=True))


def bs(menu: str, item: str, role: str = "button") -> tuple[Step, ...]:
    return (Act(f"open the {menu} dropdown", click("button", menu)),
            Act(f"choose {item} in the {menu} dropdown", click(role, item)))


def sl_menu(item: str) -> tuple[Step, ...]:
    return (Act("open the Edit dropdown", click("button", "Edit")),
            Act(f"click {item} in the Edit menu", click("menuitem", item)))


def sl_select(size: str) -> tuple[Step, ...]:
    return (Act("open the Size select", click("combobox", "Size")),
            Act(f"choose {size} as the size", click("option", size)))


def date(day: str) -> tuple[Step, ...]:
    return (Act("open the departure date picker", click("textbox", "Departure date")),
            Act(f"pick {day}", click("generic", day)))


def operation(method: str, path: str, summary: str) -> Act:
    """Expand one operation of Swagger UI (its summary row is a button)."""
    return Act(f"expand {method} {path}", click("button", f"{method} {path} {summary}"))


def summaries(lines: list[Line]) -> list[str]:
    """The summaries of the operations of the books section, as their rows show them."""
    rows = names_of("button", after='heading "books', until='heading "orders')(lines)
    found = [re.match(r"^(?:GET|POST|PUT|DELETE) \S+ (.+)$", row) for row in rows]
    return [match[1] for match in found if match]


def country(name: str) -> tuple[Step, ...]:
    return (Act("open the country select", Pick("combobox", "", prefix=True)),
            Act(f"choose {name} as the country", click("option", name)))


def todo_items(lines: list[Line]) -> list[str]:
    """The text of each item of the todo list (a checkbox, then the item's text)."""
    items = []
    for at, line in enumerate(lines):
        if line.role == "listitem":
            texts = [inner.name for inner in lines[at + 1:at + 4] if inner.role == "text"]
            items += texts[:1]
    return items


def todo_add(*items: str) -> tuple[Step, ...]:
    return tuple(
        step for item in items for step in (
            Act(f"type {item} into the new todo field",
                Pick("textbox", "What needs to be done?", "fill", (item,))),
            Act("press Enter in the new todo field",
                Pick("textbox", "What needs to be done?", "press", ("Enter",))),
        )
    )


def rows_under(header: str, lines: list[Line]) -> list[dict[str, str]]:
    """The body rows of the table whose header row has `header`, each cell under its
    column, as a model reads one table of several (the page's own, one in a frame)."""
    found: list[dict[str, str]] = []
    headers: list[str] = []
    row = header_row = None
    cells: list[str] = []

    def close() -> None:
        if header in headers and cells and len(cells) == len(headers):
            found.append(dict(zip(headers, cells, strict=True)))

    for line in lines:
        if line.role == "row" or (row is not None and line.depth <= row.depth):
            close()  # the row ends at the next row, or at what follows its table
            row, cells = (line, []) if line.role == "row" else (None, [])
        elif row is not None and line.depth == row.depth + 1:
            if line.role == "columnheader":
                if header_row is not row:  # another table's header row
                    headers, header_row = [], row
                headers.append(line.name)
            else:  # a cell, or the one control a cell holds (shown in its place)
                cells.append(line.name)
    close()
    return found


def definitions(lines: list[Line]) -> list[str]:
    """The definitions of a definition list, in its order."""
    return list(terms(lines).values())


def todo_states(lines: list[Line]) -> list[dict[str, Any]]:
    """Each todo's text and whether its checkbox is checked (a checkbox, then the text)."""
    items = []
    for at, line in enumerate(lines):
        if line.role == "listitem":
            inside = lines[at + 1:at + 4]
            box = next((inner for inner in inside if inner.role == "checkbox"), None)
            text = next((inner.name for inner in inside if inner.role == "text"), None)
            if box is not None and text is not None:
                items.append({"title": text, "completed": " checked" in box.rest})
    return items


def react_todo(item: str) -> tuple[Step, ...]:
    """Type `%item%` (valued `item`) into the new todo field and press Enter: the same two
    steps each time, as a test's loop over its items runs them."""
    return (Act("type %item% into the new todo field",
                Pick("textbox", "What needs to be done?", "fill", ("%item%",)),
                values=(("item", item),)),
            Act("press Enter in the new todo field",
                Pick("textbox", "What needs to be done?", "press", ("Enter",))))


BOOK_LIST = "/admin/library/book/"
BOOK_ADD = "/admin/library/book/add/"
ADDED = ".messagelist .success:has-text('was added successfully')"


def book_query(title: str, *more: str) -> str:
    """A query of a book as its table holds it: title, author's name, date published."""
    columns = ("title", "(select name from library_author where id = author_id)", "published")
    return f"select {', '.join((*columns, *more))} from library_book where title = '{title}'"


TODAY = datetime.date.today()
MID_MONTH = TODAY.replace(day=15).isoformat()
# The changelist's rows (ordered by title), and how its dates show ("N j, Y")
BY_TITLE = sorted(DJANGO_BOOKS)
DJANGO_TITLES = tuple(title for title, _, _ in BY_TITLE)
DJANGO_AUTHORS = tuple(AUTHOR_NAMES[author] for _, author, _ in BY_TITLE)
MONTHS = ("Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.",
          "Nov.", "Dec.")


def shown_date(iso: str) -> str:
    day = datetime.date.fromisoformat(iso)
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


DJANGO_DATES = tuple(shown_date(published) for _, _, published in BY_TITLE)
DJANGO_BY_DATE = tuple(title for title, _, _ in sorted(DJANGO_BOOKS, key=lambda book: book[2]))


def log_in() -> tuple[Step, ...]:
    """Django's login form; the password is a variable, its value never in a prompt."""
    return (Act(f"type {USER} into the username field", fill("Username:", USER)),
            Act("type %password% into the password field", fill("Password:", "%password%")),
            Act("click Log in", click("button", "Log in")))


def select_books(*titles: str) -> tuple[Step, ...]:
    """Tick each book's action checkbox in the changelist."""
    return tuple(Act(f"select the book {title}", click("checkbox", ""), row=title)
                 for title in titles)


TS = "/pages/tom-select.html"
FC = "/pages/fullcalendar.html"
QUILL = "/pages/quill.html"
GJ = "/pages/gridjs.html"
NS = "/pages/nouislider.html"
SORT = "/pages/sortable.html"
GJ_BOOKS = (("Dune", "Frank Herbert", 1965), ("Neuromancer", "William Gibson", 1984),
            ("Foundation", "Isaac Asimov", 1951), ("Hyperion", "Dan Simmons", 1989),
            ("Solaris", "Stanisław Lem", 1961), ("Kindred", "Octavia E. Butler", 1979),
            ("Ubik", "Philip K. Dick", 1969))
GJ_TITLES = tuple(title for title, _, _ in GJ_BOOKS)
MARCH_EVENTS = ("Team standup", "Design review", "Release 2.0", "Offsite", "Quarterly planning")


def ts_city(city: str) -> tuple[Step, ...]:
    return (Act("open the City select", click("combobox", "City")),
            Act(f"choose {city} as the city", click("option", city, after='listbox "City"')))


def day_of(event: str) -> Reader:
    """The day cell of a month grid that holds `event`, as a model reads it."""

    def read(lines: list[Line]) -> str:
        day = ""
        for line in lines:
            if line.role == "gridcell":
                day = line.name
            elif line.raw.endswith(f": {event}"):
                return day
        return ""

    return read


def listed_events(lines: list[Line]) -> list[dict[str, str]]:
    """A list view's events, each under the row header of its day."""
    found, day = [], ""
    for line in lines:
        if line.role == "columnheader" and line.name not in ("Time", "Event"):
            day = line.name
        elif line.role == "generic" and ": " in line.rest:
            found.append({"day": day, "title": line.rest.split(": ", 1)[1]})
    return found


def grid_books(lines: list[Line]) -> list[dict[str, Any]]:
    """Each row's title, author and year (Grid.js names a header by its sort button too)."""
    rows = table_rows(lines)
    return [{"title": row["Title Sort column ascending"],
             "author": row["Author Sort column ascending"],
             "year": int(row["Year Sort column ascending"])} for row in rows]


def slider_values(lines: list[Line]) -> dict[str, int]:
    found = {line.name: int(line.value("value") or 0) for line in lines if line.role == "slider"}
    return {"lowest": found["Lowest price"], "highest": found["Highest price"]}


def slider_key(handle: str, key: str) -> Act:
    return Act(f"press {key} on the {handle} handle", Pick("slider", handle, "press", (key,)))


def drag(item: str, where: str, onto: tuple[str, str]) -> Act:
    return Act(f"drag {item} {where}", Pick("listitem", "", "drag_and_drop"), shows=item,
               onto=onto)


def sorted_lists(backlog: tuple[str, ...], done: tuple[str, ...]) -> str:
    """What the SortableJS page reports once an item is dropped."""
    return f"backlog: {', '.join(backlog)}; done: {', '.join(done)}"


ION = "/pages/ionic.html"
MW = "/pages/material-web.html"
VD = "/pages/vaadin.html"
INBOX = ("Invoice 1042", "Delivery note 7", "Refund request")
ACTIVITY = ("Signed in", "Changed the password", "Added a payment card")


def ion_select(select: str, option: str) -> tuple[Step, ...]:
    """Open an Ionic select (its button names the label and the placeholder) and tick an
    option of the action sheet or alert it draws."""
    placeholder = {"Fruit": "Choose a fruit", "Size": "Choose a size"}[select]
    return (Act(f"open the {select} select", click("button", f"{select}, {placeholder}")),
            Act(f"choose {option}", click("radio", option)))


def mw_menu(item: str) -> tuple[Step, ...]:
    return (Act("open the More actions menu", click("button", "More actions")),
            Act(f"click {item} in the menu", click("menuitem", item)))


def cell_in_row(key: str, header: str) -> Reader:
    """The cell under the column header ending with `header` in the row whose first cell
    is `key`, as a model reads one value off a grid."""

    def read(lines: list[Line]) -> str:
        keys = admin_column("SKU")(lines)
        return admin_column(header)(lines)[keys.index(key)]

    return read


FLOWS: list[Flow] = [
    # jQuery UI menu: submenus open on hover after the widget's delay
    Flow("jQuery UI", JQ, jq_menu("Music", "Jazz", "Modern"), "Chosen: Modern"),
    Flow("jQuery UI", JQ, jq_menu("Music", "Jazz", "Big Band"), "Chosen: Big Band"),
    Flow("jQuery UI", JQ, jq_menu("Music", "Rock", "Classic"), "Chosen: Classic"),
    Flow("jQuery UI", JQ, jq_menu("Music", "Rock", "Alternative"), "Chosen: Alternative"),
    Flow("jQuery UI", JQ, jq_menu("Music", "Pop"), "Chosen: Pop"),
    Flow("jQuery UI", JQ, jq_menu("Electronics", "Utilities"), "Chosen: Utilities"),
    Flow("jQuery UI", JQ, jq_menu("Electronics", "Car Hifi"), "Chosen: Car Hifi"),
    Flow("jQuery UI", JQ, jq_menu("Books"), "Chosen: Books"),
    # Freejazz is hovered so that the extract comes once the Jazz submenu is open.
    Flow("jQuery UI", JQ, (*jq_menu("Music", "Jazz", "Freejazz", end="hover"), Extract(
        "the items of the Jazz submenu", names_of("menuitem", after='"Jazz"', until='"Pop"'),
        ("Freejazz", "Big Band", "Modern"))), None),
    Flow("jQuery UI", JQ_LINKS, jq_menu("Enabled", "Downloads", "PDF"), "Downloading PDF"),
    Flow("jQuery UI", JQ_LINKS, jq_menu("Enabled", "Downloads", "Excel"), "Downloading Excel"),
    Flow("jQuery UI", JQ_LINKS, (Dialog(True, "q3-summary"),
                                 *jq_menu("Enabled", "Reports", "Rename report")),
         "Renamed to q3-summary"),
    Flow("jQuery UI", JQ_LINKS, (Dialog(True), *jq_menu("Enabled", "Reports", "Delete report")),
         "Deleted"),
    Flow("jQuery UI", JQ_LINKS, (Dialog(False), *jq_menu("Enabled", "Reports", "Delete report")),
         "Kept"),
    # Bootstrap 5 dropdowns
    Flow("Bootstrap", BS, bs("Sort by", "Newest"), "Chosen: Newest"),
    Flow("Bootstrap", BS, bs("Sort by", "Price, low to high"), "Chosen: Price, low to high"),
    Flow("Bootstrap", BS, bs("Sort by", "Price, high to low"), "Chosen: Price, high to low"),
    Flow("Bootstrap", BS, bs("Account", "Profile", "link"), "Chosen: Profile"),
    Flow("Bootstrap", BS, bs("Account", "Orders", "link"), "Chosen: Orders"),
    Flow("Bootstrap", BS, bs("Account", "Sign out", "link"), "Chosen: Sign out"),
    Flow("Bootstrap", BS, (Act("open the Account dropdown", click("button", "Account")), Extract(
        "the items of the Account menu", names_of("link", after='"Account"', until='"Sort by"'),
        ("Profile", "Orders", "Sign out"))), None),
    # Shoelace: web components with open shadow roots
    Flow("Shoelace", SL, sl_menu("Cut"), "Chosen: cut"),
    Flow("Shoelace", SL, sl_menu("Copy"), "Chosen: copy"),
    Flow("Shoelace", SL, sl_menu("Paste"), "Chosen: paste"),
    Flow("Shoelace", SL, sl_select("Small"), "Size: small"),
    Flow("Shoelace", SL, sl_select("Medium"), "Size: medium"),
    Flow("Shoelace", SL, sl_select("Large"), "Size: large"),
    Flow("Shoelace", SL, (Act("open the Size select", click("combobox", "Size")), Extract(
        "the sizes the Size select offers", names_of("option"), ("Small", "Medium", "Large"))),
         None),
    Flow("Shoelace", SL, (Act("open the Edit dropdown", click("button", "Edit")), Extract(
        "the items of the Edit menu", names_of("menuitem"), ("Cut", "Copy", "Paste"))), None),
    # flatpickr
    Flow("flatpickr", FP, date("March 21, 2026"), "Departure: 2026-03-21"),
    Flow("flatpickr", FP, date("March 1, 2026"), "Departure: 2026-03-01"),
    Flow("flatpickr", FP, date("March 31, 2026"), "Departure: 2026-03-31"),
    Flow("flatpickr", FP, date("March 15, 2026"), "Departure: 2026-03-15"),
    Flow("flatpickr", FP, (Act("open the departure date picker",
                               click("textbox", "Departure date")),
                           Act("choose April in the month list",
                               Pick("combobox", "Month", "select_option", ("April",))),
                           Act("pick April 2, 2026", click("generic", "April 2, 2026"))),
         "Departure: 2026-04-02"),
    # Choices.js
    Flow("Choices.js", CH, country("France"), "Country: fr"),
    Flow("Choices.js", CH, country("Germany"), "Country: de"),
    Flow("Choices.js", CH, country("Italy"), "Country: it"),
    Flow("Choices.js", CH, country("Spain"), "Country: es"),
    Flow("Choices.js", CH, (Act("open the country select", Pick("combobox", "", prefix=True)),
                            Extract("the countries the country select offers",
                                    names_of("option", after="listbox hint=\"choices list\""),
                                    ("Choose a country", "France", "Germany", "Italy", "Spain"))),
         None),
    # Tabulator: a grid of divs with ARIA roles
    Flow("Tabulator", TAB, (Extract("the names in the team table", column("Name"), TEAM),), None),
    Flow("Tabulator", TAB, (Extract("the ages in the team table", column("Age"), AGES),), None),
    Flow("Tabulator", TAB, (Extract("the cities in the team table", column("City"),
                                    ("London", "Arlington", "Wilmslow", "Hampton", "Portland")),),
         None),
    Flow("Tabulator", TAB, (Act("click the row of Alan Turing",
                                click("gridcell", "Alan Turing")),), "Row: Alan Turing"),
    Flow("Tabulator", TAB, (Act("click the row of Grace Hopper",
                                click("gridcell", "Grace Hopper")),), "Row: Grace Hopper"),
    Flow("Tabulator", TAB, (Act("sort the team by age", click("columnheader", "Age")), Extract(
        "the names in the team table", column("Name"),
        ("Ada Lovelace", "Alan Turing", "Linus Torvalds", "Grace Hopper",
         "Katherine Johnson"))), None),
    # SweetAlert2: popups drawn in the page (not native dialogs)
    Flow("SweetAlert2", SWAL, (Act("click Delete file", click("button", "Delete file")),
                               Act("confirm the deletion", click("button", "Yes, delete it"))),
         "Deleted"),
    Flow("SweetAlert2", SWAL, (Act("click Delete file", click("button", "Delete file")),
                               Act("keep the file", click("button", "Keep it"))), "Kept"),
    Flow("SweetAlert2", SWAL, (Act("click Rename file", click("button", "Rename file")),
                               Act("type notes.txt into the file name field",
                                   fill("File name", "notes.txt")),
                               Act("click Rename", click("button", "Rename"))),
         "Renamed to notes.txt"),
    Flow("SweetAlert2", SWAL, (Act("click Rename file", click("button", "Rename file")),
                               Act("cancel the renaming", click("button", "Cancel"))),
         "Not renamed"),
    # Swagger UI on an OpenAPI document of our own
    Flow("Swagger UI", SWAGGER, (operation("GET", "/books/{bookId}", "Find a book by its id"),),
         visible="#operations-books-getBook .opblock-body"),
    Flow("Swagger UI", SWAGGER, (operation("POST", "/orders", "Place an order"),),
         visible="#operations-orders-placeOrder .opblock-body"),
    Flow("Swagger UI", SWAGGER, (operation("DELETE", "/books/{bookId}", "Remove a book"),
                                 Act("click Try it out", click("button", "Try it out"))),
         visible="#operations-books-deleteBook .execute"),
    Flow("Swagger UI", SWAGGER, (Act("collapse the orders section",
                                     click("button", "Collapse operation",
                                           after='heading "orders')),),
         hidden="#operations-orders-placeOrder"),
    Flow("Swagger UI", SWAGGER, (Extract("the summaries of the books operations", summaries,
                                         ("List the books", "Add a book", "Find a book by its id",
                                          "Remove a book")),), None),
    Flow("Swagger UI", SWAGGER, (operation("GET", "/books/{bookId}", "Find a book by its id"),
                                 Extract("the response codes of Find a book by its id",
                                         lambda lines: [line.name for line in lines
                                                        if line.role == "cell"
                                                        and line.name.isdigit()],
                                         ("200", "404"))), None),
    # TodoMVC's vanilla JS build
    Flow("TodoMVC", TODOMVC, todo_add("buy milk"), todos=("buy milk",)),
    Flow("TodoMVC", TODOMVC, todo_add("buy milk", "walk the dog"),
         todos=("buy milk", "walk the dog")),
    Flow("TodoMVC", TODOMVC, (*todo_add("buy milk", "walk the dog"), Extract(
        "the todo items", todo_items, ("buy milk", "walk the dog"))),
         todos=("buy milk", "walk the dog")),
    Flow("TodoMVC", TODOMVC, (*todo_add("buy milk", "walk the dog"),
                              Act("show the active todos", click("link", "Active"))),
         todos=("buy milk", "walk the dog")),
    Flow("TodoMVC", TODOMVC, (*todo_add("pay rent"),
                              Act("show the completed todos", click("link", "Completed")),
                              Act("show all todos", click("link", "All"))),
         todos=("pay rent",)),
    # Datasette (PyPI) on a SQLite database of our own: HTML tables, column menus, filters
    Flow("Datasette", BOOKS, (Extract("the titles in the books table", column("title"),
                                      TITLES),), None, server="datasette"),
    Flow("Datasette", BOOKS, (Extract("the authors in the books table", column("author"),
                                      AUTHORS),), None, server="datasette"),
    Flow("Datasette", BOOKS, (Act("sort the books by year", click("link", "year")),),
         address="_sort=year", server="datasette"),
    Flow("Datasette", BOOKS, (Act("open the menu of the year column",
                                  Pick("img", "", after='columnheader "year"')),
                              Act("sort descending", click("link", "Sort descending"))),
         address="_sort_desc=year", server="datasette"),
    Flow("Datasette", BOOKS, (Act("open the bookshop database", click("link", "bookshop")),),
         address="/bookshop$", server="datasette"),
    Flow("Datasette", BOOKS, (Act("filter on the author column",
                                  Pick("combobox", "", "select_option", ("author",))),
                              Act("type Alan Turing into the filter value field",
                                  Pick("textbox", "", "fill", ("Alan Turing",))),
                              Act("click Apply", click("button", "Apply"))),
         address=r"author__exact=Alan\+Turing", server="datasette"),
    Flow("Datasette", BOOKS, (Act("sort the books by title", click("link", "title")),
                              Extract("the titles in the books table", column("title"),
                                      tuple(sorted(TITLES)))),
         address="_sort=title", server="datasette"),
    # The same widgets inside frames: a frame in a frame holding the table, a frame of menus
    Flow("Frames", FRAMES, (Extract("the names in the team table", column("Name"), TEAM),),
         None),
    Flow("Frames", FRAMES, (Extract("the ages in the team table", column("Age"), AGES),), None),
    Flow("Frames", FRAMES, (Act("click the row of Alan Turing", click("gridcell", "Alan Turing")),),
         "Row: Alan Turing", frames=("#outer", "#team")),
    Flow("Frames", FRAMES, bs("Sort by", "Newest"), "Chosen: Newest", frames=("#menus",)),
    Flow("Frames", FRAMES, bs("Account", "Orders", "link"), "Chosen: Orders", frames=("#menus",)),
    Flow("Frames", FRAMES, bs("Sort by", "Price, high to low"), "Chosen: Price, high to low",
         frames=("#menus",)),
    # AG Grid: the Name column pinned (its cells in rows of their own, joined to the other
    # columns' rows by aria-rowindex), row selection by checkboxes, a button drawn per row
    Flow("AG Grid", AG, (Extract("the names in the team grid", column("Name"), TEAM),), None),
    Flow("AG Grid", AG, (Extract("the ages in the team grid", column("Age"), AGES),), None),
    Flow("AG Grid", AG, (Extract("the cities in the team grid", column("City"), CITIES),), None),
    Flow("AG Grid", AG, (Extract("each team member's name, city and age", members,
                                 MEMBERS, Members),), None),
    Flow("AG Grid", AG, (ag_row("click Promote in the row of", "Grace Hopper"),),
         "Promoted: Grace Hopper"),
    Flow("AG Grid", AG, (ag_row("click Promote in the row of", "Linus Torvalds"),),
         "Promoted: Linus Torvalds"),
    Flow("AG Grid", AG, (ag_row("select the row of", "Alan Turing"),), "Selected: Alan Turing"),
    Flow("AG Grid", AG, (ag_row("select the row of", "Ada Lovelace"),
                         ag_row("select the row of", "Katherine Johnson"),
                         Extract("each team member's name, city and age", members, MEMBERS,
                                 Members)),
         "Selected: Ada Lovelace, Katherine Johnson"),
    # DataTables: a plain HTML table it enhances (sorting, search, paging of 10 rows)
    Flow("DataTables", DT, (Extract("the names in the staff table", column("Name"),
                                    STAFF[:10]),), None),
    Flow("DataTables", DT, (Extract("the ages in the staff table", column("Age"),
                                    tuple(STAFF_AGES[name] for name in STAFF[:10])),), None),
    Flow("DataTables", DT, (Act("go to the next page of the staff", click("link", "Next")),
                            Extract("the names in the staff table", column("Name"),
                                    STAFF[10:])), None),
    Flow("DataTables", DT, (Act("search the staff for Researcher",
                                Pick("searchbox", "Search:", "fill", ("Researcher",))),
                            Extract("the names in the staff table", column("Name"),
                                    ("Alan Turing", "Dennis Ritchie", "Frances Allen"))), None),
    Flow("DataTables", DT, (Act("sort the staff by age", click("button", "Age: Activate to sort")),
                            Extract("the names in the staff table", column("Name"),
                                    BY_AGE[:10])), None),
    Flow("DataTables", DT, (Act("sort the staff by name, descending",
                                click("button", "Name: Activate to invert sorting")),
                            Extract("the names in the staff table", column("Name"),
                                    STAFF[::-1][:10])), None),
    Flow("DataTables", DT, (Act("show 25 staff per page",
                                Pick("combobox", "entries per page", "select_option", ("25",))),
                            Extract("the names in the staff table", column("Name"), STAFF)),
         None),
    Flow("DataTables", DT, (Act("click the row of Grace Hopper", click("cell", "Grace Hopper")),),
         "Row: Grace Hopper"),
    Flow("DataTables", DT, (Act("go to page 2 of the staff", click("link", "2")),
                            Act("click the row of Radia Perlman", click("cell", "Radia Perlman"))),
         "Row: Radia Perlman"),
    Flow("DataTables", DT, (Act("search the staff for Murray Hill",
                                Pick("searchbox", "Search:", "fill", ("Murray Hill",))),
                            Act("click the row of Ken Thompson", click("cell", "Ken Thompson"))),
         "Row: Ken Thompson"),
    # TiddlyWiki (npm): a single-page app; its text editor is a textarea in an iframe
    Flow("TiddlyWiki", WIKI, (*new_tiddler("Shopping", "Milk and eggs"),),
         visible=tiddler("Shopping", ":has-text('Milk and eggs')"), server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Act("open the Tools tab of the sidebar", click("tab", "Tools")),),
         visible="button.tc-tab-selected:text-is('Tools')", server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Act("close all tiddlers", click("button", "close all")),),
         hidden=tiddler("GettingStarted"), server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Act("hide the sidebar", click("button", "hide sidebar")),),
         visible="role=button[name='show sidebar']", server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Act("set the wiki's title to Team Notes", Pick(
        "textbox", "", "fill", ("Team Notes",), after='link "Title of this TiddlyWiki"')),),
        visible="h1.tc-site-title:text-is('Team Notes')", server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Extract("the tabs of the sidebar", names_of("tab"),
                                      ("Open", "Recent", "Tools", "More")),),
         server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (*new_tiddler("Groceries", "Bread"),
                              Act("search the wiki for Groceries",
                                  Pick("searchbox", "", "fill", ("Groceries",))),
                              Extract("the titles the search matched",
                                      names_of("link", "Title matches:", "All matches:"),
                                      ("Groceries",))), server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (Act("create a new tiddler", click("button", "new tiddler")),
                              Act("type Project as its title",
                                  Pick("textbox", "", "fill", ("Project",))),
                              Act("type Work into the tag name field", fill("tag name", "Work")),
                              Act("add the tag", click("button", "add")),  # the first "add"
                              Act("confirm the changes",
                                  click("button", "Confirm changes to this tiddler"))),
         visible=tiddler("Project", " .tc-tags-wrapper:has-text('Work')"), server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (*new_tiddler("Scratch", "Draft notes"),
                              Act("edit the Scratch tiddler", click("button", "Edit this tiddler")),
                              Dialog(accept=True),
                              Act("delete this tiddler", click("button", "Delete this tiddler"))),
         hidden=tiddler("Scratch"), server="tiddlywiki"),
    Flow("TiddlyWiki", WIKI, (*new_tiddler("Scratch", "Draft notes"),
                              Act("edit the Scratch tiddler", click("button", "Edit this tiddler")),
                              Dialog(accept=False),
                              Act("delete this tiddler", click("button", "Delete this tiddler"))),
         visible=tiddler("Draft of 'Scratch'"), server="tiddlywiki"),
    # JupyterLab (PyPI): Lumino menus with hover submenus, its launcher, its file browser
    Flow("JupyterLab", LAB, (Act("open the File menu", click("menuitem", "File")),
                             Act("hover over New", Pick("listitem", "", "hover"), shows="New"),
                             Act("click Text File", click("menuitem", "Text File"))),
         visible=lab_tab("untitled.txt"), server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("open a new Markdown file from the launcher",
                                 click("button", "", after="paragraph: Text File")),),
         visible=lab_tab("untitled.md"), server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("open notes.txt", Pick("button", "notes.txt", "double_click")),),
         visible=lab_tab("notes.txt"), server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("create a new folder", click("button", "New Folder")),),
         visible=".jp-DirListing-item[title*='Untitled Folder']", server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("show the running terminals and kernels",
                                 click("tab", "Running Terminals and Kernels")),),
         visible="[role=tab][aria-selected=true][title*='Running Terminals']",
         server="jupyterlab"),
    Flow("JupyterLab", LAB, (Extract("the headings of the launcher", names_of("heading"),
                                     ("Notebook", "Console", "Other")),), server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("open a new Python notebook from the launcher",
                                 click("button", "", after='heading "Notebook"')),
                             Act("type print(6 * 7) into the notebook's cell",
                                 Pick("textbox", "", "fill", ("print(6 * 7)",),
                                      after='feed "Cells"')),
                             Act("run the cell", click("button", "Run this cell and advance",
                                                       prefix=True))),
         visible=".jp-OutputArea-output:has-text('42')", server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("right-click notes.txt",
                                 Pick("button", "notes.txt", "right_click")),
                             Act("duplicate it", click("menuitem", "Duplicate Ctrl+D"))),
         visible=".jp-DirListing-item[title*='notes-Copy1.txt']", server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("open the Settings menu", click("menuitem", "Settings")),
                             Act("hover over Theme", Pick("listitem", "", "hover"),
                                 shows="Theme"),
                             Act("choose the JupyterLab Dark theme",
                                 click("menuitem", "JupyterLab Dark"))),
         visible="body[data-jp-theme-name='JupyterLab Dark'] #jp-top-panel", server="jupyterlab"),
    Flow("JupyterLab", LAB, (Act("open the Help menu", click("menuitem", "Help")),
                             Act("click About JupyterLab", click("menuitem", "About JupyterLab")),
                             Act("close the about dialog", click("button", "Close"))),
         hidden=".jp-Dialog", server="jupyterlab"),
    # Django's admin (PyPI) on a project of its tutorial's kind (tests/django_admin.py)
    Flow("Django", "/admin/", (*log_in(), Extract(
        "the models of the Library app", names_of("rowheader", after='table "Library"',
                                                  until="main"), ("Authors", "Books"))),
         address="/admin/$", server="django"),
    Flow("Django", BOOK_ADD, (*log_in(),
                              Act("type Dune into the title field", fill("Title:", "Dune")),
                              Act("choose Grace Hopper as the author",
                                  Pick("combobox", "Author:", "select_option", ("Grace Hopper",))),
                              Act("open the calendar of the published date",
                                  click("link", "Choose a Date")),
                              Act("pick the 15th in the calendar", click("link", "15")),
                              Act("click Save", click("button", "Save"))),
         visible=ADDED, table=(book_query("Dune"),
                               (("Dune", "Grace Hopper", MID_MONTH),)), server="django"),
    Flow("Django", BOOK_ADD, (*log_in(), Act("type Hidden Figures into the title field",
                                             fill("Title:", "Hidden Figures")),
                              Act("choose Katherine Johnson as the author",
                                  Pick("combobox", "Author:", "select_option",
                                       ("Katherine Johnson",))),
                              Act("click Today beside the published date", click("link", "Today")),
                              Act("untick In print", click("checkbox", "In print")),
                              Act("click Save", click("button", "Save"))),
         visible=ADDED, table=(book_query("Hidden Figures", "in_print"),
                               (("Hidden Figures", "Katherine Johnson", TODAY.isoformat(), 0),)),
         server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Act("filter the books by the author Alan Turing",
                                              click("link", "Alan Turing", after="By author")),
                               Extract("the titles of the books", admin_column("Title"),
                                       ("Computing Machinery and Intelligence",
                                        "On Computable Numbers"))),
         address=r"author__id__exact=\d", server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Act("type Hopper into the search field",
                                              fill("Search", "Hopper")),
                               Act("click Search", click("button", "Search")),
                               Extract("the titles of the books", admin_column("Title"),
                                       ("The Education of a Computer",))),
         address="q=Hopper", server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), *select_books("On Computable Numbers",
                                                        "Notes on the Analytical Engine"),
                               Act("choose Delete selected books in the action menu",
                                   Pick("combobox", "Action:", "select_option",
                                        ("Delete selected books",))),
                               Act("click Go", click("button", "Go")),
                               Act("confirm the deletion", click("button", "Yes, I’m sure"))),
         visible=".messagelist .success:has-text('Successfully deleted 2 books')",
         table=("select title from library_book order by title",
                tuple((title,) for title in sorted(DJANGO_TITLES)
                      if title not in ("On Computable Numbers",
                                       "Notes on the Analytical Engine"))),
         server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), *select_books("On Computable Numbers"),
                               Act("choose Delete selected books in the action menu",
                                   Pick("combobox", "Action:", "select_option",
                                        ("Delete selected books",))),
                               Act("click Go", click("button", "Go")),
                               Act("keep the book", click("link", "No, take me back"))),
         address=f"{BOOK_LIST}$", table=("select count(*) from library_book",
                                          ((len(DJANGO_TITLES),),)), server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), *select_books("Orbital Mechanics Notes"),
                               Act("choose Mark selected books as out of print in the action menu",
                                   Pick("combobox", "Action:", "select_option",
                                        ("Mark selected books as out of print",))),
                               Act("click Go", click("button", "Go"))),
         table=("select title from library_book where not in_print",
                (("Orbital Mechanics Notes",),)), server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Extract("the authors of the books",
                                                  admin_column("Author"), DJANGO_AUTHORS)),
         server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Extract("the published dates of the books",
                                                  admin_column("Published"), DJANGO_DATES)),
         server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Act("sort the books by their published date",
                                              click("link", "Published")),
                               Extract("the titles of the books", admin_column("Title"),
                                       DJANGO_BY_DATE)),
         address=r"o=3", server="django"),
    Flow("Django", BOOK_LIST, (*log_in(), Extract(
        "the choices of the author filter", names_of("link", after="By author", until="By in"),
        ("All", *AUTHOR_NAMES))), server="django"),
    # More widgets of the same libraries: tabs, accordions, dialogs, trees, editors, tags
    Flow("jQuery UI", JQW, (Act("open the Specs tab", click("link", "Specs")),
                            Extract("the specs of the lamp",
                                    names_of("listitem", after='tabpanel "Specs"', shown=True),
                                    ("Height: 45 cm", "Weight: 1.2 kg", "Bulb: E27"))),
         "Tab: Specs"),
    Flow("jQuery UI", JQW, (Act("open the Returns section", click("tab", "Returns")),
                            Extract("what the Returns section says",
                                    names_of("paragraph", after='tab "Returns"', until="tab ",
                                             shown=True),
                                    ("Returns are free within 30 days.",))),
         "Section: Returns"),
    Flow("jQuery UI", JQW, (Act("type Ja into the Language field", fill("Language:", "Ja")),
                            Act("choose JavaScript from the suggestions",
                                click("listitem", ""), shows="JavaScript")),
         "Language: JavaScript"),
    Flow("jQuery UI", JQW, (Act("open the arrival date picker", click("textbox", "Arrival date:")),
                            Act("pick the 21st", click("link", "21"))), "Arrival: 2026-03-21"),
    Flow("jQuery UI", JQW, (Act("click Remove item", click("button", "Remove item")),
                            Act("confirm with Remove", click("button", "Remove"))), "Removed"),
    Flow("jQuery UI", JQW, (Act("click Remove item", click("button", "Remove item")),
                            Act("cancel the removal", click("button", "Cancel"))), "Kept"),
    Flow("jQuery UI", JQW, (Act("hover over the Help link", hover("Help", "link")),
                            Extract("the tooltip of the Help link", names_of("tooltip", shown=True),
                                    ("Opens the user guide",))), None),
    Flow("Bootstrap", BSC, (Act("open the Billing tab", click("tab", "Billing")),
                            Extract("the billing details",
                                    names_of("listitem", after='tabpanel "Billing"', shown=True),
                                    ("Plan: Team", "Seats: 12", "Renews: May 1, 2026"))),
         "Tab: Billing"),
    Flow("Bootstrap", BSC, (Act("expand How do I cancel?", click("button", "How do I cancel?")),),
         "Answer: cancel"),
    Flow("Bootstrap", BSC, (Act("click Show details", click("button", "Show details")),),
         "Details shown"),
    Flow("Bootstrap", BSC, (Act("click Rename account", click("button", "Rename account")),
                            Act("type Northwind into the account name field",
                                fill("Account name", "Northwind")),
                            Act("click Save changes", click("button", "Save changes"))),
         "Renamed to Northwind"),
    Flow("Bootstrap", BSC, (Act("click Rename account", click("button", "Rename account")),
                            Act("close the dialog", click("button", "Close",
                                                          after='dialog "Rename account"'))),
         "Not renamed"),
    Flow("Bootstrap", BSC, (Act("click Save draft", click("button", "Save draft")),
                            Extract("the message of the toast",
                                    names_of("text", after="Drafts", until="paragraph", shown=True),
                                    ("Draft saved at 10:42.",))), None),
    Flow("Shoelace", SLC, (Act("open the Custom tab", click("generic", ""), shows="Custom"),
                           Extract("the custom settings",
                                   names_of("listitem", after='tabpanel "Custom"', shown=True),
                                   ("Colour: Teal", "Font: Serif", "Density: Compact"))),
         "Tab: custom"),
    Flow("Shoelace", SLC, (Act("select Vegetables in the tree", click("treeitem", "Vegetables")),),
         "Tree: Vegetables"),
    Flow("Shoelace", SLC, (Act("expand the terms of sale", click("button", "Terms of sale")),),
         "Terms shown"),
    Flow("Shoelace", SLC, (Act("tick Send me the newsletter",
                               click("checkbox", "Send me the newsletter")),),
         "Newsletter: yes"),
    Flow("Shoelace", SLC, (Act("click Archive project", click("button", "Archive project")),
                           Act("confirm with Archive", click("button", "Archive"))), "Archived"),
    Flow("Tabulator", TAB_EDIT, (Act("sort the stock by count", click("columnheader", "Count")),
                                 Extract("the items of the stock table", admin_column("Item"),
                                         ("Desk", "Shelf", "Lamp", "Chair"))), None),
    Flow("Tabulator", TAB_EDIT, (Act("edit the count of the Desk", click("gridcell", "3")),
                                 Act("type 5 into the cell's editor",
                                     Pick("spinbutton", "", "fill", ("5",))),
                                 Act("press Enter in the cell's editor",
                                     Pick("spinbutton", "", "press", ("Enter",)))),
         "Edited: Desk count = 5"),
    Flow("Choices.js", CH_MULTI, (Act("remove Ham from the toppings",
                                      click("button", "Remove item: ham")),), "Toppings: cheese"),
    Flow("Choices.js", CH_MULTI, (Act("open the toppings list", click("searchbox", "Toppings")),
                                  Act("add Olives", click("option", "Olives"))),
         "Toppings: cheese, ham, olives"),
    Flow("flatpickr", FP_RANGE, (Act("open the stay date picker", click("textbox", "Stay")),
                                 Act("pick March 12, 2026", click("generic", "March 12, 2026")),
                                 Act("pick March 15, 2026", click("generic", "March 15, 2026"))),
         "Stay: 2026-03-12 to 2026-03-15"),
    Flow("SweetAlert2", SWAL_SELECT, (Act("click Pick a fruit", click("button", "Pick a fruit")),
                                      Act("choose Bananas", Pick("combobox", "", "select_option",
                                                                 ("Bananas",))),
                                      Act("click OK", click("button", "OK"))),
         "Fruit: bananas"),
    Flow("SweetAlert2", SWAL_SELECT, (Act("click Set quantity", click("button", "Set quantity")),
                                      Act("type 3 into the quantity field",
                                          fill("Quantity", "3", role="spinbutton")),
                                      Act("click Set", click("button", "Set"))),
         "Quantity: 3"),
    # Plain HTML: a table and a definition list with no class or id, native dialogs answered
    # by the flow's own handler, a table and a list two frames down
    Flow("Plain HTML", PLAIN, (Extract("the customer, date and status of the order", definitions,
                                       ("Ada Lovelace", "March 3, 2026", "Shipped")),), None),
    Flow("Plain HTML", PLAIN, (Extract("the items of the order", admin_column("Item"),
                                       ("Desk lamp", "Notebook", "Pen")),), None),
    Flow("Plain HTML", PLAIN, (Extract("the prices of the order's items", admin_column("Price"),
                                       ("$24.00", "$3.50", "$1.20")),), None),
    Flow("Plain HTML", PLAIN, (Extract("the carriers of the parcels", admin_column("Carrier"),
                                       ("Royal Mail", "DHL")),), None),
    Flow("Plain HTML", PLAIN, (Extract("the tracking steps", names_of("listitem", shown=True),
                                       ("Left the depot", "In transit", "Out for delivery")),),
         None),
    Flow("Plain HTML", PLAIN, (Dialog(True, "leave at the door"),
                               Act("click Add a note", click("button", "Add a note"))),
         "Note: leave at the door"),
    Flow("Plain HTML", PLAIN, (Dialog(False), Act("click Cancel order",
                                                  click("button", "Cancel order"))),
         "Not cancelled"),
    # One value, rows of several fields, form values: read where the page shows them
    Flow("Plain HTML", PLAIN, (Extract("the status of the order",
                                       lambda lines: terms(lines)["Status"], "Shipped", Value),),
         None),
    Flow("Plain HTML", PLAIN, (Extract("how many notebooks were ordered", lambda lines: int(next(
        row["Qty"] for row in rows_under("Qty", lines) if row["Item"] == "Notebook")), 5,
        Count),), None),
    Flow("Plain HTML", PLAIN, (Extract("each line of the order with its item, quantity and price",
                                       lambda lines: [{"item": row["Item"], "qty": int(row["Qty"]),
                                                       "price": row["Price"]}
                                                      for row in rows_under("Qty", lines)],
                                       ({"item": "Desk lamp", "qty": 2, "price": "$24.00"},
                                        {"item": "Notebook", "qty": 5, "price": "$3.50"},
                                        {"item": "Pen", "qty": 10, "price": "$1.20"}),
                                       OrderLines),), None),
    Flow("Plain HTML", PLAIN, (Extract("where parcel P-2 is now", lambda lines: next(
        row["Where"] for row in rows_under("Where", lines) if row["Parcel"] == "P-2"),
        "Bristol", Value),), None),
    Flow("jQuery UI", JQW, (Act("type Ja into the Language field", fill("Language:", "Ja")),
                            Extract("the languages suggested", names_of("listitem", shown=True),
                                    ("Java", "JavaScript"))), None),
    Flow("jQuery UI", JQW, (Act("open the arrival date picker", click("textbox", "Arrival date:")),
                            Extract("the month the calendar shows", lambda lines: next(
                                line.name for line in lines if line.name.endswith(" 2026")),
                                "March 2026", Value)), None),
    Flow("Bootstrap", BSC, (Extract("the questions of the FAQ",
                                    names_of("button", after="heading level=2",
                                             until="Show details"),
                                    ("How do I add a seat?", "How do I cancel?")),), None),
    Flow("Bootstrap", BSC, (Act("click Rename account", click("button", "Rename account")),
                            Extract("the title of the dialog", lambda lines: next(
                                line.name for line in lines if line.role == "heading"
                                and line.name not in ("", "Account")), "Rename account", Value)),
         None),
    Flow("Shoelace", SLC, (Extract("the tabs of the settings",
                                   names_of("generic", after="tablist", until="tabpanel",
                                            shown=True),
                                   ("General", "Custom", "Advanced")),), None),
    Flow("Shoelace", SLC, (Act("tick Send me the newsletter",
                               click("checkbox", "Send me the newsletter")),
                           Extract("whether the newsletter box is ticked", lambda lines: " checked"
                                   in next(line.rest for line in lines if line.role == "checkbox"),
                                   True, Newsletter)), "Newsletter: yes"),
    Flow("Tabulator", TAB_EDIT, (Extract("each item's shelf and count", lambda lines: [
        {"item": row["Item"], "shelf": row["Shelf"], "count": int(row["Count"])}
        for row in rows_under("Item", lines)],
        ({"item": "Lamp", "shelf": "A1", "count": 12}, {"item": "Desk", "shelf": "B4", "count": 3},
         {"item": "Chair", "shelf": "B2", "count": 40},
         {"item": "Shelf", "shelf": "C7", "count": 7}), Stock),), None),
    Flow("Django", BOOK_LIST, (*log_in(), Act("open Computing Machinery and Intelligence",
                                              click("link", "Computing Machinery and Intelligence",
                                                    after="main")),
                               Extract("the values of the book's form", lambda lines: {
                                   "title": find(lines, "textbox", "Title:").value("value"),
                                   "author": find(lines, "combobox", "Author:").value("value"),
                                   "published": find(lines, "textbox", "Published:").value(
                                       "value"),
                                   "in_print": " checked" in find(lines, "checkbox",
                                                                  "In print").rest},
                                   {"title": "Computing Machinery and Intelligence",
                                    "author": "Alan Turing", "published": "1950-10-01",
                                    "in_print": True}, BookForm)),
         address=r"/change/$", server="django"),
    Flow("Datasette", "/bookshop/books/3", (Extract("the author of this book", lambda lines: next(
        row["author"] for row in rows_under("author", lines)), "Grace Hopper", Value),),
         server="datasette"),
    Flow("Datasette", "/bookshop/books?_facet=author", (
        Extract("the authors in the author facet",
                names_of("link", after='"✖"', until="table"), AUTHORS),),
         server="datasette"),
    Flow("Datasette", "/bookshop/books?_facet=author", (
        Act("choose Alan Turing in the author facet", click("link", "Alan Turing",
                                                            after='text "author 5"')),
        Extract("the titles in the books table", admin_column("title"),
                ("Computing Machinery and Intelligence",))),
         address=r"author=Alan\+Turing", server="datasette"),
    Flow("Plain HTML", PLAIN, (Act("track parcel P-2", click("button", "Track",
                                                             after='cell "P-2"')),),
         "Tracking P-2", frames=("iframe[title=Shipments]", "iframe[title=Tracking]")),
    Flow("Plain HTML", PLAIN, (Act("track parcel P-1", click("button", "Track",
                                                             after='cell "P-1"')),),
         "Tracking P-1", frames=("iframe[title=Shipments]", "iframe[title=Tracking]")),
    Flow("Plain HTML", PLAIN, (Dialog(True), Act("click Print label",
                                                 click("button", "Print label"))), "Printed"),
    Flow("Choices.js", CH_MULTI, (Extract("the toppings chosen", names_of(
        "text", after='listbox hint="choices list multiple"', until="searchbox", shown=True),
        ("Cheese", "Ham")),), None),
    Flow("SweetAlert2", SWAL, (Act("click Delete file", click("button", "Delete file")),
                               Extract("the question the popup asks", lambda lines: next(
                                   line.name for line in lines if line.role == "heading"),
                                   "Delete the file?", Value)), None),
    # TodoMVC's React build
    Flow("TodoMVC React", REACT_TODOMVC, (*react_todo("buy milk"), *react_todo("walk the dog")),
         todos=("buy milk", "walk the dog")),
    Flow("TodoMVC React", REACT_TODOMVC, (
        *todo_add("buy milk", "walk the dog"),
        Act("check the toggle all checkbox", click("checkbox", "", after="What needs")),
        Act("show the active todos", click("link", "Active"))), todos=()),
    Flow("TodoMVC React", REACT_TODOMVC, (
        *todo_add("buy milk", "walk the dog"),
        Act("mark buy milk as completed", click("checkbox", "", after="listitem")),
        Extract("the todos with their completed state", todo_states,
                ({"title": "buy milk", "completed": True},
                 {"title": "walk the dog", "completed": False}), Todos),
        Act("clear the completed todos", click("button", "Clear completed", prefix=True))),
         todos=("walk the dog",)),
    # Tom Select: a native select hidden for assistive tech, a searchable dropdown drawn
    # beside it, chosen values as tags with a remove button each
    Flow("Tom Select", TS, ts_city("Lisbon"), "City: lis"),
    Flow("Tom Select", TS, ts_city("Paris"), "City: par"),
    Flow("Tom Select", TS, (Act("type Os into the City field", fill("City", "Os", "combobox")),
                            Act("choose Oslo as the city",
                                click("option", "Oslo", after='listbox "City"'))), "City: osl"),
    Flow("Tom Select", TS, (Act("type Mad into the City field", fill("City", "Mad", "combobox")),
                            Act("press Enter in the City field",
                                Pick("combobox", "City", "press", ("Enter",)))), "City: mad"),
    Flow("Tom Select", TS, (Act("remove French from the languages",
                                click("link", "×", after='text "French"')),),
         "Languages: en"),
    Flow("Tom Select", TS, (Act("open the Languages select", click("combobox", "Languages")),
                            Act("add German to the languages",
                                click("option", "German", after='listbox "Languages"'))),
         "Languages: en, fr, de"),
    Flow("Tom Select", TS, (Act("open the City select", click("combobox", "City")), Extract(
        "the cities the City select offers",
        names_of("option", after='listbox "City"', until='"Languages"'),
        ("Amsterdam", "Berlin", "Lisbon", "Madrid", "Oslo", "Paris"))), None),
    Flow("Tom Select", TS, (Extract("the languages chosen", names_of(
        "text", after="languages tomselected", until='combobox "Languages"'),
        ("English", "French")),), None),
    Flow("Tom Select", TS, (Act("open the City select", click("combobox", "City")),
                            Act("hover over Madrid", Pick("option", "Madrid", "hover",
                                                          after='listbox "City"'))),
         visible=".ts-dropdown .option.active:text-is('Madrid')"),
    # FullCalendar: a month grid of day cells holding events, prev/next, a list view
    Flow("FullCalendar", FC, (Act("go to the next month", click("button", "Next month")),
                              Extract("the month the calendar shows", lambda lines: next(
                                  line.name for line in lines if line.role == "heading"),
                                  "April 2026", Value)), "Showing: April 2026"),
    Flow("FullCalendar", FC, (Act("go to the previous month", click("button", "Previous month")),),
         "Showing: February 2026"),
    Flow("FullCalendar", FC, (Act("go to the next month", click("button", "Next month")),
                              Act("go to the next month again", click("button", "Next month"))),
         "Showing: May 2026"),
    Flow("FullCalendar", FC, (Act("open the Release 2.0 event", click("generic", ""),
                                  shows="Release 2.0"),), "Event: Release 2.0"),
    Flow("FullCalendar", FC, (Act("go to the previous month", click("button", "Previous month")),
                              Act("open the Budget review event", click("generic", ""),
                                  shows="Budget review")), "Event: Budget review"),
    Flow("FullCalendar", FC, (Act("click March 12", click("gridcell", "March 12, 2026")),),
         "Day: 2026-03-12"),
    Flow("FullCalendar", FC, (Extract("the events the calendar shows",
                                      names_of("generic", shown=True), MARCH_EVENTS),), None),
    Flow("FullCalendar", FC, (Extract("the day of the Design review", day_of("Design review"),
                                      "March 10, 2026", Value),), None),
    Flow("FullCalendar", FC, (Act("show the list view", click("button", "list")),
                              Extract("the events of the month with their days", listed_events,
                                      tuple({"day": day, "title": title} for day, title in (
                                          ("March 3, 2026", "Team standup"),
                                          ("March 10, 2026", "Design review"),
                                          ("March 18, 2026", "Release 2.0"),
                                          ("March 25, 2026", "Offsite"),
                                          ("March 26, 2026", "Offsite"))), Events)), None),
    # Quill: a contenteditable rich-text editor and its toolbar
    Flow("Quill", QUILL, (Act("type Version 2 is out into the editor",
                              Pick("generic", "", "fill", ("Version 2 is out",),
                                   after="toolbar")),), "Text: Version 2 is out"),
    Flow("Quill", QUILL, (Act("select all the text in the editor",
                              Pick("generic", "", "press", ("Control+a",), after="toolbar")),
                          Act("make it bold", click("button", "bold"))),
         visible="#editor strong:text-is('Hello World!')"),
    Flow("Quill", QUILL, (Act("click the Hello World! paragraph", click("paragraph", ""),
                              shows="Hello World!"),
                          Act("open the heading picker", click("button", "Normal")),
                          Act("choose Heading 1", click("button", "Heading 1"))),
         visible="#editor h1:text-is('Hello World!')"),
    Flow("Quill", QUILL, (Act("click the Hello World! paragraph", click("paragraph", ""),
                              shows="Hello World!"),
                          Act("make it a bullet point", click("button", "list: bullet"))),
         visible="#editor li[data-list=bullet]:text-is('Hello World!')"),
    Flow("Quill", QUILL, (Extract("the bullet points of the notes", lambda lines: [
        name for name in names_of("text", after="editable", until="Unchanged")(lines)
        if name != "•"], ("Faster search", "Dark mode")),), None),
    Flow("Quill", QUILL, (Extract("the first line of the notes", lambda lines: next(
        line.text for line in lines if line.role == "paragraph"), "Hello World!", Value),), None),
    # Grid.js: a table it draws with search, sort buttons in its headers and pages of 4
    Flow("Grid.js", GJ, (Extract("the titles in the books table", column("Title"),
                                 GJ_TITLES[:4]),), None),
    Flow("Grid.js", GJ, (Act("go to the next page of the books", click("button", "Next")),
                         Extract("the titles in the books table", column("Title"),
                                 GJ_TITLES[4:])), None),
    Flow("Grid.js", GJ, (Act("go to page 2 of the books", click("button", "Page 2")),
                         Extract("the authors in the books table", column("Author"),
                                 ("Stanisław Lem", "Octavia E. Butler", "Philip K. Dick"))),
         None),
    Flow("Grid.js", GJ, (Act("search the books for Gibson",
                             Pick("searchbox", "Type a keyword...", "fill", ("Gibson",))),
                         Extract("the titles in the books table", column("Title"),
                                 ("Neuromancer",))), None),
    Flow("Grid.js", GJ, (Act("sort the books by year",
                             click("button", "Sort column ascending", after='"Year')),
                         Extract("the titles in the books table", column("Title"),
                                 ("Foundation", "Solaris", "Dune", "Ubik"))), None),
    Flow("Grid.js", GJ, (Act("click the row of Hyperion", click("gridcell", "Hyperion")),),
         "Row: Hyperion"),
    Flow("Grid.js", GJ, (Extract("each book's title, author and year", grid_books,
                                 tuple({"title": title, "author": author, "year": year}
                                       for title, author, year in GJ_BOOKS[:4]), Books),), None),
    Flow("Grid.js", GJ, (Extract("how many books there are", lambda lines: int(re.findall(
        r"of (\d+) results", next(line.raw for line in lines if line.role == "status"))[0]), 7,
        Count),), None),
    # noUiSlider: a two-handle range driven by its keyboard steps; a native range input
    Flow("noUiSlider", NS, (slider_key("Lowest price", "ArrowRight"),), "Price: 25 to 80"),
    Flow("noUiSlider", NS, (slider_key("Highest price", "ArrowLeft"),), "Price: 20 to 75"),
    Flow("noUiSlider", NS, (slider_key("Highest price", "End"),), "Price: 20 to 100"),
    Flow("noUiSlider", NS, (Extract("the price range", slider_values,
                                    {"lowest": 20, "highest": 80}, PriceRange),), None),
    Flow("noUiSlider", NS, (slider_key("Lowest price", "ArrowRight"),
                            Extract("the price range", slider_values,
                                    {"lowest": 25, "highest": 80}, PriceRange)),
         "Price: 25 to 80"),
    Flow("noUiSlider", NS, (Act("set the volume to 7", Pick("slider", "Volume", "fill", ("7",))),),
         "Volume: 7"),
    Flow("noUiSlider", NS, (Act("press ArrowUp on the volume", Pick("slider", "Volume", "press",
                                                                    ("ArrowUp",))),),
         "Volume: 5"),
    # SortableJS: two lists whose items are dragged within a list and across
    Flow("SortableJS", SORT, (drag("Add dark mode", "to the top of the backlog",
                                   ("listitem", "Write the docs")),),
         sorted_lists(("Add dark mode", "Write the docs", "Fix the login bug", "Update the icons"),
                      ("Set up CI",))),
    Flow("SortableJS", SORT, (drag("Fix the login bug", "to the Done list", ("list", "Done")),),
         sorted_lists(("Write the docs", "Add dark mode", "Update the icons"),
                      ("Set up CI", "Fix the login bug"))),
    Flow("SortableJS", SORT, (drag("Update the icons", "to the Done list", ("list", "Done")),
                              Extract("the items of the Done list", names_of(
                                  "listitem", after='list "Done"', until="paragraph",
                                  shown=True), ("Set up CI", "Update the icons"))),
         sorted_lists(("Write the docs", "Fix the login bug", "Add dark mode"),
                      ("Set up CI", "Update the icons"))),
    Flow("SortableJS", SORT, (Extract("the items of the backlog", names_of(
        "listitem", after='list "Backlog"', until='heading "Done"', shown=True),
        ("Write the docs", "Fix the login bug", "Add dark mode", "Update the icons")),), None),
    # Ionic (standalone ES module build): selects drawn as an action sheet and as an alert,
    # items whose labels are slotted into a shadow root's button, a modal moved into ion-app
    Flow("Ionic", ION, ion_select("Fruit", "Bananas"), "Fruit: bananas"),
    Flow("Ionic", ION, ion_select("Fruit", "Oranges"), "Fruit: oranges"),
    Flow("Ionic", ION, (*ion_select("Size", "Large"), Act("click OK", click("button", "OK"))),
         "Size: large"),
    Flow("Ionic", ION, (*ion_select("Size", "Medium"),
                        Act("cancel the Size alert", click("button", "Cancel"))), "Nothing chosen",
         hidden="ion-alert"),
    Flow("Ionic", ION, (Act("open the Size select", click("button", "Size, Choose a size")),
                        Extract("the sizes the Size alert offers", names_of("radio"),
                                ("Small", "Medium", "Large"))), None),
    Flow("Ionic", ION, (Act("tick Accept the terms", click("checkbox", "Accept the terms")),),
         "Terms: yes"),
    Flow("Ionic", ION, (Act("open Delivery note 7 in the inbox",
                            click("button", "Delivery note 7")),), "Opened: Delivery note 7"),
    Flow("Ionic", ION, (Extract("the messages in the inbox", names_of(
        "button", after='"Inbox"', until='"Edit profile"'), INBOX),), None),
    Flow("Ionic", ION, (Act("click Edit profile", click("button", "Edit profile")),
                        Act("type Ada into the name field", fill("Your name", "Ada")),
                        Act("click Save", click("button", "Save")),
                        Claim("the page says the profile was saved for Ada",
                              Evidence("paragraph", text="Profile: Ada", match="equals"))),
         "Profile: Ada"),
    Flow("Ionic", ION, (Act("click Edit profile", click("button", "Edit profile")),
                        Act("cancel the editing", click("button", "Cancel", after="dialog"))),
         "Not saved"),
    # Material Web (Lit, through an import map): fields, a select, a menu, a dialog and a
    # list whose labels and headlines are slotted into shadow roots
    Flow("Material Web", MW, (Act("type ada@example.com into the Email field",
                                  fill("Email", "ada@example.com")),
                              Act("click Save", click("button", "Save"))),
         "Saved: ada@example.com"),
    Flow("Material Web", MW, (Act("open the Plan select", click("combobox", "Plan")),
                              Act("choose Team as the plan", click("option", "Team"))),
         "Plan: team"),
    Flow("Material Web", MW, (Act("open the Plan select", click("combobox", "Plan")),
                              Extract("the plans the Plan select offers", names_of("option"),
                                      ("Free", "Team", "Enterprise"))), None),
    Flow("Material Web", MW, (Act("tick Remember me", click("checkbox", "")),), "Remember: yes"),
    Flow("Material Web", MW, mw_menu("Export data"), "Exported"),
    Flow("Material Web", MW, (*mw_menu("Close account"),
                              Act("confirm with Close account",
                                  click("button", "Close account",
                                        after='dialog "Close the account?"'))),
         "Account closed"),
    Flow("Material Web", MW, (*mw_menu("Close account"),
                              Claim("a dialog asks whether to close the account",
                                    Evidence("heading", "Close the account?", match="equals",
                                             after="dialog")),
                              Act("keep the account", click("button", "Keep it"))),
         "Account kept"),
    Flow("Material Web", MW, (*mw_menu("Close account"),
                              Extract("what the dialog says will happen", lambda lines: next(
                                  line.name for line in lines[next(
                                      at for at, line in enumerate(lines)
                                      if line.role == "dialog"):] if line.role == "text"),
                                  "Its data will be deleted after 30 days.", Value)), None),
    Flow("Material Web", MW, (Extract("the recent activity", todo_items, ACTIVITY),), None),
    Flow("Material Web", MW, (Act("open Changed the password in the recent activity",
                                  click("listitem", "", after='"Signed in"')),),
         "Activity: Changed the password"),
    # Vaadin's grid and combo box: rows and options drawn by virtual scrolling, each in a
    # shadow root's table with its cells' content slotted in
    Flow("Vaadin", VD, (Extract("the part of P-0003", cell_in_row("P-0003", "Part"), "Washer 1",
                                Value),), None),
    Flow("Vaadin", VD, (Extract("the stock of P-0006", cell_in_row("P-0006", "Stock"), "84",
                                Value),), None),
    Flow("Vaadin", VD, (Act("click the row of P-0005", click("gridcell", "P-0005")),),
         "Part: P-0005"),
    Flow("Vaadin", VD, (Claim("the row of P-0005 shows 47 in stock",
                              Evidence("gridcell", "47", match="equals",
                                       after='gridcell "P-0005"')),), None),
    Flow("Vaadin", VD, (Act("sort the parts by SKU", click("generic", "Sort by SKU")),
                        Act("sort them by SKU again, descending", click("generic", "Sort by SKU")),
                        Extract("the SKU of the first row", lambda lines: admin_column("SKU")(
                            lines)[0], "P-0500", Value)), None),
    Flow("Vaadin", VD, (Act("open the Warehouse list", click("combobox", "Warehouse")),
                        Act("choose Cork", click("option", "Cork"))), "Warehouse: COR"),
    Flow("Vaadin", VD, (Act("type Zee into the Warehouse field", fill("Warehouse", "Zee",
                                                                       "combobox")),
                        Act("choose Zeebrugge", click("option", "Zeebrugge"))),
         "Warehouse: ZEE"),
    Flow("Vaadin", VD, (Act("type er into the Warehouse field", fill("Warehouse", "er",
                                                                      "combobox")),
                        Extract("the warehouses suggested", names_of("option"),
                                ("Aberdeen", "Bergen", "Esbjerg", "Inverness",
                                 "Stavanger"))), None),
    Flow("Vaadin", VD, (Act("type Bergen into the Warehouse field", fill("Warehouse", "Bergen",
                                                                          "combobox")),
                        Act("press Enter in the Warehouse field",
                            Pick("combobox", "Warehouse", "press", ("Enter",)))),
         "Warehouse: BER"),
]


# --- Select2, TinyMCE, Django's admin deeper, Bootstrap 5 and jQuery UI widgets more --------
# Select2 (with jQuery), TinyMCE (self-hosted; its content in an iframe, once more in a
# frame of the app's page), Django's admin's lending app (tests/django_admin.py: a Select2
# search of autocomplete_fields, the related-object "+" popup, sidebar filters, a date
# hierarchy, an action's confirmation page, an inline formset), and the Bootstrap 5 and
# jQuery UI widgets the pages above leave out.

S2 = "/pages/select2.html"
TMC = "/pages/tinymce.html"
TMC_FRAME = "/pages/tinymce-frame.html"
BSM = "/pages/bootstrap-more.html"
JQM = "/pages/jquery-ui-more.html"
SPEED_MENU = Act("open the speed menu", click("combobox", "", after="Select a speed"))
LOANS = "/admin/lending/loan/"
LOAN_ADD = "/admin/lending/loan/add/"
BARBARA = "/admin/lending/member/2/change/"  # Barbara Liskov's loans, edited inline
LOAN_BOOKS = ("Computing Machinery and Intelligence", "On Computable Numbers",
              "Orbital Mechanics Notes", "Notes on the Analytical Engine")  # by date lent
# TinyMCE's editor: the body of its iframe, the host of the text
EDITOR_FILL = Pick("generic", "Rich Text Area", "fill", ("Version 2 is out",))
FORMAT_MENU = ("Bold", "Italic", "Underline", "Strikethrough", "Superscript", "Subscript", "Code",
               "Formats", "Blocks", "Fonts", "Font sizes", "Align", "Line height",
               "Text color Black", "Background color Black", "Clear formatting")


@dataclass(frozen=True)
class Popup:
    """The test's own handler for the next popup window: it fills the popup's fields by
    their labels and clicks a button, with plain Playwright, and waits for the popup to
    close itself (Django's related-object popup hands its new object to the opener)."""

    fields: tuple[tuple[str, str], ...]
    button: str

    @property
    def instruction(self) -> str:  # how a report names the step
        return f"(the test fills the popup and clicks {self.button})"

    def handle(self, popup: Page) -> None:
        for label, value in self.fields:
            popup.get_by_label(label, exact=True).fill(value)
        with popup.expect_event("close", timeout=WAIT_MS):
            popup.get_by_role("button", name=self.button, exact=True).click()


def names_lines(lines: list[Line], role: str, after: str) -> list[Line]:
    """The `role` lines after the line mentioning `after`."""
    start = next((at + 1 for at, line in enumerate(lines) if after in line.raw), len(lines))
    return [line for line in lines[start:] if line.role == role]


def s2_open(select: str) -> Act:
    """Open a Select2 select: its combobox, unnamed, after the label's text."""
    return Act(f"open the {select} select", click("combobox", "", after=f'text "{select}"'))


def s2_choose(select: str, option: str) -> tuple[Step, ...]:
    return (s2_open(select), Act(f"choose {option} as the {select.lower()}",
                                 click("option", option, after="listbox")))


def loan_query(*where: str) -> str:
    """The loans as their table holds them: the book's title, the member's name, the date."""
    return ("select (select title from library_book where id = book_id), "
            "(select name from lending_member where id = member_id), lent from lending_loan"
            + (f" where {' and '.join(where)}" if where else "") + " order by lent")


def pick_book(search: str, title: str) -> tuple[Step, ...]:
    """Django's autocomplete (Select2): open the Book field, search, choose."""
    return (Act("open the Book field", click("combobox", "", after='text "Book:"')),
            Act(f"type {search} into the book search", Pick("searchbox", "", "fill", (search,),
                                                            after="contentinfo")),
            Act(f"choose {title}", click("option", title, after="listbox")))


FLOWS.extend([
    # Select2: a single select with a search box, tags, options from a data array
    Flow("Select2", S2, s2_choose("City", "Lisbon"), "City: lis"),
    Flow("Select2", S2, (s2_open("City"),
                         Act("type Os into the search field",
                             Pick("searchbox", "Search", "fill", ("Os",), after="Clear the tags")),
                         Act("choose Oslo as the city", click("option", "Oslo", after="listbox"))),
         "City: osl"),
    Flow("Select2", S2, (s2_open("City"),
                         Act("type Mad into the search field",
                             Pick("searchbox", "Search", "fill", ("Mad",), after="Clear the tags")),
                         Act("press Enter in the search field",
                             Pick("searchbox", "Search", "press", ("Enter",),
                                  after="Clear the tags"))), "City: mad"),
    Flow("Select2", S2, (*s2_choose("City", "Paris"),
                         Extract("the city chosen", lambda lines: find(
                             lines, "textbox", None, after='text "City"').name, "Paris", Value)),
         "City: par"),
    Flow("Select2", S2, (Act("remove urgent from the tags",
                             click("button", "Remove item", after='listitem "urgent"')),),
         "Tags: billing"),
    Flow("Select2", S2, (Act("open the tags list", click("searchbox", "Search")),
                         Act("add bug to the tags", click("option", "bug", after="listbox"))),
         "Tags: urgent, billing, bug"),
    Flow("Select2", S2, (Act("type refund into the tags field",
                             Pick("searchbox", "Search", "fill", ("refund",))),
                         Act("press Enter in the tags field",
                             Pick("searchbox", "Search", "press", ("Enter",)))),
         "Tags: urgent, billing, refund"),
    Flow("Select2", S2, (Extract("the tags chosen", names_of(
        "listitem", after='hint="select selection multiple"', until="searchbox"),
        ("urgent", "billing")),), None),
    Flow("Select2", S2, s2_choose("Team", "Support"), "Team: support"),
    Flow("Select2", S2, (s2_open("Team"), Extract(
        "the teams of Operations", names_of("option", after='group "Operations"'),
        ("Support", "Billing"))), None),
    Flow("Select2", S2, (Dialog(True), Act("click Clear the tags",
                                           click("button", "Clear the tags"))), "Tags:"),
    Flow("Select2", S2, (Dialog(False), Act("click Clear the tags",
                                            click("button", "Clear the tags")),
                         Claim("the tags are still urgent and billing",
                               Evidence("listitem", "billing", match="contains",
                                        after='listitem "urgent"'))), "Tags kept"),
    # TinyMCE: menus and a toolbar in the page, the content in the editor's iframe
    Flow("TinyMCE", TMC, (Act("type Version 2 is out into the editor", EDITOR_FILL),),
         "HTML: <p>Version 2 is out</p>"),
    Flow("TinyMCE", TMC, (Act("select all the text in the editor",
                              Pick("generic", "Rich Text Area", "press", ("Control+a",))),
                          Act("make it bold", click("button", "Bold"))),
         "HTML: <p><strong>Hello World!</strong></p><ul><li style=\"font-weight: bold;\">"
         "<strong>Faster search</strong></li><li style=\"font-weight: bold;\"><strong>Dark mode"
         "</strong></li></ul>"),
    Flow("TinyMCE", TMC, (Act("open the Format menu", click("menuitem", "Format")),
                          Extract("the items of the Format menu", lambda lines: [
                              line.name for line in lines[[line.raw for line in lines].index(
                                  "menu"):] if line.role == "menuitem"], FORMAT_MENU)), None),
    Flow("TinyMCE", TMC, (Act("click the Dark mode bullet", click("listitem", ""),
                              shows="Dark mode"),
                          Act("select the whole line",
                              Pick("generic", "Rich Text Area", "press", ("Shift+Home",))),
                          Act("open the Format menu", click("menuitem", "Format")),
                          Act("choose Italic", click("menuitem", "Italic"))),
         "HTML: <p>Hello World!</p><ul><li>Faster search</li><li style=\"font-style: italic;\">"
         "<em>Dark mode</em></li></ul>"),
    Flow("TinyMCE", TMC, (Extract("the bullet points of the notes",
                                  names_of("listitem", after="iframe", shown=True),
                                  ("Faster search", "Dark mode")),), None),
    Flow("TinyMCE", TMC, (Extract("the first line of the notes", lambda lines: next(
        line.text for line in lines if line.role == "paragraph"), "Hello World!", Value),), None),
    Flow("TinyMCE", TMC, (Claim("the editor's first line says Hello World!",
                                Evidence("paragraph", text="Hello World!", match="equals",
                                         after="iframe")),), None),
    Flow("TinyMCE", TMC_FRAME, (Extract("the bullet points of the notes",
                                        names_of("listitem", after="iframe", shown=True),
                                        ("Faster search", "Dark mode")),), None),
    Flow("TinyMCE", TMC_FRAME, (Act("type Version 2 is out into the editor", EDITOR_FILL),),
         "HTML: <p>Version 2 is out</p>", frames=("iframe[title=Editor]",)),
    Flow("TinyMCE", TMC_FRAME, (Act("click the Faster search bullet", click("listitem", ""),
                                    shows="Faster search"),
                                Act("make it a numbered list", click("button", "Numbered list"))),
         "HTML: <p>Hello World!</p><ol><li>Faster search</li><li>Dark mode</li></ol>",
         frames=("iframe[title=Editor]",)),
    # Django's admin, deeper: the lending app's loans and members
    Flow("Django", LOAN_ADD, (*log_in(), *pick_book("Orbital", "Orbital Mechanics Notes"),
                              Act("choose Donald Knuth as the member",
                                  Pick("combobox", "Member:", "select_option",
                                       ("Donald Knuth",))),
                              Act("click Today beside the lent date", click("link", "Today")),
                              Act("click Save", click("button", "Save"))),
         visible=ADDED, table=(loan_query("member_id = 3"), (
             ("Orbital Mechanics Notes", "Donald Knuth", "2025-03-20"),
             ("Orbital Mechanics Notes", "Donald Knuth", TODAY.isoformat()))), server="django"),
    Flow("Django", LOAN_ADD, (*log_in(), Popup((("Name:", "Niklaus Wirth"),), "Save"),
                              Act("add another member", click("link", "Add another member")),
                              Extract("the member chosen", lambda lines: find(
                                  lines, "combobox", "Member:").value("value"), "Niklaus Wirth",
                                  Value),
                              *pick_book("Notes", "Notes on the Analytical Engine"),
                              Act("click Today beside the lent date", click("link", "Today")),
                              Act("click Save", click("button", "Save"))),
         visible=ADDED, table=(loan_query("member_id = 4"), (
             ("Notes on the Analytical Engine", "Niklaus Wirth", TODAY.isoformat()),)),
         server="django"),
    Flow("Django", LOANS, (*log_in(), Act("show the loans not returned",
                                          click("link", "No", after="By returned")),
                           Extract("the books lent", admin_column("Book"), LOAN_BOOKS[1:])),
         address="returned__exact=0", server="django"),
    Flow("Django", LOANS, (*log_in(), Act("show Barbara Liskov's loans",
                                          click("link", "Barbara Liskov", after="By member")),
                           Extract("the books lent", admin_column("Book"),
                                   ("On Computable Numbers", "Notes on the Analytical Engine"))),
         address=r"member__id__exact=2", server="django"),
    Flow("Django", LOANS, (*log_in(), Act("show the loans of 2025", click("link", "2025")),
                           Act("show the loans of March", click("link", "March 2025")),
                           Extract("the books lent", admin_column("Book"), LOAN_BOOKS[1:3])),
         address=r"lent__month=3", server="django"),
    Flow("Django", LOANS, (*log_in(), Extract(
        "the choices of the member filter", names_of("link", after="By member"),
        ("All", "Barbara Liskov", "Donald Knuth", "Edsger Dijkstra")),
        Claim("the list counts 4 loans", Evidence("paragraph", text="4 loans",
                                                  match="equals"))), server="django"),
    Flow("Django", LOANS, (*log_in(), *select_books("Orbital Mechanics Notes"),
                           Act("choose Delete selected loans in the action menu",
                               Pick("combobox", "Action:", "select_option",
                                    ("Delete selected loans",))),
                           Act("click Go", click("button", "Go")),
                           Act("confirm the deletion", click("button", "Yes, I’m sure"))),
         visible=".messagelist .success:has-text('Successfully deleted 1 loan')",
         table=(loan_query(), tuple((title, member, lent) for title, member, lent in (
             ("Computing Machinery and Intelligence", "Edsger Dijkstra", "2025-01-10"),
             ("On Computable Numbers", "Barbara Liskov", "2025-03-05"),
             ("Notes on the Analytical Engine", "Barbara Liskov", "2026-02-14")))),
         server="django"),
    Flow("Django", BARBARA, (*log_in(), Act("add another loan", click("button",
                                                                      "Add another Loan")),
                             Act("type 2026-03-01 as the date it was lent",
                                 Pick("textbox", "", "fill", ("2026-03-01",),
                                      after='row "---------')),
                             Act("choose Orbital Mechanics Notes as its book",
                                 Pick("combobox", "", "select_option",
                                      ("Orbital Mechanics Notes",), after='row "---------')),
                             Act("click Save", click("button", "Save"))),
         visible=".messagelist .success:has-text('was changed successfully')",
         table=(loan_query("member_id = 2"), (
             ("On Computable Numbers", "Barbara Liskov", "2025-03-05"),
             ("Notes on the Analytical Engine", "Barbara Liskov", "2026-02-14"),
             ("Orbital Mechanics Notes", "Barbara Liskov", "2026-03-01"))), server="django"),
    Flow("Django", BARBARA, (*log_in(), Extract("the books Barbara Liskov borrowed", lambda lines: [
        line.value("value") for line in lines if line.role == "combobox"
        and "loan set book" in line.raw], ("On Computable Numbers",
                                             "Notes on the Analytical Engine"))), server="django"),
    # Bootstrap 5: offcanvas, button groups (btn-check), pills, popover, a toast's text
    Flow("Bootstrap", BSM, (Act("open the basket", click("button", "Open basket")),
                            Extract("the items in the basket",
                                    names_of("listitem", after='dialog "Basket"', shown=True),
                                    ("Desk lamp × 2", "Notebook × 5", "Pen × 10"))), None),
    Flow("Bootstrap", BSM, (Act("open the basket", click("button", "Open basket")),
                            Act("click Go to checkout", click("button", "Go to checkout"))),
         "Checking out"),
    Flow("Bootstrap", BSM, (Act("open the basket", click("button", "Open basket")),
                            Act("close the basket", click("button", "Close",
                                                          after='dialog "Basket"'))),
         "Basket closed"),
    Flow("Bootstrap", BSM, (Act("choose Express delivery", click("radio", "Express")),),
         "Delivery: express"),
    Flow("Bootstrap", BSM, (Act("choose Pickup", click("radio", "Pickup")),
                            Extract("whether Pickup is chosen", lambda lines: " checked" in find(
                                lines, "radio", "Pickup").rest, True, Pickup)),
         "Delivery: pickup"),
    Flow("Bootstrap", BSM, (Act("tick Gift wrap", click("checkbox", "Gift wrap")),),
         "Gift wrap: yes"),
    Flow("Bootstrap", BSM, (Act("click + in the quantity group", click("button", "+")),
                            Act("click + again", click("button", "+"))), "Quantity: 3"),
    Flow("Bootstrap", BSM, (Act("open the Bank transfer pill", click("tab", "Bank transfer")),
                            Extract("the IBAN to pay to", lambda lines: terms(lines)["IBAN"],
                                    "GB33 BUKB 2020 1555 5555 55", Value)),
         "Payment: Bank transfer"),
    Flow("Bootstrap", BSM, (Act("click Return policy", click("button", "Return policy")),
                            Extract("what the popover says", lambda lines: next(
                                line.name for line in lines if line.role == "tooltip"),
                                "Returns Free returns within 30 days.", Value)), None),
    Flow("Bootstrap", BSM, (Act("click Apply coupon", click("button", "Apply coupon")),
                            Extract("the message of the toast", names_of(
                                "text", after='text "Coupon"', until="paragraph"),
                                ("SPRING10 takes 10% off.",)),
                            Claim("a toast says SPRING10 takes 10% off",
                                  Evidence(page_text="SPRING10 takes 10% off."))),
         None),
    # jQuery UI: selectmenu, spinner, slider, datepicker menus, categories, a form dialog
    Flow("jQuery UI", JQM, (SPEED_MENU,
                            Act("choose Fast", click("option", "Fast"))), "Speed: Fast"),
    Flow("jQuery UI", JQM, (SPEED_MENU,
                            Extract("the speeds offered", names_of("option", after="listbox"),
                                    ("Slower", "Slow", "Medium", "Fast", "Faster"))), None),
    Flow("jQuery UI", JQM, (Act("press ArrowUp in the quantity spinner",
                                Pick("spinbutton", "Quantity:", "press", ("ArrowUp",))),),
         "Quantity: 3"),
    Flow("jQuery UI", JQM, (Act("press ArrowRight on the volume slider's handle",
                                Pick("generic", "", "press", ("ArrowRight",),
                                     after="Volume: 40")),), "Volume: 50"),
    Flow("jQuery UI", JQM, (Act("open the birthday picker", click("textbox", "Birthday:")),
                            Act("choose Jul in the month menu",
                                Pick("combobox", "Select month", "select_option", ("Jul",))),
                            Act("pick the 21st", click("link", "21"))), "Birthday: 1990-07-21"),
    Flow("jQuery UI", JQM, (Act("type an into the Search field", Pick("textbox", "Search:", "type",
                                                                      ("an",))),
                            Act("choose andreas johnson", click("listitem", ""),
                                shows="andreas johnson")), "Search: andreas johnson"),
    Flow("jQuery UI", JQM, (Act("type an into the Search field", Pick("textbox", "Search:", "type",
                                                                      ("an",))),
                            Extract("the suggestions under People", lambda lines: [
                                line.raw.rsplit(": ", 1)[1] for line in names_lines(
                                    lines, "listitem", "listitem: People")],
                                    ("anders andersson", "andreas andersson", "andreas johnson"))),
         None),
    Flow("jQuery UI", JQM, (Act("click Add a user", click("button", "Add a user")),
                            Act("type Ada into the name field", fill("Name", "Ada")),
                            Act("type ada@example.com into the email field",
                                fill("Email", "ada@example.com")),
                            Act("click Create an account", click("button", "Create an account")),
                            Extract("the names of the users", admin_column("Name"),
                                    ("John Doe", "Ada"))), "Created: Ada"),
    Flow("jQuery UI", JQM, (Dialog(True), Act("click Reset the order",
                                              click("button", "Reset the order"))), "Order reset"),
    Flow("jQuery UI", JQM, (Dialog(False), Act("click Reset the order",
                                               click("button", "Reset the order"))), "Order kept"),
])


# --- the scripted widgets oracle -------------------------------------------------------------


def oracle(flow: Flow) -> Callable[[ScriptedRequest], dict[str, Any]]:
    """Answers `flow`'s acts and extracts by reading the snapshot each prompt carries."""
    acts = {step.instruction: step for step in flow.steps if isinstance(step, Act)}
    extracts = {step.instruction: step for step in flow.steps if isinstance(step, Extract)}
    claims = {step.instruction: step for step in flow.steps if isinstance(step, Claim)}

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        prompt = request.text
        if "\n\nClaim: " in prompt:
            return judged(prompt, claims[asked(prompt, "Claim")].evidence)
        if "\n\nExtract: " in prompt:
            step = extracts[asked(prompt, "Extract")]
            return step.answer(step.read(snapshot_lines(prompt)))
        act = acts[asked(prompt, "Instruction")]
        pick, lines = act.pick, snapshot_lines(prompt)
        if act.row is not None:
            line = in_row(lines, pick.role, act.row)
        elif act.shows is not None:
            line = showing(lines, pick.role, act.shows)
        else:
            line = find(lines, pick.role, pick.name, prefix=pick.prefix, after=pick.after)
        if line is None and act.hinted is not None:
            line = hinting(lines, *act.hinted)
        onto = None if act.onto is None else (find(lines, *act.onto)
                                               or showing(lines, *act.onto))
        if line is None or (act.onto is not None and onto is None):
            return {"found": False, "element_id": None, "method": pick.method,
                    "arguments": [], "description": "not on the page", "two_step": False}
        arguments = [onto.id] if onto is not None else list(pick.arguments)
        return {"found": True, "element_id": line.id, "method": pick.method,
                "arguments": arguments, "description": f'{pick.role} "{line.name}"',
                "two_step": False}

    return answer


def showing(lines: list[Line], role: str, text: str) -> Line | None:
    """The first `role` element with an id whose line shows `text` (`listitem: Set up CI`)."""
    return next((line for line in lines if line.id and line.role == role
                 and line.raw.endswith(f": {text}")), None)


def hinting(lines: list[Line], role: str, says: tuple[str, ...]) -> Line | None:
    """The first unnamed `role` element with an id whose hint says each of `says`."""
    return next((line for line in lines if line.id and line.role == role and not line.name
                 and all(part in (line.value("hint") or "") for part in says)), None)


def in_row(lines: list[Line], role: str, key: str) -> Line | None:
    """The first `role` element in the table row whose row header is `key`."""
    for at, row in enumerate(lines):
        if row.role == "row":
            inside = list(takewhile(lambda line, row=row: line.depth > row.depth,
                                    lines[at + 1:]))
            if any(line.role == "rowheader" and line.name == key for line in inside):
                return next((line for line in inside if line.role == role and line.id), None)
    return None


# --- running a flow ------------------------------------------------------------------------


def run(ai: AIPage, flow: Flow, app: Served) -> tuple[list[list[str]], str]:
    """Do the flow; returns what each extract gave, and how the page ended unlike it must
    ("" when it ended as it must)."""
    page = ai.page
    ai.goto(flow.url)
    extracted = []
    for step in flow.steps:
        if isinstance(step, Dialog):
            page.once("dialog", (lambda d, s=step: d.accept(s.text) if s.accept
                                 else d.dismiss()))
        elif isinstance(step, Popup):
            page.once("popup", step.handle)
        elif isinstance(step, Act):
            ai.act(step.instruction, variables={
                name: value for name, value in (*app.variables.items(), *step.values)
                if f"%{name}%" in step.instruction} or None)
        elif isinstance(step, Claim):
            ai.assert_that(step.instruction)
        else:
            got = step.got(ai.extract(step.instruction, schema=step.schema))
            extracted.append(got)
    return extracted, unlike(page, flow, app)


def unlike(page: Page, flow: Flow, app: Served) -> str:
    """How the app itself, read with plain Playwright (or its database), differs from the
    flow's end."""
    if flow.table is not None and app.rows is not None:
        query, rows = flow.table
        found = tuple(app.rows(query))
        if found != rows:
            return f"its database holds {found}"
    if flow.shows is not None:
        scope: Any = page
        for selector in flow.frames:
            scope = scope.frame_locator(selector)
        chosen = scope.locator("#chosen")
        try:  # as a test's `expect` would: an app may report when its transition ends
            expect(chosen).to_have_text(flow.shows, timeout=WAIT_MS)
        except AssertionError:
            return f"the page says {chosen.inner_text(timeout=WAIT_MS)!r}"
    if flow.address is not None and not re.search(flow.address, page.url):
        return f"the page is at {page.url}"
    # As a test's `expect` would: an app may draw what a click did on its next tick.
    for selector, state in ((flow.visible, "visible"), (flow.hidden, "hidden")):
        if selector is None:
            continue
        try:
            page.locator(selector).first.wait_for(state=state, timeout=WAIT_MS)
        except PlaywrightTimeoutError:
            return f"{selector} is {'not shown' if state == 'visible' else 'still shown'}"
    if flow.todos is not None:
        todos = page.locator("#todo-list li label")  # this build's ids
        try:
            expect(todos).to_have_text(list(flow.todos), timeout=WAIT_MS)
        except AssertionError:
            return f"the todos are {tuple(todos.all_inner_texts())}"
    return ""


def serving(url: str, body: bytes) -> Callable[[Route], None]:
    """A route handler answering with `body` (served as `url`'s kind of file)."""
    kind = {"html": "text/html", "css": "text/css"}.get(url.rsplit(".", 1)[-1], "text/javascript")
    return lambda route: route.fulfill(body=body, content_type=kind)


def attempt(
    browser: Browser, server: ScriptedModelServer, store: RecordingStore, test_file: Path,
    mode: str, flow: Flow, app: Served, swap: dict[str, bytes] | None = None,
) -> tuple[list[list[str]] | None, str, str, list[str], int]:
    """One run of `flow` in a fresh context on the app as it was built: extracts, how the
    page ended unlike it must, the error, heals, model calls."""
    app.reset()
    base = app.url
    context = browser.new_context()
    for url, body in (swap or {}).items():  # another release of the UI at the same URL
        context.route(base + url, serving(url, body))
    page = context.new_page()
    calls = server.calls
    try:
        with recorded_ai_page(page, server, store, test_file, mode, base_url=base,
                              wait_timeout=WAIT_MS) as ai:
            try:
                extracted, ended = run(ai, flow, app)
                error = ""
            except Exception as error_raised:  # the bench reports every failure
                extracted, ended = None, ""
                error = f"{type(error_raised).__name__}: {' '.join(str(error_raised).split())}"
            heals = [f"{e.instruction!r}: {e.heal.strategy} {e.heal.before} -> {e.heal.after}"
                     f" (changed: {', '.join(e.heal.changed) or 'nothing named'}; decided by"
                     f" {', '.join(e.heal.decided_by) or 'score'})"
                     for e in ai.steplog.events if e.heal is not None]
    finally:
        context.close()
    return extracted, ended, error, heals, server.calls - calls


def measure(browser: Browser, server: ScriptedModelServer, app: Served, flow: Flow,
            swap: dict[str, bytes] | None = None, replay_on: Served | None = None) -> Outcome:
    """Record `flow` on `app`, then replay it offline (on `replay_on`: another release of
    the app, served at another port, when given)."""
    outcome = Outcome()
    server.default = oracle(flow)
    truths = [step.expected for step in flow.steps if isinstance(step, Extract)]
    with tempfile.TemporaryDirectory() as tmp:
        store = RecordingStore(Path(tmp) / "store")
        test_file = Path(tmp) / "test_flow.py"
        try:
            got, ended, error, _, _ = attempt(
                browser, server, store, test_file, "auto", flow, app)
            outcome.recorded = not error and not ended and got == truths
            if not outcome.recorded:
                why = error or f"{ended or 'ended as it must'}, extracted {got}"
                outcome.error = f"record: {why}"
                return outcome
            got, ended, error, outcome.heals, calls = attempt(
                browser, server, store, test_file, "offline", flow, replay_on or app, swap)
        finally:
            store.close()
    if error:
        outcome.error = f"replay: {error}"
        return outcome
    outcome.wrong = bool(ended)
    outcome.false_pass = got != truths
    outcome.replayed = not ended and got == truths and calls == 0
    if not outcome.replayed:
        outcome.error = f"replay: {ended or 'ended as it must'}, extracted {got}, calls {calls}"
    return outcome


# --- Django's admin and Datasette, from PyPI -----------------------------------------------


@contextmanager
def django_admin(folder: Path, django_path: Path | None = None) -> Iterator[Served | None]:
    """Django's admin (tests/django_admin.py) on a project made in `folder`, served by the
    installed Django or the release `pip install --target django_path` put there; None when
    Django is not installed."""
    if django_path is None and importlib.util.find_spec("django") is None:
        yield None
        return
    folder.mkdir()
    admin = DjangoAdmin(folder, django_path).start()
    try:
        yield Served(admin.url().rstrip("/"), {"password": admin.password}, admin.reset,
                     admin.rows, admin.version)
    finally:
        admin.close()



@contextmanager
def datasette(folder: Path) -> Iterator[Served | None]:
    """Datasette serving bookshop.db (BOOK_ROWS) on 127.0.0.1, or None when Datasette is
    not installed (pip install datasette)."""
    command = shutil.which("datasette", path=str(Path(sys.executable).parent)) or shutil.which(
        "datasette")
    if command is None:
        yield None
        return
    database = folder / "bookshop.db"
    with sqlite3.connect(database) as connection:
        connection.execute("create table books (id integer primary key, title text, "
                           "author text, year integer)")
        connection.executemany("insert into books (title, author, year) values (?, ?, ?)",
                               BOOK_ROWS)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [command, "serve", str(database), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):  # until it answers (it starts in about a second)
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield Served(url)
    finally:
        process.terminate()
        process.wait()


@contextmanager
def tiddlywiki(folder: Path) -> Iterator[Served | None]:
    """TiddlyWiki's empty edition built by its own command line (tests/real) into one file,
    served on 127.0.0.1 as its users keep it; None without Node.js."""
    node = shutil.which("node")
    if node is None:
        yield None
        return
    wiki = REAL / "node_modules/tiddlywiki"
    subprocess.run([node, str(wiki / "tiddlywiki.js"), str(wiki / "editions/empty"), "--output",
                    str(folder), "--render", "$:/core/save/all", "empty.html", "text/plain"],
                   check=True, capture_output=True)
    server = PagesServer(root=folder).start()
    try:
        yield Served(server.url().rstrip("/"))
    finally:
        server.close()


@contextmanager
def jupyterlab(folder: Path) -> Iterator[Served | None]:
    """JupyterLab (PyPI) on 127.0.0.1 over a folder holding notes.txt, with no token; each
    run starts from that folder and a fresh layout (`?reset`). None when it is not
    installed (pip install jupyterlab)."""
    command = shutil.which("jupyter-lab", path=str(Path(sys.executable).parent)) or shutil.which(
        "jupyter-lab")
    if command is None:
        yield None
        return
    root, settings = folder / "lab", folder / "lab-settings"

    def reset() -> None:
        shutil.rmtree(settings, ignore_errors=True)  # the theme a flow chose, its layout
        while root.exists():  # the server may still be writing in it (a checkpoint)
            shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        (root / "notes.txt").write_text("Milk and eggs\n")

    reset()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [command, "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--IdentityProvider.token=", f"--ServerApp.root_dir={root}",
         f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={settings}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # until it answers (it starts in a few seconds)
            try:
                urllib.request.urlopen(url + "/lab", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield Served(url, reset=reset)
    finally:
        process.terminate()
        process.wait()


# --- the real redesign: one release recorded, another replayed -----------------------------

JQ_112 = REAL / "node_modules/jquery-ui-1.12"


def released(*files: Path) -> bytes:
    """A release's files as one script or style sheet: jQuery UI 1.12 on npm ships its
    modules one by one (each runs on the jQuery global), not a built bundle."""
    return b"\n".join(file.read_bytes() for file in files)


def jquery_ui_112() -> dict[str, bytes]:
    modules = ("version", "keycode", "position", "safe-active-element", "unique-id", "widget",
               "widgets/menu")
    return {
        "/node_modules/jquery-ui/dist/jquery-ui.js":
            released(*(JQ_112 / "ui" / f"{name}.js" for name in modules)),
        "/node_modules/jquery-ui/dist/themes/base/jquery-ui.css":
            released(*(JQ_112 / "themes/base" / f"{name}.css" for name in
                       ("core", "menu", "theme"))),
    }


SWAGGER_4 = REAL / "node_modules/swagger-ui-dist-4"


def swagger_ui_4() -> dict[str, bytes]:
    return {f"/node_modules/swagger-ui-dist/{name}": (SWAGGER_4 / name).read_bytes()
            for name in ("swagger-ui-bundle.js", "swagger-ui.css")}


# Each: its name, the other release's files by URL, the pages it serves, and what the
# page says of the version it runs (checked before replaying, so the swap is not assumed).
REDESIGNS: list[tuple[str, Callable[[], dict[str, bytes]], tuple[str, ...], str]] = [
    ("jQuery UI 1.14 -> 1.12", jquery_ui_112, (JQ, JQ_LINKS), "$.ui.version"),
    ("Bootstrap 5 -> 4 markup",
     lambda: {BS: (REAL / "pages/bootstrap4-dropdown.html").read_bytes()}, (BS,),
     "bootstrap.Dropdown.VERSION"),
    ("DataTables 3 -> 1.13", lambda: {DT: (REAL / "pages/datatables1.html").read_bytes()}, (DT,),
     "(window.jQuery?.fn.dataTable ?? window.DataTable).version"),
    ("Swagger UI 5 -> 4", swagger_ui_4, (SWAGGER,),
     "(window.versions?.swaggerUI || window.versions?.swaggerUi)?.version"),
]


def served(browser: Browser, base: str, url: str, swap: dict[str, bytes], version: str) -> str:
    """The version the page says it runs with the other release swapped in."""
    context = browser.new_context()
    for path, body in swap.items():
        context.route(base + path, serving(path, body))
    page = context.new_page()
    try:
        page.goto(base + url)
        return str(page.wait_for_function(f"() => {version}", timeout=WAIT_MS).json_value())
    finally:
        context.close()


# --- React component libraries: Ant Design (5, and 4 for the redesign) and MUI ---------------
# Their UMD builds on npm with React 18, set up by host pages with no bundler (the app
# written with htm): antd's searchable Select over a virtual list, DatePicker, Table (sorter,
# filter dropdown, pages, a row's action), Modal.confirm, a Dropdown opened on hover, Tabs, a
# Form's validation messages, Cascader, Tree and Transfer; MUI's Autocomplete, Menu, Dialog,
# Select, Tabs, Accordion and Snackbar.

AD = "/pages/antd.html"
AD4 = "/pages/antd4.html"
MU = "/pages/mui.html"
AD_PEOPLE = (("Ada Lovelace", 36, "London"), ("Grace Hopper", 85, "Arlington"),
             ("Alan Turing", 41, "Wilmslow"), ("Katherine Johnson", 101, "Hampton"),
             ("Linus Torvalds", 55, "Portland"), ("Margaret Hamilton", 34, "Boston"),
             ("Tim Berners-Lee", 35, "London"), ("Barbara Liskov", 49, "Boston"))
AD_NAMES = tuple(name for name, _, _ in AD_PEOPLE)
MU_COUNTRIES = (  # tests/real/pages/mui.html
    "Argentina", "Australia", "Austria", "Belgium", "Brazil", "Canada", "Chile", "Denmark",
    "Finland", "France", "Germany", "Greece", "Iceland", "India", "Ireland", "Italy", "Japan",
    "Kenya", "Mexico", "Netherlands", "New Zealand", "Norway", "Portugal", "Spain", "Sweden",
    "Switzerland", "United Kingdom", "Uruguay")
BILLING = ("Plan: Team", "Seats: 12", "Renews: May 1, 2026")


def ad_office(typed: str, city: str) -> tuple[Step, ...]:
    """Search antd's Select (its options drawn by a virtual list) and choose `city`."""
    return (Act(f"type {typed} into the Office field", fill("Office", typed, "combobox")),
            Act(f"choose {city} as the office", click("generic", city)))


def ad_team(lines: list[Line]) -> list[dict[str, Any]]:
    """Each row of antd's team table on the page shown: name, city (its header also names
    the filter button in it) and age."""
    return [{"name": row["Name"], "city": row["City filter"], "age": int(row["Age"])}
            for row in rows_under("Age", lines)]


def ad_members(*names: str) -> tuple[dict[str, Any], ...]:
    ages = {name: (age, city) for name, age, city in AD_PEOPLE}
    return tuple({"name": name, "city": ages[name][1], "age": ages[name][0]} for name in names)


def ad_messages(lines: list[Line]) -> list[str]:
    """The validation messages of antd's sign-up form, under its fields: text (antd 5), or
    alerts (antd 4 gives each message that role)."""
    start = next((at + 1 for at, line in enumerate(lines) if 'heading "Sign up"' in line.raw),
                 len(lines))
    inside = takewhile(lambda line: 'button "Sign up"' not in line.raw, lines[start:])
    return [line.name or line.text for line in inside if line.role in ("text", "alert")]


def ad_form(*fields: tuple[str, str]) -> tuple[Step, ...]:
    return (*(Act(f"type {text} into the {label} field", fill(f"* {label}", text))
              for label, text in fields),
            Act("click Sign up", click("button", "Sign up")))


def ad_flows(app: str, url: str) -> list[Flow]:
    """The Ant Design flows on the host page at `url` (antd 5, or the same app on antd 4)."""
    return [
        Flow(app, url, ad_office("Zür", "Zürich"), "Office: Zürich"),
        Flow(app, url, ad_office("Val", "Valletta"), "Office: Valletta"),
        Flow(app, url, (Act("type be into the Office field", fill("Office", "be", "combobox")),
                        Extract("the offices suggested", names_of(  # drawn after the page
                            "generic", after="paragraph: Nothing chosen"),
                            ("Belgrade", "Berlin", "Bern"))), None),
        Flow(app, url, (Act("open the departure date picker", click("textbox", "Departure")),
                        Act("pick the 21st", click("cell", "21"))), "Departure: 2026-03-21"),
        Flow(app, url, (Act("open the departure date picker", click("textbox", "Departure")),
                        Act("go to the next month", click("button", "Next month (PageDown)"),
                            hinted=("button", ("picker header next",))),
                        Act("pick April 2", click("cell", "2"))), "Departure: 2026-04-02"),
        Flow(app, url, (Act("sort the team by age", click("columnheader", "Age")),
                        Extract("the names in the team table", admin_column("Name"),
                                ("Margaret Hamilton", "Tim Berners-Lee", "Ada Lovelace",
                                 "Alan Turing", "Barbara Liskov"))), None),
        Flow(app, url, (Act("open the filter of the City column",
                            click("button", "", after='columnheader "City')),
                        Act("tick London", click("menuitem", "London")),
                        Act("click OK", click("button", "OK")),
                        Extract("the names in the team table", admin_column("Name"),
                                ("Ada Lovelace", "Tim Berners-Lee"))), None),
        Flow(app, url, (Act("go to page 2 of the team", click("listitem", "2")),
                        Extract("each team member's name, city and age", ad_team, ad_members(
                            "Margaret Hamilton", "Tim Berners-Lee", "Barbara Liskov"), Members)),
             "Team page: 2"),
        Flow(app, url, (Extract("each team member's name, city and age", ad_team,
                                ad_members(*AD_NAMES[:5]), Members),), None),
        Flow(app, url, (Act("invite Grace Hopper", click("generic", "", after='"Grace Hopper"')),),
             "Invited: Grace Hopper"),
        Flow(app, url, (Act("click Delete project", click("button", "Delete project")),
                        Act("confirm with Delete", click("button", "Delete", after="dialog")),
                        Claim("the page says the project was deleted",
                              Evidence("paragraph", text="Project deleted", match="equals"))),
             "Project deleted"),
        Flow(app, url, (Act("click Delete project", click("button", "Delete project")),
                        Act("keep the project", click("button", "Keep it"))), "Project kept"),
        Flow(app, url, (Act("hover over Account", Pick("generic", "", "hover"), shows="Account"),
                        Act("click Settings in the Account menu", click("menuitem", "Settings"))),
             "Account: Settings"),
        Flow(app, url, (Act("hover over Account", Pick("generic", "", "hover"), shows="Account"),
                        Extract("the items of the Account menu", names_of("menuitem"),
                                ("Profile", "Settings", "Sign out"))), None),
        Flow(app, url, (Act("open the Billing tab", click("tab", "Billing")),
                        Extract("the billing details", names_of(
                            "listitem", after='tabpanel "Billing"', until="heading", shown=True),
                            BILLING)),
             "Tab: billing"),
        Flow(app, url, (Act("click Sign up", click("button", "Sign up")),
                        Extract("the messages of the sign-up form", ad_messages,
                                ("Please enter a username", "Please enter your email"))), None),
        Flow(app, url, (*ad_form(("Username", "ada"), ("Email", "ada")),
                        Extract("what the form says of the email", lambda lines: ad_messages(
                            lines)[-1], "That is not a valid email", Value)), None),
        Flow(app, url, ad_form(("Username", "ada"), ("Email", "ada@example.com")),
             "Signed up: ada"),
        Flow(app, url, (Act("open the Destination list", click("combobox", "Destination")),
                        Act("choose Europe", click("menuitemcheckbox", "Europe", prefix=True)),
                        Act("choose France", click("menuitemcheckbox", "France", prefix=True)),
                        Act("choose Paris", click("menuitemcheckbox", "Paris", prefix=True))),
             "Destination: europe / france / paris"),
        Flow(app, url, (Act("expand Fruits in the garden tree",
                            click("generic", "", after="tree")),
                        Act("tick Apples", click("checkbox", "Select Apples"),
                            hinted=("generic", ("checkbox", "text after it: Apples")))),
             "Garden: apples"),
        Flow(app, url, (Act("tick Vegetables", click("checkbox", "Select Vegetables"),
                            hinted=("generic", ("checkbox", "text after it: Vegetables"))),),
             "Garden: vegetables, carrots, leeks"),
        Flow(app, url, (Act("tick Push in the Off list", click("checkbox", "",
                                                               after='listitem "Push"')),
                        Act("move it to the On list", click("button", "", after='text "Off"'))),
             "On: email, push"),
        Flow(app, url, (Extract("the channels that are off", names_of(
            "listitem", after='text "Off"', until='text "On"'), ("SMS", "Push", "Post", "Phone")),),
             None),
    ]


def mu_country(typed: str, country: str) -> tuple[Step, ...]:
    return (Act(f"type {typed} into the Country field", fill("Country", typed, "combobox")),
            Act(f"choose {country}", click("option", country)))


FLOWS += [
    *ad_flows("Ant Design", AD),
    *ad_flows("Ant Design 4", AD4),
    Flow("MUI", MU, mu_country("Swi", "Switzerland"), "Country: Switzerland"),
    Flow("MUI", MU, (Act("open the Country list", click("button", "Open")),
                     Act("choose Norway", click("option", "Norway"))), "Country: Norway"),
    Flow("MUI", MU, (Act("type an into the Country field", fill("Country", "an", "combobox")),
                     Extract("the countries suggested", names_of("option"), tuple(
                         country for country in MU_COUNTRIES if "an" in country.lower()))),
         None),
    Flow("MUI", MU, (Act("open the Actions menu", click("button", "Actions")),
                     Act("click Archive", click("menuitem", "Archive"))), "Menu: Archive"),
    Flow("MUI", MU, (Act("open the Actions menu", click("button", "Actions")),
                     Extract("the items of the Actions menu", names_of("menuitem"),
                             ("Duplicate", "Archive", "Export"))), None),
    Flow("MUI", MU, (Act("click Leave the team", click("button", "Leave the team")),
                     Act("confirm with Leave", click("button", "Leave"))), "Left the team"),
    Flow("MUI", MU, (Act("click Leave the team", click("button", "Leave the team")),
                     Claim("the dialog says access to the projects will be lost",
                           Evidence("paragraph", text="You will lose access to its projects.",
                                    match="equals", after='dialog "Leave the team?"')),
                     Act("stay in the team", click("button", "Stay"))), "Still in the team"),
    Flow("MUI", MU, (Act("open the Plan select", click("combobox", "Plan")),
                     Act("choose Team as the plan", click("option", "Team"))), "Plan: team"),
    Flow("MUI", MU, (Act("open the Plan select", click("combobox", "Plan")),
                     Extract("the plans the Plan select offers", names_of("option"),
                             ("Free", "Team", "Enterprise"))), None),
    Flow("MUI", MU, (Act("open the Billing tab", click("tab", "Billing")),
                     Extract("the billing details", names_of(
                         "listitem", after='tabpanel "Billing"', shown=True), BILLING)),
         "Tab: Billing"),
    Flow("MUI", MU, (Act("expand How do I cancel?", click("button", "How do I cancel?")),
                     Extract("the answer to How do I cancel?", lambda lines: next(
                         line.text for line in lines if line.role == "region"),
                         "Write to support before your renewal date.", Value)),
         "Answer: cancel"),
    Flow("MUI", MU, (Act("click Archive note", click("button", "Archive note")),
                     Extract("the message of the snackbar", lambda lines: next(
                         line.text for line in lines if line.role == "alert"),
                         "Note archived", Value)), None),
    Flow("MUI", MU, (Act("click Archive note", click("button", "Archive note")),
                     Claim("a message says the note was archived",
                           Evidence("alert", text="Note archived", match="equals"))), None),
]


def antd_release(page: str) -> Callable[[], dict[str, bytes]]:
    """The Ant Design host page at `page`'s URL swapped for the other one: the same app on
    the other release, with that release's style sheet and date library."""
    other = {AD: "antd4.html", AD4: "antd.html"}[page]
    return lambda: {page: (REAL / "pages" / other).read_bytes()}


REDESIGNS += [
    ("Ant Design 5 -> 4", antd_release(AD), (AD,), "antd.version"),
    ("Ant Design 4 -> 5", antd_release(AD4), (AD4,), "antd.version"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append",
                        help="run only this app's flows (e.g. Shoelace); may be repeated")
    parser.add_argument("--errors", action="store_true", help="print each failure")
    parser.add_argument("--other-django", type=Path, metavar="FOLDER",
                        help="another Django release (pip install --target FOLDER "
                             "django==4.2.30): Django's flows recorded on each release are "
                             "replayed offline on the other")
    options = parser.parse_args()
    flows = [flow for flow in FLOWS if options.only is None or flow.app in options.only]
    chromium = find_chromium()
    server = RealWidgetsServer().start()
    base = server.url().rstrip("/")
    results: dict[str, list[tuple[Flow, Outcome]]] = {}
    django_flows = [flow for flow in flows if flow.server == "django"]
    needed = {flow.server for flow in flows}
    with (ScriptedModelServer() as model, sync_playwright() as playwright,
          tempfile.TemporaryDirectory() as folder, ExitStack() as stack):
        # Each app from PyPI or built by its own tools is started only for its flows.
        starts = {"datasette": datasette, "tiddlywiki": tiddlywiki, "jupyterlab": jupyterlab}
        apps: dict[str, Served | None] = {"npm": Served(base)}
        apps |= {name: stack.enter_context(start(Path(folder)))
                 for name, start in starts.items() if name in needed}
        other = None
        if django_flows:
            apps["django"] = stack.enter_context(django_admin(Path(folder) / "django"))
            if options.other_django:
                other = stack.enter_context(
                    django_admin(Path(folder) / "other-django", options.other_django))
        django = apps.get("django")
        missing = {"jupyterlab": "JupyterLab is not installed (pip install jupyterlab)",
                   "tiddlywiki": "Node.js is not installed",
                   "datasette": "Datasette is not installed (pip install datasette)",
                   "django": "Django is not installed (pip install django)"}
        for name in sorted(needed & missing.keys()):
            if apps.get(name) is None:
                print(f"{missing[name]}: its flows are left out")
        browser = playwright.chromium.launch(
            executable_path=chromium.executable_path, args=list(chromium.args))
        for flow in flows:
            if (app := apps[flow.server]) is not None:
                outcome = measure(browser, model, app, flow)
                results.setdefault(flow.app, []).append((flow, outcome))
        print_apps(results, options.errors)
        print("\nReal redesign: recorded on one release, replayed offline on another")
        for name, release, urls, version in REDESIGNS:
            group = [flow for flow in flows if flow.url in urls]
            if group:
                swap = release()
                runs = [(flow, measure(browser, model, Served(base), flow, swap))
                        for flow in group]
                print_redesign(f"{name} (runs {served(browser, base, urls[0], swap, version)})",
                               runs)
        if django is not None and other is not None:
            for one, another in ((django, other), (other, django)):
                runs = [(flow, measure(browser, model, one, flow, replay_on=another))
                        for flow in django_flows]
                print_redesign(f"Django admin {one.version} -> {another.version}", runs)
        browser.close()
    server.close()


def describe(flow: Flow) -> str:
    return " / ".join(step.instruction for step in flow.steps if not isinstance(step, Dialog))


def print_apps(results: dict[str, list[tuple[Flow, Outcome]]], errors: bool) -> None:
    print(f"{'app':<12} {'flows':>5} {'recorded':>9} {'replayed':>9} {'wrong':>6} "
          f"{'false pass':>10}")
    totals = [0] * 5
    for app, runs in results.items():
        row = [len(runs), sum(o.recorded for _, o in runs), sum(o.replayed for _, o in runs),
               sum(o.wrong for _, o in runs), sum(o.false_pass for _, o in runs)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{app:<12} {row[0]:>5} {row[1]:>9} {row[2]:>9} {row[3]:>6} {row[4]:>10}")
    print(f"{'all':<12} {totals[0]:>5} {totals[1]:>9} {totals[2]:>9} {totals[3]:>6} "
          f"{totals[4]:>10}   self-replay {totals[2] / max(totals[1], 1):.0%} of recorded "
          "(target 100%, wrong 0, false pass 0)")
    for app, runs in results.items():
        for flow, outcome in runs:
            if outcome.error and (errors or not outcome.replayed):
                print(f"  {app}: {describe(flow)}\n    {outcome.error[:3000]}")


def print_redesign(name: str, runs: list[tuple[Flow, Outcome]]) -> None:
    recorded = [o for _, o in runs if o.recorded]
    print(f"{name}: {len(runs)} flows, {len(recorded)} recorded, "
          f"{sum(o.replayed for o in recorded)} replayed, "
          f"{sum(bool(o.heals) and o.replayed for o in recorded)} of them with heals, "
          f"{sum(bool(o.error) for o in recorded)} refused, "
          f"{sum(o.wrong or o.false_pass for o in recorded)} wrong")
    for flow, outcome in runs:
        for heal in outcome.heals:
            print(f"  healed  {describe(flow)}: {heal}")
        if outcome.error:
            verdict = "refused" if outcome.recorded else "not recorded"
            print(f"  {verdict} {describe(flow)}:\n    {outcome.error[:700]}")


if __name__ == "__main__":
    main()
