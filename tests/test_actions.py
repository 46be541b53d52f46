"""perform: what one step does to the page, as a person would do it (real Chromium)."""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial
from types import SimpleNamespace

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from pytest_stagehand.actions.action import Action
from pytest_stagehand.actions.direct import AT_REST, DIRECT_BY_QUERY, READ_GUARD, _ready
from pytest_stagehand.actions.perform import NotPerformed, perform
from pytest_stagehand.actions.settle import (
    SETTLE,
    StepSettle,
    settle,
    watch_changes,
    watch_documents,
)
from pytest_stagehand.browser import page_scripts
from pytest_stagehand.browser.tabs import COUNT_OPENS
from pytest_stagehand.browser.watch import PageWatch, PageWatches
from pytest_stagehand.errors import HealFailed
from pytest_stagehand.heal.identity import recorded_element
from pytest_stagehand.pipelines.act import verified
from pytest_stagehand.snapshot.element import Kept
from pytest_stagehand.snapshot.outline import describer, snapshot

# Whether the document's describer has been prepared (PREPARE): compiled before a look.
DESCRIBER_PREPARED = f"() => {page_scripts.held(describer())}?.prepared === true"


def watch_of(page: Page) -> PageWatch:
    """A watch of `page`, as an AIPage keeps one: what perform and settle read of it."""
    return PageWatches(page).current


@pytest.fixture
def controls(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("heal/controls.html"))
    return page


