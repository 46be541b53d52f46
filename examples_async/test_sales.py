"""Vision: a chart drawn on a canvas has no element per bar and nothing in the page text.

The model answers "not found" from the text, so the plugin shows it a screenshot with the
page's elements marked; it points at the bar. The click is recorded on the canvas at that
point, with the look of the region around it: replay checks the bar still looks the same
before it clicks, and refuses (RegionChanged) when the chart changed.

The async twin of examples/test_sales.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from playwright.async_api import expect

from pytest_stagehand.async_face import AsyncAIPage


async def test_picking_a_month_on_the_sales_chart(ai_page: AsyncAIPage) -> None:
    await ai_page.goto("/sales")
    await ai_page.act("click the Feb bar of the sales chart")
    await expect(ai_page.locator("#sales-picked")).to_have_text("Feb: 95 orders")
