"""From a question to a plan (retrieval, gate, context), a request, a turn and its view."""

from __future__ import annotations

import pytest

from docs_panel.build.index_build import build_index
from docs_panel.core.answers import (
    CONTEXT_SECTIONS,
    READER_INSTRUCTION,
    SECTION_CHARS,
    chat_request,
    cited_sources,
    plan_answer,
    primed_sections,
    quote_passage,
    scope_prefix,
)
from docs_panel.core.config import parse_config
from docs_panel.core.docs_index import DocsIndex, Section, load_index
from docs_panel.core.history_schema import Conversation, ResultItem, Source, Turn
from docs_panel.core.views import turn_view
from docs_panel.portable.caps import HISTORY_TURNS

SITE = "https://docs.example.org"
SECTIONS = [
    Section("/guides/retries.html", "Retries", "Retries", "Failed jobs are retried with backoff."),
    Section("/guides/retries.html#jitter", "Retries", "Jitter", "Jitter spreads retries out."),
    Section("/api/jobs.html#retry", "Jobs API", "Retry a job", "POST /jobs/{id}/retry retries."),
    Section("/api/queues.html", "Queues API", "Queues API", "List queues and their depth."),
    Section("/guides/cron.html", "Cron", "Cron", "Schedule jobs with cron expressions. " * 200),
]
CONFIG = parse_config(
    {
        "gate": 0.4,
        "model": "docs-model",
        "scopes": [{"id": "all", "label": "All"}, {"id": "api", "label": "API", "prefix": "/api/"}],
    }
).config


@pytest.fixture(scope="module")
def index() -> DocsIndex:
    return load_index(build_index(SECTIONS))


def conversation(*turns: Turn) -> Conversation:
    return Conversation(id="c1", turns=turns, index_version="v1")


def answered(question: str, answer: str, *sources: Source, at: int = 1) -> Turn:
    return Turn(
        question=question,
        answer=answer,
        status="done",
        asked_at=at,
        finished_at=at + 1,
        sources=sources,
    )


def test_scope_ids_map_to_prefixes() -> None:
    """A scope id gives its prefix; "all", unknown ids and no scope search everything."""
    assert scope_prefix(CONFIG, "api") == "/api/"
    assert scope_prefix(CONFIG, "all") is None
    assert scope_prefix(CONFIG, "nope") is None
    assert scope_prefix(CONFIG, None) is None


def test_results_turn_keeps_results_scope_and_gate(index: DocsIndex) -> None:
    """The turn stores what contract §4 asks of a results turn: results, scope, gate, times."""
    plan = plan_answer(index, CONFIG, "retry a job", scope_id="api")
    turn = plan.results_turn(asked_at=1, finished_at=2)
    assert turn.status == "results" and turn.scope == "api" and turn.answer == ""
    assert [r.address for r in turn.results] == ["/api/jobs.html#retry"]
    assert turn.gate is not None and turn.gate.threshold == 0.4
    assert 0 < turn.gate.top_score <= 1
    assert (turn.asked_at, turn.finished_at) == (1, 2)


def test_no_match_closes_the_gate_with_a_zero_score(index: DocsIndex) -> None:
    """A question nothing matches plans no context and a gate that stays shut."""
    plan = plan_answer(index, CONFIG, "kubernetes helm", scope_id=None)
    assert plan.context == () and not plan.gate_open
    assert plan.gate.top_score == 0.0
    assert plan.results_turn(asked_at=1, finished_at=1).results == ()


def test_gate_opens_only_at_or_above_the_threshold(index: DocsIndex) -> None:
    """The gate compares the top retrieval score to ``gate``; the numbers stay on the turn."""
    score = plan_answer(index, CONFIG, "retry a job", scope_id=None).gate.top_score
    assert 0 < score < 0.99
    for threshold, is_open in ((score, True), (score + 0.01, False), (0.0, True)):
        config = parse_config({"gate": threshold}).config
        plan = plan_answer(index, config, "retry a job", scope_id=None)
        assert plan.gate_open is is_open
        assert plan.answer_turn("x", "done", asked_at=1, finished_at=2).gate == plan.gate


