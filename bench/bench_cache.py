"""Benchmark: a cached act against the same raw Playwright action, side by side.

Run: .venv/bin/python bench/bench_cache.py [--reps 30]

Target (design notes, "Fast"): a cached act costs at most 1.2x the raw Playwright action
on the same page, with zero model calls.

Two local pages, served on 127.0.0.1: a login form, and a product list with six identical
"Add to cart" buttons. Each step is first recorded through `AIPage.act` with a scripted
model (a local server answering by role and name out of the snapshot it is sent: no real
model); then the scripted server is stopped and the steps are replayed from the recordings
file with no model client, in offline mode. In every repetition each step runs three ways,
in alternating order, each on a freshly loaded page (loaded with `AIPage.goto`, which
settles, as in a test):

- raw:        `page.get_by_role(...).fill(...)` / `.click()`, the action alone;
- cached:     `AIPage.act("...")` replaying the recording (lookup, verify, perform, settle);
- raw+settle: the raw action, then the after-action settle `act` does (the floor of any
              settled act).
- hit cost:   cached minus raw+settle: what replaying from a recording adds (lookup, one
              round trip to count and describe the element, verify, the settle before).

Prints the medians and ratios, the model calls made during replay (must be 0), where a
replay's time goes, and what each verification call costs. The parts are timed by wrapping
the plugin's functions here (no plugin code is changed): the recordings lookup;
`snapshot.inspect` (one round trip: count a selector's hits, describe the one element);
`heal.verify`; `perform`
(the Playwright action); `settle` before and after the action.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from pytest_stagehand.actions.settle import settle
from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.events import StepLog
from pytest_stagehand.heal import resolve as heal
from pytest_stagehand.model.client import ModelConfig
from pytest_stagehand.model.providers import create_client
from pytest_stagehand.page import AIPage
from pytest_stagehand.pipelines import act as act_module
from pytest_stagehand.pipelines import replay
from pytest_stagehand.pipelines.act import ModelResolver
from pytest_stagehand.pipelines.replay import RecordingResolver
from pytest_stagehand.recordings.format import recordings_file
from pytest_stagehand.recordings.store import Recordings, RecordingStore
from pytest_stagehand.snapshot.outline import _script as snapshot_script
from pytest_stagehand.snapshot.outline import inspect
from pytest_stagehand.testing.scripted_model import ScriptedModelServer, ScriptedRequest

# --- pages -------------------------------------------------------------------------------

LOGIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login</title></head>
<body>
  <header><h1>Swag Labs</h1></header>
  <main>
    <form id="login-form" class="login-box" aria-label="Login">
      <div class="field"><label for="user-name">Username</label>
        <input id="user-name" name="user-name" data-test="username"></div>
      <div class="field"><label for="password">Password</label>
        <input id="password" name="password" type="password" data-test="password"></div>
      <p class="hint">Use the account your team gave you.</p>
      <button id="login-button" class="btn btn-primary" type="submit"
              data-test="login-button">Login</button>
    </form>
    <p role="status"></p>
  </main>
  <script>
    document.querySelector("form").addEventListener("submit", (event) => {
      event.preventDefault();
      const user = document.querySelector("#user-name").value;
      document.querySelector("[role=status]").textContent = `Welcome, ${user}`;
    });
  </script>
</body></html>
"""

PRODUCTS = ["Backpack", "Bike Light", "Bolt T-Shirt", "Fleece Jacket", "Onesie", "Red Hoodie"]
SHOP = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Products</title></head>
<body>
  <header><a href="login.html">Logout</a> <span class="badge">0</span></header>
  <main><h1>Products</h1><ul class="inventory">
