"""Puts vote reports into a store as fast as it takes them, several at once, printing
``id vote`` once each put has returned (the server's 2xx), until it is killed: the kill
test's writer.

    python -m tests.server.vote_writer DATABASE SQLITE_PATH [FIRST]

``DATABASE`` is a PostgreSQL URL, or empty for SQLite at ``SQLITE_PATH``; ids start at
``vote-FIRST`` (default 0), so a writer started again after a kill writes new ones.
"""

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from docs_panel.server.report_shape import parse_report
from docs_panel.server.votes.store import open_votes

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 8


def vote_body(n: int, vote: str, voted_at: int) -> bytes:
    return json.dumps(
        {
            "id": f"vote-{n}",
            "vote": vote,
            "reasons": [],
            "sentence": "",
            "question": f"q{n}",
            "quote": "",
            "answer": "",
            "sources": [],
            "scope": None,
            "gate": None,
            "retrieved": [],
            "page_url": "https://docs.example.org/",
            "voted_at": voted_at,
        }
    ).encode()


async def write(database: str | None, path: Path, first: int) -> None:
    """``WRITERS`` loops putting at once (so puts share commits), until killed."""
    store = await open_votes(database, path)

    async def loop(k: int) -> None:
        for n in itertools.count(first + k, WRITERS):
            for step, vote in enumerate(("up", "down")):  # the last report must stand
                await store.put(parse_report(vote_body(n, vote, 2 * n + step)))
                print(f"vote-{n} {vote}", flush=True)

    await asyncio.gather(*(loop(k) for k in range(WRITERS)))


def write_until_killed(database: str, sqlite_path: Path, *, first: int, ids: int) -> dict[str, str]:
    """Run a writer and kill it with SIGKILL once ``ids`` ids were acknowledged: every
    id's last acknowledged vote, the lines it printed before it died included."""
    writer = _writer(database, sqlite_path, first)
    acked = _acknowledged(writer, ids, lambda: os.kill(writer.pid, signal.SIGKILL))
    if writer.returncode != -signal.SIGKILL:
        raise RuntimeError(f"the writer ended by itself ({writer.returncode}), not killed")
    return acked


def write_until_database_crashed(
    database: str, crash: Callable[[], None], *, ids: int
) -> dict[str, str]:
    """Run a writer on PostgreSQL and ``crash`` the database server once ``ids`` ids were
    acknowledged; the writer fails its next puts and ends. Every id's last acknowledged
    vote."""
    writer = _writer(database, Path("unused"), 0)
    acked = _acknowledged(writer, ids, crash)
    if writer.returncode in (0, -signal.SIGKILL):
        raise RuntimeError(f"the writer ended with {writer.returncode}, not on the crash")
    return acked


def _writer(database: str, sqlite_path: Path, first: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.server.vote_writer", database, str(sqlite_path), str(first)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _acknowledged(
    writer: subprocess.Popen[str], ids: int, stop: Callable[[], None]
) -> dict[str, str]:
    """Read the writer's acknowledgements, ``stop`` once ``ids`` ids were, and read the
    rest until the writer ends."""
    assert writer.stdout is not None
    acked: dict[str, str] = {}
    try:
        for line in writer.stdout:
            vote_id, said = line.split()
            acked[vote_id] = said
            if len(acked) == ids:
                stop()
                break
        for line in writer.stdout.read().splitlines():
            vote_id, said = line.split()
            acked[vote_id] = said
        writer.wait(timeout=60)
    finally:
        writer.kill()
        writer.wait()
    return acked


def lost(acked: Mapping[str, str], kept: Mapping[str, object]) -> list[str]:
    """The acknowledged ids missing from ``kept`` (id → stored vote) or standing at an
    earlier vote than their last acknowledged one ("down" is each id's last)."""
    return [
        vote_id
        for vote_id, said in acked.items()
        if vote_id not in kept or (said == "down" and kept[vote_id] != "down")
    ]


if __name__ == "__main__":
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    asyncio.run(write(sys.argv[1] or None, Path(sys.argv[2]), first))
