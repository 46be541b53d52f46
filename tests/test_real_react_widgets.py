"""React component libraries as released on npm (tests/real/pages/antd.html: Ant Design 5's
UMD build on React 18; antd4.html: the same app on Ant Design 4), read as the model reads
them; the bench's flows (bench/bench_real_apps.py) record and replay the rest of these
widgets."""

from __future__ import annotations

from playwright.sync_api import expect
from scripted_answers import choose, choose_described, recorded_then_replayed

from pytest_stagehand.snapshot.outline import snapshot

WAIT_MS = 10_000


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
    for ref in named:  # the list is still sliding in: wait, as a click would
        expect(page.locator(ref.selector), f"{ref.selector} is offered, not shown").to_be_visible()


def test_a_tree_checkbox_with_no_role_records_and_replays_by_the_text_beside_it(
    page, browser, scripted_model, store, tmp_path, real
):
    """Ant Design 4's tree draws each node's checkbox as an empty span, no role, no name:
    the snapshot says which node it ticks by the text right after it, as a person reads
    it; the scripted model names the one beside Apples, and the replay ticks it again."""
    scripted_model.default = choose_described("text after it: Apples")
    test_file = tmp_path / "test_tree.py"
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.goto("pages/antd4.html")
            ai.locator(".ant-tree-switcher").first.click()  # Fruits opens: Apples shows
            expect(ai.get_by_text("Apples", exact=True)).to_be_visible()
            asked = scripted_model.calls
            ai.act("tick Apples")
            expect(ai.locator("#chosen")).to_have_text("Garden: apples")  # the app's word
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline


# antd's menu is put in the document fully transparent, aligned, its appear transition
# waiting on animation frames; on a busy machine those come late, and one came between
# the press on an item and its release, shrinking the menu away (the start state) so that
# the click reached nothing. Here the page's frames are held from the moment the menu is
# put in place until the first press, or for 2 s (LATE_FRAMES_MS).
LATE_FRAMES_MS = 2000
LATE_FRAMES = """(() => {
  const held = [];
  let holding = false, done = false;
  const frame = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (run) => (holding ? -held.push(run) : frame(run));
  const release = () => {
    holding = false;
    while (held.length) held.shift()(performance.now());
  };
  new MutationObserver(() => {
    if (done || !document.querySelector(".ant-dropdown")) return;
    done = holding = true;
    setTimeout(release, LATE_FRAMES_MS);
  }).observe(document, { childList: true, subtree: true });
  addEventListener("pointerdown", (event) => { if (event.isTrusted) release(); }, true);
})()""".replace("LATE_FRAMES_MS", str(LATE_FRAMES_MS))


def test_a_hover_menu_s_item_is_clicked_once_the_menu_is_drawn(
    page, browser, scripted_model, store, tmp_path, real
):
    """Ant Design 5's Dropdown opened on hover: its item is pressed only once the menu is
    drawn, so that the whole click reaches it and antd chooses it, recorded and replayed,
    however late the menu's appear transition begins (see LATE_FRAMES)."""
    scripted_model.default = choose("menuitem", "Settings")
    test_file = tmp_path / "test_account.py"
    for mode, opened in recorded_then_replayed(
        page, browser, scripted_model, store, test_file, base_url=real.url(),
        wait_timeout=WAIT_MS,
    ):
        with opened as ai:
            ai.add_init_script(LATE_FRAMES)
            ai.goto("pages/antd.html")
            ai.get_by_text("Account", exact=True).hover()
            expect(ai.get_by_role("menuitem", name="Settings")).to_have_count(1)  # in place
            asked = scripted_model.calls
            ai.act("click Settings in the Account menu")
            expect(ai.locator("#chosen")).to_have_text("Account: Settings")
            if mode == "offline":
                assert scripted_model.calls == asked  # no model offline
