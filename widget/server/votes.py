"""The votes store: checked vote reports kept in SQLite (a file in WAL mode, the
default) or PostgreSQL (``--database postgresql://…``), one row per vote id.

- **The last report per id wins**, "last" by the panel's ``voted_at`` (then by arrival):
  a change of vote replaces the earlier report, and a late retry of an older report
  replaces nothing.
- **Durable when put returns**: each report is its own committed transaction (SQLite
  with ``synchronous=FULL``; PostgreSQL's default ``synchronous_commit``), so a
  process killed after its 2xx loses nothing.
- **Migrations on open**: ``MIGRATIONS`` is applied in one transaction under a lock
  (SQLite's write lock, PostgreSQL's advisory lock), so two instances starting at
  once apply each step once; a database newer than this code is refused.

Tables are named ``docs_panel_*``, so the store can live in a database shared with
other things. Nothing here validates a report: :mod:`widget.server.vote_report` does.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final, Protocol, TypeVar
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import TupleRow

from widget.core.errors import ConfigError, WidgetError
from widget.server.vote_report import Report

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE docs_panel_votes (
            id TEXT PRIMARY KEY,
            vote TEXT,
            voted_at BIGINT NOT NULL,
            received_at BIGINT NOT NULL,
            report TEXT NOT NULL
        )""",
        "CREATE INDEX docs_panel_votes_voted_at ON docs_panel_votes (voted_at)",
    ),
)
"""Schema steps in order (step n is version n + 1), in SQL both databases take.
Append only: a step that has run anywhere never changes."""
SCHEMA_VERSION: Final = len(MIGRATIONS)

_CREATE_MIGRATIONS: Final = """CREATE TABLE IF NOT EXISTS docs_panel_migrations (
    version INTEGER PRIMARY KEY,
    applied_at BIGINT NOT NULL
)"""
# ``?`` placeholders: PostgreSQL's store turns them into ``%s``.
_APPLIED: Final = "SELECT COALESCE(MAX(version), 0) FROM docs_panel_migrations"
_RECORD: Final = "INSERT INTO docs_panel_migrations (version, applied_at) VALUES (?, ?)"
_UPSERT: Final = """INSERT INTO docs_panel_votes (id, vote, voted_at, received_at, report)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET vote = excluded.vote, voted_at = excluded.voted_at,
    received_at = excluded.received_at, report = excluded.report
WHERE excluded.voted_at >= docs_panel_votes.voted_at"""
_REPORTS: Final = "SELECT report FROM docs_panel_votes ORDER BY voted_at, received_at, id"

SQLITE_BUSY_TIMEOUT_S: Final = 30.0
"""How long a write waits for another instance's on the same SQLite file."""
PG_CONNECT_TIMEOUT_S: Final = 10
PG_LOCK_KEY: Final = 0x0D0C5_9A7E1
"""The advisory lock that serializes migrations across instances (any fixed number)."""

T = TypeVar("T")


class VotesError(WidgetError):
    """The votes database cannot be opened, migrated or written (the server answers 503)."""


class VotesStore(Protocol):
    async def put(self, report: Report) -> None:
        """Keep ``report`` unless a later one of its id is already kept; durable on return."""
        ...

    async def reports(self) -> list[dict[str, object]]:
        """Every vote id's current report, oldest vote first."""
        ...

    async def close(self) -> None: ...


async def open_votes(database: str | None, default_path: Path) -> VotesStore:
    """The store ``--database`` names: None for SQLite at ``default_path``, a
    ``postgresql://`` URL, or a file path for SQLite there. Migrates it."""
    if database is None:
        return await SqliteVotes.open(default_path)
    if database.startswith(("postgresql://", "postgres://")):
        return await PostgresVotes.open(database)
    if "://" in database:
        raise ConfigError(
            f"--database: expected a postgresql:// URL or a SQLite file path, "
            f"got a {database.split('://')[0]}:// URL"
        )
    return await SqliteVotes.open(Path(database))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _steps(applied: int, where: str) -> list[tuple[str, tuple[object, ...]]]:
    """The statements that take a database from schema ``applied`` to this code's."""
    if applied > SCHEMA_VERSION:
        raise VotesError(
            f"{where} is at schema version {applied}; this docs-panel knows up to "
            f"{SCHEMA_VERSION}: upgrade docs-panel"
        )
    steps: list[tuple[str, tuple[object, ...]]] = []
    for version in range(applied + 1, SCHEMA_VERSION + 1):
        steps += [(statement, ()) for statement in MIGRATIONS[version - 1]]
        steps.append((_RECORD, (version, _now_ms())))
    return steps


