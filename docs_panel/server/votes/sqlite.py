"""The votes store in a SQLite file: WAL mode (readers never block the writer, and
instances on one host may share the file), ``synchronous=FULL`` (a commit is on disk
when it returns), one connection used from one thread of its own so the event loop
never waits on the disk."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final, TypeVar

from docs_panel.server.report_shape import Report
from docs_panel.server.votes.sql import (
    APPLIED,
    CREATE_MIGRATIONS,
    REPORTS,
    UPSERT,
    GroupCommit,
    Row,
    VotesError,
    migration_steps,
)

BUSY_TIMEOUT_S: Final = 30.0
"""How long a write waits for another instance's on the same file."""

T = TypeVar("T")


class SqliteVotes:
    def __init__(self, path: Path, connection: sqlite3.Connection, pool: ThreadPoolExecutor):
        self.path = path
        self._connection = connection
        self._pool = pool
        self._commits = GroupCommit(self._write)

    @classmethod
    async def open(cls, path: Path) -> SqliteVotes:
        """Open (creating the file and its folder if need be) and migrate."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docs-panel-votes")
        try:
            connection = await asyncio.get_running_loop().run_in_executor(pool, _connect, path)
        except BaseException:
            pool.shutdown()
            raise
        return cls(path, connection, pool)

    async def _run(self, work: Callable[[], T]) -> T:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        except sqlite3.Error as err:
            raise VotesError(f"votes database {self.path}: {err}") from None

    async def _write(self, rows: list[Row]) -> None:
        await self._run(
            lambda: _in_transaction(self._connection, lambda c: c.executemany(UPSERT, rows))
        )

    async def put(self, report: Report) -> None:
        await self._commits.put(report)

    async def reports(self) -> list[dict[str, object]]:
        rows = await self._run(lambda: self._connection.execute(REPORTS).fetchall())
        return [json.loads(body) for (body,) in rows]

    async def close(self) -> None:
        await self._commits.finish()
        await asyncio.get_running_loop().run_in_executor(self._pool, self._connection.close)
        self._pool.shutdown()


def _in_transaction(
    connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], object]
) -> None:
    """``work`` in one write transaction: BEGIN IMMEDIATE takes the write lock at once
    (waiting for another instance's), so two migrators or writers never interleave."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        work(connection)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _migrate(connection: sqlite3.Connection, where: str) -> None:
    connection.execute(CREATE_MIGRATIONS)
    applied = connection.execute(APPLIED).fetchone()[0]
    for sql, args in migration_steps(applied, where):
        connection.execute(sql, args)


def _wal(connection: sqlite3.Connection) -> str:
    """The journal mode after asking for WAL. Turning a new file to WAL takes a lock that
    SQLite's busy handler does not wait for: an instance opening the same new file at
    that moment is told "locked" at once, so it asks again until ``BUSY_TIMEOUT_S``."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            return str(connection.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _connect(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise VotesError(f"cannot open the votes database {path}: {err}") from None
    try:
        mode = _wal(connection)
        if mode != "wal":
            raise VotesError(
                f"{path}: SQLite cannot use WAL mode there (journal mode {mode!r}); "
                "put the votes database on a local disk"
            )
        connection.execute("PRAGMA synchronous=FULL")
        _in_transaction(connection, lambda c: _migrate(c, str(path)))
    except sqlite3.Error as err:
        connection.close()
        raise VotesError(f"cannot prepare the votes database {path}: {err}") from None
    except BaseException:
        connection.close()
        raise
    return connection
