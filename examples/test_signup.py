"""The agent: a goal instead of steps, with a structured answer."""

from __future__ import annotations

from playwright.sync_api import expect
from pydantic import BaseModel, Field


class Welcome(BaseModel):
    name: str = Field(description="the name the welcome banner greets")
    banner: str = Field(description="the welcome banner's full text")


def test_the_agent_signs_up_a_new_customer(ai_page, agent):
    ai_page.goto("/")

    result = agent.execute(
        "Sign up for a new account as Ada Lovelace with the email ada@example.com and the "
        "password %password%, accepting the terms, and confirm the welcome banner.",
        output=Welcome,
        variables={"password": "correct-horse-battery"},
    )

    assert result.success, result.message
    assert result.output == Welcome(
        name="Ada Lovelace", banner="Welcome, Ada Lovelace! Your account is ready."
    )
    expect(ai_page.get_by_text("Signed in as Ada Lovelace")).to_be_visible()
