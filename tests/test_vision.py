"""Vision fallback: a marked screenshot when the page text is not enough.

The test page has a chart drawn on a canvas (no element per bar), a toolbar of SVG icons
with no names, and a DOM form. The scripted model answers as a correct model looking at
the screenshot would: the point where a bar is drawn, the mark on an icon.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from pydantic import BaseModel
from scripted_answers import (
    NOT_FOUND,
    choose,
    latest_snapshot,
    marked,
    nth_unnamed,
    pointing,
    screenshot_width,
    scripted_ai_page,
)

from pytest_stagehand.errors import (
    AIAssertionError,
    ConfigError,
    ElementNotFound,
    HealFailed,
    RegionChanged,
)
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.judge import Evaluator
from pytest_stagehand.pipelines.replay import RecordingResolver, StepRecorder
from pytest_stagehand.pipelines.vision import MAX_EDGE, vision_mode
from pytest_stagehand.recordings.format import recordings_file
from pytest_stagehand.recordings.store import Recordings
from pytest_stagehand.settings import Settings
from pytest_stagehand.testing.scripted_model import ScriptedRequest

VIEWPORT = 1280
# The chart: a 400x200 canvas at (20, 60) with a 1px border; bar i spans x 30+90i..90+90i.
CHART = (21, 61)
FEB = (CHART[0] + 150, CHART[1] + 150)  # inside the Feb bar (80 high: y 20..180)
CHANGED_CHART = 'window.chartData = [["Jan", 30], ["Feb", 10], ["Mar", 50], ["Apr", 65]];'


@pytest.fixture
def test_file(tmp_path):
    return tmp_path / "test_board.py"


@pytest.fixture
def ai(page, scripted_model, pages_server):
    page.set_viewport_size({"width": VIEWPORT, "height": 720})
    with scripted_ai_page(page, scripted_model, base_url=pages_server.url()) as ai_page:
        ai_page.goto("vision.html")
        yield ai_page


def use_recordings(ai, store, test_file, mode, *, has_model):
    ai.resolver = RecordingResolver(
        ai.page,
        ModelResolver(ai.page, ai.client if has_model else None, ai.steplog),
        Recordings(store, test_file, mode),
        ai.steplog,
        has_model=has_model,
        model="openai/scripted",
    )


def committed(store, test_file) -> dict:
    store.flush()
    return json.loads(recordings_file(test_file).read_text())


def picked(ai) -> str:
    return ai.locator("#picked").inner_text()


# --- act -----------------------------------------------------------------------------------


def test_a_bar_drawn_on_a_canvas_is_clicked_at_the_point_the_model_saw(ai, scripted_model):
    scripted_model.enqueue(NOT_FOUND, pointing(*FEB, VIEWPORT))
    result = ai.act("click the Feb bar of the chart")
    assert picked(ai) == "Feb: 80"
    text, sight = scripted_model.requests
    assert not text.images and len(sight.images) == 1  # the screenshot only after "not found"
    assert "the pixel of the screenshot to act at" in sight.text
    assert "Marked elements: e1, e2" in sight.text
    assert (result.usage.calls, result.usage.images) == (2, 1)  # the image is in the usage
    assert result.usage.image_pixels == 1024 * 576
    (action,) = result.actions
    assert action.selector is not None and action.target.fingerprint.tag == "canvas"
    assert action.point is not None and (action.point.x, action.point.y) == (150.0, 150.0)
    assert len(bytes.fromhex(action.point.look)) == 8 * 8 * 3  # colours, not gray


def test_the_screenshot_is_scaled_to_a_bounded_size(ai, scripted_model):
    ai.page.set_viewport_size({"width": 2000, "height": 1000})
    scripted_model.enqueue(NOT_FOUND, pointing(*FEB, 2000))
    ai.act("click the Feb bar of the chart")
    assert picked(ai) == "Feb: 80"  # the point maps back through the scale
    assert screenshot_width(scripted_model.last_request) == MAX_EDGE
    assert f"The screenshot is {MAX_EDGE}x512 pixels" in scripted_model.last_request.text


def test_a_canvas_click_replays_offline_and_refuses_a_chart_that_changed(
    ai, scripted_model, store, test_file
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, pointing(*FEB, VIEWPORT))
    ai.act("click the Feb bar of the chart")
    (step,) = committed(store, test_file)["steps"]
    (recorded,) = step["actions"]
    assert recorded["element"]["fingerprint"]["tag"] == "canvas"
    assert recorded["point"]["x"] == 150.0 and len(recorded["point"]["look"]) == 2 * 8 * 8 * 3

    ai.goto("vision.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    ai.act("click the Feb bar of the chart")
    assert picked(ai) == "Feb: 80" and ai.steplog.events[-1].cache == "hit"
    assert scripted_model.calls == 2  # no model call on replay

    ai.page.add_init_script(CHANGED_CHART)  # Feb is now a short bar: white at the point
    ai.goto("vision.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(RegionChanged, match=r"click the Feb bar of the chart.*looks different"):
        ai.act("click the Feb bar of the chart")
    assert picked(ai) == "none"  # nothing was clicked


def test_an_unnamed_icon_is_chosen_by_its_mark_and_replayed_only_while_it_looks_the_same(
    ai, scripted_model, store, test_file
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, marked(nth_unnamed("button", 1)))  # the heart
    result = ai.act("click the heart icon")
    assert ai.locator("#status").inner_text() == "Liked"
    assert result.actions[0].element.startswith("button with icon drawn ")  # nameless
    (recorded,) = committed(store, test_file)["steps"][0]["actions"]
    # Only its drawing and its look tell the heart from the star: both are recorded.
    assert recorded["element"]["selectors"][0] == "#toolbar > button:nth-of-type(2)"
    assert recorded["element"]["fingerprint"]["attributes"]["icon"].startswith("drawn ")
    assert recorded["point"]["x"] == recorded["point"]["y"] == 21.0

    ai.goto("vision.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    ai.act("click the heart icon")
    assert ai.locator("#status").inner_text() == "Liked"

    ai.goto("vision.html")  # the star and the heart swap places
    ai.evaluate("document.querySelector('#toolbar').prepend(document.querySelector("
                "'[data-tool=heart]'))")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    result = ai.act("click the heart icon")  # the star in its place is another drawing
    assert result.cache == "healed" and ai.locator("#status").inner_text() == "Liked"

    ai.goto("vision.html")  # the same heart, in its place, painted another colour
    ai.evaluate("document.querySelector('[data-tool=heart] path').setAttribute('fill', '#2a7')")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(RegionChanged, match="click the heart icon"):
        ai.act("click the heart icon")
    assert ai.locator("#status").inner_text() == "idle"  # nothing was clicked


def test_an_element_with_a_name_chosen_by_its_mark_is_recorded_as_the_text_would(
    ai, scripted_model
):
    scripted_model.enqueue(marked(lambda text: "e6"))
    ai.locator("#name").fill("Ada")
    result = ai.act("click Save", vision="always")
    assert ai.locator("#saved").inner_text() == "Saved Ada"
    assert result.actions[0].point is None and result.actions[0].element == 'button "Save"'


def test_a_point_on_an_element_of_the_snapshot_is_that_element(ai, scripted_model):
    save = ai.locator("button", has_text="Save").bounding_box()
    ai.locator("#name").fill("Ada")
    middle = (save["x"] + save["width"] / 2, save["y"] + save["height"] / 2)
    scripted_model.enqueue(pointing(*middle, VIEWPORT))
    result = ai.act("click Save", vision=True)
    assert ai.locator("#saved").inner_text() == "Saved Ada"
    (action,) = result.actions
    assert action.point is None and action.element == 'button "Save"'
    assert scripted_model.calls == 1 and scripted_model.last_request.images  # always: one look


def test_vision_off_answers_not_found_without_a_screenshot(ai, scripted_model):
    scripted_model.enqueue(NOT_FOUND)
    with pytest.raises(ElementNotFound):
        ai.act("click the Feb bar of the chart", vision=False)
    assert scripted_model.calls == 1 and not scripted_model.last_request.images


def test_a_form_still_works_by_its_text_with_no_screenshot(ai, scripted_model):
    scripted_model.enqueue(choose("textbox", "Name", "fill", ["Ada"]), choose("button", "Save"))
    ai.act("type Ada into the name field")
    ai.act("click Save")
    assert ai.locator("#saved").inner_text() == "Saved Ada"
    assert not any(request.images for request in scripted_model.requests)




# --- observe -------------------------------------------------------------------------------


def bars_seen(*months: str) -> Callable[[ScriptedRequest], dict[str, Any]]:
    """A vision observe answer: a point on each named bar, as a model sees them drawn."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        scale = screenshot_width(request) / VIEWPORT
        elements = []
        for month in months:
            i = ["Jan", "Feb", "Mar", "Apr"].index(month)
            x, y = CHART[0] + 60 + 90 * i, CHART[1] + 175  # low in the bar: every bar is there
            elements.append({
                "element_id": None, "point": [x * scale, y * scale],
                "description": f"the {month} bar", "method": "click", "arguments": [],
            })
        return {"elements": elements}

    return answer


