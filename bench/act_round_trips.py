"""Where a replayed act spends its time: every call it makes to the browser, timed.

Run: .venv/bin/python bench/act_round_trips.py ["click Login"]

For one step of bench_act_speed (default: every step), records the step with the scripted
model, replays it offline on a freshly loaded page and right after the step before it (as
in a test, bench_act_speed.BEFORE), and prints each protocol call the replay sent
(Playwright's own action included): when it started, how long it took, and what it was.
The calls around the action are what a replay costs over the raw action; fewer of them is
what issue 16's speed-ups are about.

It reads Playwright's wire through an internal hook (`Connection.send_message_to_server`),
which a Playwright upgrade may move: a development aid, not a test.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench_act_speed import BEFORE, ONLY_BEFORE, STEPS
from bench_cache import _Handler, as_a_new_test, record, replaying
from playwright._impl import connection
from playwright.sync_api import sync_playwright

from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.recordings.store import RecordingStore

Call = list[Any]  # [method, what, started, finished or None]
_calls: list[Call] | None = None
_send = connection.Connection.send_message_to_server


def _watched(self: Any, channel: Any, method: str, params: Any, options: Any) -> Any:
    reply = _send(self, channel, method, params, options)
    if _calls is not None and method != "__waitInfo__":
        shown = (params or {}).get("expression") or (params or {}).get("selector") or ""
        call: Call = [method, " ".join(shown.split())[:70], time.perf_counter(), None]
        _calls.append(call)
        reply.add_done_callback(lambda _: call.__setitem__(3, time.perf_counter()))
    return reply


def main() -> None:
    global _calls
    wanted = sys.argv[1:]
    steps = [step for step in STEPS if not wanted or any(w in step.label for w in wanted)]
    connection.Connection.send_message_to_server = _watched  # type: ignore[method-assign]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    chromium = find_chromium()
    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium.launch_options())
        page = browser.new_page()
        store_dir, test_file = Path(temp) / "store", Path(temp) / "test_bench.py"
        record(page, base, store_dir, test_file, [*STEPS, *ONLY_BEFORE])
        store = RecordingStore(store_dir)
        ai = replaying(page, base, store, test_file)
        for step, state in [(step, state) for step in steps for state in ("fresh", "warm")]:
            for _ in range(3):  # the last of three, on a fresh page each time
                ai.goto(step.path)
                if state == "warm":  # right after the step before it, as in a test
                    before = BEFORE[step.label]
                    ai.act(before.instruction, variables=before.variables)
                as_a_new_test(ai)
                _calls = []
                start = time.perf_counter()
                ai.act(step.instruction, variables=step.variables)
                total = time.perf_counter() - start
                calls, _calls = _calls, None
            print(f"\n{step.label}, {state} page: {total * 1000:.1f} ms, {len(calls)} calls")
            for method, what, started, finished in calls:
                took = ((finished or started) - started) * 1000
                print(f"  {(started - start) * 1000:7.2f} ms  +{took:6.2f} ms  {method:<20} {what}")
        store.close()
        browser.close()
    httpd.shutdown()


if __name__ == "__main__":
    main()
