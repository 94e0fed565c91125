"""bench/thread_cpu.py reads the real threads of a real child process from /proc."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.thread_cpu import ENDED, cpu_spent, thread_times

# A child that, a step per line on stdin: burns CPU in a thread named "burner-1" that
# then stays alive and idle; burns CPU in a thread named "short" that ends; and exits.
CHILD = r"""
import ctypes, sys, threading, time
def burn(name, then=None):
    ctypes.CDLL(None).prctl(15, name.encode())  # PR_SET_NAME: what /proc shows
    start = time.thread_time()
    while time.thread_time() - start < 0.2:
        pass
    burnt.set()
    if then:
        then.wait()
burnt, leave = threading.Event(), threading.Event()
print("ready", flush=True)
sys.stdin.readline()
threading.Thread(target=burn, args=("burner-1", leave)).start()
burnt.wait()
print("burnt", flush=True)
sys.stdin.readline()
short = threading.Thread(target=burn, args=("short",))
short.start()
short.join()
print("ended", flush=True)
sys.stdin.readline()
leave.set()
"""


def test_live_and_ended_threads() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin and child.stdout

    def step(expected: str) -> None:
        assert child.stdout and child.stdout.readline() == expected + "\n"

    def go_on() -> None:
        assert child.stdin
        child.stdin.write("\n")
        child.stdin.flush()

    try:
        step("ready")
        before = thread_times()
        go_on()
        step("burnt")
        middle = thread_times()
        go_on()
        step("ended")
        after = thread_times()
        process = after[child.pid].process

        # A live thread counts under its name, without its number in a pool.
        burnt = cpu_spent(before, middle)
        assert burnt[f"{process}: burner"] >= 0.15
        assert list(burnt.values()) == sorted(burnt.values(), reverse=True)

        # A thread that ended counts for its process; an idle one adds nothing.
        ended = cpu_spent(middle, after)
        assert ended[f"{process}: {ENDED}"] >= 0.15
        assert ended.get(f"{process}: burner", 0.0) < 0.05
    finally:
        go_on()
        child.wait(30)


def test_only_descendants() -> None:
    # This process's own threads are not among its descendants'; its child's are.
    assert os.getpid() not in thread_times()
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=subprocess.PIPE, text=True
    )
    try:
        assert child.pid in thread_times()
    finally:
        assert child.stdin
        child.stdin.write("\n")
        child.stdin.flush()
        child.wait(30)
