"""The votes store: checked vote reports kept in SQLite (a file in WAL mode, the
default) or PostgreSQL (``--database postgresql://…``), one row per vote id.

- **The last report per id wins**, "last" by the panel's ``voted_at`` (then by arrival):
  a change of vote replaces the earlier report, and a late retry of an older report
  replaces nothing.
- **Durable when put returns**: a put returns once the transaction holding it has
  committed (SQLite with ``synchronous=FULL``; PostgreSQL's default
  ``synchronous_commit``), so a process killed after its 2xx loses nothing. Puts that
  arrive during a commit share the next one (``sql.GroupCommit``).
- **Migrations on open** (``sql.MIGRATIONS``), in one transaction under a lock,
  so two instances starting at once apply each step once; a database newer than this
  code is refused.

Nothing here checks a report: :mod:`docs_panel.server.report_shape` does::

    store = await open_votes(args.database, default_path=Path("docs-panel-votes.sqlite3"))
    await store.put(parse_report(body))   # ReportError: 400 (ReportTooLarge: 413)
    await store.close()                   # VotesError anywhere: 503
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from docs_panel.portable.errors import ConfigError
from docs_panel.server.report_shape import Report
from docs_panel.server.votes.postgres import PostgresVotes
from docs_panel.server.votes.sql import VotesError
from docs_panel.server.votes.sqlite import SqliteVotes

__all__ = ["PostgresVotes", "SqliteVotes", "VotesError", "VotesStore", "open_votes"]


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