"""
    + "".join(
        f'    <li class="item"><h2>{name}</h2><p class="price">${9.99 + 5 * i:.2f}</p>'
        '<button class="btn_inventory" type="button">Add to cart</button></li>\n'
        for i, name in enumerate(PRODUCTS)
    )
    + """  </ul></main>
  <script>
    const badge = document.querySelector(".badge");
    for (const button of document.querySelectorAll(".btn_inventory")) {
      button.addEventListener("click", () => {
        const adding = button.textContent === "Add to cart";
        badge.textContent = String(Number(badge.textContent) + (adding ? 1 : -1));
        button.textContent = adding ? "Remove" : "Add to cart";
      });
    }
  </script>
</body></html>
"""
)

SITE = {"/login.html": LOGIN, "/shop.html": SHOP}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = SITE.get(self.path.split("?")[0], "").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


# --- steps -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    label: str
    path: str
    instruction: str
    variables: dict[str, str]
    target: tuple[str, str, str | None]  # role, name, and a word before it (look-alikes)
    method: str
    raw: Callable[[Page], None]


def _add_bike_light(page: Page) -> None:
    card = page.locator("li", has_text="Bike Light")
    card.get_by_role("button", name="Add to cart").click()


STEPS = [
    Step("fill username", "/login.html", "type %user% into the username field",
         {"user": "standard_user"}, ("textbox", "Username", None), "fill",
         lambda page: page.get_by_role("textbox", name="Username").fill("standard_user")),
    Step("fill password", "/login.html", "type %password% into the password field",
         {"password": "secret_sauce"}, ("textbox", "Password", None), "fill",
         lambda page: page.get_by_role("textbox", name="Password").fill("secret_sauce")),
    Step("click login", "/login.html", "click the login button", {},
         ("button", "Login", None), "click",
         lambda page: page.get_by_role("button", name="Login").click()),
    Step("add 1 of 6 look-alikes", "/shop.html", "add the Bike Light to the cart", {},
         ("button", "Add to cart", "Bike Light"), "click", _add_bike_light),
]  # fmt: skip


def answer_for(steps: list[Step]) -> Callable[[ScriptedRequest], dict[str, Any]]:
    """What a correct model answers: the id of the step's element in the prompt's snapshot."""

    def answer(request: ScriptedRequest) -> dict[str, Any]:
        text = request.text
        instruction = re.search(r"^Instruction: (.*)$", text, re.MULTILINE).group(1)
        step = next(s for s in steps if s.instruction == instruction)
        role, name, after = step.target
        outline = text[text.rfind("Snapshot:\n") :]
        if after:
            outline = outline[outline.index(after) :]
        element = re.search(rf'\b(e\d+) {role} "{re.escape(name)}"', outline).group(1)
        arguments = [f"%{next(iter(step.variables))}%"] if step.variables else []
        return {
            "found": True, "element_id": element, "method": step.method,
            "arguments": arguments, "description": f"{step.method} {element}",
            "two_step": False,
        }  # fmt: skip

    return answer


# --- timing the parts of a replay --------------------------------------------------------


class Parts:
    """Wraps the plugin's functions a replay goes through with timers (monkeypatching)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._originals: list[tuple[Any, str, Any]] = []

    def _wrap(self, owner: Any, name: str, part: Callable[..., str]) -> None:
        original = getattr(owner, name)
        self._originals.append((owner, name, original))

        @wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[part(*args, **kwargs)] += time.perf_counter() - start

        setattr(owner, name, timed)

    def install(self) -> None:
        self._wrap(Recordings, "lookup", lambda *a, **k: "lookup")
        self._wrap(heal, "inspect", lambda *a, **k: "inspect")
        self._wrap(heal, "verify", lambda *a, **k: "verify")
        self._wrap(replay, "perform", lambda *a, **k: "perform")
        self._wrap(
            act_module, "settle",
            lambda *a, **k: "settle after" if k.get("after_action") else "settle before",
        )  # fmt: skip
        self._wrap(act_module, "finish_started", lambda *a, **k: "settle after")

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()

    def take(self) -> dict[str, float]:
        seconds = dict(self.seconds)
        self.seconds.clear()
        return seconds


