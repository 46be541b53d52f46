"""React component libraries as released on npm (tests/real/pages/antd.html: Ant Design 5's
UMD build on React 18), read as the model reads them; the bench's flows
(bench/bench_real_apps.py) record and replay the rest of these widgets."""

from __future__ import annotations

from playwright.sync_api import expect

from pytest_stagehand.snapshot.outline import snapshot


def test_a_select_s_copy_of_its_options_for_screen_readers_is_no_target(page, real):
    """antd's Select draws its options in a virtual list and keeps a copy of the active
    ones for screen readers in a list box clipped to nothing: a click on that copy never
    lands (Playwright waits for it to be visible). The snapshot offers the model only
    the options a person sees, each one an element a click reaches."""
    page.goto(real.url("pages/antd.html"))
    page.get_by_role("combobox", name="Office").fill("Zür")
    expect(page.locator(".ant-select-item-option")).to_have_count(1)
    seen = snapshot(page)
    named = [ref for ref in seen.elements.values() if ref.name == "Zürich"]
    assert named, seen.text
    for ref in named:
        assert page.locator(ref.selector).is_visible(), f"{ref.selector} is offered, not shown"

