"""Turning a question into a search-results turn, and a turn into what the panel shows."""

from __future__ import annotations

import pytest

from widget.core.answers import results_turn, scope_prefix, turn_view
from widget.core.config import parse_config
from widget.core.docs_index import DocsIndex, Section, build_index, load_index
from widget.core.history import ResultItem, Turn

SECTIONS = [
    Section("/guides/retries.html", "Retries", "Retries", "Failed jobs are retried with backoff."),
    Section("/guides/retries.html#jitter", "Retries", "Jitter", "Jitter spreads retries out."),
    Section("/api/jobs.html#retry", "Jobs API", "Retry a job", "POST /jobs/{id}/retry retries."),
    Section("/api/queues.html", "Queues API", "Queues API", "List queues and their depth."),
]
CONFIG = parse_config(
    {
        "gate": 0.4,
        "scopes": [{"id": "all", "label": "All"}, {"id": "api", "label": "API", "prefix": "/api/"}],
    }
).config


@pytest.fixture(scope="module")
def index() -> DocsIndex:
    return load_index(build_index(SECTIONS))


def test_scope_ids_map_to_prefixes() -> None:
    """A scope id gives its prefix; "all", unknown ids and no scope search everything."""
    assert scope_prefix(CONFIG, "api") == "/api/"
    assert scope_prefix(CONFIG, "all") is None
    assert scope_prefix(CONFIG, "nope") is None
    assert scope_prefix(CONFIG, None) is None


def test_results_turn_keeps_results_scope_and_gate(index: DocsIndex) -> None:
    """The turn stores what DESIGN 4 asks of a results turn: results, scope, gate, times."""
    turn = results_turn(index, CONFIG, "retry a job", "api", asked_at=1, finished_at=2)
    assert turn.status == "results" and turn.scope == "api" and turn.answer == ""
    assert [r.address for r in turn.results] == ["/api/jobs.html#retry"]
    assert turn.gate is not None and turn.gate.threshold == 0.4
    assert 0 < turn.gate.top_score <= 1
    assert (turn.asked_at, turn.finished_at) == (1, 2)


def test_no_match_is_an_empty_results_turn(index: DocsIndex) -> None:
    """A question nothing matches still makes a turn, with a zero gate score."""
    turn = results_turn(index, CONFIG, "kubernetes helm", None, asked_at=1, finished_at=1)
    assert turn.results == () and turn.gate is not None and turn.gate.top_score == 0.0


def test_view_adds_page_titles_from_the_current_index(index: DocsIndex) -> None:
    """Views name the page where it differs from the section; gone sections show as stored."""
    turn = Turn(
        question="q",
        answer="",
        status="results",
        asked_at=1,
        finished_at=2,
        results=(
            ResultItem("/guides/retries.html#jitter", "Jitter", "s1"),
            ResultItem("/guides/retries.html", "Retries", "s2"),
            ResultItem("/old/page.html", "Old", "s3"),
        ),
    )
    view = turn_view(turn, index)
    assert [(r["title"], r["page"]) for r in view["results"]] == [  # type: ignore[attr-defined]
        ("Jitter", "Retries"),
        ("Retries", ""),
        ("Old", ""),
    ]
    assert view["question"] == "q" and view["status"] == "results"
