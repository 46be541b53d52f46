"""A computer-use agent: the provider's own model acts on screenshots with the keyboard and
mouse, and the run is recorded as element actions that replay, verified, with no model.

The async twin of examples/test_computer_use.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

import re

from playwright.async_api import expect
from pydantic import BaseModel


class Catalogue(BaseModel):
    products: int


async def test_a_computer_use_agent_logs_in_and_counts_the_products(ai_page, agent, credentials):
    await ai_page.goto("/")

    result = await agent.execute(
        "log in as %user% with the password %password% and report how many products are listed",
        max_steps=12,
        output=Catalogue,
        variables=credentials,
        mode="cua",
    )

    assert result.success, result.message
    assert result.output == Catalogue(products=8)  # read again from the page on replay
    await expect(ai_page.page).to_have_url(re.compile(r"/inventory$"))
