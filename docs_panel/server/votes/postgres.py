"""The votes store in PostgreSQL (psycopg 3): one autocommit connection, one
transaction at a time, its session set to ``synchronous_commit=on`` (committed is on
disk whatever the database's default) and refused on a server running with
``fsync=off``; connected again once if PostgreSQL dropped it (a put is an upsert, so writing it
again is safe). Migrations run under an advisory lock, so instances starting at once
apply each step once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import TupleRow

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

CONNECT_TIMEOUT_S: Final = 10
LOCK_KEY: Final = 0x0D0C5_9A7E1
"""The advisory lock that serializes migrations across instances (any fixed number)."""

Connection = psycopg.AsyncConnection[TupleRow]
T = TypeVar("T")


def _pg(sql: str) -> str:
    return sql.replace("?", "%s")


def _where(url: str) -> str:
    """A PostgreSQL URL as messages show it: no user, no password."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{parts.hostname or ''}{port}{parts.path}"


async def _connect(url: str) -> Connection:
    try:
        connection = await psycopg.AsyncConnection.connect(
            url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
        )
    except psycopg.Error as err:
        raise VotesError(f"cannot reach the votes database {_where(url)}: {err}") from None
    try:
        # A commit acknowledges a vote, so it must wait for the disk in this session.
        await connection.execute("SET synchronous_commit TO on")
    except psycopg.Error as err:
        await connection.close()
        raise VotesError(f"cannot prepare the votes database {_where(url)}: {err}") from None
    return connection


async def _refuse_without_fsync(connection: Connection, url: str) -> None:
    cursor = await connection.execute("SHOW fsync")
    (fsync,) = await cursor.fetchone() or ("on",)
    if fsync != "on":
        raise VotesError(
            f"the votes database {_where(url)} runs with fsync={fsync}: a crash could lose "
            "votes the server acknowledged; turn fsync on"
        )


class PostgresVotes:
    def __init__(self, url: str, connection: Connection):
        self._url = url
        self._connection = connection
        self._lock = asyncio.Lock()
        self._commits = GroupCommit(self._write)

    @classmethod
    async def open(cls, url: str) -> PostgresVotes:
        connection = await _connect(url)
        try:
            await _refuse_without_fsync(connection, url)
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
                await connection.execute(CREATE_MIGRATIONS)
                cursor = await connection.execute(APPLIED)
                (applied,) = await cursor.fetchone() or (0,)
                for sql, args in migration_steps(applied, _where(url)):
                    await connection.execute(_pg(sql), args)
        except psycopg.Error as err:
            await connection.close()
            raise VotesError(f"cannot prepare the votes database {_where(url)}: {err}") from None
        except BaseException:
            await connection.close()
            raise
        return cls(url, connection)

    async def _using(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """``work`` on the connection, once more on a new one if PostgreSQL dropped it."""
        async with self._lock:
            try:
                return await work(await self._connected())
            except psycopg.OperationalError as err:
                if not self._connection.broken:
                    raise VotesError(f"votes database {_where(self._url)}: {err}") from None
                await self._connection.close()
            except psycopg.Error as err:
                raise VotesError(f"votes database {_where(self._url)}: {err}") from None
            try:
                return await work(await self._connected())
            except psycopg.Error as err:
                raise VotesError(f"votes database {_where(self._url)}: {err}") from None

    async def _connected(self) -> Connection:
        if self._connection.closed:
            self._connection = await _connect(self._url)
        return self._connection

    async def _write(self, rows: list[Row]) -> None:
        async def write(connection: Connection) -> None:
            async with connection.transaction(), connection.cursor() as cursor:
                await cursor.executemany(_pg(UPSERT), rows)

        await self._using(write)

    async def put(self, report: Report) -> None:
        await self._commits.put(report)

    async def reports(self) -> list[dict[str, object]]:
        async def read(connection: Connection) -> list[TupleRow]:
            cursor = await connection.execute(REPORTS)
            return await cursor.fetchall()

        return [json.loads(str(body)) for (body,) in await self._using(read)]

    async def close(self) -> None:
        await self._commits.finish()
        async with self._lock:
            await self._connection.close()
