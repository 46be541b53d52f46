"""Recorded steps: keys, the committed text form, the shared store, modes, secrets."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest
from scripted_answers import choose

from pytest_stagehand.errors import CacheError, CacheMiss, RecordingFileError, StoreError
from pytest_stagehand.events import Heal
from pytest_stagehand.recordings import format as recording_format
from pytest_stagehand.recordings import store as cache_module
from pytest_stagehand.recordings.format import (
    RecordedAction,
    RecordedElement,
    Recording,
    read_recordings,
    recordings_file,
    render,
)
from pytest_stagehand.recordings.keys import normalise_url, step_key
from pytest_stagehand.recordings.store import CachePolicy, Recordings, RecordingStore
from pytest_stagehand.snapshot.element import Fingerprint


def fingerprint(name: str = "Log in", **changes) -> Fingerprint:
    fields = {
        "tag": "button",
        "role": "button",
        "name": name,
        "text": name,
        "test_id": "login",
        "id": "login-button",
        "classes": ("btn", "primary"),
        "attributes": {"type": "submit"},
        "path": ("main#app", "form.login"),
        "frame_path": (),
    }
    return Fingerprint(**{**fields, **changes})


def recording(instruction: str = "click the login button", url: str = "/login", **fields):
    element = RecordedElement(
        selectors=['[data-testid="login"]', 'role=button[name="Log in"]', "#login-button"],
        fingerprint=fingerprint(),
    )
    action = RecordedAction(method="click", element=element, description='button "Log in"')
    return Recording.of(step_key("act", instruction, url), [action], model="openai/x", **fields)


@pytest.fixture
def store(tmp_path: Path):
    opened = RecordingStore(tmp_path / "cache")
    yield opened
    opened.close()


@pytest.fixture
def test_file(tmp_path: Path) -> Path:
    path = tmp_path / "tests" / "test_shop.py"
    path.parent.mkdir()
    path.write_text("")
    return path


# --- keys ----------------------------------------------------------------------------


def test_url_key_is_path_and_sorted_query_and_shares_origins():
    assert normalise_url("https://staging.example.com/shop?b=2&a=1#top") == "/shop?a=1&b=2"
    assert normalise_url("http://localhost:8000/shop?a=1&b=2") == "/shop?a=1&b=2"
    assert normalise_url("https://example.com") == "/"
    assert normalise_url("https://example.com/app#/cart?x=1") == "/app#/cart?x=1"
    assert normalise_url("about:blank") == "about:blank"


def test_url_key_keeps_the_origin_when_told():
    assert (
        normalise_url("https://Staging.Example.com/shop?b=2&a=1", share_origins=False)
        == "https://staging.example.com/shop?a=1&b=2"
    )


def test_key_holds_variable_names_never_values():
    variables = {"user": "standard_user", "password": "hunter22"}
    key = step_key("act", "type %user%  and %password%", "https://x.test/login", variables)
    assert key.variables == ("password", "user")
    assert key.instruction == "type %user% and %password%"
    assert "hunter22" not in repr(key)
    blanks = {"user": "", "password": ""}
    assert step_key("act", "type %user% and %password%", "/login", blanks).digest == key.digest
    assert step_key("assert", key.instruction, "/login", variables).digest != key.digest
    assert step_key("act", "type %user%", "/login", variables).digest != key.digest


# --- the committed text form -----------------------------------------------------------


def test_flush_writes_the_module_file_and_a_new_session_replays_it(tmp_path, test_file):
    first = RecordingStore(tmp_path / "cache")
    first.put(test_file, recording())
    report = first.flush()
    first.close()
    path = tmp_path / "tests" / "__stagehand__" / "test_shop.json"
    assert report.written == [path] == [recordings_file(test_file)]
    document = json.loads(path.read_text())
    assert document["steps"][0]["instruction"] == "click the login button"
    assert document["steps"][0]["actions"][0]["element"]["fingerprint"]["name"] == "Log in"

    second = RecordingStore(tmp_path / "other-cache")  # a clean clone: only the file
    found = second.lookup(test_file, step_key("act", "click the login button", "/login"))
    second.close()
    assert found == recording()
    assert found.actions[0].element.fingerprint == fingerprint()


def test_text_form_is_stable(tmp_path, test_file, store):
    steps = [recording(f"click button {n}", f"/page/{n % 3}") for n in range(5)]
    assert render(steps) == render(reversed(steps))
    for step in reversed(steps):
        store.put(test_file, step)
    store.flush()
    path = recordings_file(test_file)
    assert path.read_text() == render(steps)
    before = path.stat().st_mtime_ns

    store.put(test_file, steps[2].model_copy(update={"recorded_at": "2001-01-01"}))
    assert store.flush().written == []  # re-recorded, nothing changed: no diff
    assert path.stat().st_mtime_ns == before


def test_free_form_payloads_print_with_sorted_keys():
    key = step_key("assert", "the cart badge shows 1", "/cart")
    check = Recording.of(key, data={"verdict": True, "claim": {"z": 1, "a": [{"y": 2, "b": 3}]}})
    data = json.loads(render([check]))["steps"][0]["data"]
    assert list(data) == ["claim", "verdict"]
    assert list(data["claim"]) == ["a", "z"] and list(data["claim"]["a"][0]) == ["b", "y"]


def test_a_heal_changes_only_its_own_entry(tmp_path, test_file, store):
    kept, healed = recording("click a", "/a"), recording("click b", "/b")
    store.put(test_file, kept)
    store.put(test_file, healed)
    store.flush()
    before = recordings_file(test_file).read_text()

    element = RecordedElement(selectors=["#new-login"], fingerprint=fingerprint(id="new-login"))
    heal = Heal("fingerprint", '[data-testid="login"]', "#new-login", 0.8712)
    store.put(test_file, healed.healed(0, element, heal))
    store.flush()
    after = recordings_file(test_file).read_text()

    def block(step: Recording) -> str:
        return textwrap.indent(json.dumps(step.model_dump(mode="json"), indent=2), "    ")

    assert block(kept) in before and block(kept) in after
    new = read_recordings(recordings_file(test_file))[healed.key.digest]
    assert before.replace(block(healed), "") == after.replace(block(new), "")
    assert new.heals[0].strategy == "fingerprint" and new.heals[0].score == 0.871
    assert new.actions[0].element.selectors == ["#new-login"]


# --- secrets ---------------------------------------------------------------------------


def test_a_recording_holding_a_variable_value_is_refused_and_never_written(test_file, store):
    leaky = recording().model_copy(
        update={"actions": [RecordedAction(method="fill", arguments=["hunter22"])]}
    )
    with pytest.raises(CacheError) as caught:
        store.put(test_file, leaky, variables={"password": "hunter22"})
    assert "'password'" in str(caught.value) and "hunter22" not in str(caught.value)
    assert "actions[0].arguments[0]" in str(caught.value)
    with pytest.raises(CacheError):  # a short value, as a whole text
        store.put(test_file, leaky.model_copy(update={"data": {"q": "7"}}), variables={"q": "7"})
    store.put(test_file, recording(), variables={"password": "hunter22", "n": "1"})
    assert store.flush().written == [recordings_file(test_file)]
    assert "hunter22" not in recordings_file(test_file).read_text()


# --- broken files ----------------------------------------------------------------------


def test_a_corrupt_file_names_itself_and_loses_nothing(tmp_path, store):
    (tmp_path / "tests").mkdir()
    broken_test, good_test = tmp_path / "tests" / "test_a.py", tmp_path / "tests" / "test_b.py"
    broken = recordings_file(broken_test)
    broken.parent.mkdir()
    broken.write_text('{"version": 1, "steps": [{"kind": "act",')
    store.put(good_test, recording())
    store.flush()
    key = recording().key

    with pytest.raises(RecordingFileError) as caught:
        store.lookup(broken_test, key)
    message = str(caught.value)
    assert "test_a.json" in message and "line 1" in message and "--ai-cache=refresh" in message
    assert store.lookup(good_test, key) == recording()

    store.put(broken_test, recording("click logout"))
    report = store.flush()
    assert [str(error) for error in report.errors] == [message]
    assert broken.read_text() == '{"version": 1, "steps": [{"kind": "act",'

    broken.unlink()  # the user deletes it: the step waiting in the store is written now
    assert store.flush().written == [broken]
    assert [r.instruction for r in read_recordings(broken).values()] == ["click logout"]


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda s: s["actions"][0]["element"].update(selectors="#x"), "selectors"),
        (lambda s: s["actions"][0]["element"].update(selectors=[]), "selectors"),
        (lambda s: s.update(kind="click"), "kind"),
        (lambda s: s.update(instrucion="typo"), "instrucion"),
        (lambda s: s["actions"][0]["element"]["fingerprint"].pop("role"), "fingerprint"),
    ],
)
def test_a_hand_edited_file_says_which_step_and_field_is_wrong(tmp_path, test_file, edit, problem):
    step = recording().model_dump(mode="json")
    edit(step)
    path = recordings_file(test_file)
    path.parent.mkdir()
    path.write_text(json.dumps({"version": 1, "steps": [step]}))
    with pytest.raises(RecordingFileError) as caught:
        read_recordings(path)
    assert "test_shop.json" in str(caught.value)
    assert "steps[0]" in str(caught.value) and problem in str(caught.value)


def test_a_repeated_step_in_a_file_is_an_error(test_file):
    path = recordings_file(test_file)
    path.parent.mkdir()
    step = recording().model_dump(mode="json")
    path.write_text(json.dumps({"version": 1, "steps": [step, step]}))
    with pytest.raises(RecordingFileError, match=r"steps\[1\] repeats act 'click the login"):
        read_recordings(path)


# --- modes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "has_model", "replay", "call", "record"),
    [
        ("auto", True, True, True, True),
        ("auto", False, True, False, True),
        ("offline", True, True, False, True),
        ("refresh", True, False, True, True),
        ("off", True, False, True, False),
    ],
)
def test_policy(mode, has_model, replay, call, record):
    policy = CachePolicy(mode, has_model)
    assert (policy.may_replay, policy.may_call_model, policy.may_record) == (replay, call, record)


def test_offline_miss_names_the_step_and_how_to_record_it(test_file):
    key = step_key("act", "type %user% into the username field", "http://x.test/login", ["user"])
    CachePolicy("auto", has_model=True).check_miss(key, test_file)  # the model resolves it
    with pytest.raises(CacheMiss) as caught:
        CachePolicy("offline", has_model=True).check_miss(key, test_file)
    message = str(caught.value)
    for part in (
        "'type %user% into the username field'",
        "/login",
        "user",
        "test_shop.py",
        "offline",
        "--ai-model",
        "test_shop.json",
    ):
        assert part in message
    with pytest.raises(CacheMiss, match=r"No recording for .*, and no model is configured"):
        CachePolicy("auto", has_model=False).check_miss(key, test_file)


@pytest.mark.parametrize("mode, asks", [("refresh", "records every step anew"),
                                         ("off", "asks a model always")])  # fmt: skip
def test_a_mode_that_never_replays_says_so_when_no_model_is_configured(test_file, mode, asks):
    """A recording may well exist: the error must not send the author to record it."""
    key = step_key("act", "click the login button", "http://shop.test/login")
    with pytest.raises(CacheMiss) as caught:
        CachePolicy(mode, has_model=False).check_miss(key, test_file)
    message = str(caught.value)
    assert message.startswith(f"--ai-cache={mode} {asks}, and no model is configured")
    assert "'click the login button'" in message and "--ai-cache=auto" in message
    assert "No recording" not in message


def test_a_miss_names_the_recordings_the_step_may_have_been_meant_to_be(test_file, store):
    """The same step recorded for another page, other variables or use, or worded alike
    on the same page (committed or recorded in this run); not steps that merely look alike."""
    store.put(test_file, recording("click the log-in button", "/login"))
    store.put(test_file, recording("click the Shop link", "/login"))
    store.put(test_file, recording("click the login button", "/signin"))
    store.flush()
    with_user = recording().model_copy(update={"variables": ["user"]})
    store.put(test_file, with_user)
    recordings = Recordings(store, test_file)
    key = recordings.key("act", "click the login button", "http://shop.test/login")
    nearby = recordings.nearby(key)
    assert [(k.instruction, k.url, k.variables) for k in nearby] == [
        ("click the login button", "/signin", ()),
        ("click the login button", "/login", ("user",)),  # this run's, not yet in the file
        ("click the log-in button", "/login", ()),
    ]
    with pytest.raises(CacheMiss) as caught:
        CachePolicy("auto", has_model=False).check_miss(key, test_file, nearby)
    message = str(caught.value)
    assert "act 'click the login button' on /signin\n" in message
    assert "act 'click the login button' on /login with variables user\n" in message
    assert "act 'click the log-in button' on /login\n" in message
    assert "Shop link" not in message and "--ai-cache-per-origin" not in message
    assert message.index("worded alike") < message.index("Record it by running once")
    unrelated = recordings.key("act", "open the cart", "http://shop.test/login")
    assert recordings.nearby(unrelated) == []


def test_a_miss_under_another_origin_setting_says_which_recordings_it_left(test_file, store):
    """Steps recorded without --ai-cache-per-origin, replayed with it (or the other way)."""
    store.put(test_file, recording("click the login button", "/login"))
    by_origin = Recordings(store, test_file, share_origins=False)
    key = by_origin.key("act", "click the login button", "http://shop.test/login")
    assert key.url == "http://shop.test/login"
    with pytest.raises(CacheMiss) as caught:
        CachePolicy("offline", has_model=False).check_miss(key, test_file, by_origin.nearby(key))
    message = str(caught.value)
    assert "act 'click the login button' on /login\n" in message
    assert "Recordings made with --ai-cache-per-origin name pages with their origin" in message


def test_refresh_re_records_over_the_old_entry(test_file, store):
    store.put(test_file, recording())
    store.flush()
    element = RecordedElement(selectors=["#signin"], fingerprint=fingerprint("Sign in"))
    fresh = recording().model_copy(
        update={"actions": [RecordedAction(method="click", element=element)]}
    )
    store.put(test_file, fresh)
    store.flush()
    steps = list(read_recordings(recordings_file(test_file)).values())
    assert steps == [fresh]


# --- unused entries --------------------------------------------------------------------


def test_unused_entries_are_reported_for_modules_that_fully_ran_and_pruned_on_request(
    tmp_path, test_file, store
):
    other_test = tmp_path / "tests" / "test_other.py"
    for name in ("a", "b", "c"):
        store.put(test_file, recording(f"click {name}"))
    store.put(other_test, recording("click other"))
    store.flush()

    assert store.lookup(test_file, recording("click a").key) is not None
    store.put(test_file, recording("click d"))
    report = store.flush(complete=[test_file])
    assert sorted(u.recording.instruction for u in report.unused) == ["click b", "click c"]
    assert {u.file for u in report.unused} == {recordings_file(test_file)}

    store.lookup(test_file, recording("click a").key)
    store.lookup(test_file, recording("click d").key)
    report = store.flush(complete=[test_file], prune=True)
    assert sorted(u.recording.instruction for u in report.pruned) == ["click b", "click c"]
    remaining = read_recordings(recordings_file(test_file)).values()
    assert sorted(r.instruction for r in remaining) == ["click a", "click d"]
    assert len(read_recordings(recordings_file(other_test))) == 1  # did not run: kept


# --- sessions sharing one store ----------------------------------------------------------


def test_a_session_ending_first_leaves_the_uses_of_another_alone(tmp_path, test_file):
    first = RecordingStore(tmp_path / "cache", run="first")
    second = RecordingStore(tmp_path / "cache", run="second")
    for name in ("a", "b"):
        first.put(test_file, recording(f"click {name}"))
    first.flush()

    assert first.lookup(test_file, recording("click a").key) is not None
    report = second.flush(complete=[test_file])  # used nothing, and ended first
    assert sorted(u.recording.instruction for u in report.unused) == ["click a", "click b"]
    report = first.flush(complete=[test_file], prune=True)
    assert [u.recording.instruction for u in report.pruned] == ["click b"]
    assert [r.instruction for r in read_recordings(recordings_file(test_file)).values()] == [
        "click a"
    ]
    first.close()
    second.close()


def test_a_heal_stored_while_another_session_flushes_is_kept(
    tmp_path, test_file, store, monkeypatch
):
    step = recording()
    store.put(test_file, step)
    element = RecordedElement(selectors=["#new-login"], fingerprint=fingerprint(id="new-login"))
    healed = step.healed(0, element, Heal("fingerprint", '[data-testid="login"]', "#new-login"))
    other = RecordingStore(tmp_path / "cache", run="other")
    write = cache_module.write_recordings

    def heal_meanwhile(path, before, after):
        other.put(test_file, healed)  # between reading the pending steps and clearing them
        return write(path, before, after)

    monkeypatch.setattr(cache_module, "write_recordings", heal_meanwhile)
    store.flush()
    monkeypatch.undo()
    assert read_recordings(recordings_file(test_file))[step.key.digest] == step

    store.flush()
    assert read_recordings(recordings_file(test_file))[step.key.digest] == healed
    other.close()


# --- many workers ----------------------------------------------------------------------

CONFTEST = """
import os
from pathlib import Path