def test_observe_lists_bars_of_a_canvas_as_points_that_replay_verified(
    ai, scripted_model, store, test_file
):
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, test_file, "auto"), ai.steplog, has_model=True
    )
    scripted_model.enqueue({"elements": []}, bars_seen("Jan", "Mar"))
    jan, mar = ai.observe("the bars of the chart")
    assert [jan.description, mar.description] == ["the Jan bar", "the Mar bar"]
    assert jan.point is not None and jan.target.fingerprint.tag == "canvas"
    ai.act(mar)
    assert picked(ai) == "Mar: 50"

    ai.goto("vision.html")
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, test_file, "offline"), ai.steplog, has_model=False
    )
    jan, mar = ai.observe("the bars of the chart")
    assert scripted_model.calls == 2  # replayed with no model
    ai.act(jan)
    assert picked(ai) == "Jan: 30"

    ai.page.add_init_script(CHANGED_CHART.replace('["Jan", 30]', '["Jan", 3]'))
    ai.goto("vision.html")
    ai.recorder = StepRecorder(
        ai.page, Recordings(store, test_file, "offline"), ai.steplog, has_model=False
    )
    with pytest.raises(HealFailed, match="looks different"):
        ai.observe("the bars of the chart")


def test_observe_falls_back_to_the_marks_for_icons_the_text_cannot_tell_apart(
    ai, scripted_model
):
    def icons(request: ScriptedRequest) -> dict[str, Any]:
        screenshot_width(request)
        trash = nth_unnamed("button", 2)(request.text)
        return {"elements": [
            {"element_id": trash, "point": None, "description": "the trash icon",
             "method": "click", "arguments": []},
        ]}

    scripted_model.enqueue({"elements": []}, icons)
    (trash,) = ai.observe("the delete icon")
    assert trash.point is not None  # nameless: recorded with its look
    ai.act(trash)
    assert ai.locator("#status").inner_text() == "Deleted"


