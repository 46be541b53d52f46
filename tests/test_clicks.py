"""Right-click and double-click: on a page where click, double-click and right-click each
do something else, the method the model chose is the one performed, and replayed."""

from __future__ import annotations

from scripted_answers import choose
from verbs import committed_steps, use_recordings


def status(ai) -> str:
    return ai.page.text_content("#log")


def test_double_and_right_click_do_what_they_say_and_replay_offline(
    ai, scripted_model, store, tmp_path
):
    test_file = tmp_path / "test_files.py"
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(
        choose("button", "budget.xlsx", "double_click"),
        choose("button", "notes.txt", "right_click"),
    )
    for mode in ("auto", "offline"):
        if mode == "offline":
            use_recordings(ai, store, test_file, "offline", has_model=False)
        ai.goto("verbs/clicks.html")
        ai.act("open budget.xlsx")
        assert status(ai) == "Opened budget"  # a dblclick, not two clicks' "Selected"
        ai.act("open the context menu of notes.txt")
        assert status(ai) == "Menu for notes"
    assert scripted_model.calls == 2
    methods = sorted(step["actions"][0]["method"] for step in committed_steps(store, test_file))
    assert methods == ["double_click", "right_click"]
