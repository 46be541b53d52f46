"""The servers and browsers the tests start (`playwright run-server`, a Chromium with a
debugging port), each in a session of its own, and ended with every process it started:
nothing the suite started is left running, and a test fails if something is.

A Playwright server that has launched a browser ignores SIGTERM (it closes its browsers
and keeps listening); SIGINT, its Ctrl-C, ends it. What is still there after the grace
period is killed."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence

GRACE_S = 15.0


def start(command: Sequence[str], **options) -> subprocess.Popen:
    """`command` in a new session (so a process group) of its own."""
    return subprocess.Popen(command, start_new_session=True, **options)


def family(leader: int) -> set[int]:
    """The leader and every process it started, and the process groups of all of these:
    a browser a server launched (in a session of its own), and the helpers that browser
    started (its crash handler leaves its parent, never its group)."""
    table = [
        tuple(int(field) for field in line.split())
        for line in subprocess.run(
            ["ps", "-eo", "pid=,ppid=,pgid="], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    ]
    members = {leader}
    while True:
        groups = {pgid for pid, _, pgid in table if pid in members}
        more = {pid for pid, ppid, pgid in table if ppid in members or pgid in groups}
        if more <= members:
            return members
        members |= more


def alive(pids: set[int]) -> set[int]:
    running = set()
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        running.add(pid)
    return running


def end(
    process: subprocess.Popen, members: set[int], stop: signal.Signals = signal.SIGINT
) -> set[int]:
    """Stop the process's group with `stop`, wait for its family (`members`) to exit, kill
    what is left after the grace period; the processes that had to be killed."""
    with contextlib.suppress(ProcessLookupError):  # the whole group has ended already
        os.killpg(process.pid, stop)
    killed = _wait(process, members)
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    _wait(process, members)
    return killed


def _wait(process: subprocess.Popen, members: set[int]) -> set[int]:
    """Wait (up to the grace period) until none of `members` runs; those that still do."""
    deadline = time.monotonic() + GRACE_S
    while True:
        process.poll()  # reaps the leader, our child, once it has exited
        running = alive(members)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)  # polls the condition: the processes gone


def listens(host: str, port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((host, port)) == 0
