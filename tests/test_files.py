"""Files: upload into a file field, and into a hidden one behind a "Choose file" button,
with paths given as variables (recorded by name, never the path); a step that starts a
download returns it on the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect
from scripted_answers import choose, scripted_ai_page
from verbs import committed_steps, use_recordings

from pytest_stagehand.errors import InvalidArgument
from pytest_stagehand.reporting.evidence import EvidenceWriter


@pytest.fixture
def test_file(tmp_path):
    return tmp_path / "test_profile.py"


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    folder = tmp_path / "private-uploads"
    folder.mkdir()
    (folder / "ada-cv.pdf").write_bytes(b"%PDF-1.4 resume")
    (folder / "ada.png").write_bytes(b"\x89PNG photo")
    return {"resume": folder / "ada-cv.pdf", "photo": folder / "ada.png"}


def fill_profile(ai, files) -> None:
    ai.goto("verbs/files.html")
    ai.upload("upload %resume% to the resume field", files={"resume": files["resume"]})
    assert ai.page.text_content("#resume-name") == "Resume: ada-cv.pdf"
    ai.upload("choose %photo% as the profile photo", files={"photo": files["photo"]})
    assert ai.page.text_content("#photo-name") == "Photo: ada.png"


def test_uploads_record_the_variable_and_replay_offline(
    ai, scripted_model, store, test_file, files
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(
        choose("button", "Resume", "upload", ["%resume%"]),
        choose("button", "Choose photo", "upload", ["%photo%"]),  # the hidden field's button
    )
    fill_profile(ai, files)
    assert scripted_model.calls == 2
    assert all("private-uploads" not in r.text for r in scripted_model.requests)

    use_recordings(ai, store, test_file, "offline", has_model=False)
    fill_profile(ai, files)
    assert scripted_model.calls == 2
    steps = committed_steps(store, test_file)
    assert sorted(step["actions"][0]["arguments"] for step in steps) == [["%photo%"], ["%resume%"]]
    assert "private-uploads" not in str(steps)
    assert all("private-uploads" not in (event.result or "") for event in ai.steplog.events)


def test_an_upload_names_existing_files_by_variable(ai, tmp_path):
    with pytest.raises(InvalidArgument, match="does not name the file %resume%"):
        ai.upload("upload my resume", files={"resume": tmp_path})
    with pytest.raises(InvalidArgument, match="the file for %resume% does not exist"):
        ai.upload("upload %resume%", files={"resume": tmp_path / "missing.pdf"})


def test_an_upload_answer_must_use_the_variables(ai, scripted_model, files):
    """A model that writes a path of its own gets feedback, and nothing is uploaded."""
    ai.goto("verbs/files.html")
    scripted_model.enqueue(
        choose("button", "Resume", "upload", ["/etc/passwd"]),
        choose("button", "Resume", "upload", ["%resume%"]),
    )
    ai.upload("upload %resume% to the resume field", files={"resume": files["resume"]})
    assert "upload takes the files as variables" in scripted_model.requests[1].text
    assert ai.page.text_content("#resume-name") == "Resume: ada-cv.pdf"


def download_both(ai) -> tuple[list, list]:
    ai.goto("verbs/files.html")
    report = ai.download("download the report").downloads
    notes = ai.download("export the notes").downloads
    return report, notes


def test_a_step_that_downloads_returns_the_download_also_replayed(
    ai, scripted_model, store, test_file
):
    use_recordings(ai, store, test_file, "auto", has_model=True)
    scripted_model.enqueue(choose("link", "Download report"), choose("button", "Export notes"))
    for run in ("auto", "offline"):
        if run == "offline":
            use_recordings(ai, store, test_file, "offline", has_model=False)
        (report,), (notes,) = download_both(ai)
        assert report.suggested_filename == "report.csv"
        assert Path(report.path()).read_text() == "order,total\n1001,$120.00\n"
        assert notes.suggested_filename == "notes.txt"
        assert Path(notes.path()).read_text() == "note 1\nnote 2\n"
    assert scripted_model.calls == 2
    logged = [event for event in ai.steplog.events if event.kind == "download"]
    assert [event.instruction for event in logged] == ["report.csv", "notes.txt"] * 2
    assert all(Path(event.files[0]).is_file() for event in logged)


def test_a_download_is_a_local_copy_kept_until_its_context_closes(
    browser, scripted_model, pages_server, tmp_path
):
    """The copy is what `path()` names, with a local or a remote browser alike (see
    test_remote): under its suggested name, one file per download, gone with the context
    as Playwright's own are."""
    context = browser.new_context()
    with scripted_ai_page(context.new_page(), scripted_model, base_url=pages_server.url()) as ai:
        ai.goto("verbs/files.html")
        scripted_model.enqueue(choose("link", "Download report"), choose("link", "Download report"))
        (first,) = ai.download("download the report").downloads
        (second,) = ai.download("download the report").downloads
    assert first.path().name == second.path().name == "report.csv"
    assert first.path() != second.path()
    assert first.path().read_text() == second.path().read_text() == "order,total\n1001,$120.00\n"
    first.save_as(tmp_path / "kept" / "report.csv")

    context.close()

    assert not first.path().exists() and not second.path().exists()
    assert (tmp_path / "kept" / "report.csv").read_text() == "order,total\n1001,$120.00\n"


def test_a_download_is_kept_with_the_evidence(ai, scripted_model, tmp_path):
    folder = tmp_path / "evidence"
    evidence = EvidenceWriter(folder, "test_profile.py::test_export", ai.steplog.mask)
    ai.steplog.listeners.append(evidence)
    ai.goto("verbs/files.html")
    scripted_model.enqueue(choose("button", "Export notes"))
    ai.download("export the notes")
    saved = sorted(path.name for path in (tmp_path / "evidence").iterdir())
    assert "003-notes.txt" in saved  # goto, act, then the download step
    assert (tmp_path / "evidence" / "003-notes.txt").read_text() == "note 1\nnote 2\n"
    log = json.loads((tmp_path / "evidence" / "actions.json").read_text())
    (step,) = [step for step in log["steps"] if step["kind"] == "download"]
    assert step["files"][0]["file"] == "003-notes.txt"
    assert "003-notes.txt" in (tmp_path / "evidence" / "SHA256SUMS").read_text()


def test_the_tests_own_file_chooser_handler_answers_the_chooser_an_act_opens(
    ai, scripted_model, files
):
    """The test chose the files itself: the step only clicks, as plain Playwright would."""
    ai.goto("verbs/files.html")
    ai.page.once("filechooser", lambda chooser: chooser.set_files(files["photo"]))
    scripted_model.enqueue(choose("button", "Choose photo"))
    ai.act("click the Choose photo button")
    expect(ai.page.locator("#photo-name")).to_have_text("Photo: ada.png")