from pytest_stagehand.recordings.store import RecordingStore


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):  # the controller merges, once
        store = RecordingStore(Path(os.environ["STORE"]))
        store.flush(complete=[Path(__file__).parent / "test_many.py"])
        store.close()
"""

MODULE = """
import os
from pathlib import Path

import pytest

from pytest_stagehand.recordings.store import RecordingStore
from pytest_stagehand.recordings.format import RecordedAction, RecordedElement, Recording
from pytest_stagehand.recordings.keys import step_key
from pytest_stagehand.snapshot.element import Fingerprint

STORE = RecordingStore(Path(os.environ["STORE"]))


@pytest.mark.parametrize("n", range(COUNT))
def test_record(n):
    fingerprint = Fingerprint(
        tag="button", role="button", name=f"Button {n}", text="x" * 5000, test_id=None,
        id=None, classes=(), attributes={}, path=(), frame_path=(),
    )
    element = RecordedElement(selectors=[f"#b{n}"], fingerprint=fingerprint)
    key = step_key("act", f"click button {n}", "/")
    STORE.put(Path(__file__), Recording.of(key, [RecordedAction(method="click", element=element)]))
    assert STORE.lookup(Path(__file__), key) is not None
"""


def test_parallel_workers_lose_no_entry(tmp_path):
    count = 60
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_many.py").write_text(MODULE.replace("COUNT", str(count)))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env={**os.environ, "STORE": str(tmp_path / "store")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{count} passed" in result.stdout
    steps = read_recordings(tmp_path / "__stagehand__" / "test_many.json")
    assert sorted(r.instruction for r in steps.values()) == sorted(
        f"click button {n}" for n in range(count)
    )


# --- the working store and the recordings directory under faults ------------------------
# Tests may run as root, where chmod does not stop writes: faults are injected where the
# operating system would raise them.


def corrupt_store(directory: Path, how: str) -> None:
    opened = RecordingStore(directory)
    opened.put(Path("/elsewhere/test_x.py"), recording("click something"))
    opened.close()
    database = directory / "cache.db"
    data = database.read_bytes()
    database.write_bytes(data[: len(data) // 3] if how == "truncated" else b"garbage" * 999)


@pytest.mark.parametrize("how", ["garbled", "truncated"])
def test_a_corrupt_working_store_is_moved_aside_and_rebuilt_from_the_committed_files(
    tmp_path, test_file, how
):
    first = RecordingStore(tmp_path / "cache")
    first.put(test_file, recording())
    first.flush()
    first.close()
    corrupt_store(tmp_path / "cache", how)

    store = RecordingStore(tmp_path / "cache")
    assert store.moved_aside is not None and store.moved_aside.parent == tmp_path
    assert store.moved_aside.name.startswith("cache.corrupt-")
    assert (store.moved_aside / "cache.db").exists()  # kept for the curious, never deleted
    assert store.lookup(test_file, recording().key) == recording()  # from the committed file
    store.put(test_file, recording("click logout"))
    store.flush()
    store.close()
    assert {r.instruction for r in read_recordings(recordings_file(test_file)).values()} == {
        "click the login button",
        "click logout",
    }


@pytest.mark.parametrize(
    "fault",
    [
        sqlite3.OperationalError("attempt to write a readonly database"),
        PermissionError(13, "Permission denied", "/ro/.stagehand/recordings"),
        OSError(errno.ENOSPC, "No space left on device"),
    ],
)
def test_a_store_that_cannot_be_opened_names_why_and_its_recordings_reach_the_file(
    tmp_path, test_file, monkeypatch, fault
):
    def refuse(*args, **kwargs):
        raise fault

    monkeypatch.setattr(diskcache, "Cache", refuse)
    store = RecordingStore(tmp_path / "cache")
    message = str(store.fault)
    assert isinstance(store.fault, StoreError)
    assert str(tmp_path / "cache") in message and str(fault) in message
    assert "--ai-cache-dir" in message and "__stagehand__" in message
    assert not (tmp_path / "cache").exists()  # nothing moved aside: it is not corrupt

    store.put(test_file, recording())  # held in memory: replayed later in the run
    assert store.lookup(test_file, recording().key) == recording()
    assert recording().key in store.recorded_keys(test_file)
    report = store.flush()
    assert report.written == [recordings_file(test_file)] and report.held == 1
    assert list(read_recordings(recordings_file(test_file)).values()) == [recording()]


def test_a_store_that_fills_up_holds_the_next_recordings_and_writes_both(
    test_file, store, monkeypatch
):
    store.put(test_file, recording())
    real_set = store._cache.set

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store._cache, "set", full)
    store.put(test_file, recording("click logout"))  # no error: the step ran, the model paid
    message = str(store.fault)
    assert "save the recording of act 'click logout'" in message
    assert "database or disk is full" in message and "cache" in message
    assert store.lookup(test_file, recording("click logout").key) == recording("click logout")

    monkeypatch.setattr(store._cache, "set", real_set)  # space again, at the merge
    store.flush()
    assert {r.instruction for r in read_recordings(recordings_file(test_file)).values()} == {
        "click the login button",
        "click logout",
    }


def test_a_store_that_fills_up_while_merging_still_writes_the_file_and_keeps_the_store(
    test_file, store, monkeypatch
):
    store.put(test_file, recording())

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store._cache, "delete", full)
    store.flush()
    assert "Could not merge recordings from the working store" in str(store.fault)
    assert list(read_recordings(recordings_file(test_file)).values()) == [recording()]
    monkeypatch.undo()
    assert store.lookup(test_file, recording().key) == recording()  # still there


def test_held_recordings_no_file_and_no_store_can_take_are_named_as_lost(
    test_file, monkeypatch, tmp_path
):
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(diskcache, "Cache", refuse)
    store = RecordingStore(tmp_path / "cache")
    store.put(test_file, recording())
    monkeypatch.setattr(recording_format, "_write_atomically", refuse)
    report = store.flush()
    assert report.lost == [f"{recordings_file(test_file)}: {recording().key.describe()}"]
    (error,) = report.errors
    assert "could not take this run's 1 new recording(s)" in str(error)
    assert "Nothing recorded is lost" not in str(error)


def test_an_unwritable_recordings_directory_keeps_the_recordings_for_the_next_run(
    test_file, store, monkeypatch
):
    store.put(test_file, recording())

    def no_space(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(recording_format, "_write_atomically", no_space)
    report = store.flush()
    (error,) = report.errors
    assert isinstance(error, StoreError) and not report.written
    assert "__stagehand__/test_shop.json" in str(error) and "No space left" in str(error)
    assert "Nothing recorded is lost" in str(error)

    monkeypatch.undo()  # space again: the next flush writes what waited
    assert store.flush().written == [recordings_file(test_file)]
    assert list(read_recordings(recordings_file(test_file)).values()) == [recording()]


STORE_TESTS = """
def test_records(ai_recording_store, request):
    from pytest_stagehand.recordings.format import RecordedAction, Recording
    from pytest_stagehand.recordings.keys import step_key

    key = step_key("act", "press enter", "/")
    ai_recording_store.put(request.path, Recording.of(key, [RecordedAction(method="press")]))
