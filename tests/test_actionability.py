"""A click or check beside Playwright's own on the same control (real Chromium): where
Playwright's action succeeds, the plugin's does; where Playwright refuses because something
that is not the control covers it, the plugin refuses too, naming the cover, and clicks
nothing. Only the control's own drawing (its label, the slider of its own switch) stands
in for it, and a forced click goes to a cover only where the outcome is checked or the
recording names that very cover."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from scripted_answers import act_answer, choose, latest_snapshot

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.perform import NotPerformed, perform
from pytest_stagehand.browser.watch import PageWatch, PageWatches
from pytest_stagehand.errors import ElementCovered
from pytest_stagehand.pipelines.replay import RecordingResolver
from pytest_stagehand.recordings.store import Recordings


def watch_of(page: Page) -> PageWatch:
    """A watch of `page`, as an AIPage keeps one: what perform and settle read of it."""
    return PageWatches(page).current


REFUSE_MS = 2500  # a refusal waits this long, as Playwright waits for a cover to go

# case: (Playwright's locator, the plugin's action's selector and frame, the method, what
# the page logs when the control itself takes it)
CASES = {
    "coach-mark": ("role=button[name='Save']", "button", (), "click", "save"),
    "pointer-events-none-button": (
        "role=button[name='Choose plan']", ".card button", (), "click", "choose"),
    "click-outside-layer": ("role=button[name='Bold']", "[role=toolbar] button + div + button",
                            (), "click", "bold"),
    "dialog-backdrop": ("role=button[name='Export']", "section > button", (), "click", "export"),
    "cookie-banner": ("role=button[name='Pay now']", "main button", (), "click", "pay"),
    "transparent-input-over-label": (
        "role=checkbox[name=/Mark all as complete/]", "#toggle-all", (), "check", "toggle-all"),
    "link-in-label": ("role=checkbox[name=/I accept/]", "#accept", (), "check", "accept"),
    "slides-away-on-hover": ("role=button[name='Archive']", ".slide", (), "click", "archive"),
    "re-rendered": ("role=button[name='Refresh']", "#list button", (), "click", "refresh"),
    "moving-in": ("role=button[name='Continue']", "#arriving", (), "click", "arrived"),
    "cover-that-leaves": ("role=button[name='Retry']", ".row > button", (), "click", "retry"),
    "partly-covered": ("role=button[name='Send']", ".row > button", (), "click", "send"),
    "zoomed": ("role=button[name='Zoomed']", ".zoomed button", (), "click", "zoom"),
    "transparent-button": ("role=button[name='Open gallery']", ".ghost", (), "click", "ghost"),
    "frame-covered": ("role=button[name='Framed']", "button", ("#framed",), "click", "framed"),
    "frame-clear": ("role=button[name='Framed']", "button", ("#framed",), "click", "framed"),
    "shadow-covered": ("role=button[name='Shadowed']", "#host button", (), "click", "shadowed"),
}
# Covered by their own drawing: Playwright waits for the cover to go; a person clicks what
# the control draws itself with (the label the browser forwards the click from, or the
# slider of its own switch, its outcome checked).
OWN_DRAWING = {
    "switch-with-label": ("#dark", "dark", 'label "Dark mode"'),
    "check-under-its-label": ("#remember", "remember", 'label "Remember me"'),
    # Its label lies over it and holds a link at its middle: the label is clicked over
    # the box it draws, not at the link.
    "link-in-covering-label": (
        "#agree", "agree", 'label "I agree to the privacy policy of this site now"'),
    "switch-without-label": ("#wifi", "wifi", "<span.slider> over it in its own wrapper"),
}


def open_case(page: Page, pages_server, case: str) -> Page:
    """The case on a fresh document (another hash alone would keep the old one)."""
    page.goto("about:blank")
    page.goto(pages_server.url(f"act/actionability.html#{case}"))
    page.wait_for_function("document.querySelector('#stage').childElementCount > 0")
    return page


def clicked(page: Page) -> list[str]:
    return page.evaluate("window.clicked")


def playwright_outcome(page: Page, pages_server, case: str) -> str:
    locator, _, frame, method, mark = CASES[case]
    open_case(page, pages_server, case)
    scope = page.frame_locator(frame[0]) if frame else page
    try:
        getattr(scope.locator(locator), method)(timeout=REFUSE_MS)
    except PlaywrightError:
        assert clicked(page) == []
        return "refused"
    assert clicked(page) == [mark]
    return "acted"


@pytest.mark.parametrize("case", list(CASES))
def test_the_plugin_acts_where_playwright_acts_and_refuses_where_it_refuses(
    page, pages_server, case
):
    expected = playwright_outcome(page, pages_server, case)
    _, selector, frame, method, mark = CASES[case]
    open_case(page, pages_server, case)
    action = Action(method, selector=selector, frame_path=frame, element=case)
    try:
        done = perform(watch_of(page), action, timeout=REFUSE_MS)
    except (ElementCovered, NotPerformed) as exc:
        assert isinstance(exc, ElementCovered), exc  # a refusal names what covers it
        assert (expected, clicked(page)) == ("refused", [])
        return
    assert (expected, clicked(page), done.via) == ("acted", [mark], "")


@pytest.mark.parametrize("case", list(OWN_DRAWING))
def test_a_control_covered_by_its_own_drawing_is_checked_through_it(page, pages_server, case):
    selector, mark, via = OWN_DRAWING[case]
    open_case(page, pages_server, case)
    with pytest.raises(PlaywrightError):  # Playwright alone waits for the cover to go
        page.locator(selector).check(timeout=REFUSE_MS)
    done = perform(watch_of(page), Action("check", selector=selector), timeout=REFUSE_MS)
    assert page.locator(selector).is_checked() and clicked(page) == [mark]
    assert done.via == via


def test_a_press_waits_until_the_menu_around_its_element_is_drawn(page, pages_server):
    """A menu item inside a menu still fully transparent (its appear transition yet to
    begin) is not pressed: that transition takes the release away from it, so that the
    click reaches nothing and the step would pass having done nothing. The plugin waits
    until the menu is drawn, then clicks."""
    open_case(page, pages_server, "panel-not-drawn-yet")
    perform(watch_of(page), Action("click", selector="#panel button"), timeout=REFUSE_MS)
    assert clicked(page) == ["settings"]


def test_a_forced_click_goes_to_a_cover_only_where_the_recording_names_that_cover(
    page, pages_server
):
    open_case(page, pages_server, "switch-without-label")
    slider = "<span.slider> over it in its own wrapper"
    for recorded in ("", "<span.knob> over it in its own wrapper"):
        action = Action("click", selector="#wifi", element="Wi-Fi", via=recorded)
        with pytest.raises(ElementCovered) as caught:
            perform(watch_of(page), action, timeout=REFUSE_MS)
        assert 'class="slider"' in str(caught.value)
        assert clicked(page) == []
    done = perform(watch_of(page), Action("click", selector="#wifi", via=slider), timeout=REFUSE_MS)
    assert clicked(page) == ["wifi"] and done.via == slider


def test_a_recorded_click_replayed_under_a_coach_mark_in_its_row_fails_naming_it(
    ai, scripted_model, store, tmp_path, pages_server
):
    """Recorded before the coach mark came: replayed under it, Playwright would refuse,
    so the step fails naming the mark, clicks nothing, and asks no model."""
    test_file = tmp_path / "test_invoices.py"
    open_case(ai.page, pages_server, "coach-mark")
    ai.page.evaluate("clean()")
    ai.resolver = RecordingResolver(
        ai.page, ai.resolver, Recordings(store, test_file, "auto"), ai.steplog, has_model=True
    )
    scripted_model.enqueue(choose("button", "Save"))
    ai.act("click the Save button")
    assert clicked(ai.page) == ["save"]

    open_case(ai.page, pages_server, "coach-mark")  # the next run: the mark covers it
    ai.resolver = RecordingResolver(
        ai.page, ai.resolver.inner, Recordings(store, test_file, "offline"), ai.steplog,
        has_model=False,
    )
    with pytest.raises(ElementCovered, match=r'class="coach"'):
        ai.act("click the Save button", timeout=REFUSE_MS)
    assert clicked(ai.page) == [] and scripted_model.calls == 1


# --- real widgets ---------------------------------------------------------------------------


def toggle_all(request) -> dict:
    """A correct model's answer to "check the toggle all checkbox" on TodoMVC's React
    build, whose toggle-all checkbox has no name: the checkbox before the todo list."""
    outline = latest_snapshot(request.text)
    return act_answer(outline.split(" checkbox", 1)[0].split()[-1], "check", ())


def test_todomvc_react_toggle_all_records_and_replays_as_playwright_checks_it(
    ai, scripted_model, store, tmp_path, real
):
    url = real.url("node_modules/todomvc/examples/react/index.html")

    def fresh() -> Page:  # the app keeps its todos in localStorage
        ai.page.goto(url)
        ai.page.evaluate("localStorage.clear()")
        ai.page.reload()
        for todo in ("milk", "eggs"):
            ai.page.locator("#new-todo").fill(todo)
            ai.page.locator("#new-todo").press("Enter")
        return ai.page

    fresh().locator("#toggle-all").check(timeout=REFUSE_MS)  # Playwright's own check acts
    test_file = tmp_path / "test_todos.py"
    for mode, has_model in (("auto", True), ("offline", False)):
        page = fresh()
        ai.resolver = RecordingResolver(
            page, getattr(ai.resolver, "inner", ai.resolver),
            Recordings(store, test_file, mode), ai.steplog, has_model=has_model,
        )
        if has_model:
            scripted_model.enqueue(toggle_all)
        done = ai.act("check the toggle all checkbox", timeout=REFUSE_MS)
        assert page.locator("#toggle-all").is_checked() and done.actions[0].via == ""
        assert page.locator("#todo-list li.completed").count() == 2
    assert scripted_model.calls == 1


@pytest.mark.parametrize(
    "widget, selector, method, via",
    [
        ("bootstrap5-modal-backdrop.html", "#save", "click", None),  # under the modal's backdrop
        ("bootstrap4-custom-checkbox.html", "#remember", "check", 'label "Remember me"'),
        ("bootstrap4-custom-checkbox.html", "#terms", "check", 'label "I accept the terms of use"'),
    ],
)
def test_real_bootstrap_covers(page, real, widget, selector, method, via):
    """Bootstrap 5's modal backdrop is refused as Playwright refuses it; Bootstrap 4's
    custom checkbox, which Playwright's check refuses too (its label lies over it), is
    checked through its label, over the box the label draws, not at the link in it."""
    page.goto(real.url(f"pages/{widget}"))
    page.evaluate("window.hits = []; addEventListener('click', (e) => hits.push("
                  "e.target.id || e.target.className), true)")
    with pytest.raises(PlaywrightError):  # Playwright's own action refuses all three
        getattr(page.locator(selector), method)(timeout=REFUSE_MS)
    action = Action(method, selector=selector, element=selector)
    if via is None:
        with pytest.raises(ElementCovered) as caught:
            perform(watch_of(page), action, timeout=REFUSE_MS)
        assert 'class="modal fade show"' in str(caught.value)
        assert page.evaluate("hits") == []
    else:
        assert perform(watch_of(page), action, timeout=REFUSE_MS).via == via
        assert page.locator(selector).is_checked()
        assert "#terms" not in page.url  # the link in the label was not followed


# Real third-party covers (tests/real/pages/covers-*.html): page, the control's selector,
# the method, and the cover Playwright's refusal names (None where Playwright acts).
REAL_COVERS = {
    "shepherd's modal overlay": ("covers-tours.html#shepherd", "#new-project", "click",
                                 "shepherd-modal"),
    "driver.js's locked step": ("covers-tours.html#driver-locked", "#filters", "click", "<body"),
    "intro.js's locked step": ("covers-tours.html#intro-locked", "#filters", "click",
                               "introjs-disableInteraction"),
    "tippy's popover": ("covers-popovers.html#tippy", "#download", "click", "tippy"),
    "bootstrap's offcanvas backdrop": ("covers-bootstrap5.html#offcanvas", "#sort", "click",
                                       "offcanvas-backdrop"),
    "a consent bar": ("covers-notices.html#cookies", "#pay", "click", "cc"),
    "flatpickr's calendar": ("covers-pickers.html#flatpickr", "#search", "click", "flatpickr"),
    "a loading overlay that goes": ("covers-bootstrap5.html#loading", "#compare", "click", None),
    "bootstrap's switch": ("covers-checks.html", "#notify", "check", None),
}


@pytest.mark.parametrize("case", list(REAL_COVERS))
def test_real_covers_are_refused_where_playwright_refuses(page, real, case):
    """A real library's cover over the control: refused as Playwright refuses it, naming the
    cover, with nothing clicked; where Playwright acts (the overlay goes), the plugin acts."""
    where, selector, method, cover = REAL_COVERS[case]
    page.goto("about:blank")
    page.goto(real.url(f"pages/{where}"))
    page.wait_for_selector("body[data-ready]")
    page.evaluate("""target => {
        window.hits = [];
        for (const type of ["pointerdown", "click"]) {
          document.addEventListener(type, (e) => { if (e.isTrusted) hits.push(
            e.composedPath().includes(document.querySelector(target)) ? "own" : "other"); }, true);
        }
    }""", selector)
    action = Action(method, selector=selector, element=selector)
    if cover is None:
        perform(watch_of(page), action, timeout=10_000)  # waits for the overlay to go
        assert "other" not in page.evaluate("hits")
        assert page.evaluate("hits") or page.locator(selector).is_checked()
        return
    # A library shows its cover in its own time (a bar slides in after its script ran): the
    # case starts once the cover is where the control's middle is, as Playwright would find it.
    page.wait_for_function("""target => {
        const b = document.querySelector(target).getBoundingClientRect();
        const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
        return hit && !hit.closest(target);
    }""", arg=selector)
    with pytest.raises(ElementCovered) as caught:
        perform(watch_of(page), action, timeout=1000)
    assert cover in str(caught.value)
    assert page.evaluate("hits") == []
