"""``build.py report`` reads the votes a server install kept, from its SQLite file or
its PostgreSQL, as it reads a JSON-lines file: the same page from the same votes."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_panel.build.cli import main
from docs_panel.server.report_shape import validate_report
from docs_panel.server.votes.store import open_votes
from tests.event_loops import on_own_loop
from tests.unit.build.test_vote_report import REPORTS


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "docs-panel-votes.sqlite3")
    else:
        yield request.getfixturevalue("postgres_url")


def keep(database: str) -> None:
    """The votes as the server's /feedback keeps them, one put each."""

    async def put_all() -> None:
        store = await open_votes(database, default_path=Path(database))
        for report in REPORTS:
            await store.put(validate_report(report))
        await store.close()

    on_own_loop(put_all())  # the browser tests may hold this thread's loop


def test_a_servers_store_makes_the_page_its_votes_file_makes(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keep(database)
    jsonl = tmp_path / "votes.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in REPORTS), encoding="utf-8")
    from_file, from_store = tmp_path / "file.html", tmp_path / "store.html"
    assert main(["report", str(jsonl), "--out", str(from_file)]) == 0
    args = ["--database", database] if "://" in database else [database]
    assert main(["report", *args, "--out", str(from_store)]) == 0
    assert capsys.readouterr().out.count("docs-panel: 4 votes") == 2  # a, b, d, e
    page, expected = from_store.read_text(), from_file.read_text()
    source = database.rpartition("/")[2]  # the page names where its votes came from
    assert page.replace(source, "votes.jsonl") == expected


def test_a_report_from_a_file_that_is_not_there_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "docs-panel-votes.sqlite3"
    assert main(["report", str(missing)]) == 1
    assert not missing.exists()  # never created by asking for a report
