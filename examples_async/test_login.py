"""Logging in, async: the sync suite's recording replays here unchanged."""

from __future__ import annotations

import re

from playwright.async_api import expect


async def test_a_customer_logs_in_and_sees_the_catalogue(ai_page, log_in):
    await log_in()

    await expect(ai_page.page).to_have_url(re.compile(r"/inventory$"))
    await ai_page.assert_that("the catalogue shows all 8 products")


async def test_a_locked_out_customer_is_told_why(ai_page, log_in):
    await log_in(user="locked_out_user")

    await ai_page.assert_that("an error message says the user has been locked out")
    await expect(ai_page.page).to_have_url(re.compile(r"/$"))