def test_a_covered_transparent_checkbox_is_checked_through_its_label(controls):
    # Playwright alone waits for the slider to stop covering it until the timeout.
    done = perform(watch_of(controls), Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked()
    assert done.via == 'label "Dark mode"'  # what the recording and the report name
    perform(watch_of(controls), Action("uncheck", selector="#dark-mode"), timeout=3000)
    assert not controls.locator("#dark-mode").is_checked()


def test_a_covered_checkbox_without_a_label_is_clicked_through_its_own_slider(controls):
    # A custom switch: no label, and its slider's click handler toggles the checkbox.
    controls.evaluate("""() => {
        document.querySelector('label[for=dark-mode]').remove();
        const box = document.querySelector('#dark-mode');
        document.querySelector('.slider').addEventListener('click', () => box.click());
    }""")
    done = perform(watch_of(controls), Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked()
    assert done.via == "<span.slider> over it in its own wrapper"


def test_a_control_a_person_can_click_is_clicked_itself(controls):
    controls.evaluate("document.querySelector('#dark-mode').style.opacity = '1'")
    controls.evaluate("document.querySelector('.slider').remove()")
    done = perform(watch_of(controls), Action("check", selector="#dark-mode"), timeout=3000)
    assert controls.locator("#dark-mode").is_checked() and done.via == ""


def test_a_checkbox_redrawn_with_a_new_id_after_the_click_is_not_a_failure(controls):
    first = controls.locator("#todos input").first.get_attribute("id")
    perform(watch_of(controls), Action("check", selector=f"#{first}"), timeout=3000)
    # The list was redrawn: the old id is gone, and the outcome is what was asked.
    assert controls.locator(f"#{first}").count() == 0
    assert controls.locator("#todos input").first.is_checked()
    assert not controls.locator("#todos input").nth(1).is_checked()  # only the one


# --- on a page that is ready: the direct path (no selector engine, no waits) ------------


@pytest.fixture
def ready(page: Page, pages_server) -> Page:
    page.goto(pages_server.url("act/direct.html"))
    return page


# A selector the browser's own query finds, and one only Playwright's engine can.
BY_QUERY_AND_BY_PLAYWRIGHT = pytest.mark.parametrize("how", ["css", "role"])


@BY_QUERY_AND_BY_PLAYWRIGHT
def test_a_click_that_something_covers_at_the_last_moment_lands_on_its_element(ready, how):
    # Pay is ready when looked at; the pointer coming over it opens a card over the page
    # for 300 ms. The guard stops the click the card would take, and Playwright's click
    # then waits for the card to go.
    selector = {"css": "#pay", "role": 'role=button[name="Pay"s]'}[how]
    perform(watch_of(ready), Action("click", selector=selector), timeout=3000)
    assert ready.text_content("#card-clicks") == "0"
    assert ready.text_content("#pay-clicks") == "1"


@BY_QUERY_AND_BY_PLAYWRIGHT
def test_a_fill_replaces_the_text_with_one_trusted_input_event(ready, how):
    selector = {"css": "#name", "role": 'internal:label="Name"s'}[how]
    done = perform(watch_of(ready), Action("fill", ("new text",), selector=selector), timeout=3000)
    assert ready.input_value("#name") == "new text"
    assert ready.text_content("#inputs") == "1"
    assert done.opens == 0  # read as it acted: the step need not ask the page


@pytest.mark.parametrize(("control", "opens"), [("#slide", 0), ("#elsewhere", 1)])
def test_a_direct_click_tells_whether_it_asked_for_a_new_page(ready, control, opens):
    # The step waits for a tab its click asked for by this count, read with the click's
    # outcome; a count lost here would leave the step on the old tab.
    ready.evaluate(COUNT_OPENS)  # as an AIPage's tabs count them
    done = perform(watch_of(ready), Action("click", selector=control), timeout=3000)
    assert done.opens == opens


def test_a_click_waits_for_a_disabled_button_to_be_enabled(ready):
    # A click dispatched at a disabled button is lost without a trace: it must wait.
    perform(watch_of(ready), Action("click", selector="#later"), timeout=3000)
    assert ready.text_content("#later-clicks") == "1"


def test_a_fill_waits_for_a_disabled_field_to_be_enabled(ready):
    perform(watch_of(ready), Action("fill", ("typed",), selector="#late"), timeout=3000)
    assert ready.input_value("#late") == "typed"


@pytest.mark.parametrize("control", ["#next", "#send"], ids=["link", "form"])
def test_a_click_returns_once_the_page_it_navigates_to_has_arrived(ready, control):
    # The server answers 400 ms late: as with Playwright's click, the step returns on the
    # new page, not on the old one while the new one is on its way.
    perform(watch_of(ready), Action("click", selector=control), timeout=3000)
    assert ready.url.split("?")[0].endswith("/act/direct-next.html")


def test_an_element_in_an_open_shadow_root_is_ready_to_click_directly(page: Page, pages_server):
    page.goto(pages_server.url("shadow.html"))
    twin = Action("click", selector='role=button[name="Shadow twin"s]')
    twin.locator(page).evaluate("b => b.addEventListener('click', () => b.dataset.clicked = 1)")
    # The pointer at its centre reaches it through its shadow root (not only its host).
    assert _ready(page, twin) is not None
    perform(watch_of(page), twin, timeout=3000)
    assert twin.locator(page).get_attribute("data-clicked") == "1"


def test_the_click_guard_tells_a_download_from_a_navigation(page: Page, pages_server):
    # What _click_directly reads after its click: a download link asks for no new
    # document, so the step does not wait for one (it would wait out the settle cap).
    page.goto(pages_server.url("verbs/files.html"))
    point = page.evaluate(DIRECT_BY_QUERY, ["a[download]", ["click", ""], None])
    page.mouse.click(*point)
    assert page.evaluate(READ_GUARD) == ["hit", False, 0]


def verified_click(page: Page, name: str, acting: bool = False) -> Action:
    """A replayed click on the element named `name`, verified as a replay verifies it
    (`acting`: as a replay that clicks right after, which readies the click)."""
    snap = snapshot(page)
    ref = next(ref for ref in snap.elements.values() if ref.name == name)
    element = recorded_element(page, snap, ref)
    assert element.selectors[0].startswith("role=")  # found by our roles, confirmed by a path
    action, _, _ = verified(page, Action("click"), element, frozenset(), acting=acting)
    assert action.kept is not None and action.kept.confirmed_by
    return action


GUARD_SET = "() => !!window[Symbol.for('pytest-stagehand.guard')]"


@pytest.mark.parametrize("acting", [False, True], ids=["kept", "readied"])
def test_a_replayed_click_lands_on_the_element_its_look_verified(page: Page, acting):
    # The look verifies the element and keeps it; the action then clicks that very
    # element, without finding it again. A twin that appears in between (the recorded
    # role selector now hits two buttons) neither takes the click nor stops it. Where
    # the look readied the click, the twin now stands at its point: the guard stops
    # that click, and the element is readied again where it went.
    page.set_content("""<ul>
        <li id="a">Report A <button onclick="this.dataset.clicks = 1">Archive</button></li>
    </ul>""")
    action = verified_click(page, "Archive", acting)
    assert action.kept is not None and (action.kept.point is not None) == acting
    page.evaluate("""() => document.querySelector("ul").insertAdjacentHTML("afterbegin",
        '<li id="b">Report B <button onclick="this.dataset.clicks = 1">Archive</button></li>')""")
    done = perform(watch_of(page), action, timeout=3000)
    assert page.locator("#a button").get_attribute("data-clicks") == "1"
    assert page.locator("#b button").get_attribute("data-clicks") is None
    assert done.kept is None  # the next action looks again


def test_playwright_clicks_an_element_our_roles_found_where_a_direct_click_may_not(page: Page):
    # Not ready for a direct click (an animation runs on it): Playwright's click takes over
    # once its engine finds the verified button through the role selector.
    page.set_content("""<style>@keyframes pulse { to { opacity: 0.9; } }</style>
        <button style="animation: pulse 1s infinite" onclick="this.dataset.clicks = 1">
        Archive</button>""")
    action = verified_click(page, "Archive")
    assert _ready(page, action) is None  # nothing done directly
    assert perform(watch_of(page), action, timeout=5000).via == ""
    assert page.locator("button").get_attribute("data-clicks") == "1"


def test_playwright_never_acts_on_another_element_than_the_one_our_roles_verified(page: Page):
    # The verified button is not ready for a direct click, and meanwhile the role selector
    # has come to name another button: Playwright's engine finds that one alone. Clicking
    # it would act on an element nobody verified.
    page.set_content("""<ul>
        <li id="a">Report A <button onclick="this.dataset.clicks = 1">Archive</button></li>
        <li id="b">Report B <button onclick="this.dataset.clicks = 1">Keep</button></li>
    </ul>""")
    action = verified_click(page, "Archive")
    page.evaluate("""() => {
        const [a, b] = document.querySelectorAll("button");
        a.textContent = "Archived";
        a.disabled = true;
        b.textContent = "Archive";
    }""")
    with pytest.raises(HealFailed, match="finds another element"):
        perform(watch_of(page), action, timeout=3000)
    assert page.locator("button[data-clicks]").count() == 0


def test_a_click_readied_with_the_look_goes_without_another_round_trip(page: Page):
    page.set_content('<button onclick="this.dataset.clicks = 1">Archive</button>')
    action = verified_click(page, "Archive", acting=True)
    assert action.kept is not None and action.kept.point is not None
    assert page.evaluate(GUARD_SET)  # set by the look, for that point
    watch = watch_of(page)
    scripts: list[str] = []
    evaluate = page.evaluate
    page.evaluate = lambda script, *args: scripts.append(script) or evaluate(script, *args)
    try:
        perform(watch, action, timeout=3000)
    finally:
        del page.evaluate
    assert page.locator("button").get_attribute("data-clicks") == "1"
    assert scripts == [READ_GUARD]  # the click, then what its guard saw: no DIRECT first
    assert not page.evaluate(GUARD_SET)


def test_a_click_readied_for_an_element_that_does_not_verify_is_called_off(page: Page):
    # The recorded button now says "Transfer $1000": the look readied a click on it
    # before Python saw the name. Its guard must not outlive the step's resolution.
    page.set_content(
        '<button data-testid="go" onclick="this.dataset.clicks = 1">Transfer $100</button>'
    )
    snap = snapshot(page)
    element = recorded_element(page, snap, next(iter(snap.elements.values())))
    assert element.selectors[0] == '[data-testid="go"]'  # the browser's own query finds it
    page.evaluate("document.querySelector('button').textContent = 'Transfer $1000'")
    with pytest.raises(HealFailed):
        verified(page, Action("click"), element, frozenset(), acting=True)
    assert not page.evaluate(GUARD_SET)
    assert page.locator("button").get_attribute("data-clicks") is None


class _PopupClosingOnClick:
    """A page whose readied click closes it, and whose close Playwright tells late: the
    guard's read fails (its document is gone), the page still says it is open, and the
    next wait on it raises."""

    def __init__(self, on_press: bool = False) -> None:
        self.closed = False
        self.on_press = on_press  # closed by the press itself, the click's call raising
        self.clicks: list[tuple[float, float]] = []
        self.mouse = self

    def click(self, x: float, y: float) -> None:
        self.clicks.append((x, y))
        if self.on_press:
            self.closed = True
            raise PlaywrightError("Target page, context or browser has been closed")

    def evaluate(self, script: str) -> None:
        raise PlaywrightError("Execution context was destroyed")

    def wait_for_event(self, event: str, predicate: object = None, timeout: float = 0) -> None:
        self.closed = True
        raise PlaywrightError("Target page, context or browser has been closed")

    def is_closed(self) -> bool:
        return self.closed

    def on(self, event: str, handler: object) -> None:
        pass


def _watch_of(page: _PopupClosingOnClick) -> SimpleNamespace:
    """What perform reads of a page's watch, for a page that is no Playwright Page."""
    dialogs = SimpleNamespace(may_open=nullcontext)
    watch = SimpleNamespace(page=page, navigated=0.0, dialogs=dialogs, blocked=False)
    watch.next_navigation = partial(PageWatch.next_navigation, watch)
    return watch


@pytest.mark.parametrize("on_press", [False, True], ids=["told late", "on the press"])
def test_a_click_that_closes_its_page_is_done_when_the_close_is_told_late(on_press):
    """Under load a popup's close can reach us after the guard's read failed, or while the
    mouse's click is still being sent: the click was made, and is not turned into an error
    (tests/test_tabs.py's popup, both seen in CI)."""
    page = _PopupClosingOnClick(on_press)
    action = Action("click", selector="#allow", kept=Kept("look", 0, point=(10.0, 20.0)))
    assert perform(_watch_of(page), action).method == "click"  # type: ignore[arg-type]
    assert page.clicks == [(10.0, 20.0)] and page.closed


class _FailingClickOnAnOpenPage(_PopupClosingOnClick):
    """The mouse's click fails and the page stays open (a crashed input pipeline, say)."""

    def click(self, x: float, y: float) -> None:
        self.clicks.append((x, y))
        raise PlaywrightError("Input.dispatchMouseEvent failed")


def test_a_click_that_fails_on_a_page_still_open_is_an_error():
    """Only a close excuses a failed click: else it is not taken as made."""
    page = _FailingClickOnAnOpenPage()
    action = Action("click", selector="#allow", kept=Kept("look", 0, point=(10.0, 20.0)))
    with pytest.raises(NotPerformed, match="dispatchMouseEvent"):
        perform(_watch_of(page), action)  # type: ignore[arg-type]
    assert not page.closed


def test_a_page_the_steps_act_on_gets_the_describer_with_each_new_document(
    page: Page, pages_server
):
    watch = PageWatches(page, adopt=watch_documents).current
    page.goto(pages_server.url("login.html"))
    scripts: list[str] = []
    evaluate = page.evaluate
    page.evaluate = lambda script, *args: scripts.append(script) or evaluate(script, *args)
    try:
        settle(watch)
    finally:
        del page.evaluate
    assert len(scripts) == 1 and describer() not in scripts[0]  # one round trip, not sent
    assert page.evaluate(DESCRIBER_PREPARED)


def test_a_watched_pages_new_document_prepares_the_describer_before_any_step_looks(
    page: Page, pages_server
):
    # The first look after a navigation would otherwise compile the describer as it goes.
    PageWatches(page, adopt=watch_documents)
    for name in ("login.html", "shop.html"):  # the first document, and one navigated to
        page.goto(pages_server.url(name))  # Playwright's own: no settle, no look
        page.wait_for_function(DESCRIBER_PREPARED, timeout=5_000)


def test_a_steps_settle_and_its_first_look_go_in_one_call_the_look_once_settled(
    page: Page, pages_server
):
    watch = PageWatches(page, adopt=watch_documents).current
    page.goto(pages_server.url("login.html"))
    page.evaluate(
        """() => document.body.insertAdjacentHTML("beforeend", `<button id="go" onclick="
        setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id=late>late</p>'),
        50)">Go</button>`)"""
    )
    page.click("#go")  # a trusted click: the timer it starts is waited for
    settling = StepSettle(watch)
    sent: list[str] = []
    evaluate = page.evaluate
    page.evaluate = lambda script, *args: sent.append(script) or evaluate(script, *args)
    try:
        mark, seen = settling.then_call("(describe, id) => !!document.getElementById(id)", "late")
    finally:
        del page.evaluate
    assert seen is True and len(sent) == 1  # looked at after the page settled, in one call
    assert mark is not None and settling.mark() is mark and not settling.pending


def test_a_new_documents_first_settle_gives_it_the_describer_prepared(page: Page, pages_server):
    page.goto(pages_server.url("login.html"))
    assert not page.evaluate(DESCRIBER_PREPARED)
    settle(watch_of(page))  # while it waits for the page to be quiet
    assert page.evaluate(DESCRIBER_PREPARED)
    snap = snapshot(page)
    login = next(ref for ref in snap.elements.values() if ref.name == "Login")
    element = recorded_element(page, snap, login)
    scripts: list[str] = []
    evaluate = page.evaluate
    page.evaluate = lambda script, *args: scripts.append(script) or evaluate(script, *args)
    try:
        verified(page, Action("click"), element, frozenset(), acting=True)  # the replay's look
    finally:
        del page.evaluate
    assert scripts and not any(describer() in script for script in scripts)  # not sent again


def test_a_watched_page_that_has_not_changed_since_it_loaded_is_quiet_at_once(
    page: Page, pages_server
):
    # The change watch starts with the document, not with the first settle: a document
    # quiet for longer than the quiet window is quiet when the settle first looks.
    watch_changes(page)
    page.goto(pages_server.url("login.html"))
    page.wait_for_function("performance.now() > 2000")  # the document's age, not a sleep
    page_scripts.call(page, [describer()], SETTLE, [1000, 0, 300, False])  # cap < quiet window
    assert page.evaluate(AT_REST)  # found quiet (it was not merely given up on at the cap)


def test_the_icon_chromium_fetches_for_the_tab_is_no_request_a_settle_waits_for(
    page: Page, pages_server
):
    # Chromium asks for the tab's icon once the page has loaded; the page never reads it,
    # and a slow one held the first step on every page back for as long as it took.
    watch = PageWatches(page, adopt=watch_documents).current
    with page.expect_request(lambda request: "heart.svg" in request.url) as icon:
        page.goto(pages_server.url("slow-icon.html"))
    assert icon.value.resource_type == "other"  # answered 3 s late: open as we look
    assert not watch.requests  # nothing for a settle to wait for


def test_a_settle_waits_for_a_fade_to_end_but_not_for_a_progress_bar(page):
    """A fade (a modal's backdrop) is the page coming to rest: waited for. A 20 s bar
    filling is time passing: a settle that waited for it would cost every step its cap."""
    page.set_content(
        "<div id='fade' style='opacity: 0; transition: opacity .4s'>Saved</div>"
        "<div id='bar' style='width: 0; height: 4px; transition: width 20s linear'></div>"
    )
    page.evaluate("""() => { const [fade, bar] = [document.getElementById('fade'),
        document.getElementById('bar')]; fade.offsetWidth; fade.style.opacity = 1;
        bar.style.width = '100px'; }""")  # fmt: skip
    page_scripts.call(page, [describer()], SETTLE, [100, 0, 30_000, False])
    running = "() => document.getAnimations().map((a) => [a.effect.target.id, a.playState])"
    assert page.evaluate(running) == [["bar", "running"]]


# --- settling after our own action -------------------------------------------------------

CLICKED = "<button onclick=\"document.body.append('clicked')\">Load</button>"
LONG_MS = 10_000  # a quiet window no step waits out here: a settle that waits hits its cap


def settled_page(page: Page, content: str) -> Page:
    page.set_content(content)
    assert settle(watch_of(page)).waited  # the page at rest, as a step finds it after goto
    return page


def settle_waited(page: Page, early: bool, cap_ms: float = LONG_MS) -> bool:
    """SETTLE with a quiet window of LONG_MS: whether it waited (to its cap, as the page
    last changed a moment ago) rather than return early."""
    _, _, waited = page_scripts.call(
        page, [describer()], SETTLE, [LONG_MS, 0, cap_ms, early]
    )
    return waited


def test_after_our_own_click_the_next_settle_may_return_early(page: Page):
    # The click's own change, made before the click returned, is not a page still busy.
    settled_page(page, CLICKED)
    perform(watch_of(page), Action("click", selector="button"))
    assert page.evaluate("document.body.textContent").endswith("clicked")
    assert page.evaluate(AT_REST)
    assert not settle_waited(page, early=True)
    assert settle_waited(page, early=False, cap_ms=300)  # without `early`, it waits as before


def test_a_change_after_our_own_click_returned_is_waited_for(page: Page):
    # The click's reaction goes on after the click returned (a timer): the page is busy,
    # and the next step's settle waits for it to be quiet, early or not.
    settled_page(page, "<button onclick=\"document.body.append('clicked');"
                       " setTimeout(() => document.body.append('rendered'), 0)\">Load</button>")
    perform(watch_of(page), Action("click", selector="button"))
    page.wait_for_function("document.body.textContent.endsWith('rendered')")
    assert not page.evaluate(AT_REST)
    assert settle_waited(page, early=True, cap_ms=300)


def test_a_page_that_changed_before_our_click_is_waited_for(page: Page):
    # The page changed by itself after it was last at rest: what follows the click is not
    # only the click's, and the next settle waits.
    settled_page(page, CLICKED)
    page.evaluate("document.body.append('busy')")
    perform(watch_of(page), Action("click", selector="button"))
    assert not page.evaluate(AT_REST)
    assert settle_waited(page, early=True, cap_ms=300)


def test_after_our_own_fill_the_next_settle_may_return_early(page: Page):
    settled_page(page, "<input aria-label=Name oninput=\"document.body.dataset.typed = value\">")
    perform(watch_of(page), Action("fill", ("Ada",), selector="input"))
    assert page.evaluate("document.body.dataset.typed") == "Ada"  # a change, the fill's own
    assert not settle_waited(page, early=True)
    page.evaluate("document.body.append('busy')")
    assert settle_waited(page, early=True, cap_ms=300)


# What an input starts after the next frame, as Grid.js's search and sort do: a debounce,
# then Preact's render after a frame and a timer race (the first to run cancels the other
# and runs the render on a timer of its own).
AFTER_NEXT_FRAME = (
    "setTimeout(() => {"
    " const render = () => setTimeout(() => document.body.append('rendered'), 300);"
    " const timer = setTimeout(render, 100);"
    " requestAnimationFrame(() => { clearTimeout(timer); render(); }); }, 20)"
)


def test_what_typing_starts_after_the_next_frame_is_waited_for(page: Page):
    settled_page(page, f"<input aria-label=Search oninput=\"{AFTER_NEXT_FRAME}\">")
    perform(watch_of(page), Action("fill", ("Gibson",), selector="input"))
    page_scripts.call(page, [describer()], SETTLE, [50, 0, LONG_MS, False])
    assert page.evaluate("document.body.textContent") == "rendered"


def test_what_a_click_starts_after_the_next_frame_is_waited_for(page: Page):
    settled_page(page, f"<button onclick=\"{AFTER_NEXT_FRAME}\">Sort</button>")
    perform(watch_of(page), Action("click", selector="button"))
    page_scripts.call(page, [describer()], SETTLE, [50, 0, LONG_MS, False])
    assert page.evaluate("document.body.textContent").endswith("rendered")


# A click that asks for a frame and notes the frames the page's watch then waits for;
# ?hide: the page is hidden, as a tab behind another is (headless pages never are).
FRAMES_WAITED_FOR = (
    "<button onclick=\"requestAnimationFrame(() => {});"
    " if (location.hash) { Object.defineProperty(document, 'hidden', { value: true });"
    " document.dispatchEvent(new Event('visibilitychange')); }"
    " this.dataset.waited = [...window.__stagehandDomQuiet.timers.keys()].join();\">Open</button>"
)


def test_a_frame_a_hidden_page_will_not_draw_is_not_waited_for(page: Page):
    """A tab behind another (a popup over its opener, in a headed browser) runs no frames
    until it is shown: a settle that waited for one would cost every step its cap."""
    settled_page(page, FRAMES_WAITED_FOR)
    perform(watch_of(page), Action("click", selector="button"))
    assert "frame" in page.locator("button").get_attribute("data-waited")
    page.evaluate("location.hash = 'hide'")  # the click hides the page after its ask
    perform(watch_of(page), Action("click", selector="button"))
    assert "frame" not in page.locator("button").get_attribute("data-waited")
    perform(watch_of(page), Action("click", selector="button"))  # asked while hidden
    assert "frame" not in page.locator("button").get_attribute("data-waited")


def test_our_own_clicks_bookkeeping_is_no_work_the_click_started(page: Page):
    """The guard of a click we make notes the click's own changes on a timer of its own: a
    settle that took it for the page's work would wait for it, and the page's timers may
    run late (a renderer busy drawing after the click)."""
    waited = "[...window.__stagehandDomQuiet.timers.keys()].join()"
    settled_page(page, f"<button onclick=\"this.dataset.waited = {waited}\">Save</button>")
    perform(watch_of(page), Action("click", selector="button"))
    assert page.locator("button").get_attribute("data-waited") == ""


def test_an_animation_loop_typing_starts_is_not_waited_for(page: Page):
    """A frame asking for the next one for ever (a canvas, a spinner drawn by script) is
    time passing: a settle that waited for it would cost the step its cap."""
    settled_page(page, "<input aria-label=Search oninput=\"const spin = () => {"
                       " if (!window.drawn) document.body.append('drawing');"
                       " window.drawn = (window.drawn || 0) + 1; requestAnimationFrame(spin); };"
                       " requestAnimationFrame(spin)\">")  # fmt: skip
    perform(watch_of(page), Action("fill", ("Gibson",), selector="input"))
    page_scripts.call(page, [describer()], SETTLE, [50, 0, LONG_MS, False])
    assert page.evaluate(AT_REST)  # found quiet, not given up on at the cap
    drawn = page.evaluate("window.drawn")
    page.wait_for_function(f"window.drawn > {drawn}")  # and the loop still runs


# --- settling a page just loaded -----------------------------------------------------------
# A document's own changes while it loads (the parser, its scripts, its load handlers and
# the work they start) are its loading's: once all that work has run, it is at rest.
LOADED_AT = "http://loading.test/"


def loaded(page: Page, body: str) -> Page:
    """`page` navigated to a document of `body`, its changes watched from its start; its
    requests to LOADED_AT + "data" held until the test answers them (`held`)."""
    watch_changes(page)
    page.held = []  # type: ignore[attr-defined]
    page.route(f"{LOADED_AT}data", lambda route: page.held.append(route))  # type: ignore[attr-defined]
    page.route(LOADED_AT, lambda route: route.fulfill(body=body, content_type="text/html"))
    page.goto(LOADED_AT)
    return page


def test_a_page_that_changed_only_while_it_loaded_is_at_rest_once_loaded(page: Page):
    loaded(page, "<p>Catalogue</p><script>document.body.append('rendered')</script>"
                 "<script>addEventListener('load', () => setTimeout(() =>"
                 " document.body.append(' and wired'), 0))</script>")  # fmt: skip
    page.wait_for_function("document.body.textContent.endsWith('and wired')")
    assert not settle_waited(page, early=True)
    assert page.evaluate(AT_REST)
    assert settle_waited(page, early=False, cap_ms=300)  # without `early`, it waits as before


# Work the page's loading started that wires the page up without changing the DOM, until
# the test says go (or answers the request it waits for): a timer at DOMContentLoaded (as
# jQuery runs its ready handlers), animation frames, a fetch and the reading of its answer,
# an XMLHttpRequest.
LOAD_WORK = {
    "timer": "addEventListener('DOMContentLoaded', () => { const tick = () => window.go ?"
             " (window.wired = true) : setTimeout(tick, 20); setTimeout(tick, 0); })",
    "frames": "const frame = () => window.go ? (window.wired = true) :"
              " requestAnimationFrame(frame); requestAnimationFrame(frame)",
    "fetch": "fetch('data').then((answer) => answer.json()).then((data) => {"
             " window.wired = data.wired; })",
    "request": "const request = new XMLHttpRequest(); request.open('GET', 'data');"
               " request.onload = () => { window.wired = JSON.parse(request.responseText).wired; };"
               " request.send()",
}  # fmt: skip


@pytest.mark.parametrize("work", LOAD_WORK.values(), ids=LOAD_WORK.keys())
def test_a_page_is_at_rest_only_once_the_work_its_loading_started_has_run(page: Page, work: str):
    loaded(page, f"<button>Buy</button><script>{work}</script>")
    assert not page.evaluate("window.wired")
    assert settle_waited(page, early=True, cap_ms=300)  # its loading is not done
    page.evaluate("window.go = true")
    for route in page.held:  # type: ignore[attr-defined]
        route.fulfill(json={"wired": True})
    page.wait_for_function("window.wired")
    assert not settle_waited(page, early=True)


def test_a_page_that_renders_what_it_asked_for_as_it_loads_is_at_rest_once_rendered(page: Page):
    loaded(page, "<ul></ul><script>fetch('data').then((answer) => answer.json())"
                 ".then((data) => document.querySelector('ul').append(data.name))</script>")
    page.wait_for_function("window.__stagehandDomQuiet.loadWork.size")  # the fetch is out
    page.held[0].fulfill(json={"name": "Bike Light"})  # type: ignore[attr-defined]
    page.wait_for_function("document.body.textContent.includes('Bike Light')")
    assert not settle_waited(page, early=True)


@pytest.mark.parametrize("change", [
    "document.body.append('late')",  # not the page's loading: a script of the test's
    "setTimeout(() => document.body.append('late'), 1500)",  # a timer longer than a render's
])  # fmt: skip
def test_a_change_the_loading_did_not_make_is_waited_for(page: Page, change: str):
    loaded(page, f"<p>Catalogue</p><script>{change}</script>" if "Timeout" in change
           else "<p>Catalogue</p>")  # fmt: skip
    if "Timeout" not in change:
        page.evaluate(change)
    page.wait_for_function("document.body.textContent.endsWith('late')")
    assert settle_waited(page, early=True, cap_ms=300)


def test_a_page_is_at_rest_only_once_its_frames_loading_work_has_run(page: Page):
    page.route(f"{LOADED_AT}frame", lambda route: route.fulfill(
        body=f"<button>Pay</button><script>{LOAD_WORK['timer']}</script>",
        content_type="text/html"))  # fmt: skip
    loaded(page, "<p>Checkout</p><iframe src='frame'></iframe>")
    assert settle_waited(page, early=True, cap_ms=300)  # the frame's loading is not done
    page.frames[1].evaluate("window.go = true")
    page.frames[1].wait_for_function("window.wired")
    assert not settle_waited(page, early=True)


def test_a_page_with_a_frame_it_cannot_look_into_is_not_known_to_be_at_rest(page: Page):
    page.route("http://elsewhere.test/", lambda route: route.fulfill(
        body="<button>Pay</button>", content_type="text/html"))  # fmt: skip
    loaded(page, "<p>Checkout</p><iframe src='http://elsewhere.test/'></iframe>")
    assert settle_waited(page, early=True, cap_ms=300)


def test_a_look_that_fails_with_the_settle_is_made_again_on_its_own(page: Page, pages_server):
    watch = PageWatches(page, adopt=watch_documents).current
    page.goto(pages_server.url("login.html"))
    failing = "(d, n) => { if (!window.failed) { window.failed = true; throw Error(n); } return n }"
    mark, seen = StepSettle(watch).then_call(failing, 7)
    assert mark is not None and seen is None  # no answer: not taken for a navigation
    assert page_scripts.call(page, [describer()], failing, 7) == 7
