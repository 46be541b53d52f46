"""The agent: a goal instead of steps, with a structured answer.

The async twin of examples/test_signup.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from playwright.async_api import expect
from pydantic import BaseModel, Field


class Welcome(BaseModel):
    name: str = Field(description="the name the welcome banner greets")
    banner: str = Field(description="the welcome banner's full text")


async def test_the_agent_signs_up_a_new_customer(ai_page, agent):
    await ai_page.goto("/")

    result = await agent.execute(
        "Sign up for a new account as Ada Lovelace with the email ada@example.com and the "
        "password %password%, accepting the terms, and confirm the welcome banner.",
        output=Welcome,
        variables={"password": "correct-horse-battery"},
    )

    assert result.success, result.message
    assert result.output == Welcome(
        name="Ada Lovelace", banner="Welcome, Ada Lovelace! Your account is ready."
    )
    await expect(ai_page.get_by_text("Signed in as Ada Lovelace")).to_be_visible()
