"""Benchmark: the plugin's clicks beside Playwright's own, on covered and tricky controls.

Run: PYTHONPATH=. .venv/bin/python bench/bench_actionability.py [--timeout 2000] [--only REGEX]

Each case of tests/pages/act/actionability.html (covers, overlays, backdrops, moving and
re-rendered targets, transparent controls, labels, zoom, frames, shadow roots), plus
real widgets (TodoMVC's React build, Bootstrap 5's modal backdrop and Bootstrap 4's custom
checkbox) and real third-party covers and custom controls served from tests/real (product
tours of Shepherd, driver.js and intro.js; Tippy and Bootstrap popovers and tooltips;
Bootstrap's offcanvas, dropdown, fixed navbar, switch and toggle buttons; SweetAlert2; a
cookie-consent bar; a Notyf toast; open Choices.js and flatpickr pickers; Shoelace and
Ionic checkboxes; loading overlays that go), is driven twice on fresh pages:

- Playwright (the baseline): `get_by_role(role, name=...).click()` (or `.check()`);
- the plugin: the step recorded on the page as it was made (a scripted model on
  127.0.0.1 choosing that control; the covers taken away where the case has them), then
  replayed offline, with no model, on the page as the case draws it.

Per case: each side's outcome: "acted" (the control, and nothing else, took the click),
"refused" (a clear error: Playwright's timeout, the plugin's typed error), "WRONG" (another
element took the click: for the plugin, the worst outcome) or "failed" (an error other
than a refusal, with the control untouched); with what stood in for the control. Targets:
the plugin acts on no other element where Playwright refuses (WRONG 0), and never fails or
refuses where Playwright acts.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from real_widgets import RealWidgetsServer  # noqa: E402
from scripted_answers import act_answer, choose, latest_snapshot, scripted_ai_page  # noqa: E402
from servers import PagesServer  # noqa: E402

from pytest_stagehand.browser.launch import find_chromium  # noqa: E402
from pytest_stagehand.errors import StagehandError  # noqa: E402
from pytest_stagehand.pipelines.act import ModelResolver  # noqa: E402
from pytest_stagehand.pipelines.replay import RecordingResolver  # noqa: E402
from pytest_stagehand.recordings.store import Recordings, RecordingStore  # noqa: E402
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest  # noqa: E402

WHY = "--why" in sys.argv  # print each error's first line as it happens

# What the page logs (window.clicked) when the case's own control takes the action.
CLICKED = "window.clicked || []"


@dataclass(frozen=True)
class Case:
    """A control on a page: where, its role and name, the action, and what it logs when
    it takes the action (`mark`); `frame` when it is in an iframe."""

    name: str
    url: str
    role: str
    label: str
    mark: str
    method: str = "click"
    frame: str = ""
    prepare: str = ""  # a script that brings the page to the step (a todo added)
    selector: str = ""  # for a control with no name: how Playwright's side finds it
    ready: str = "body"  # what the page shows once its app has drawn itself
    clean: str = "typeof clean === 'function' && clean()"  # the page as recorded


def page_case(name: str, role: str, label: str, mark: str, **kw: str) -> Case:
    return Case(name, f"act/actionability.html#{name}", role, label, mark, **kw)


CASES = [
    page_case("coach-mark", "button", "Save", "save"),
    page_case("pointer-events-none-button", "button", "Choose plan", "choose"),
    page_case("click-outside-layer", "button", "Bold", "bold"),
    page_case("dialog-backdrop", "button", "Export", "export"),
    page_case("cookie-banner", "button", "Pay now", "pay"),
    page_case("transparent-input-over-label", "checkbox", "❯Mark all as complete",
              "toggle-all", method="check"),
    page_case("link-in-label", "checkbox", "I accept the terms of use", "accept", method="check"),
    page_case("switch-with-label", "checkbox", "Dark mode", "dark", method="check"),
    page_case("switch-without-label", "checkbox", "Wi-Fi", "wifi", method="check"),
    page_case("check-under-its-label", "checkbox", "Remember me", "remember", method="check"),
    page_case("link-in-covering-label", "checkbox",
              "I agree to the privacy policy of this site now", "agree", method="check"),
    page_case("slides-away-on-hover", "button", "Archive", "archive"),
    page_case("re-rendered", "button", "Refresh", "refresh"),
    page_case("moving-in", "button", "Continue", "arrived"),
    page_case("cover-that-leaves", "button", "Retry", "retry"),
    page_case("partly-covered", "button", "Send", "send"),
    page_case("zoomed", "button", "Zoomed", "zoom"),
    page_case("transparent-button", "button", "Open gallery", "ghost"),
    page_case("frame-covered", "button", "Framed", "framed", frame="#framed"),
    page_case("frame-clear", "button", "Framed", "framed", frame="#framed"),
    page_case("shadow-covered", "button", "Shadowed", "shadowed"),
]
# Real widgets: each logs through listeners the prepare script adds (the widget's own
# markup and handlers untouched).
LOG = "window.clicked = []; const mark = (what) => () => window.clicked.push(what);"
REAL = [
    Case("todomvc-react toggle all", "node_modules/todomvc/examples/react/index.html",
         "checkbox", "", "toggle-all", method="check", ready="#new-todo", selector="#toggle-all",
         prepare=LOG + """
           const input = document.querySelector("#new-todo");
           for (const todo of ["milk", "eggs"]) {
             input.value = todo;
             input.dispatchEvent(new Event("input", {bubbles: true}));
             input.dispatchEvent(new KeyboardEvent("keydown", {keyCode: 13, bubbles: true}));
           }
           document.addEventListener("change", (e) => {
             if (e.target.id === "toggle-all") window.clicked.push("toggle-all");
           });""",
         clean=""),
    Case("bootstrap5 modal backdrop", "pages/bootstrap5-modal-backdrop.html",
         "button", "Save draft",
         "save", prepare=LOG + """
           document.querySelector("#save").addEventListener("click", mark("save"));
           document.querySelector("#notice").addEventListener("click", mark("modal"));""",
         clean="""await noticeShown;
           const hidden = new Promise((done) => notice.addEventListener("hidden.bs.modal", done));
           bootstrap.Modal.getInstance(notice).hide();
           await hidden;"""),
    Case("bootstrap4 custom checkbox", "pages/bootstrap4-custom-checkbox.html", "checkbox",
         "Remember me", "remember", method="check", prepare=LOG + """
           document.querySelector("#remember").addEventListener("change", mark("remember"));""",
         clean=""),
    Case("bootstrap4 checkbox, link in label", "pages/bootstrap4-custom-checkbox.html",
         "checkbox", "I accept the terms of use", "terms", method="check", prepare=LOG + """
           document.querySelector("#terms").addEventListener("change", mark("terms"));
           document.querySelector("a").addEventListener("click", mark("link"));""",
         clean=""),
]

# A real library's cover over a page, on a host page whose hash picks what is open:
# everything but the control and its own drawing (`own`) that a trusted press or click
# reaches is logged, so a click on the cover (or anything else) shows as WRONG.
LOG_ANY = """
  window.clicked = [];
  const own = %r, describe = (el) => el.localName + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className ? "." + el.className.split(" ")[0] : "");
  for (const type of ["pointerdown", "click"]) {
    document.addEventListener(type, (e) => {
      const path = e.composedPath();
      if (e.isTrusted && !path.some((n) => n instanceof Element && n.matches(own))) {
        window.clicked.push(describe(path[0]));
      }
    }, true);
  }
  document.querySelector(%r).addEventListener(%r, () => window.clicked.push(%r));"""


def real_case(name: str, page: str, role: str, label: str, target: str, *,
              own: str = "", method: str = "click", event: str = "",
              ready: str = "body[data-ready]") -> Case:
    """A control on a host page of tests/real with a real library's cover (or none) open.
    `target` is the element whose `event` (click, or change for a check) says the control
    took the action; `own` what counts as the control itself (default: `target`)."""
    mark = target.lstrip("#")
    event = event or ("change" if method == "check" else "click")
    prepare = LOG_ANY % (own or target, target, event, mark)
    return Case(name, f"pages/{page}", role, label, mark, method=method, prepare=prepare,
                ready=ready)


# Third-party covers and custom controls (tests/real/pages/covers-*.html).
COVERS = [
    real_case("shepherd step, modal overlay", "covers-tours.html#shepherd", "button",
              "New project", "#new-project"),
    real_case("shepherd step bubble over a button", "covers-tours.html#shepherd-bubble",
              "button", "Export", "#export"),
    real_case("shepherd highlighted button", "covers-tours.html#shepherd", "button",
              "Filters", "#filters"),
    real_case("driver.js overlay", "covers-tours.html#driver", "button", "New project",
              "#new-project"),
    real_case("driver.js highlighted button", "covers-tours.html#driver", "button",
              "Filters", "#filters"),
    real_case("driver.js highlighted, locked", "covers-tours.html#driver-locked", "button",
              "Filters", "#filters"),
    real_case("intro.js overlay", "covers-tours.html#intro", "button", "New project",
              "#new-project"),
    real_case("intro.js highlighted button", "covers-tours.html#intro", "button", "Filters",
              "#filters"),
    real_case("intro.js highlighted, locked", "covers-tours.html#intro-locked", "button",
              "Filters", "#filters"),
    real_case("tippy popover over a button", "covers-popovers.html#tippy", "button",
              "Download", "#download"),
    real_case("bootstrap5 popover over a button", "covers-popovers.html#popover", "button",
              "Download", "#download"),
    real_case("bootstrap5 tooltip over a button", "covers-popovers.html#tooltip", "button",
              "Download", "#download"),
    real_case("bootstrap5 offcanvas backdrop", "covers-bootstrap5.html#offcanvas", "button",
              "Sort by", "#sort"),
    real_case("bootstrap5 dropdown over a button", "covers-bootstrap5.html#dropdown",
              "button", "Compare items", "#compare"),
    real_case("bootstrap5 fixed-top navbar", "covers-bootstrap5.html#navbar", "button",
              "Checkout", "#checkout"),
    real_case("bootstrap5 loading overlay goes", "covers-bootstrap5.html#loading", "button",
              "Compare items", "#compare"),
    real_case("sweetalert2 modal", "covers-notices.html#swal", "button", "Apply coupon",
              "#apply"),
    real_case("sweetalert2 loading goes", "covers-notices.html#swal-loading", "button",
              "Apply coupon", "#apply"),
    real_case("cookieconsent bar over a button", "covers-notices.html#cookies", "button",
              "Pay now", "#pay"),
    real_case("notyf toast over a corner button", "covers-notices.html#toast", "button",
              "Pay now", "#pay"),
    real_case("choices.js open over a button", "covers-pickers.html#choices", "button",
              "Use my location", "#nearby"),
    real_case("flatpickr open over a button", "covers-pickers.html#flatpickr", "button",
              "Search trains", "#search"),
    real_case("bootstrap5 form-switch", "covers-checks.html", "switch",
              "Email notifications", "#notify", own="#notify, [for=notify]", method="check"),
    real_case("bootstrap5 btn-check toggle", "covers-checks.html", "checkbox", "Bold",
              "#bold", own="#bold, [for=bold]", method="check"),
    real_case("bootstrap5 btn-check radio", "covers-checks.html", "radio", "Center",
              "#center", own="#center, [for=center]", method="check"),
    real_case("shoelace checkbox", "covers-checks.html", "checkbox", "Send me the newsletter",
              "#newsletter", method="check", event="sl-change"),
    real_case("ionic checkbox", "ionic.html", "checkbox", "Accept the terms", "#terms",
              method="check", event="ionChange", ready="ion-checkbox.hydrated"),
    real_case("shoelace switch", "covers-checks.html", "switch", "Compact view", "#compact",
              method="check", event="sl-change"),
]


def outcome(page: Page, case: Case, error: BaseException | None, refusals: tuple) -> str:
    """What one side did: WRONG when anything but the control took the click."""
    clicked = page.evaluate(CLICKED) if not page.is_closed() else []
    if any(what != case.mark for what in clicked):
        return "WRONG " + ",".join(clicked)
    if error is None:
        return "acted" if case.mark in clicked else "failed (nothing took it)"
    if WHY:
        print(f"  {case.name}: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
    return "refused" if isinstance(error, refusals) else f"failed ({type(error).__name__})"


def open_case(browser: Browser, base: str, case: Case, *, clean: bool = False) -> Page:
    page = browser.new_page()
    page.goto(base + case.url)
    page.wait_for_selector(case.ready)
    if case.prepare:
        page.evaluate(f"() => {{ {case.prepare} }}")
    if clean and case.clean:
        page.evaluate(f"async () => {{ {case.clean} }}")
    return page


def playwright_side(browser: Browser, base: str, case: Case, timeout: float) -> str:
    page = open_case(browser, base, case)
    scope = page.frame_locator(case.frame) if case.frame else page
    if case.selector:
        control = scope.locator(case.selector)
    else:
        control = scope.get_by_role(case.role, name=case.label)  # type: ignore[arg-type]
    error = None
    try:
        getattr(control, case.method)(timeout=timeout)
    except PlaywrightError as exc:
        error = exc
    result = outcome(page, case, error, (PlaywrightError,))
    page.close()
    return result


def plugin_side(
    browser: Browser, base: str, case: Case, timeout: float, model: ScriptedModelServer,
    folder: Path,
) -> tuple[str, str]:
    """(outcome, what stood in) of the step recorded on the page, replayed offline."""
    store = RecordingStore(folder / "store")
    test_file = folder / f"test_{abs(hash(case.name))}.py"
    instruction = f"{case.method} the {case.label or case.mark} {case.role}"
    page = open_case(browser, base, case, clean=True)
    with scripted_ai_page(page, model) as ai:
        ai.resolver = RecordingResolver(
            page, ModelResolver(page, ai.client, ai.steplog),
            Recordings(store, test_file, "auto"), ai.steplog, has_model=True,
        )
        model.enqueue(choose(case.role, case.label, case.method) if case.label
                      else unnamed(case.role, case.method))
        try:
            ai.act(instruction, timeout=timeout)
        except (StagehandError, PlaywrightError) as exc:
            result = "recording " + outcome(page, case, exc, (StagehandError,))
            page.close()
            store.close()
            return result, ""
    page.close()
    page = open_case(browser, base, case)
    calls = model.calls
    with scripted_ai_page(page, model) as ai:
        ai.resolver = RecordingResolver(
            page, ai.resolver, Recordings(store, test_file, "offline"), ai.steplog,
            has_model=False,
        )
        error, via = None, ""
        try:
            via = ai.act(instruction, timeout=timeout).actions[0].via
        except (StagehandError, PlaywrightError) as exc:
            error = exc
        result = outcome(page, case, error, (StagehandError,))
    assert model.calls == calls, "the offline replay asked the model"
    page.close()
    store.close()
    return result, via


def unnamed(role: str, method: str) -> Callable[[ScriptedRequest], dict]:
    """The first `role` of the snapshot, for a control the page gives no name."""

    def answer(request: ScriptedRequest) -> dict:
        found = re.search(rf"\b(e\d+) {role}\b", latest_snapshot(request.text))
        return act_answer(found.group(1), method, ())

    return answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=2000, help="ms per action")
    parser.add_argument("--why", action="store_true", help="print each error's first line")
    parser.add_argument("--only", default="", help="only the cases whose name matches this regex")
    args = parser.parse_args()
    pages, real = PagesServer().start(), RealWidgetsServer().start()
    chromium = find_chromium()
    rows = []
    with (
        sync_playwright() as playwright,
        ScriptedModelServer() as model,
        tempfile.TemporaryDirectory() as folder,
    ):
        browser = playwright.chromium.launch(
            executable_path=chromium.executable_path, args=list(chromium.args)
        )
        for case in [case for case in CASES + REAL + COVERS if re.search(args.only, case.name)]:
            base = (pages if case in CASES else real).url()
            theirs = playwright_side(browser, base, case, args.timeout)
            ours, via = plugin_side(browser, base, case, args.timeout, model, Path(folder))
            rows.append((case.name, theirs, ours, via))
        browser.close()
    width = max(len(row[0]) for row in rows)
    print(f"{'case':<{width}}  {'playwright':<12}  {'plugin (replayed offline)':<28}  stood in")
    for name, theirs, ours, via in rows:
        print(f"{name:<{width}}  {theirs:<12}  {ours:<28}  {via}")
    wrong = sum(ours.startswith("WRONG") for _, _, ours, _ in rows)
    worse = sum(t == "acted" and o != "acted" for _, t, o, _ in rows)
    beyond = sum(t != "acted" and o == "acted" for _, t, o, _ in rows)
    same = sum(t == o for _, t, o, _ in rows)
    baseline_wrong = sum(t.startswith("WRONG") for _, t, _, _ in rows)
    print(
        f"\n{len(rows)} cases: same outcome {same}/{len(rows)}; plugin WRONG {wrong} "
        f"(Playwright WRONG {baseline_wrong}); plugin fails where Playwright acts {worse}; "
        f"plugin acts on the control itself (or through its own label or drawing, as "
        f"'stood in' says) where Playwright refuses {beyond}"
    )


if __name__ == "__main__":
    main()