class SqliteVotes:
    """One SQLite connection, used from one thread of its own so the event loop never
    waits on the disk."""

    def __init__(self, path: Path, connection: sqlite3.Connection, pool: ThreadPoolExecutor):
        self.path = path
        self._connection = connection
        self._pool = pool

    @classmethod
    async def open(cls, path: Path) -> SqliteVotes:
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docs-panel-votes")
        try:
            connection = await asyncio.get_running_loop().run_in_executor(pool, cls._connect, path)
        except BaseException:
            pool.shutdown()
            raise
        return cls(path, connection, pool)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S, isolation_level=None)
        except (OSError, sqlite3.Error) as err:
            raise VotesError(f"cannot open the votes database {path}: {err}") from None
        try:
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise VotesError(
                    f"{path}: SQLite cannot use WAL mode there (journal mode {mode!r}); "
                    "put the votes database on a local disk"
                )
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("BEGIN IMMEDIATE")  # the write lock: one migrator at a time
            try:
                connection.execute(_CREATE_MIGRATIONS)
                applied = connection.execute(_APPLIED).fetchone()[0]
                for sql, args in _steps(applied, str(path)):
                    connection.execute(sql, args)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            connection.close()
            raise VotesError(f"cannot prepare the votes database {path}: {err}") from None
        except BaseException:
            connection.close()
            raise
        return connection

    async def _run(self, work: Callable[[], T]) -> T:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        except sqlite3.Error as err:
            raise VotesError(f"votes database {self.path}: {err}") from None

    async def put(self, report: Report) -> None:
        row = (report.id, report.vote, report.voted_at, _now_ms(), report.body)
        await self._run(lambda: self._connection.execute(_UPSERT, row))

    async def reports(self) -> list[dict[str, object]]:
        rows = await self._run(lambda: self._connection.execute(_REPORTS).fetchall())
        return [json.loads(body) for (body,) in rows]

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._pool, self._connection.close)
        self._pool.shutdown()


def _pg(sql: str) -> str:
    return sql.replace("?", "%s")


def _where(url: str) -> str:
    """A PostgreSQL URL as messages show it: no user, no password."""
    parts = urlsplit(url)
    return (
        f"postgresql://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
    )


class PostgresVotes:
    """One autocommit connection, one statement at a time, connected again once if
    PostgreSQL dropped it (a put is an upsert, so trying it again is safe)."""

    def __init__(self, url: str, connection: psycopg.AsyncConnection[TupleRow]):
        self._url = url
        self._connection = connection
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, url: str) -> PostgresVotes:
        connection = await cls._connect(url)
        try:
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock(%s)", (PG_LOCK_KEY,))
                await connection.execute(_CREATE_MIGRATIONS)
                cursor = await connection.execute(_APPLIED)
                (applied,) = await cursor.fetchone() or (0,)
                for sql, args in _steps(applied, _where(url)):
                    await connection.execute(_pg(sql), args)
        except psycopg.Error as err:
            await connection.close()
            raise VotesError(f"cannot prepare the votes database {_where(url)}: {err}") from None
        except BaseException:
            await connection.close()
            raise
        return cls(url, connection)

    @staticmethod
    async def _connect(url: str) -> psycopg.AsyncConnection[TupleRow]:
        try:
            return await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=PG_CONNECT_TIMEOUT_S
            )
        except psycopg.Error as err:
            raise VotesError(f"cannot reach the votes database {_where(url)}: {err}") from None

    async def _execute(self, sql: str, args: Sequence[object] = ()) -> list[TupleRow]:
        async with self._lock:
            try:
                return await self._execute_once(sql, args)
            except psycopg.OperationalError as err:
                if not self._connection.broken:
                    raise VotesError(f"votes database {_where(self._url)}: {err}") from None
                await self._connection.close()
            except psycopg.Error as err:
                raise VotesError(f"votes database {_where(self._url)}: {err}") from None
            try:  # once more, on a new connection
                return await self._execute_once(sql, args)
            except psycopg.Error as err:
                raise VotesError(f"votes database {_where(self._url)}: {err}") from None

    async def _execute_once(self, sql: str, args: Sequence[object]) -> list[TupleRow]:
        if self._connection.closed:
            self._connection = await self._connect(self._url)
        cursor = await self._connection.execute(_pg(sql), args)
        return await cursor.fetchall() if cursor.description else []

    async def put(self, report: Report) -> None:
        await self._execute(
            _UPSERT, (report.id, report.vote, report.voted_at, _now_ms(), report.body)
        )

    async def reports(self) -> list[dict[str, object]]:
        return [json.loads(str(body)) for (body,) in await self._execute(_REPORTS)]

    async def close(self) -> None:
        async with self._lock:
            await self._connection.close()