PARTS = ["lookup", "inspect", "verify", "perform", "settle before", "settle after"]


# --- the run -----------------------------------------------------------------------------


def record(
    page: Page, base: str, store_dir: Path, test_file: Path, steps: list[Step] = STEPS
) -> int:
    """Record every step through AIPage.act with the scripted model; returns its calls."""
    with ScriptedModelServer(default=answer_for(steps)) as scripted:
        config = ModelConfig("openai/scripted", base_url=scripted.openai_base_url,
                             max_retries=0)
        store = RecordingStore(store_dir)
        with create_client(config) as client:
            steplog = StepLog()
            recordings = Recordings(store, test_file, "auto")
            resolver = RecordingResolver(page, ModelResolver(page, client, steplog), recordings,
                                         steplog, has_model=True, model=config.model)
            ai = AIPage(page, client, steplog=steplog, base_url=base, resolver=resolver)
            for step in steps:
                ai.goto(step.path)
                result = ai.act(step.instruction, variables=step.variables)
                if result.cache != "miss":
                    raise RuntimeError(f"{step.label} was not recorded ({result.cache})")
        store.flush()
        store.close()
        return scripted.calls  # the server stops here: replay has no model to reach


def replaying(page: Page, base: str, store: RecordingStore, test_file: Path) -> AIPage:
    """An AIPage that replays the recordings offline, with no model client."""
    steplog = StepLog()
    recordings = Recordings(store, test_file, "offline")
    resolver = RecordingResolver(page, ModelResolver(page, None, steplog), recordings,
                                 steplog, has_model=False)
    return AIPage(page, None, steplog=steplog, base_url=base, resolver=resolver)


def as_a_new_test(ai: AIPage) -> None:
    """Forget the steps taken so far: each use of a step in one test has its own recording,
    and every repetition replays the first use, as a new test would."""
    ai.resolver.recordings.taken.clear()


