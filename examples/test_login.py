"""Logging in: %variables% keep credentials out of prompts, recordings and reports."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_a_customer_logs_in_and_sees_the_catalogue(ai_page, log_in):
    log_in()

    expect(ai_page.page).to_have_url(re.compile(r"/inventory$"))
    ai_page.assert_that("the catalogue shows all 8 products")


def test_a_locked_out_customer_is_told_why(ai_page, log_in):
    # The same recorded steps as for the demo customer: a recording keeps the variable's
    # name (%user%), never its value, so one recording serves every user.
    log_in(user="locked_out_user")

    ai_page.assert_that("an error message says the user has been locked out")
    expect(ai_page.page).to_have_url(re.compile(r"/$"))
