"""Tests for docs_panel.build.vote_report and ``build.py report``: the counts, the page, and
clear errors for votes that are not the report shape of docs/votes.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docs_panel.build.cli import main
from docs_panel.build.vote_report import ReportError, report_page, summarize
from docs_panel.core.feedback import report
from docs_panel.core.history_schema import Gate, Source, Turn
from tests.fixture_files import FIXTURES

VOTES = FIXTURES / "votes" / "votes.jsonl"
DAY_MS = 86_400_000
DEC_1 = 1_764_547_200_000  # 2025-12-01T00:00Z


def vote(
    vote_id: str,
    value: str | None,
    day: int,
    *,
    question: str = "How do I retry?",
    pages: tuple[str, ...] = ("/api/jobs.html#retry",),
    reasons: tuple[str, ...] = (),
    gate: tuple[float, float] = (0.6, 0.25),
    later_ms: int = 0,
) -> dict[str, object]:
    turn = Turn(
        question=question,
        answer="See [1].",
        status="done",
        asked_at=1,
        finished_at=2,
        sources=tuple(Source(page, "T", n) for n, page in enumerate(pages, start=1)),
        vote=value,  # type: ignore[arg-type]
        vote_id=vote_id,
        reasons=reasons,
        gate=Gate(*gate),
    )
    return report(
        turn, retrieved=[], page_url="https://d.org/", now=DEC_1 + day * DAY_MS + later_ms
    )


REPORTS = [
    vote("a", "up", 0),
    vote("b", "down", 0, pages=("/a.html#x", "/a.html#y", "/b.html"), reasons=("wrong",)),
    vote("c", "down", 1, pages=("/a.html",), reasons=("wrong", "outdated")),
    vote("d", "down", 1, question="Does it  do\nSSO?", pages=(), gate=(0.1, 0.25)),
    vote("e", "up", 2, question="Does it do SSO?", pages=(), gate=(0.2, 0.25)),
    vote("a", "down", 0, later_ms=1_000),  # a changed its vote: the later one counts
    vote("c", None, 1, later_ms=1_000),  # c took it back
]


def test_the_latest_vote_of_each_id_is_counted() -> None:
    summary = summarize(REPORTS)
    assert summary.votes == 4
    assert {day: dict(c) for day, c in summary.per_day.items()} == {
        "2025-12-01": {"down": 2},
        "2025-12-02": {"down": 1},
        "2025-12-03": {"up": 1},
    }
    # A page counts once per answer however many of its sections were cited.
    assert summary.down_pages == {"/a.html": 1, "/b.html": 1, "/api/jobs.html": 1}
    assert summary.reasons == {"wrong": 1, "(none given)": 2}
    assert summary.gate_closed == {"Does it do SSO?": 2}


def test_the_page_draws_every_figure_inline_and_escapes_what_readers_wrote() -> None:
    hostile = vote("x", "down", 3, question="<script>alert(1)</script>", gate=(0.0, 0.3))
    page = report_page([*REPORTS, hostile], source="votes.jsonl")
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<svg") == 4
    assert not re.search(r"(src|href)=", page)  # nothing to fetch: readable offline
    assert "Wrong" in page  # reasons by their English labels


def test_no_votes_still_makes_a_page() -> None:
    page = report_page([])
    assert "No votes yet." in page and "<svg" not in page


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": ""}, "report 1: id: expected 1 to 64 letters"),
        ({"vote": "maybe"}, 'report 1: vote: expected "up", "down" or null'),
        ({"voted_at": "today"}, "report 1: voted_at: expected epoch milliseconds"),
        ({"sources": "x"}, "report 1: sources: expected a list"),
        ({"gate": {"top_score": "hi"}}, "report 1: gate: expected null or"),
        ({"mood": "grumpy"}, "report 1: mood: unknown field"),
    ],
)
def test_a_report_of_another_shape_is_named(change: dict[str, object], message: str) -> None:
    """The feedback endpoint's own allow-list (``docs_panel.server.report_shape``) judges."""
    with pytest.raises(ReportError, match=re.escape(message)):
        summarize([vote("a", "up", 0) | change])


def test_build_py_report_writes_one_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    votes = tmp_path / "votes.jsonl"
    votes.write_text(VOTES.read_text())
    assert main(["report", str(votes)]) == 0
    out = tmp_path / "votes-report.html"
    assert out.read_text().startswith("<!doctype html>")
    assert f"35 votes → {out}" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["votes-report.html", "votes.jsonl"]


def test_build_py_report_names_a_bad_line_and_keeps_the_old_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    votes, out = tmp_path / "votes.jsonl", tmp_path / "report.html"
    out.write_text("the previous report")
    votes.write_text(json.dumps(REPORTS[0]) + "\n\n{not json\n")
    assert main(["report", str(votes), "--out", str(out)]) == 1
    assert f"{votes}:3: not JSON" in capsys.readouterr().err
    assert out.read_text() == "the previous report"


def test_build_py_report_needs_the_votes_file(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["report"])
    assert exit_.value.code == 2
    assert "report needs one source of votes" in capsys.readouterr().err
