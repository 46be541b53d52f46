"""What a browser does around the page: native dialogs, a new tab, a file chooser and a
download, each in plain English and replayed with no model.

The async twin of examples/test_account.py: the same steps awaited, its recording replayed.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import expect


async def test_deleting_the_saved_addresses_is_confirmed(ai_page):
    await ai_page.goto("/account")
    await ai_page.act("delete the saved addresses")  # opens a confirm(): held for the next step
    await ai_page.act("accept the confirmation")
    await expect(ai_page.get_by_role("status", name="Account")).to_have_text(
        "Saved addresses deleted"
    )


async def test_the_wishlist_is_renamed_in_a_prompt(ai_page):
    await ai_page.goto("/account")
    await ai_page.act("rename the wishlist")
    await ai_page.act(
        "type %list% into the prompt and accept it", variables={"list": "Birthday ideas"}
    )
    await expect(ai_page.locator("#wishlist-name")).to_have_text("Birthday ideas")


async def test_help_opens_in_a_new_tab_and_the_account_tab_is_still_there(ai_page):
    await ai_page.goto("/account")
    await ai_page.act("open help in a new tab")  # target=_blank: the next steps act on the new tab
    await expect(ai_page.page).to_have_title("Support · Trailhead Outfitters")
    assert len(ai_page.pages) == 2

    await ai_page.act("switch back to the account tab")
    await expect(ai_page.page).to_have_title("Your account · Trailhead Outfitters")


async def test_a_profile_photo_is_chosen_through_the_button(ai_page, tmp_path):
    photo = tmp_path / "ada.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n")
    await ai_page.goto("/account")
    # The file input is hidden behind "Choose photo": the file chooser gets the file.
    await ai_page.upload("upload %photo% as the profile photo", files={"photo": photo})
    await expect(ai_page.get_by_role("status", name="Photo")).to_have_text("Photo: ada.png")


async def test_the_last_invoice_downloads(ai_page):
    await ai_page.goto("/account")
    (invoice,) = (await ai_page.download("download the last invoice")).downloads
    assert invoice.suggested_filename == "invoice-1042.csv"
    assert "1042,2026-03-12,$57.98" in Path(invoice.path()).read_text()
