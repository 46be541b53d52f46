"""Widgets other tools trip over: a form in a cross-origin iframe, and one in a shadow root.

The async twin of examples/test_support.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from playwright.async_api import expect


async def test_the_contact_form_in_an_iframe_sends_a_message(ai_page):
    await ai_page.goto("/support")
    # The form is served from another origin, inside an <iframe>: act reaches into it.
    await ai_page.act("type Ada into the name field of the contact form")
    await ai_page.act("type ada@example.com into the email field of the contact form")
    await ai_page.act("type Where is my order? into the message field")
    await ai_page.act("click send message")

    await ai_page.assert_that("the contact form confirms the message was sent to ada@example.com")
    form = ai_page.frame_locator("iframe[title='Contact form']")
    await expect(form.get_by_role("status")).to_contain_text("Thanks, Ada!")


async def test_the_newsletter_widget_in_a_shadow_root_subscribes(ai_page):
    await ai_page.goto("/newsletter")
    # observe lists what can be done, as actions that act replays with no model.
    email, subscribe = await ai_page.observe(
        "what to fill in and click to subscribe ada@example.com"
    )
    assert (email.method, email.arguments) == ("fill", ("ada@example.com",))
    assert subscribe.method == "click"

    await ai_page.act(email)
    await ai_page.act(subscribe)

    await ai_page.assert_that("the newsletter thanks the customer for subscribing")