def test_context_is_the_best_sections_numbered_from_one(index: DocsIndex) -> None:
    """Section [n] of the prompt is context[n - 1]; the scope filters it."""
    plan = plan_answer(index, CONFIG, "retry", scope_id="api")
    assert [s.address for s in plan.context] == ["/api/jobs.html#retry"]
    assert plan.cite(1) == "/api/jobs.html#retry"
    assert plan.cite(0) is None and plan.cite(2) is None
    assert [(s.ref, s.address) for s in plan.context_sources] == [(1, "/api/jobs.html#retry")]
    assert len(plan_answer(index, CONFIG, "jobs retries queues cron", scope_id=None).context) <= (
        CONTEXT_SECTIONS
    )


def test_citations_become_sources_in_order_of_first_citation(index: DocsIndex) -> None:
    """[n] maps to context section n; repeats and numbers outside the context are ignored."""
    context = (Source("/a.html", "A", 1), Source("/b.html#x", "B", 2), Source("/c.html", "C", 3))
    assert cited_sources("See [2], then [1][2] and [9].", context) == (context[1], context[0])


def test_an_answer_citing_nothing_lists_the_sections_it_was_drawn_from() -> None:
    """Without citations, the first context sections are the sources, numbered 0."""
    context = tuple(Source(f"/{n}.html", str(n), n) for n in range(1, 6))
    assert cited_sources("No citation here.", context) == tuple(
        Source(f"/{n}.html", str(n), 0) for n in range(1, 4)
    )
    assert cited_sources("Nothing.", ()) == ()


def test_answer_turn_keeps_text_status_sources_and_question(index: DocsIndex) -> None:
    """A model's answer is stored as received, with the sources it cited."""
    plan = plan_answer(index, CONFIG, "retry a job", scope_id="api", quote="the retry button")
    turn = plan.answer_turn("Use `retry` [1].", "stopped", asked_at=5, finished_at=9)
    assert (turn.answer, turn.status, turn.quote) == (
        "Use `retry` [1].",
        "stopped",
        "the retry button",
    )
    assert turn.sources == (Source("/api/jobs.html#retry", "Retry a job", 1),)
    assert turn.results == () and turn.scope == "api"


