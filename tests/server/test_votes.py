"""The votes store on SQLite and on a real PostgreSQL: migrations, the last report per
id, refusals, the durability settings each database runs with, and durability when
the writing process, or PostgreSQL itself, is killed."""

import asyncio
import json
import multiprocessing
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest

from docs_panel.portable.errors import ConfigError
from docs_panel.server.report_shape import Report, parse_report
from docs_panel.server.votes import postgres as votes_postgres
from docs_panel.server.votes.sql import SCHEMA_VERSION
from docs_panel.server.votes.sqlite import _connect
from docs_panel.server.votes.store import (
    SqliteVotes,
    VotesError,
    VotesStore,
    open_votes,
)
from tests.event_loops import on_own_loop
from tests.server.vote_writer import (
    WRITERS,
    lost,
    vote_body,
    write_until_database_crashed,
    write_until_killed,
)
from tests.services import PostgresServer, free_port, postgres_server

T = TypeVar("T")


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty votes database of each kind: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "votes.sqlite3")
    else:
        yield request.getfixturevalue("postgres_url")


def with_store(database: str, work: Callable[[VotesStore], Awaitable[T]]) -> T:
    async def run() -> T:
        store = await open_votes(database, Path("unused"))
        try:
            return await work(store)
        finally:
            await store.close()

    return on_own_loop(run())


def vote(n: int, vote: str | None, voted_at: int, **changes: Any) -> Report:
    """Vote ``n``'s report (``vote-n``) as the server takes it."""
    sent = json.loads(vote_body(n, "up", voted_at))
    return parse_report(json.dumps({**sent, "vote": vote, **changes}).encode())