def verification_costs(ai: AIPage, page: Page, reps: int) -> dict[str, float]:
    """What verifying one element costs on a loaded page (Playwright's scripts already in
    it), call by call, against a trivial evaluate on the same element."""
    ai.goto("/login.html")
    locator = page.locator('[data-test="login-button"]')
    calls: dict[str, Callable[[], object]] = {
        "locator.count()": locator.count,
        "trivial locator.evaluate_all": lambda: locator.evaluate_all("els => els.length"),
        "snapshot.inspect": lambda: inspect(locator),
    }
    costs = {}
    for label, call in calls.items():
        call()  # warm
        samples = []
        for _ in range(reps):
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
        costs[label] = median_ms(samples)
    # The same, as the first call on a freshly loaded page (where a replay makes them)
    firsts: dict[str, Callable[[], object]] = {
        "first locator.count()": locator.count,
        "first trivial evaluate_all": lambda: locator.evaluate_all("els => els.length"),
        "first snapshot.inspect": lambda: inspect(locator),
    }
    for label, call in firsts.items():
        samples = []
        for _ in range(reps):
            ai.goto("/login.html")
            if label != "first locator.count()":
                locator.count()  # Playwright's selector engine is in the page: not timed
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
        costs[label] = median_ms(samples)
    return costs


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30, help="repetitions per step (30)")
    args = parser.parse_args()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    launch = find_chromium().launch_options()  # before sync_playwright: it asks Playwright

    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        page = browser.new_page()
        store_dir, test_file = Path(temp) / "store", Path(temp) / "test_bench.py"
        recording_calls = record(page, base, store_dir, test_file)
        steps_recorded = recordings_file(test_file).read_text().count('"instruction"')

        store = RecordingStore(store_dir)
        ai = replaying(page, base, store, test_file)
        parts = Parts()
        raw: dict[str, list[float]] = defaultdict(list)
        raw_settled: dict[str, list[float]] = defaultdict(list)
        cached: dict[str, list[float]] = defaultdict(list)
        breakdown: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        model_calls, statuses = 0, set()

        for rep in range(args.reps + 1):  # the first repetition warms up and is dropped
            for step in STEPS:
                for variant in ("raw", "cached", "raw+settle")[:: 1 if rep % 2 else -1]:
                    ai.goto(step.path)  # a fresh page, settled as a test's goto leaves it
                    as_a_new_test(ai)
                    if variant == "cached":
                        parts.install()
                        start = time.perf_counter()
                        result = ai.act(step.instruction, variables=step.variables)
                        elapsed = time.perf_counter() - start
                        parts.uninstall()
                        taken = parts.take()
                        model_calls += result.usage.calls
                        statuses.add(result.cache)
                    else:
                        start = time.perf_counter()
                        step.raw(page)
                        if variant == "raw+settle":
                            settle(ai.watch, after_action=True)
                        elapsed = time.perf_counter() - start
                    if rep == 0:
                        continue
                    if variant == "cached":
                        cached[step.label].append(elapsed)
                        for part in PARTS:
                            breakdown[step.label][part].append(taken.get(part, 0.0))
                        breakdown[step.label]["other"].append(elapsed - sum(taken.values()))
                    elif variant == "raw":
                        raw[step.label].append(elapsed)
                    else:
                        raw_settled[step.label].append(elapsed)
        verification = verification_costs(ai, page, args.reps)
        browser.close()
        store.close()
    httpd.shutdown()

    print(f"Recorded {steps_recorded} steps with {recording_calls} scripted-model calls; "
          f"replayed offline with no model client, {args.reps} repetitions each (medians).")
    print()
    header = (f"{'step':<24} {'raw ms':>8} {'cached ms':>10} {'ratio':>7} {'target':>7} "
              f"{'raw+settle ms':>14} {'cached/raw+settle':>18} {'hit cost ms':>12}")
    print(header)
    print("-" * len(header))
    ratios = []
    for step in STEPS:
        r, c, s = (median_ms(d[step.label]) for d in (raw, cached, raw_settled))
        ratios.append(c / r)
        verdict = "ok" if c / r <= 1.2 else "MISS"
        print(f"{step.label:<24} {r:>8.1f} {c:>10.1f} {c / r:>6.2f}x {verdict:>7} {s:>14.1f} "
              f"{c / s:>17.2f}x {c - s:>12.1f}")
    print("-" * len(header))
    print(f"{'median ratio':<24} {'':>8} {'':>10} {statistics.median(ratios):>6.2f}x "
          f"{'(<=1.2x)':>7}")
    print()
    print(f"model calls during replay: {model_calls} (must be 0); cache statuses: "
          f"{', '.join(sorted(statuses))}")
    print()
    print("Where a cached act's time goes (median ms per act; inspect = one round trip that")
    print("counts a selector's hits and describes the element; verify compares it with the")
    print("recording):")
    columns = [*PARTS, "other"]
    labels = [step.label for step in STEPS]
    print(f"{'part':<18} " + " ".join(f"{label[:14]:>14}" for label in labels))
    for part in columns:
        cells = [median_ms(breakdown[label][part]) for label in labels]
        print(f"{part:<18} " + " ".join(f"{cell:>14.1f}" for cell in cells))
    totals = [median_ms(cached[label]) for label in labels]
    print(f"{'= cached act':<18} " + " ".join(f"{cell:>14.1f}" for cell in totals))
    print()
    print(f"Verification calls (median ms of {args.reps}; snapshot.inspect evaluates the "
          f"{len(snapshot_script()) // 1024} KB snapshot.js for one element). Warm: again on a "
          "loaded page; first: the first such call on a freshly loaded page, as in a replay:")
    for label, cost in verification.items():
        print(f"  {label:<28} {cost:>6.1f}")


if __name__ == "__main__":
    main()
