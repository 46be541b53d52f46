"""Benchmark: a replayed act against the raw Playwright action and Stagehand's cached act.

Run: .venv/bin/python bench/bench_act_speed.py [--reps 7] [--stagehand-dir DIR]

Target (issue #16): a replayed act costs at most 1.2x the raw Playwright action, on a
freshly loaded page and on a warm one, and less than Stagehand's cached act.

One Chromium, launched here with --remote-debugging-port on 127.0.0.1; Playwright and
Stagehand 3.7.3 both attach to it over CDP and act on the same tab. Stagehand comes from
npm (`PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install
@browserbasehq/stagehand@3.7.3` in DIR, default $STAGEHAND_NPM or bench/.npm); without it, or
without node, only ours and raw are printed, with the reason.

The steps, on local pages served on 127.0.0.1: fill the username and click Login on a
login form; Delete in row 750 of a 1,500-row table; add the Bike Light to the cart among
six look-alike "Add to cart" buttons; the "Open item 750" link of the table, which has no
id or test id (its recorded selector is a role selector, which only Playwright's engine
finds; the link is handled by the page, as a router would, without a reload). Three
contenders, rotated each repetition:

- raw:       the Playwright action with the locator a test author writes (role locators,
             filtered by the row's or card's text where there are look-alikes);
- ours:      `AIPage.act(...)` replaying our recording offline (recorded first through a
             scripted model: a local server answering by role and name; no real model),
             verified against the recorded fingerprint before acting;
- Stagehand: `stagehand.act(...)` replaying its act cache, pre-seeded as its cache stores
             an entry (sha256 of instruction, URL and variable names; the element's
             absolute XPath), which it acts on without verification.

Fresh: each contender acts on a page just loaded (and settled, as `AIPage.goto` leaves it).
Each new document gets our describer as it is created, and that settle prepares it in
the time it waits for the page to be quiet: the load's median time is printed, to show it
did not grow.
Warm: as a test takes most of its steps, right after the step before it on the same page,
taken by the same contender just before (BEFORE: the click Login before the fill of the
username, the fill before the click, the delete of row 10 before the steps on the table,
the Backpack added before the Bike Light); only the step itself is timed. Each of those
steps before changes the page as it is handled, but the fill. Medians of --reps
repetitions (the first, warming up, is dropped); ratios against raw. The machine may be
shared: the contenders are rotated each repetition so that load falls on all alike.

Each step on the table is checked, untimed, against what the table says it did (the row it
deleted, the item it opened): a contender that acted on another element is listed as
WRONG ELEMENT. (On the warm page, row 10 is gone: an absolute XPath recorded on the fresh
page now points one row further down.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path

import bench_cache
from bench_cache import Step, _Handler, as_a_new_test, record, replaying
from bench_snapshot import table
from playwright.sync_api import Locator, Page, sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.recordings.store import RecordingStore

HERE = Path(__file__).parent
TABLE = table(1500).replace(
    "</body>",
    "<script>document.querySelector('tbody').addEventListener('click', (event) => {"
    " const button = event.target.closest('button'), row = event.target.closest('tr');"
    " document.body.dataset.done = (button ? 'deleted ' : 'opened ') + row.cells[0].textContent;"
    " if (button) row.remove();"
    " if (event.target.closest('a')) event.preventDefault();"  # a router's link: no reload
    " });</script></body>",
)
# What the table says each of its steps did (the row it deleted, the item it opened):
# every contender's step is checked, untimed, against what was asked.
EFFECTS = {"Delete in row 750 of 1,500": "deleted Item 750",
           "open item 750 of 1,500 (no id)": "opened Item 750"}  # fmt: skip


bench_cache.SITE["/table.html"] = TABLE

# The element of each step as a test author finds it with Playwright.
TARGETS: dict[str, Callable[[Page], Locator]] = {
    "fill username": lambda page: page.get_by_role("textbox", name="Username"),
    "click Login": lambda page: page.get_by_role("button", name="Login"),
    "Delete in row 750 of 1,500": lambda page: page.locator("tr", has_text="Item 750")
    .get_by_role("button", name="Delete"),
    "add to cart (1 of 6 alike)": lambda page: page.locator("li", has_text="Bike Light")
    .get_by_role("button", name="Add to cart"),
    "open item 750 of 1,500 (no id)": lambda page: page.get_by_role("link", name="Open item 750"),
}


def _click(label: str) -> Callable[[Page], None]:
    return lambda page: TARGETS[label](page).click()


STEPS = [
    Step("fill username", "/login.html", "type %user% into the username field",
         {"user": "standard_user"}, ("textbox", "Username", None), "fill",
         lambda page: TARGETS["fill username"](page).fill("standard_user")),
    Step("click Login", "/login.html", "click the login button", {},
         ("button", "Login", None), "click", _click("click Login")),
    Step("Delete in row 750 of 1,500", "/table.html", "delete item 750", {},
         ("button", "Delete", "Item 750"), "click", _click("Delete in row 750 of 1,500")),
    Step("add to cart (1 of 6 alike)", "/shop.html", "add the Bike Light to the cart", {},
         ("button", "Add to cart", "Bike Light"), "click", _click("add to cart (1 of 6 alike)")),
    Step("open item 750 of 1,500 (no id)", "/table.html", "open item 750", {},
         ("link", "Open item 750", None), "click", _click("open item 750 of 1,500 (no id)")),
]  # fmt: skip
TARGETS["delete item 10"] = lambda page: page.locator("tr").filter(
    has=page.get_by_role("cell", name="Item 10", exact=True)
).get_by_role("button", name="Delete")
TARGETS["add the Backpack"] = lambda page: page.locator("li", has_text="Backpack").get_by_role(
    "button", name="Add to cart"
)
# The step a test takes just before each step, on the same page, as tests do: each one
# changes the page as it is handled (a status line, a row gone, the cart's badge), but
# the step before "click Login", which types into a field nothing watches.
BEFORE = {
    "fill username": STEPS[1],
    "click Login": STEPS[0],
    "Delete in row 750 of 1,500": Step(
        "delete item 10", "/table.html", "delete item 10", {}, ("button", "Delete", "Item 10"),
        "click", _click("delete item 10"),
    ),
    "add to cart (1 of 6 alike)": Step(
        "add the Backpack", "/shop.html", "add the Backpack to the cart", {},
        ("button", "Add to cart", "Backpack"), "click", _click("add the Backpack"),
    ),
}  # fmt: skip
BEFORE["open item 750 of 1,500 (no id)"] = BEFORE["Delete in row 750 of 1,500"]
# The steps before that are no step of their own here: recorded too.
ONLY_BEFORE = list({s.label: s for s in BEFORE.values() if s not in STEPS}.values())
CONTENDERS = ["raw", "ours", "Stagehand"]


class Stagehand:
    """Stagehand's cached act in a node process attached to the same Chromium."""

    def __init__(self, cdp_url: str, npm_dir: Path, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.process = subprocess.Popen(
            ["node", str(HERE / "stagehand_cached_act.mjs"), cdp_url, str(cache_dir),
             str(npm_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        ready = self._answer()
        if not ready.get("ready"):
            raise RuntimeError(f"Stagehand did not start: {ready}")

    def _answer(self) -> dict:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"Stagehand exited with {self.process.wait()}")
            if line.startswith("{"):
                return json.loads(line)

    def seed(self, url: str, step: Step, xpath: str) -> None:
        """Write the cache entry Stagehand's ActCache would have stored for this step."""
        keys = sorted(step.variables)
        payload = json.dumps(
            {"instruction": step.instruction, "url": url, "variableKeys": keys},
            separators=(",", ":"),
        )
        arguments = [f"%{name}%" for name in keys]
        action = {"selector": f"xpath={xpath}", "description": step.instruction,
                  "method": step.method, "arguments": arguments}  # fmt: skip
        entry = {"version": 1, "instruction": step.instruction, "url": url,
                 "variableKeys": keys, "actions": [action],
                 "actionDescription": step.instruction, "message": "seeded"}  # fmt: skip
        name = hashlib.sha256(payload.encode()).hexdigest() + ".json"
        (self.cache_dir / name).write_text(json.dumps(entry))

    def act(self, step: Step) -> float:
        """Seconds Stagehand's act took, timed inside node."""
        command = {"instruction": step.instruction, "variables": step.variables}
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        if not answer["success"]:
            raise RuntimeError(f"Stagehand's cached act failed: {answer}")
        return answer["ms"] / 1000

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# The absolute XPath of an element, /html[1]/body[1]/..., as Stagehand records them.
ABSOLUTE_XPATH = """el => {
  const steps = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    let index = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName === e.localName) index++;
    }
    steps.unshift(`${e.localName}[${index}]`);
  }
  return "/" + steps.join("/");
}"""


# Where `npm install @browserbasehq/stagehand@3.7.3` put Stagehand (git ignores bench/.npm).
STAGEHAND_NPM = Path(os.environ.get("STAGEHAND_NPM", Path(__file__).parent / ".npm"))


def stagehand_unavailable(npm_dir: Path) -> str | None:
    """Why Stagehand cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (npm_dir / "node_modules/@browserbasehq/stagehand/package.json").exists():
        return f"@browserbasehq/stagehand is not installed under {npm_dir}"
    return None


def launch_chromium(user_data: Path) -> tuple[subprocess.Popen, str]:
    """Chromium with its DevTools endpoint on 127.0.0.1; returns it and the ws URL."""
    chromium = find_chromium()
    process = subprocess.Popen(
        [chromium.executable_path, "--headless=new", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0", f"--user-data-dir={user_data}", "--no-first-run",
         "--no-default-browser-check", *chromium.args, "about:blank"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    for line in process.stderr:
        if found := re.search(r"DevTools listening on (ws://\S+)", line):
            threading.Thread(target=process.stderr.read, daemon=True).start()  # drain
            return process, found.group(1)
    raise RuntimeError(f"Chromium did not open its DevTools port (exit {process.wait()})")


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions per step (7)")
    parser.add_argument("--stagehand-dir", type=Path, default=STAGEHAND_NPM,
                        help="folder whose node_modules holds @browserbasehq/stagehand")
    args = parser.parse_args()
    missing = stagehand_unavailable(args.stagehand_dir)
    contenders = [c for c in CONTENDERS if c != "Stagehand" or missing is None]

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    times: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    wrong: dict[tuple[str, str, str], int] = defaultdict(int)  # the table did something else
    loads: dict[str, list[float]] = defaultdict(list)  # AIPage.goto before each step
    statuses: set[str] = set()
    model_calls = 0
    # Chromium may still write its profile as it exits: what it leaves is not our error.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as temp:
        temp_dir = Path(temp)
        chromium, cdp_url = launch_chromium(temp_dir / "profile")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.connect_over_cdp(cdp_url)
                page = browser.contexts[0].pages[0]
                store_dir, test_file = temp_dir / "store", temp_dir / "test_bench.py"
                recording_calls = record(page, base + "/", store_dir, test_file,
                                         [*STEPS, *ONLY_BEFORE])  # fmt: skip
                store = RecordingStore(store_dir)
                ai = replaying(page, base + "/", store, test_file)
                stagehand = None
                if missing is None:
                    cache_dir = temp_dir / "stagehand-cache"
                    cache_dir.mkdir()
                    stagehand = Stagehand(cdp_url, args.stagehand_dir, cache_dir)
                    for step in [*STEPS, *ONLY_BEFORE]:
                        ai.goto(step.path)
                        # seeded with the element the raw locator finds
                        xpath = TARGETS[step.label](page).evaluate(ABSOLUTE_XPATH)
                        stagehand.seed(page.url, step, xpath)

                def run(contender: str, step: Step) -> float:
                    nonlocal model_calls
                    if contender == "Stagehand":
                        return stagehand.act(step)
                    as_a_new_test(ai)
                    start = time.perf_counter()
                    if contender == "raw":
                        step.raw(page)
                    else:
                        result = ai.act(step.instruction, variables=step.variables)
                        model_calls += result.usage.calls
                        statuses.add(result.cache)
                    return time.perf_counter() - start

                for rep in range(args.reps + 1):  # the first repetition warms up, dropped
                    turn = rep % len(contenders)
                    order = contenders[turn:] + contenders[:turn]
                    for step in STEPS:
                        for state in ("fresh", "warm"):
                            for contender in order:
                                start = time.perf_counter()
                                ai.goto(step.path)
                                if rep:
                                    loads[step.path].append(time.perf_counter() - start)
                                if state == "warm":  # the step before, as a test takes it
                                    run(contender, BEFORE[step.label])
                                elapsed = run(contender, step)
                                if rep:
                                    times[(step.label, state, contender)].append(elapsed)
                                if rep and step.label in EFFECTS:
                                    done = page.evaluate("document.body.dataset.done || ''")
                                    wrong[(step.label, state, contender)] += (
                                        done != EFFECTS[step.label]
                                    )
                if stagehand is not None:
                    stagehand.close()
                store.close()
                browser.close()
        finally:
            chromium.terminate()
            chromium.wait(timeout=30)
    httpd.shutdown()

    print(f"Recorded {len(STEPS) + len(ONLY_BEFORE)} steps with {recording_calls} scripted-model "
          f"calls; replayed offline. Median of {args.reps} runs, contenders rotated, one "
          "Chromium tab shared over CDP.")
    if missing:
        print(f"Stagehand's cached act not measured: {missing}.")
    print()
    header = f"{'step':<40} {'raw ms':>8} {'ours ms':>9} {'ours/raw':>9} {'target':>7}"
    if missing is None:
        header += f" {'Stagehand ms':>13} {'SH/raw':>7} {'ours/SH':>8}"
    print(header)
    print("-" * len(header))
    ratios = []
    for state in ("fresh", "warm"):
        for step in STEPS:
            raw, ours = (median_ms(times[(step.label, state, c)]) for c in ("raw", "ours"))
            ratios.append(ours / raw)
            line = f"{step.label + ', ' + state + ' page':<40} {raw:>8.1f} {ours:>9.1f} "
            line += f"{ours / raw:>8.2f}x {'ok' if ours / raw <= 1.2 else 'MISS':>7}"
            if missing is None:
                sh = median_ms(times[(step.label, state, "Stagehand")])
                verdict = "" if ours < sh else " slower"
                line += f" {sh:>13.1f} {sh / raw:>6.2f}x {ours / sh:>7.2f}x{verdict}"
            print(line)
    print("-" * len(header))
    for (label, state, contender), count in sorted(wrong.items()):
        if count:
            print(f"WRONG ELEMENT: {contender}'s {label}, {state} page, in {count} of "
                  f"{args.reps} runs (the table says it did something else)")
    print(f"{'median ours/raw':<40} {'':>8} {'':>9} {statistics.median(ratios):>8.2f}x "
          f"{'(<=1.2x)':>7}")
    print()
    print("each step's page loaded and settled first by AIPage.goto (the new document given "
          "our describer as it is created, prepared while the settle waits), median ms: "
          + ", ".join(f"{path} {median_ms(values):.1f}" for path, values in loads.items()))
    print(f"model calls during our replay: {model_calls} (must be 0); cache statuses: "
          f"{', '.join(sorted(statuses))}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
