"""The votes store: checked vote reports kept in SQLite (a file in WAL mode, the
default) or PostgreSQL (``--database postgresql://…``), one row per vote id.

- **The last report per id wins**, "last" by the panel's ``voted_at`` (then by arrival):
  a change of vote replaces the earlier report, and a late retry of an older report
  replaces nothing.
- **Durable when put returns**: a put returns once the transaction holding it has
  committed (SQLite with ``synchronous=FULL``; PostgreSQL's default
  ``synchronous_commit``), so a process killed after its 2xx loses nothing. Puts that
  arrive during a commit share the next one (``votes_sql.GroupCommit``).
- **Migrations on open** (``votes_sql.MIGRATIONS``), in one transaction under a lock,
  so two instances starting at once apply each step once; a database newer than this
  code is refused.

A report is checked by :mod:`widget.server.vote_report`; :func:`accept_report` is the
feedback endpoint's whole answer to a body::

    store = await open_votes(args.database, default_path=state_dir / "votes.sqlite3")
    status, error = await accept_report(store, await request.body())   # 204, 400, 413, 503
    await store.close()
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Final, Protocol

from widget.core.errors import ConfigError
from widget.server.vote_report import Report, ReportError, ReportTooLarge, parse_report
from widget.server.votes_postgres import PostgresVotes
from widget.server.votes_sql import VotesError
from widget.server.votes_sqlite import SqliteVotes

__all__ = [
    "PostgresVotes",
    "SqliteVotes",
    "VotesError",
    "VotesStore",
    "accept_report",
    "open_votes",
]

log = logging.getLogger(__name__)

UNAVAILABLE: Final = "the votes database is unavailable; try again later"
"""What a client is told when the database fails (the cause goes to the log only)."""


class VotesStore(Protocol):
    async def put(self, report: Report) -> None:
        """Keep ``report`` unless a later one of its id is kept; durable on return."""
        ...

    async def reports(self) -> list[dict[str, object]]:
        """Every vote id's current report, as sent, oldest vote first."""
        ...

    async def close(self) -> None:
        """Finish the puts under way, then let go of the database."""
        ...


async def open_votes(database: str | None, default_path: Path) -> VotesStore:
    """The store ``--database`` names, migrated: None for SQLite at ``default_path``, a
    ``postgresql://`` URL, or a file path for SQLite there."""
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


async def accept_report(store: VotesStore, body: bytes) -> tuple[int, str | None]:
    """The feedback endpoint's status for a request body, and its error message if any:
    204 once the report is kept (durable), 400 for a body that is not a report (the
    message names the field), 413 for one over ``MAX_REPORT_BYTES``, 503 when the
    database fails (the panel tries once more 5 s later; the cause is logged, never
    the report)."""
    try:
        report = parse_report(body)
    except ReportTooLarge as err:
        return 413, str(err)
    except ReportError as err:
        return 400, str(err)
    try:
        await store.put(report)
    except VotesError as err:
        log.error("votes: a report could not be kept: %s", err)
        return 503, UNAVAILABLE
    return 204, None