def test_request_numbers_sections_and_asks_the_configured_model(index: DocsIndex) -> None:
    """The request speaks Chat Completions: model, stream, numbered sections, the question."""
    plan = plan_answer(index, CONFIG, "retry a job", scope_id=None)
    body = chat_request(plan, CONFIG, previous=None)
    assert body["model"] == "docs-model" and body["stream"] is True
    messages = body["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[-1]["content"] == "retry a job"
    system = messages[0]["content"]
    for n, section in enumerate(plan.context, start=1):
        assert f"[{n}] " in system and f"({section.address})" in system
    assert "[1] Jobs API > Retry a job (/api/jobs.html#retry)\nPOST /jobs/{id}/retry" in system


def test_long_sections_are_clipped_in_the_prompt(index: DocsIndex) -> None:
    """A section's text in the prompt stops at SECTION_CHARS, marked with an ellipsis."""
    plan = plan_answer(index, CONFIG, "cron expressions schedule", scope_id=None)
    system = chat_request(plan, CONFIG, previous=None)["messages"][0]["content"]  # type: ignore[index]
    cron = system.split("(/guides/cron.html)\n", 1)[1].split("\n\n[", 1)[0]
    assert cron.startswith("Schedule jobs with cron")
    assert cron.endswith("…") and len(cron) <= SECTION_CHARS + 1


def test_quote_goes_to_the_model_above_the_question(index: DocsIndex) -> None:
    """A quoted passage is sent as a Markdown quote before the question."""
    plan = plan_answer(index, CONFIG, "what does this mean?", scope_id=None, quote="a\nb")
    last = chat_request(plan, CONFIG, previous=None)["messages"][-1]  # type: ignore[index]
    assert last == {
        "role": "user",
        "content": "About this passage:\n> a\n> b\n\nwhat does this mean?",
    }


@pytest.mark.parametrize(
    ("selected", "expected"),
    [
        ("  one\n\n\ttwo  ", "one two"),
        ("token ghp_" + "a1B2" * 9 + " here", "token [redacted: GitHub token] here"),
        ("word " * 200, ("word " * 100).strip()),
    ],
    ids=["whitespace", "credential", "capped"],
)
def test_a_selected_passage_is_redacted_collapsed_and_capped(selected: str, expected: str) -> None:
    """What "Ask about this" attaches: masked, on one line, at most 500 characters."""
    quoted = quote_passage(selected)
    assert quoted == expected and len(quoted) <= 500


def test_the_readers_instruction_is_a_system_message_of_its_own(index: DocsIndex) -> None:
    """The instruction follows the docs' system message, never mixed into it or the question."""
    plan = plan_answer(index, CONFIG, "retry a job", scope_id=None)
    messages = chat_request(plan, CONFIG, None, instruction=" answer in French ")["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "system", "user"]
    assert messages[1]["content"] == READER_INSTRUCTION + "answer in French"
    assert "French" not in messages[0]["content"] + messages[2]["content"]
    blank = chat_request(plan, CONFIG, None, instruction="  ")["messages"]
    assert [m["role"] for m in blank] == ["system", "user"]  # type: ignore[union-attr]


def test_follow_up_sends_earlier_turns_capped(index: DocsIndex) -> None:
    """Earlier answered turns go along as user/assistant pairs, the last few only."""
    earlier = [answered(f"q{n}", f"a{n}", at=n * 10) for n in range(5)]
    results_only = Turn(question="r", answer="", status="results", asked_at=60, finished_at=61)
    previous = conversation(*earlier, results_only)
    plan = plan_answer(index, CONFIG, "retry", scope_id=None, previous=previous)
    messages = chat_request(plan, CONFIG, previous)["messages"]
    assert isinstance(messages, list)
    pairs = [(m["role"], m["content"]) for m in messages[1:-1]]
    kept = range(5 - HISTORY_TURNS, 5)
    assert pairs == [p for n in kept for p in (("user", f"q{n}"), ("assistant", f"a{n}"))]


def test_follow_up_is_primed_with_the_sections_the_last_answer_cited(index: DocsIndex) -> None:
    """Up to three cited sections come back from the current index; a gone one is dropped."""
    last = answered(
        "how do retries work",
        "Backoff [1], jitter [2], gone [3].",
        Source("/guides/retries.html", "Retries (stored title)", 1),
        Source("/removed.html#old", "Removed", 3),
        Source("/guides/retries.html#jitter", "Jitter", 2),
        Source("/api/queues.html", "Queues API", 4),
        at=1,
    )
    previous = conversation(last)
    primed = primed_sections(index, previous)
    assert [s.address for s in primed] == [
        "/guides/retries.html",
        "/guides/retries.html#jitter",
        "/api/queues.html",
    ]
    assert primed[0].title == "Retries"  # the index's copy, not the stored one
    plan = plan_answer(index, CONFIG, "list queues depth", scope_id=None, previous=previous)
    addresses = [s.address for s in plan.context]
    assert "/removed.html#old" not in addresses
    assert set(addresses) >= {s.address for s in primed}
    assert len(addresses) == len(set(addresses))  # a primed section already retrieved: once


def test_no_priming_without_an_earlier_cited_answer(index: DocsIndex) -> None:
    """A first question, or one after results-only turns, is not primed."""
    assert primed_sections(index, None) == []
    results_only = Turn(question="r", answer="", status="results", asked_at=1, finished_at=1)
    assert primed_sections(index, conversation(results_only)) == []


def test_view_renders_the_answer_with_citations_against_the_current_index(
    index: DocsIndex,
) -> None:
    """Citations link to stored sources whose page still exists; the rest stay text."""
    turn = answered(
        "q",
        "Retry [1]; old [2]. <script>alert(1)</script>",
        Source("/api/jobs.html#retry", "Retry a job", 1),
        Source("/removed.html#x", "Removed", 2),
    )
    view = turn_view(turn, index, SITE)
    assert view["answer"] == (
        '<p>Retry <a href="/api/jobs.html#retry" class="cite">[1]</a>; old [2]. '
        "&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    )
    assert view["sources"] == [
        {"address": "/api/jobs.html#retry", "title": "Retry a job", "ref": 1},
        {"address": "/removed.html#x", "title": "Removed", "ref": 2},
    ]
    assert view["status"] == "done" and view["scope"] == ""


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
    view = turn_view(turn, index, SITE)
    assert [(r["title"], r["page"]) for r in view["results"]] == [  # type: ignore[attr-defined]
        ("Jitter", "Retries"),
        ("Retries", ""),
        ("Old", ""),
    ]
    assert view["question"] == "q" and view["status"] == "results" and view["answer"] == ""
