"""Puts vote reports into a store as fast as it takes them, printing ``id vote`` once
each put has returned (the server's 2xx), until it is killed: the kill test's writer.

    python -m tests.server.vote_writer DATABASE SQLITE_PATH
"""

import asyncio
import json
import sys
from pathlib import Path

from widget.server.vote_report import parse_report
from widget.server.votes import open_votes


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


async def write(database: str | None, path: Path) -> None:
    store = await open_votes(database, path)
    n = 0
    while True:  # each id is voted up, then changed to down: the last report must stand
        for step, vote in enumerate(("up", "down")):
            await store.put(parse_report(vote_body(n, vote, 2 * n + step)))
            print(f"vote-{n} {vote}", flush=True)
        n += 1


if __name__ == "__main__":
    asyncio.run(write(sys.argv[1] or None, Path(sys.argv[2])))