"""

UNWRITABLE = """
import errno

import pytest_stagehand.recordings.format


def refuse(path, text):
    raise OSError(errno.EROFS, "Read-only file system", str(path))


pytest_stagehand.recordings.format._write_atomically = refuse
"""


def test_the_session_summary_names_store_faults_and_loses_nothing(pytester):
    pytester.makepyfile(test_store=STORE_TESTS)
    corrupt_store(pytester.path / ".stagehand" / "recordings", "garbled")
    pytester.makeconftest(UNWRITABLE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    output = result.stdout.str()
    assert "pytest-stagehand" in output
    assert "was corrupt: moved aside to" in output
    assert "Read-only file system" in output and "Nothing recorded is lost" in output
    assert not (pytester.path / "__stagehand__").exists()

    pytester.makeconftest("")  # writable again: the recording that waited is written
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--collect-only")
    assert result.ret == 0
    steps = read_recordings(pytester.path / "__stagehand__" / "test_store.json")
    assert [r.instruction for r in steps.values()] == ["press enter"]


def test_a_store_that_cannot_be_opened_lets_the_run_go_on_and_says_so(pytester):
    pytester.makepyfile(test_store=STORE_TESTS)
    (pytester.path / ".stagehand" / "recordings").mkdir(parents=True)
    pytester.makeconftest(
        "import sqlite3, diskcache\n"
        "def refuse(*a, **k):\n"
        "    raise sqlite3.OperationalError('attempt to write a readonly database')\n"
        "diskcache.Cache = refuse\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    output = result.stdout.str()
    assert "Traceback" not in output
    assert output.count("Could not open the working store .stagehand/recordings") == 1
    assert "OperationalError: attempt to write a readonly database" in output
    assert "Nothing the model answered is lost: this run's recordings were written" in output
    assert "(1 kept in memory while the store failed)" in output
    steps = read_recordings(pytester.path / "__stagehand__" / "test_store.json")
    assert [r.instruction for r in steps.values()] == ["press enter"]


# --- real faults: a read-only mount and a full disk, with steps a model answered ---------

MODEL_TESTS = """
import os
from pathlib import Path