# --- extract -------------------------------------------------------------------------------


class Tallest(BaseModel):
    month: str


def test_extract_reads_a_canvas_chart_from_its_screenshot_and_replays_while_it_looks_the_same(
    ai, scripted_model, store, test_file
):
    def recorder(mode):
        return StepRecorder(
            ai.page, Recordings(store, test_file, mode), ai.steplog, has_model=mode != "offline"
        )

    ai.recorder = recorder("auto")
    scripted_model.enqueue({"month": "Feb"})
    assert ai.extract("the month of the tallest bar", Tallest, scope="#chart").month == "Feb"
    request = scripted_model.last_request
    assert len(request.images) == 1  # the chart is all canvas: looked at from the start
    assert screenshot_width(request) == 402  # the scoped canvas only, border included
    assert "to act at" not in request.text  # extract reads, it does not point

    ai.goto("vision.html")
    ai.recorder = recorder("offline")
    assert ai.extract("the month of the tallest bar", Tallest, scope="#chart").month == "Feb"
    assert scripted_model.calls == 1 and ai.steplog.events[-1].cache == "hit"

    ai.page.add_init_script(CHANGED_CHART)  # Apr is the tallest now
    ai.goto("vision.html")
    ai.recorder = recorder("offline")
    with pytest.raises(HealFailed, match="looks different now"):
        ai.extract("the month of the tallest bar", Tallest, scope="#chart")


