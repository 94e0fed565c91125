"""What the two votes stores share: the schema and its migrations, the statements, and
the group commit that makes each put durable without one disk flush per put.

SQL here is written once for both databases (``?`` placeholders; PostgreSQL's store
turns them into ``%s``). Tables are named ``docs_panel_*``, so the store can live in a
database shared with other things.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Final

from docs_panel.portable.errors import WidgetError
from docs_panel.server.report_shape import Report

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

CREATE_MIGRATIONS: Final = """CREATE TABLE IF NOT EXISTS docs_panel_migrations (
    version INTEGER PRIMARY KEY,
    applied_at BIGINT NOT NULL
)"""
APPLIED: Final = "SELECT COALESCE(MAX(version), 0) FROM docs_panel_migrations"
_RECORD: Final = "INSERT INTO docs_panel_migrations (version, applied_at) VALUES (?, ?)"
UPSERT: Final = """INSERT INTO docs_panel_votes (id, vote, voted_at, received_at, report)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET vote = excluded.vote, voted_at = excluded.voted_at,
    received_at = excluded.received_at, report = excluded.report
WHERE excluded.voted_at >= docs_panel_votes.voted_at"""
"""The last report per id wins: "last" by the panel's ``voted_at``, then by arrival."""
REPORTS: Final = "SELECT report FROM docs_panel_votes ORDER BY voted_at, received_at, id"

MAX_BATCH: Final = 256
"""Puts written in one transaction at most."""

Row = tuple[str, str | None, int, int, str]
"""A report as UPSERT's arguments."""


class VotesError(WidgetError):
    """The votes database cannot be opened, migrated or written (the server answers 503)."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def row(report: Report) -> Row:
    return (report.id, report.vote, report.voted_at, now_ms(), report.body)


def migration_steps(applied: int, where: str) -> list[tuple[str, tuple[object, ...]]]:
    """The statements that take a database from schema ``applied`` to this code's."""
    if applied > SCHEMA_VERSION:
        raise VotesError(
            f"{where} is at schema version {applied}; this docs-panel knows up to "
            f"{SCHEMA_VERSION}: upgrade docs-panel"
        )
    steps: list[tuple[str, tuple[object, ...]]] = []
    for version in range(applied + 1, SCHEMA_VERSION + 1):
        steps += [(statement, ()) for statement in MIGRATIONS[version - 1]]
        steps.append((_RECORD, (version, now_ms())))
    return steps


class GroupCommit:
    """Puts that arrive while a write is running wait for the next write and go in it
    together: one transaction, one flush to disk, for all of them. Each put returns
    once the transaction holding it has committed (or raises VotesError if it failed).
    """

    def __init__(self, write: Callable[[list[Row]], Awaitable[None]]) -> None:
        self._write = write
        self._waiting: list[tuple[Row, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def put(self, report: Report) -> None:
        committed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((row(report), committed))
        if self._writer is None:
            self._writer = asyncio.ensure_future(self._drain())
        await committed

    async def _drain(self) -> None:
        batch: list[tuple[Row, asyncio.Future[None]]] = []
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
                try:
                    await self._write([r for r, _ in batch])
                except Exception as err:
                    _settle(batch, err)
                else:
                    _settle(batch, None)
        except BaseException as err:  # cancelled: no put may wait forever
            _settle(batch + self._waiting, err)
            self._waiting = []
            raise
        finally:
            self._writer = None

    async def finish(self) -> None:
        """Wait until every put so far is written."""
        if self._writer is not None:
            await asyncio.shield(self._writer)


def _settle(batch: list[tuple[Row, asyncio.Future[None]]], error: BaseException | None) -> None:
    for _, committed in batch:
        if committed.done():  # its put was cancelled: no one waits for it
            continue
        if error is None:
            committed.set_result(None)
        elif isinstance(error, VotesError):
            committed.set_exception(VotesError(str(error)))
        else:
            committed.set_exception(VotesError(f"votes database: {type(error).__name__}"))
