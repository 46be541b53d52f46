"""Benchmark: the CPU a test's new context and page cost the browser, launched as the
plugin launches it and as Playwright launches it by default.

Run: .venv/bin/python bench/bench_context_cost.py [--contexts 30] [--rounds 3]

Every test gets a context and a page of its own (pytest-playwright's `context` and `page`).
A full Chromium (the system one the plugin falls back to when Playwright's build is not
installed) gives each context's window an address bar whose suggestion popups are WebUI
pages, loaded in a renderer of their own. The plugin's launch options leave them out.

Three launches of the same Chromium, rotated each round:
- playwright: Playwright's launch with the executable alone (its own switches);
- popups in:  the plugin's options without the `--disable-features` that leaves the
              popups out (as the plugin launched it before);
- plugin:     the options the plugin launches it with (`find_chromium().launch_options()`).
Each opens --contexts contexts, one after the other, each with a page that loads a small
document and clicks a button, then closes it. Printed: the browser's CPU (all its
processes, user and system, read from /proc as each context closes) per context, the
renderers it started per context, and the plugin's ratio to the other two.
Linux only. With Playwright's own build installed (a headless shell, no address bar) the
plugin adds no option: nothing to compare.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from pytest_stagehand.browser.launch import find_chromium

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = "<p>ready</p><button onclick=\"this.textContent = 'done'\">Go</button>"


def processes() -> dict[tuple[str, str], tuple[str, float]]:
    """(pid, start time): (command line, CPU seconds, user and system) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[(entry.name, fields[19])] = (command, (int(fields[11]) + int(fields[12])) / TICKS)
    return found


def one_round(executable: str, args: list[str], marker: str, contexts: int) -> tuple[float, float]:
    """CPU seconds per context, and renderers started per context, of the browser launched
    with `marker` on its command line and every process it started (they carry its
    user-data dir on theirs)."""
    seen: dict[tuple[str, str], tuple[str, float]] = {}

    def look(profile: str) -> None:
        seen.update({key: (command, cpu) for key, (command, cpu) in processes().items()
                     if profile in command})  # fmt: skip

    def totals() -> tuple[float, int]:
        return (sum(cpu for _, cpu in seen.values()),
                sum("--type=renderer" in command for command, _ in seen.values()))  # fmt: skip

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=[*args, marker])
        (command,) = [command for command, _ in processes().values() if marker in command]
        profile = re.search(r"--user-data-dir=\S+", command).group(0)
        look(profile)
        cpu_before, renderers_before = totals()
        for _ in range(contexts):
            context = browser.new_context()
            page = context.new_page()
            page.set_content(PAGE)
            page.get_by_role("button", name="Go").click()
            look(profile)
            context.close()
            look(profile)
        browser.close()
    cpu, renderers = totals()
    return (cpu - cpu_before) / contexts, (renderers - renderers_before) / contexts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    if not sys.platform.startswith("linux"):
        sys.exit("reads the browser's CPU from /proc: Linux only")
    choice = find_chromium()
    if choice.executable_path is None:
        sys.exit("Playwright's own build is installed: the plugin adds no launch option.")
    launches = {
        "playwright": [],
        "popups in": [arg for arg in choice.args if not arg.startswith("--disable-features=")],
        "plugin": list(choice.args),
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in launches}
    for round_ in range(options.rounds):
        order = list(launches)[round_ % 3 :] + list(launches)[: round_ % 3]
        for name in order:
            # A marker of the launch's own, so its processes are told from any other's.
            marker = f"--window-name=bench-context-cost-{name}-{round_}-{os.getpid()}"
            results[name].append(
                one_round(choice.executable_path, launches[name], marker, options.contexts)
            )
    print(f"Chromium: {choice.executable_path}; {options.contexts} contexts x "
          f"{options.rounds} rounds, medians")  # fmt: skip
    medians = {}
    for name, rounds in results.items():
        cpu = statistics.median(c for c, _ in rounds)
        renderers = statistics.median(r for _, r in rounds)
        medians[name] = cpu
        print(f"  {name:<11} {cpu * 1000:6.0f} ms CPU per context, {renderers:.1f} renderers "
              f"per context (rounds: {', '.join(f'{c * 1000:.0f}' for c, _ in rounds)} ms)")
    for baseline in ("playwright", "popups in"):
        print(f"  plugin / {baseline}: {medians['plugin'] / medians[baseline]:.2f}x")


if __name__ == "__main__":
    main()
