"""Pages that take their time: a menu that opens a moment after the hover, an order lookup
that answers after a second and a half. Steps wait for what they look for, as Playwright's
locators and expect do, so the test has no sleeps and no loops.

The async twin of examples/test_waiting.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from playwright.async_api import expect


async def test_the_help_menu_opens_a_moment_after_the_hover(ai_page):
    await ai_page.goto("/track")
    await ai_page.act("hover over Help")
    # The submenu is built 0.36 s after the hover: act waits for its link to appear.
    await ai_page.act("click Delivery times in the Help menu")
    await expect(ai_page.locator("#help-answer")).to_contain_text("3–5 business days")


async def test_tracking_an_order_waits_for_the_carrier(ai_page):
    await ai_page.goto("/track")
    await ai_page.act("click track order")
    # The answer comes 1.5 s later: extract and assert_that wait for it (5 s by default).
    status = await ai_page.extract("the status of order #1001")
    assert status.startswith("Order #1001 has shipped")
    await ai_page.assert_that("the page says order #1001 has shipped")


async def test_wait_for_a_claim_without_asserting(ai_page):
    await ai_page.goto("/track")
    await ai_page.act("click track order")
    verdict = await ai_page.wait_for("the page says order #1001 has shipped", timeout=10_000)
    assert verdict.passed
