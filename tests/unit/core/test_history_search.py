"""Tests for docs_panel.core.history_search: which conversations a reader's words find."""

from __future__ import annotations

from docs_panel.core.history_schema import Archive, Conversation, ResultItem, Source, Turn
from docs_panel.core.history_search import fold, matching


def conversation(cid: str, question: str, at: int, **fields: object) -> Conversation:
    turn = Turn(question=question, answer="", status="done", asked_at=at, finished_at=at)
    return Conversation(cid, (Turn(**{**_fields(turn), **fields}),), "v1")


def _fields(turn: Turn) -> dict[str, object]:
    return {name: getattr(turn, name) for name in Turn.__slots__}


ARCHIVE = Archive(
    (
        conversation("retry", "How do I retry a job?", 3, answer="Call `job.retry()`."),
        conversation("quote", "What does this mean?", 2, quote="Les tâches échouées"),
        conversation("source", "Where is it?", 1, sources=(Source("/a", "Scheduling cron"),)),
        conversation(
            "results",
            "webhooks",
            4,
            status="results",
            results=(ResultItem("/w", "Webhooks", "Signing secrets rotate daily"),),
        ),
    )
)


def ids(query: str) -> list[str]:
    return [row.id for row in matching(ARCHIVE, query)]


def test_a_blank_search_lists_everything_newest_first() -> None:
    assert ids("") == ids("   ") == ["results", "retry", "quote", "source"]


def test_words_are_found_in_every_part_of_a_turn() -> None:
    assert ids("retry") == ["retry"]  # the title and the answer
    assert ids("job.retry") == ["retry"]
    assert ids("echouees") == ["quote"]  # the quote, without its accents
    assert ids("CRON") == ["source"]  # a source's title
    assert ids("rotate") == ["results"]  # a result's snippet


def test_every_word_must_be_there_in_any_order() -> None:
    assert ids("job how") == ["retry"]
    assert ids("job cron") == []
    assert ids("sched") == ["source"]  # a prefix finds the word


def test_folding_ignores_case_accents_and_width() -> None:
    assert fold("Réessayer") == fold("REESSAYER") == "reessayer"
    assert fold("Straße") == "strasse"
    assert fold("\uff21\uff22\uff23") == "abc"  # full-width ABC
