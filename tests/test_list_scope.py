"""A list recorded in one container and replayed where its container's markup changed
(Bootstrap 5 → 4, the libraries as released on npm): its rows are read in the container
that still says what the step named ("Account"), never in whatever scope reads alike."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel
from real_widgets import REAL, RealWidgetsServer
from scripted_answers import recorded_ai_page

from pytest_stagehand.errors import HealFailed

PAGE = "pages/bootstrap-dropdown.html"
ITEMS = ["Profile", "Orders", "Sign out"]
STEP = "the items of the Account menu"


class Names(BaseModel):
    names: list[str]


@pytest.fixture(scope="module")
def widgets() -> Iterator[RealWidgetsServer]:
    server = RealWidgetsServer().start()
    yield server
    server.close()


def replay_on_bootstrap_4(browser, scripted_model, store, test_file, widgets, rename=""):
    """Replay the extract offline on the same page in Bootstrap 4's markup, the Account
    menu open; `rename`: what its toggle says instead of "Account"."""
    context = browser.new_context()
    body = (REAL / "pages/bootstrap4-dropdown.html").read_text()
    context.route(widgets.url(PAGE), lambda route: route.fulfill(
        body=body.replace(">Account<", f">{rename}<") if rename else body,
        content_type="text/html"))
    page = context.new_page()
    with recorded_ai_page(page, scripted_model, store, test_file, "offline",
                          base_url=widgets.url()) as ai:
        ai.goto(PAGE)
        assert ai.page.evaluate("bootstrap.Dropdown.VERSION").startswith("4.")
        ai.page.get_by_role("button", name=rename or "Account").click()
        ai.page.get_by_role("link", name="Sign out").wait_for()
        try:
            yield ai
        finally:
            context.close()


@pytest.fixture
def recorded(page, scripted_model, store, tmp_path, widgets):
    test_file = tmp_path / "test_menus.py"
    with recorded_ai_page(page, scripted_model, store, test_file, "auto",
                          base_url=widgets.url()) as ai:
        ai.goto(PAGE)
        ai.page.get_by_role("button", name="Account").click()
        ai.page.get_by_role("link", name="Sign out").wait_for()
        scripted_model.enqueue({"names": ITEMS})
        assert ai.extract(STEP, schema=Names).names == ITEMS
    return test_file


def test_a_list_whose_container_changed_is_read_in_the_container_it_named(
    browser, scripted_model, store, widgets, recorded
):
    calls = scripted_model.calls
    for ai in replay_on_bootstrap_4(browser, scripted_model, store, recorded, widgets):
        assert ai.extract(STEP, schema=Names).names == ITEMS
        heal = ai.steplog.events[-1].heal
        assert heal is not None and heal.before != heal.after != "body", heal
        # The Account menu of Bootstrap 4's markup: the rows' own container, not the page.
        assert ai.page.locator(heal.after).get_attribute("aria-labelledby") == "account"
        assert heal.strategy == "fingerprint" and "surroundings" in heal.decided_by, heal
    assert scripted_model.calls == calls


def test_a_list_is_never_read_in_a_container_that_no_longer_says_what_the_step_named(
    browser, scripted_model, store, widgets, recorded
):
    # The same menu, the same items, but it is the Admin menu now: not the Account menu.
    for ai in replay_on_bootstrap_4(browser, scripted_model, store, recorded, widgets, "Admin"):
        with pytest.raises(HealFailed, match="no longer shows account, which the step names"):
            ai.extract(STEP, schema=Names)