def test_extract_of_the_dom_form_sends_no_screenshot(ai, scripted_model):
    scripted_model.enqueue({"text": "Name"})
    assert ai.extract("the label of the text field") == "Name"
    assert not scripted_model.last_request.images


# --- assert_that ---------------------------------------------------------------------------


def shown(text: str, prompt: str) -> str:
    """The id of the status line showing `text` in the prompt's snapshot."""
    found = re.search(rf"\b(e\d+) status: {re.escape(text)}$", latest_snapshot(prompt), re.M)
    assert found, f"no status {text!r} in the prompt"
    return found.group(1)


def use_judge(ai, store, test_file, mode, *, has_model):
    ai.evaluator = Evaluator(
        ai.page, ai.client if has_model else None, ai.steplog,
        recordings=Recordings(store, test_file, mode),
    )


def test_a_claim_about_the_chart_is_judged_from_a_screenshot_and_replays_by_its_look(
    ai, scripted_model, store, test_file
):
    claim = "the chart's Feb bar is the tallest"
    use_judge(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue({"verdict": "YES", "reasoning": "Feb towers over the rest.",
                            "check": None})
    verdict = ai.assert_that(claim, screenshot=True)
    assert verdict.based_on == "screenshot"
    assert screenshot_width(scripted_model.last_request) == MAX_EDGE  # bounded, as act's

    ai.goto("vision.html")
    use_judge(ai, store, test_file, "offline", has_model=False)
    assert ai.assert_that(claim, screenshot=True).based_on == "recorded check"
    assert scripted_model.calls == 1

    ai.page.add_init_script(CHANGED_CHART)  # Feb is the shortest now
    ai.goto("vision.html")
    use_judge(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(AIAssertionError, match="looks different"):
        ai.assert_that(claim, screenshot=True)


def test_a_claim_about_what_a_canvas_click_showed_replays_by_its_element(
    ai, scripted_model, store, test_file
):
    claim = "the picked bar reads Feb: 80"
    scripted_model.enqueue(NOT_FOUND, pointing(*FEB, VIEWPORT))
    ai.act("click the Feb bar of the chart")
    use_judge(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(lambda request: {
        "verdict": "YES", "reasoning": "It reads Feb: 80.",
        "check": {"kind": "element", "element_id": shown("Feb: 80", request.text),
                  "property": "text", "match": "equals", "expected": "Feb: 80"},
    })
    assert ai.assert_that(claim).based_on == "page text"
    assert not scripted_model.last_request.images

    use_judge(ai, store, test_file, "offline", has_model=False)
    assert ai.assert_that(claim).passed
    ai.goto("vision.html")
    use_judge(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(AIAssertionError):
        ai.assert_that(claim)  # nothing picked: "none"


# --- secrets -------------------------------------------------------------------------------


def test_a_secret_value_on_the_page_never_reaches_a_screenshot(ai, scripted_model):
    """The name typed and echoed ("Saved ...") is covered by its placeholder: the image
    sent is the same whatever the value."""
    sent = []
    for value in ("Ada Lovelace", "Grace Hopper"):
        ai.goto("vision.html")
        ai.locator("#name").fill(value)
        ai.locator("button", has_text="Save").click()
        ai.steplog.add_secrets({"name": value})
        scripted_model.enqueue(marked(lambda text: "e6"))
        ai.act("click Save", vision=True)
        sent.append(scripted_model.last_request.images[0])
    assert sent[0] == sent[1]


# --- settings --------------------------------------------------------------------------------


def test_vision_is_set_per_call_per_test_and_per_run():
    assert vision_mode(True, "fallback") == "always"
    assert vision_mode(False, "always") == "off"
    assert vision_mode(None, "off") == "off" and vision_mode("fallback", "off") == "fallback"
    with pytest.raises(ConfigError, match="not a vision mode"):
        vision_mode("sometimes", "fallback")
    assert Settings().vision == "fallback"
    assert Settings().with_marker({"vision": "always"}, frozenset()).vision == "always"
    with pytest.raises(ConfigError, match="must be one of fallback, off, always"):
        Settings().with_marker({"vision": "never"}, frozenset())


# --- a point means what was there: its colour and the text that named it ----------------
# A real chart (Chart.js from npm: bars and axis labels drawn on one canvas) and a map of
# pins drawn on a canvas. The scripted model reads where a bar and its label are drawn from
# the chart itself, as a correct model reads them off the screenshot.

MONTHS = {"labels": ["Jan", "Feb", "Mar", "Apr"], "values": [30, 80, 50, 65],
          "colours": ["#4363d8", "#3cb44b", "#f58231", "#911eb4"]}
# Feb and Mar swap places: green where orange was (40 gray levels apart, as gray goes).
REORDERED = {"labels": ["Jan", "Mar", "Feb", "Apr"], "values": [30, 50, 80, 65],
             "colours": ["#4363d8", "#f58231", "#3cb44b", "#911eb4"]}
# April drawn where March was, in March's colour and height: only the label differs.
RELABELLED = {**MONTHS, "labels": ["Jan", "Feb", "Apr", "May"]}
# Where each pin of pins.html is (canvas pixels; the canvas is at 20, 20), and shuffled.
PINS = {"Berlin": (250, 120), "Paris": (150, 170)}
SHUFFLED = 'window.cities = ["Paris", "Berlin", "Madrid", "Rome"];'

BAR = """([month]) => {
  const chart = window.salesChart, canvas = chart.canvas.getBoundingClientRect();
  const bar = chart.getDatasetMeta(0).data[chart.data.labels.indexOf(month)];
  const axis = chart.scales.x;
  return [canvas.x + bar.x, canvas.y + bar.base - 12,
          [canvas.x + bar.x - 18, canvas.y + axis.top + 2, 36, axis.bottom - axis.top - 4]];
}"""


@pytest.fixture(scope="module")
def real_widgets():
    from real_widgets import RealWidgetsServer

    server = RealWidgetsServer().start()
    yield server
    server.close()


def chart_page(ai, real_widgets, months: dict | None = None, zoom: float | None = None) -> None:
    """The Chart.js page drawn with `months` (the default chart when None), and scaled as
    a whole by `zoom` (a CSS transform of the body: Playwright's own clicks miss on a page
    with CSS `zoom`, so that is no case to hold the plugin to)."""
    ai.page.add_init_script(f"window.salesData = {json.dumps(months or MONTHS)};")
    ai.goto(real_widgets.url("pages/chartjs-bars.html"))
    if zoom is not None:
        ai.evaluate("zoom => { document.body.style.transform = `scale(${zoom})`; "
                    "document.body.style.transformOrigin = '0 0'; }", zoom)


def shows_picked(ai, text: str) -> None:
    """Chart.js handles a click in the next animation frame: wait for what it shows."""
    expect(ai.locator("#picked")).to_have_text(text)


def pointing_at_bar(ai, month: str):
    x, y, label = ai.evaluate(BAR, [month])
    return pointing(x, y, VIEWPORT, label=label)


def test_a_chart_bar_is_replayed_only_while_its_colour_is_there(
    ai, scripted_model, store, test_file, real_widgets
):
    chart_page(ai, real_widgets)
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, pointing_at_bar(ai, "Mar"))
    ai.act("click the Mar bar of the chart")
    shows_picked(ai, "Mar: 50")
    recorded = committed(store, test_file)["steps"][0]["actions"][0]["point"]
    assert len(recorded["label"]) == 4 and recorded["label_look"]  # where "Mar" is written

    chart_page(ai, real_widgets)  # unchanged: replayed with no model
    use_recordings(ai, store, test_file, "offline", has_model=False)
    ai.act("click the Mar bar of the chart")
    shows_picked(ai, "Mar: 50")
    assert scripted_model.calls == 2

    chart_page(ai, real_widgets, REORDERED)  # Feb's green bar where March's orange one was
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(RegionChanged, match=r"looks different now: its colour \(#f5"):
        ai.act("click the Mar bar of the chart")
    assert picked(ai) == "none"  # nothing was clicked

    use_recordings(ai, store, test_file, "auto", has_model=True)  # with a model: asked
    scripted_model.enqueue(NOT_FOUND, pointing_at_bar(ai, "Mar"))
    result = ai.act("click the Mar bar of the chart")
    shows_picked(ai, "Mar: 50")
    assert result.cache == "healed" and scripted_model.calls == 4


def test_a_chart_bar_relabelled_in_the_same_colour_is_refused_by_its_label(
    ai, scripted_model, store, test_file, real_widgets
):
    chart_page(ai, real_widgets)
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, pointing_at_bar(ai, "Mar"))
    ai.act("click the Mar bar of the chart")
    shows_picked(ai, "Mar: 50")

    chart_page(ai, real_widgets, RELABELLED)  # April, orange, as high, where March was
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(RegionChanged, match=r"no longer named as recorded: the text that named"):
        ai.act("click the Mar bar of the chart")
    assert picked(ai) == "none"


def test_a_chart_zoomed_as_a_whole_still_replays_at_the_same_bar(
    ai, scripted_model, store, test_file, real_widgets
):
    chart_page(ai, real_widgets)
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, pointing_at_bar(ai, "Mar"))
    ai.act("click the Mar bar of the chart")

    for zoom in (1.25, 0.8):
        chart_page(ai, real_widgets, zoom=zoom)
        use_recordings(ai, store, test_file, "offline", has_model=False)
        result = ai.act("click the Mar bar of the chart")
        shows_picked(ai, "Mar: 50")
        assert result.cache == "hit", zoom
    assert scripted_model.calls == 2


def pin_answer(city: str):
    x, y = PINS[city]
    left, top = 20, 20  # the canvas
    return pointing(left + x, top + y, VIEWPORT, label=[left + x + 10, top + y - 9, 52, 18])


def test_a_map_pin_is_replayed_only_while_its_name_is_beside_it(
    ai, scripted_model, store, test_file
):
    ai.goto("pins.html")
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(NOT_FOUND, pin_answer("Berlin"))
    ai.act("click the Berlin pin on the map")
    assert picked(ai) == "Berlin"

    ai.goto("pins.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    ai.act("click the Berlin pin on the map")
    assert picked(ai) == "Berlin"

    ai.page.add_init_script(SHUFFLED)  # Paris's pin where Berlin's was: the same red head
    ai.goto("pins.html")
    use_recordings(ai, store, test_file, "offline", has_model=False)
    with pytest.raises(RegionChanged, match="no longer named as recorded"):
        ai.act("click the Berlin pin on the map")
    assert picked(ai) == "none"
