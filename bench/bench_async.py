"""Benchmark: a replayed act through the async face against the same act through the sync one.

Run: .venv/bin/python bench/bench_async.py [--reps 15]

The async face runs the sync core in a greenlet over a bridge of Playwright's async page
(pytest_stagehand/bridge.py); this prints what that costs. The steps of bench_cache.py
(fill the username, fill the password, click login, add the Bike Light among look-alike
buttons) are recorded once through a scripted model (a local server answering by role and
name; no real model), then replayed offline, verified, by both faces: the sync face on a
sync Playwright page in this thread, the async face on an async Playwright page on an
event loop in another thread, each with its own Chromium. Rounds alternate (which face
goes first flips each round), so load on a shared machine falls on both alike; the first
round warms up and is dropped. Each act runs on a freshly loaded page, as a new test
would. Printed: medians per step, the raw Playwright action (sync) as the baseline, and
async/sync ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Coroutine
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

from bench_cache import STEPS, Step, _Handler, as_a_new_test, record, replaying
from playwright.async_api import async_playwright
from playwright.sync_api import sync_playwright

from pytest_stagehand.async_face import AsyncAIPage
from pytest_stagehand.browser.bridge import Bridge
from pytest_stagehand.browser.launch import find_chromium
from pytest_stagehand.recordings.store import RecordingStore

T = TypeVar("T")


class AsyncSide:
    """The async face on its own event loop thread, driven one round at a time."""

    def __init__(self, launch: dict, base: str, store: RecordingStore, test_file: Path) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.ai, self.stop = self.call(self._open(launch, base, store, test_file))

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def _open(self, launch: dict, base: str, store: RecordingStore, test_file: Path) -> tuple:
        manager = async_playwright()
        playwright = await manager.__aenter__()
        browser = await playwright.chromium.launch(**launch)
        page = await browser.new_page()
        bridge = Bridge(asyncio.get_running_loop())
        ai = AsyncAIPage(replaying(bridge.wrap(page), base, store, test_file), bridge)

        async def stop() -> None:
            await browser.close()
            await manager.__aexit__(None, None, None)

        return ai, stop

    async def act_ms(self, step: Step) -> float:
        await self.ai.goto(step.path)
        as_a_new_test(self.ai.core)
        start = time.perf_counter()
        result = await self.ai.act(step.instruction, variables=step.variables)
        elapsed = (time.perf_counter() - start) * 1000
        if result.cache != "hit":
            raise RuntimeError(f"async {step.label}: {result.cache}, not replayed")
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="rounds (15)")
    args = parser.parse_args()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    launch = find_chromium().launch_options()

    times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        page = browser.new_page()
        store_dir, test_file = Path(temp) / "store", Path(temp) / "test_bench.py"
        record(page, base, store_dir, test_file)
        store = RecordingStore(store_dir)
        sync_ai = replaying(page, base, store, test_file)
        async_side = AsyncSide(launch, base, store, test_file)

        def sync_act_ms(step: Step) -> float:
            sync_ai.goto(step.path)
            as_a_new_test(sync_ai)
            start = time.perf_counter()
            result = sync_ai.act(step.instruction, variables=step.variables)
            elapsed = (time.perf_counter() - start) * 1000
            if result.cache != "hit":
                raise RuntimeError(f"sync {step.label}: {result.cache}, not replayed")
            return elapsed

        def raw_ms(step: Step) -> float:
            sync_ai.goto(step.path)
            start = time.perf_counter()
            step.raw(page)
            return (time.perf_counter() - start) * 1000

        for rep in range(args.reps + 1):
            for step in STEPS:
                faces = {
                    "sync": lambda step=step: sync_act_ms(step),
                    "async": lambda step=step: async_side.call(async_side.act_ms(step)),
                    "raw": lambda step=step: raw_ms(step),
                }
                for face in list(faces)[:: 1 if rep % 2 else -1]:
                    elapsed = faces[face]()
                    if rep:  # the first round warms up
                        times[step.label][face].append(elapsed)
        async_side.call(async_side.stop())
        store.close()
        browser.close()

    print(f"replayed act, median of {args.reps} rounds (ms), each on a freshly loaded page")
    print(f"{'step':<24}{'raw (sync)':>12}{'sync face':>12}{'async face':>12}{'async/sync':>12}")
    ratios = []
    for label, by_face in times.items():
        raw, sync, async_ = (statistics.median(by_face[f]) for f in ("raw", "sync", "async"))
        ratios.append(async_ / sync)
        print(f"{label:<24}{raw:>12.1f}{sync:>12.1f}{async_:>12.1f}{async_ / sync:>11.2f}x")
    print(f"async/sync, geometric mean over the steps: {statistics.geometric_mean(ratios):.2f}x")


if __name__ == "__main__":
    main()
