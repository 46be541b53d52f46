"""Sharded runs (--ai-shard i/n) and the merge of their workspaces
(`python -m pytest_stagehand merge`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from example_runs import EXAMPLES, example_copy
from test_cache import recording
from test_examples import EXAMPLE_TESTS, copy_of_examples, outcome, run_offline

from pytest_stagehand.errors import ConfigError
from pytest_stagehand.events import Heal
from pytest_stagehand.plugin.cli import merge_lines
from pytest_stagehand.recordings.format import (
    RecordedElement,
    read_recordings,
    recordings_file,
    render,
)
from pytest_stagehand.recordings.merge import merge
from pytest_stagehand.recordings.shard import select_shard, split_modules
from pytest_stagehand.settings import resolve

# --- the split ---------------------------------------------------------------------------


def items(*counts: int) -> list[SimpleNamespace]:
    return [
        SimpleNamespace(nodeid=f"tests/test_{module}.py::test_{n}")
        for module, count in enumerate(counts)
        for n in range(count)
    ]


def test_shards_are_whole_modules_that_cover_the_suite_once():
    suite = items(7, 1, 4, 4, 2, 9, 3)
    shards = [select_shard(suite, index, 3)[0] for index in (1, 2, 3)]

    assert sorted(id(item) for shard in shards for item in shard) == sorted(map(id, suite))
    modules = [{item.nodeid.split("::")[0] for item in shard} for shard in shards]
    assert not (modules[0] & modules[1] or modules[0] & modules[2] or modules[1] & modules[2])
    assert sorted(len(shard) for shard in shards) == [10, 10, 10]  # dealt largest first


def test_the_split_depends_only_on_the_collected_ids():
    suite = items(5, 3, 3, 1)
    assert split_modules({"b": 3, "a": 3, "c": 1}, 2) == split_modules({"c": 1, "a": 3, "b": 3}, 2)
    first = [item.nodeid for item in select_shard(suite, 2, 2)[0]]
    again = [item.nodeid for item in select_shard(list(reversed(suite)), 2, 2)[0]]
    assert sorted(first) == sorted(again)


def test_more_shards_than_modules_leaves_some_empty():
    kept, others = select_shard(items(2), 2, 3)
    assert kept == [] and len(others) == 2


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "1/0"])
def test_a_bad_shard_is_refused(text: str):
    with pytest.raises(ConfigError, match="must be i/n with 1 <= i <= n"):
        resolve({"shard": text}, {}, env={})


def test_each_shard_runs_its_own_modules(pytester: pytest.Pytester):
    for module in ("a", "b", "c"):
        pytester.makepyfile(**{f"test_{module}": "def test_one(): pass\ndef test_two(): pass"})

    runs = [pytester.runpytest_subprocess(f"--ai-shard={i}/3", "-q") for i in (1, 2, 3)]

    assert [run.parseoutcomes().get("passed") for run in runs] == [2, 2, 2]
    assert [run.parseoutcomes().get("deselected") for run in runs] == [4, 4, 4]


# --- the merge ---------------------------------------------------------------------------


def healed(step, selector: str):
    element = RecordedElement(
        selectors=[selector, *step.actions[0].element.selectors[1:]],
        fingerprint=step.actions[0].element.fingerprint,
    )
    return step.healed(0, element, Heal("locator", step.actions[0].element.selectors[0], selector))


RECORDINGS = "tests/__stagehand__/test_shop.json"


def workspace(root: Path, *steps, started_from=None) -> Path:
    """A shard's workspace holding `steps`; with `started_from`, its last-run.json says it
    wrote the file, which held those steps before."""
    path = root / RECORDINGS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(steps))
    if started_from is not None:
        base = {step.key.digest: step.content_digest for step in started_from}
        last_run = {"version": 1, "shard": None, "steps": [], "written": {RECORDINGS: base}}
        (root / ".stagehand").mkdir()
        (root / ".stagehand" / "last-run.json").write_text(json.dumps(last_run))
    return root


def steps_of(root: Path) -> dict[str, object]:
    found = read_recordings(recordings_file(root / "tests" / "test_shop.py"))
    return {r.instruction: r for r in found.values()}


def test_a_step_one_shard_healed_is_merged_and_merging_again_changes_nothing(tmp_path: Path):
    login, logout = recording(), recording("click log out", "/account")
    repo = workspace(tmp_path / "repo", login, logout)
    start = (login, logout)
    one = workspace(tmp_path / "one", healed(login, "#sign-in"), logout, started_from=start)
    two = workspace(tmp_path / "two", login, logout, started_from=start)  # changed nothing

    report = merge([one, two], repo)

    assert report.written == [RECORDINGS] and not report.conflicts
    merged = steps_of(repo)
    assert merged["click the login button"].actions[0].element.selectors[0] == "#sign-in"
    assert merged["click log out"] == logout
    before = (repo / RECORDINGS).read_bytes()
    assert merge([two, one], repo).written == []  # idempotent, whatever the order
    assert (repo / RECORDINGS).read_bytes() == before


def test_without_last_run_a_shard_is_compared_with_the_repository(tmp_path: Path):
    login = recording()
    repo = workspace(tmp_path / "repo", login)
    artifact = workspace(tmp_path / "artifact", healed(login, "#sign-in"))  # recordings only

    assert merge([artifact], repo).written == [RECORDINGS]
    assert steps_of(repo)["click the login button"].actions[0].element.selectors[0] == "#sign-in"
    assert merge([artifact], repo).written == []


def test_two_shards_healing_one_step_differently_is_a_conflict_shown_not_won(tmp_path: Path):
    login, logout = recording(), recording("click log out", "/account")
    repo = workspace(tmp_path / "repo", login, logout)
    start = (login, logout)
    one = workspace(tmp_path / "one", healed(login, "#sign-in"), logout, started_from=start)
    two = workspace(
        tmp_path / "two", healed(login, "#log-in-2"), healed(logout, "#bye"), started_from=start
    )

    report = merge([one, two], repo)

    (conflict,) = report.conflicts
    assert "click the login button" in conflict.step
    assert "→ #sign-in" in str(conflict) and "→ #log-in-2" in str(conflict)
    merged = steps_of(repo)
    assert merged["click the login button"] == login  # the repository's version is kept
    assert merged["click log out"].actions[0].element.selectors[0] == "#bye"
    assert any(line.startswith("conflicts (1)") for line in merge_lines(report))


def test_a_step_a_shard_pruned_is_removed_unless_another_changed_it(tmp_path: Path):
    login, logout = recording(), recording("click log out", "/account")
    repo = workspace(tmp_path / "repo", login, logout)
    pruned = workspace(tmp_path / "one", login, started_from=(login, logout))

    assert not merge([pruned], repo).conflicts
    assert set(steps_of(repo)) == {"click the login button"}


def test_the_merge_command_exits_1_on_a_conflict(tmp_path: Path):
    login = recording()
    repo = workspace(tmp_path / "repo", login)
    one = workspace(tmp_path / "one", healed(login, "#a"))
    two = workspace(tmp_path / "two", healed(login, "#b"))

    command = ["merge", str(one), str(two), "--into", str(repo)]
    run = subprocess.run(
        [sys.executable, "-m", "pytest_stagehand", *command],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert run.returncode == 1, run.stderr
    assert "conflicts (1), the repository's version kept:" in run.stdout


# --- part of the example suite as 3 shards × 2 workers, against one unsharded run -------

# Part of the example suite, so that each kind of shard is there and the runs stay short:
# login and shopping heal on the redesign (the renamed log-in button and cart link), the
# one-test modules heal nothing, and the deal gives shard 1 shopping, shard 2 login and
# signup (a healed file beside an untouched one), shard 3 computer use and sales (nothing to
# merge). Not checkout: its two tests both heal "click continue", from pages that differ
# (one chose a shipping method), so the step written depends on the order the two run in,
# and on two workers that order is xdist's, not the unsharded run's.
SHARDED = ("test_login", "test_shopping", "test_computer_use", "test_sales", "test_signup")


@pytest.mark.long
@pytest.mark.timeout(900)
def test_three_sharded_runs_merge_into_the_files_of_one_unsharded_run(
    tmp_path: Path, request: pytest.FixtureRequest
):
    shards, healed_in = [], []
    for index in (1, 2, 3):
        copy = example_copy(tmp_path / f"shard-{index}", *SHARDED, failing=False)
        pristine = {p.name: p.read_text() for p in (copy / "__stagehand__").glob("*.json")}
        run = run_offline(copy, "-n", "2", f"--ai-shard={index}/3", SHOP_VARIANT="redesign")
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
        assert f"shard {index}/3" in run.stdout
        changed = [
            p.name for p in (copy / "__stagehand__").glob("*.json")
            if p.read_text() != pristine[p.name]
        ]  # fmt: skip
        healed_in += [index] if changed else []
        shards.append(copy.parent)
    assert len(healed_in) >= 2, "the redesign should heal steps in at least two shards"

    repo = copy_of_examples(tmp_path / "repo").parent
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_stagehand", "merge", *map(str, shards), "--into", str(repo)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert merged.returncode == 0, merged.stdout + merged.stderr
    # The unsharded run of the whole suite, asked for last: another worker may be making it
    # meanwhile. Its files of the sharded modules are the merge's; the others stay as they are.
    single, run = request.getfixturevalue("examples_on_the_redesign")
    assert outcome(run) == {"passed": EXAMPLE_TESTS}, run.stdout[-4000:] + run.stderr[-2000:]
    expected = {p.name: p.read_bytes() for p in (EXAMPLES / "__stagehand__").glob("*.json")}
    expected |= {
        f"{m}.json": (single / "__stagehand__" / f"{m}.json").read_bytes() for m in SHARDED
    }
    result = {p.name: p.read_bytes() for p in (repo / "examples/__stagehand__").glob("*.json")}
    assert result == expected
    summary = merged.stdout
    assert summary.count("shard ") >= 3 and "healed in" in summary, summary
    runs = [json.loads((s / "store" / "last-run.json").read_text()) for s in shards]
    unsharded = json.loads((single.parent / "store" / "last-run.json").read_text())["steps"]
    assert sum(len(r["steps"]) for r in runs) == len(
        [step for step in unsharded if Path(step["test"].split("::")[0]).stem in SHARDED]
    )