def query(database: str, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` run and committed beside the store, as another client would; its rows."""
    if database.startswith("postgresql://"):
        with psycopg.connect(database) as connection:
            cursor = connection.execute(sql)
            return cursor.fetchall() if cursor.description else []
    with sqlite3.connect(database) as connection:
        return connection.execute(sql).fetchall()


def migrations(database: str) -> list[int]:
    return [v for (v,) in query(database, "SELECT version FROM docs_panel_migrations ORDER BY 1")]


def test_an_empty_database_is_migrated_once(database: str) -> None:
    with_store(database, lambda store: store.put(vote(1, "up", 10)))
    assert migrations(database) == list(range(1, SCHEMA_VERSION + 1))
    with_store(database, lambda store: store.put(vote(2, "down", 11)))  # opened again
    assert migrations(database) == list(range(1, SCHEMA_VERSION + 1))
    reports = with_store(database, lambda store: store.reports())
    assert [(r["id"], r["vote"]) for r in reports] == [("vote-1", "up"), ("vote-2", "down")]


def test_instances_starting_at_once_migrate_once(database: str) -> None:
    async def run() -> None:
        stores = await asyncio.gather(*(open_votes(database, Path("unused")) for _ in range(6)))
        await asyncio.gather(*(s.put(vote(n, "up", n)) for n, s in enumerate(stores)))
        for store in stores:
            await store.close()

    on_own_loop(run())
    assert migrations(database) == list(range(1, SCHEMA_VERSION + 1))
    assert len(with_store(database, lambda store: store.reports())) == 6


def test_a_database_newer_than_the_code_is_refused(database: str) -> None:
    with_store(database, lambda store: store.reports())
    newer = SCHEMA_VERSION + 1
    query(database, f"INSERT INTO docs_panel_migrations VALUES ({newer}, 0)")
    with pytest.raises(VotesError, match=f"schema version {newer}; .* upgrade docs-panel"):
        with_store(database, lambda store: store.reports())


def test_the_last_report_per_id_wins(database: str) -> None:
    async def run(store: VotesStore) -> list[tuple[Any, ...]]:
        await store.put(vote(1, "up", 100))
        await store.put(vote(1, "down", 200, reasons=["wrong"], sentence="Too old"))
        await store.put(vote(1, "up", 100))  # a late retry of the first report
        await store.put(vote(2, "up", 100))
        await store.put(vote(2, None, 300))  # taken back: the receiver learns it
        await store.put(vote(3, "up", 50))
        await store.put(vote(3, "down", 50))  # same time: the later arrival
        return [(r["id"], r["vote"], r["voted_at"]) for r in await store.reports()]

    assert with_store(database, run) == [
        ("vote-3", "down", 50),
        ("vote-1", "down", 200),
        ("vote-2", None, 300),
    ]
    assert query(database, "SELECT COUNT(*) FROM docs_panel_votes") == [(3,)]


def test_a_report_comes_back_as_it_was_sent(database: str) -> None:
    sent = vote(7, "down", 1, reasons=["outdated", "wrong"], sentence="Ünïcode ✓ \u2028 ok")

    async def run(store: VotesStore) -> list[dict[str, object]]:
        await store.put(sent)
        return await store.reports()

    assert with_store(database, run) == [json.loads(sent.body)]


def test_sqlite_is_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "votes.sqlite3"

    async def run() -> None:
        store = await open_votes(None, path)
        assert isinstance(store, SqliteVotes) and store.path == path
        await store.close()

    on_own_loop(run())
    assert query(str(path), "PRAGMA journal_mode") == [("wal",)]
    # synchronous is a setting of each connection: read it on one the store opens.
    connection = _connect(path)
    try:
        assert connection.execute("PRAGMA synchronous").fetchall() == [(2,)]  # FULL
    finally:
        connection.close()


def _session_settings(url: str) -> dict[str, str]:
    """synchronous_commit and fsync as a session the store opens sees them."""

    async def run() -> dict[str, str]:
        connection = await votes_postgres._connect(url)
        try:
            settings = {}
            for name in ("synchronous_commit", "fsync"):
                cursor = await connection.execute(f"SHOW {name}")
                settings[name] = str((await cursor.fetchone() or ("",))[0])
            return settings
        finally:
            await connection.close()

    return on_own_loop(run())


def test_postgresql_commits_wait_for_the_disk(postgres_url: str) -> None:
    """Even in a database whose default is not to wait, the store's session waits."""
    query(postgres_url, "SELECT 1")
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        name = admin.execute("SELECT current_database()").fetchone()
        assert name is not None
        admin.execute(f'ALTER DATABASE "{name[0]}" SET synchronous_commit = off')
    assert query(postgres_url, "SHOW synchronous_commit") == [("off",)]
    assert _session_settings(postgres_url) == {"synchronous_commit": "on", "fsync": "on"}


@pytest.fixture(scope="module")
def crashable_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL of this module's own, since these tests kill it or change its settings."""
    with postgres_server() as server:
        yield server


def _set_fsync(server: PostgresServer, value: str | None) -> None:
    """ALTER SYSTEM (None: back to the default), reloaded and seen by a new session."""
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f"ALTER SYSTEM SET fsync = {value}" if value else "ALTER SYSTEM RESET fsync")
        admin.execute("SELECT pg_reload_conf()")
    while query(server.url, "SHOW fsync") != [(value or "on",)]:
        pass  # the reload reaches new sessions a moment later


def test_postgresql_without_fsync_is_refused(crashable_postgres: PostgresServer) -> None:
    with crashable_postgres.new_database() as url:
        _set_fsync(crashable_postgres, "off")
        try:
            with pytest.raises(VotesError, match=r"runs with fsync=off: .* turn fsync on"):
                with_store(url, lambda store: store.reports())
        finally:
            _set_fsync(crashable_postgres, None)
        assert with_store(url, lambda store: store.reports()) == []


def test_killing_postgresql_loses_no_acknowledged_vote(crashable_postgres: PostgresServer) -> None:
    """PostgreSQL (postmaster and every backend) is killed with SIGKILL while eight
    writers put votes, and started again on the same data directory: every vote the
    store had acknowledged is there after its recovery, as its last acknowledgement said."""
    with crashable_postgres.new_database() as url:
        try:
            acked = write_until_database_crashed(url, crashable_postgres.crash, ids=300)
        finally:
            if crashable_postgres.process is None:
                crashable_postgres.start()
        kept = {str(r["id"]): r["vote"] for r in with_store(url, lambda store: store.reports())}
    assert len(acked) >= 300
    assert lost(acked, kept) == []


def test_open_votes_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--database: expected a postgresql:// URL or a SQLite"):
        on_own_loop(open_votes("mysql://root:hunter2@db/votes", tmp_path / "v.sqlite3"))
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(VotesError, match=r"cannot open the votes database .*dir\.sqlite3"):
        on_own_loop(open_votes(str(tmp_path / "dir.sqlite3"), tmp_path))


def test_an_unreachable_postgresql_is_named_without_its_password() -> None:
    url = f"postgresql://docs:hunter2@127.0.0.1:{free_port()}/votes"
    with pytest.raises(VotesError, match=r"cannot reach the votes database postgresql://127") as e:
        on_own_loop(open_votes(url, Path("unused")))
    assert "hunter2" not in str(e.value) and "docs:" not in str(e.value)


def test_postgresql_is_reconnected_when_it_drops_the_connection(postgres_url: str) -> None:
    async def run(store: VotesStore) -> int:
        await store.put(vote(1, "up", 1))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        assert ended == [(True,)]
        await store.put(vote(2, "up", 2))  # on a new connection
        return len(await store.reports())

    assert with_store(postgres_url, run) == 2


def test_a_failed_write_fails_every_put_it_held(database: str) -> None:
    async def run(store: VotesStore) -> list[BaseException | None]:
        await store.put(vote(1, "up", 1))
        query(database, "DROP TABLE docs_panel_votes")
        puts = (store.put(vote(n, "up", n)) for n in range(2, 7))
        return await asyncio.gather(*puts, return_exceptions=True)

    failures = with_store(database, run)
    assert len(failures) == 5
    for failure in failures:
        assert isinstance(failure, VotesError)
        assert "docs_panel_votes" in str(failure)


def test_puts_at_once_are_all_kept(database: str) -> None:
    async def run(store: VotesStore) -> list[tuple[object, object]]:
        await asyncio.gather(
            *(store.put(vote(n, "up", n)) for n in range(300)),
            store.put(vote(1000, "down", 2)),
            store.put(vote(1000, "up", 1)),  # the older one, arriving in the same commit
        )
        return [(r["id"], r["vote"]) for r in await store.reports()]

    kept = with_store(database, run)
    assert len(kept) == 301
    assert ("vote-1000", "down") in kept


def test_a_cancelled_put_is_written_all_the_same(database: str) -> None:
    async def run(store: VotesStore) -> int:
        first = asyncio.ensure_future(store.put(vote(1, "up", 1)))
        cancelled = asyncio.ensure_future(store.put(vote(2, "up", 2)))
        await asyncio.sleep(0)  # both queued
        cancelled.cancel()
        await first
        await store.put(vote(3, "up", 3))
        return len(await store.reports())

    assert with_store(database, run) == 3


def test_killing_the_writer_loses_no_acknowledged_vote(database: str, tmp_path: Path) -> None:
    """A process putting votes is killed with SIGKILL mid-stream, and started again;
    every vote it had acknowledged (put returned: the server's 2xx) is there, as its
    last acknowledgement said."""
    sqlite_path = tmp_path / "unused"
    acked = write_until_killed(database, sqlite_path, first=0, ids=150)
    acked |= write_until_killed(database, sqlite_path, first=1000, ids=50)
    kept = {str(r["id"]): r["vote"] for r in with_store(database, lambda store: store.reports())}
    assert len(acked) >= 200
    assert lost(acked, kept) == []
    assert len(kept) - len(acked) <= 2 * WRITERS  # at most those in flight in each life


def test_two_writers_at_once_both_killed_lose_nothing(database: str, tmp_path: Path) -> None:
    """Two instances writing to one database (for SQLite, one file on one host), each
    killed mid-stream: every vote either acknowledged is there."""
    sqlite_path = tmp_path / "unused"
    with ThreadPoolExecutor(2) as pool:
        runs = [
            pool.submit(write_until_killed, database, sqlite_path, first=first, ids=100)
            for first in (0, 1_000_000)
        ]
        acked = runs[0].result() | runs[1].result()
    kept = {str(r["id"]): r["vote"] for r in with_store(database, lambda store: store.reports())}
    assert len(acked) >= 200
    assert lost(acked, kept) == []


def _open_when_released(path: str, barrier: Any, results: Any) -> None:
    barrier.wait()
    try:
        _connect(Path(path)).close()
        results.put("ok")
    except VotesError as err:
        results.put(str(err))


def test_instances_opening_one_new_sqlite_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Turning a new file to WAL is not waited for by SQLite's busy handler: three
    processes opening one new file at the same moment used to see "database is locked"
    (6 in 180 opens here), and now all wait their turn."""
    context = multiprocessing.get_context("spawn")
    failures = []
    for round_ in range(20):
        path = str(tmp_path / f"votes-{round_}.sqlite3")
        barrier, results = context.Barrier(3), context.Queue()
        processes = [
            context.Process(target=_open_when_released, args=(path, barrier, results))
            for _ in range(3)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        failures += [r for r in (results.get(timeout=5) for _ in processes) if r != "ok"]
    assert failures == []
