"""CPU seconds each thread of the browsers this process started spent in a stretch of time.

A wall-clock figure on a shared 2-core machine mixes an engine's own work with its
wait for a core. Thread by thread, the CPU an engine spent says what it did: in
WebKitGTK, its worker ("WebCore: Worker"), JavaScriptCore's wasm compiler threads
("Wasm Worklist Helper Thread", whose name Linux cuts to its last 15 characters)
or Mesa's software GL ("llvmpipe-N", drawing under Xvfb); in Chromium, its
"DedicatedWorker" and V8's compiler threads. Read from Linux's /proc, for every
process descended from this one (other people's browsers on the machine are left
out)::

    before = thread_times()
    ...                                   # the visit
    spent = cpu_spent(before, thread_times())   # {"WebKitWebProces: WebCore: Worker": 2.1, ...}
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
# A thread's own number at the end of its name ("llvmpipe-1", "ThreadPoolForeg#2"):
# threads of one pool add up under one name.
_POOL_NUMBER = re.compile(r"[-#:]?\d+$")
ENDED = "(ended threads)"


@dataclass(frozen=True, slots=True)
class Times:
    """CPU seconds of a process (all its threads, ended ones too) and of its live threads."""

    process: str
    total_s: float
    threads: dict[int, tuple[str, float]]  # thread id: (name, seconds)


def _stat(path: Path) -> tuple[str, int, float] | None:
    """(name, parent pid, user + system seconds) from a /proc stat file, None if it went."""
    try:
        text = path.read_text()
    except OSError:
        return None
    name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :]
    fields = rest.split()  # from the state on: state ppid ... utime (12) stime (13)
    return name, int(fields[1]), (int(fields[11]) + int(fields[12])) * TICK_S


def descendants(root: int) -> list[int]:
    """The processes below ``root`` (children, theirs, ...), as Linux lists them now."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(entry / "stat")):
            children.setdefault(stat[1], []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def thread_times(root: int | None = None) -> dict[int, Times]:
    """Every descendant process of ``root`` (this one by default), by pid."""
    out = {}
    for pid in descendants(os.getpid() if root is None else root):
        process = _stat(PROC / str(pid) / "stat")
        if process is None:
            continue
        threads = {}
        try:
            tasks = list((PROC / str(pid) / "task").iterdir())
        except OSError:
            continue
        for task in tasks:
            if thread := _stat(task / "stat"):
                threads[int(task.name)] = (thread[0], thread[2])
        out[pid] = Times(process[0], process[2], threads)
    return out


def cpu_spent(before: dict[int, Times], after: dict[int, Times]) -> dict[str, float]:
    """Seconds spent between the two readings, by "process: thread" name, largest first.
    A thread that ended before the second reading counts under its process's ENDED."""
    spent: dict[str, float] = {}

    def add(key: str, seconds: float) -> None:
        if seconds > 0:
            spent[key] = spent.get(key, 0.0) + seconds

    for pid, now in after.items():
        was = before.get(pid, Times(now.process, 0.0, {}))
        live = 0.0
        for tid, (name, seconds) in now.threads.items():
            delta = seconds - was.threads.get(tid, (name, 0.0))[1]
            live += delta
            add(f"{now.process}: {_POOL_NUMBER.sub('', name) or name}", delta)
        add(f"{now.process}: {ENDED}", now.total_s - was.total_s - live)
    return dict(sorted(spent.items(), key=lambda item: -item[1]))