PAGE = (
    "data:text/html,<title>start</title>"
    "<button onclick='document.title=`saved`'>Save</button>"
    "<button onclick='document.title=`sent`'>Send</button>"
)


def fill(directory):
    '''Write to `directory` until its disk is full: the store's disk fills mid-run.'''
    with open(Path(directory) / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(bytes(4096))
        except OSError:
            pass


def test_two_steps(ai_page):
    ai_page.goto(PAGE)
    ai_page.act("click Save")
    assert ai_page.title() == "saved"
    if os.environ.get("FILL_STORE"):
        fill(os.environ["FILL_STORE"])
    ai_page.act("click Send")
    assert ai_page.title() == "sent"
"""


@pytest.fixture
def tmpfs(tmp_path) -> Iterator[Path]:
    """A small tmpfs of its own (root only), for faults a chmod cannot make for root."""
    mount = tmp_path / "store"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def run_two_steps(pytester, store: Path, *arguments: str, **env: str):
    pytester.makepyfile(test_model=MODEL_TESTS)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        return pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "-p", "no:randomly", "--ai-cache-dir", str(store),
            *arguments,
        )  # fmt: skip


def recorded_steps(pytester) -> list[str]:
    steps = read_recordings(pytester.path / "__stagehand__" / "test_model.json")
    return sorted(r.instruction for r in steps.values())


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_steps_a_model_answered_survive_a_real_store_fault_and_replay_offline(
    pytester, scripted_model, tmpfs, fault
):
    scripted_model.enqueue(choose("button", "Save"), choose("button", "Send"))
    model = ["--ai-model=openai/scripted", f"--ai-base-url={scripted_model.openai_base_url}"]
    env = {}
    if fault == "read-only":
        subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    else:
        env["FILL_STORE"] = str(tmpfs)  # the disk fills between the two steps
    result = run_two_steps(pytester, tmpfs, *model, **env)
    result.assert_outcomes(passed=1)
    output = result.stdout.str()
    assert len(scripted_model.requests) == 2
    said = "Read-only file system" if fault == "read-only" else "database or disk is full"
    assert said in output and "Nothing the model answered is lost" in output
    assert recorded_steps(pytester) == ["click Save", "click Send"]

    # The fault repaired: the steps replay with no model, and nothing is asked again.
    subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    (tmpfs / "filler").unlink(missing_ok=True)
    result = run_two_steps(pytester, tmpfs, "--ai-cache=offline")
    result.assert_outcomes(passed=1)
    assert len(scripted_model.requests) == 2
    assert recorded_steps(pytester) == ["click Save", "click Send"]
