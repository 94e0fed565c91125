"""A vote report is exactly what the panel sends, or a clear refusal."""

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.core.feedback import REASONS, cast_vote, report
from docs_panel.core.history_schema import Gate, Source, Turn
from docs_panel.server.report_shape import (
    FIELDS,
    MAX_REPORT_BYTES,
    ReportError,
    ReportTooLarge,
    parse_report,
    validate_report,
)


def panel_report(vote: Any = "down", **changes: Any) -> dict[str, Any]:
    """A report as the panel's own code builds it (docs_panel/core/feedback.py)."""
    turn = Turn(
        question="How many times is a job retried?",
        answer="Up to five times [1].",
        status="done",
        asked_at=1,
        finished_at=2,
        sources=(Source(address="/guides/retries.html", title="Retries and backoff", ref=1),),
        scope="all",
        gate=Gate(top_score=0.51, threshold=0.25),
    )
    voted = cast_vote(turn, vote, ["outdated"], "The limit is ten.", new_id=lambda: "9f2c41d0")
    sent = report(
        voted,
        retrieved=["/guides/retries.html", "/api/jobs.html#retry"],
        page_url="https://docs.example.org/guides/retries.html",
        now=1764750000000,
    )
    return {**sent, **changes}


def body(value: object) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize("vote", ["up", "down", None])
def test_the_panels_own_reports_are_taken_as_sent(vote: str | None) -> None:
    sent = panel_report(vote)
    taken = parse_report(body(sent))
    assert (taken.id, taken.vote, taken.voted_at) == ("9f2c41d0", vote, 1764750000000)
    assert json.loads(taken.body) == sent


def test_the_allow_list_is_the_panels_report() -> None:
    assert list(FIELDS) == list(panel_report())


@pytest.mark.parametrize("name", list(FIELDS))
def test_a_missing_field_is_named(name: str) -> None:
    sent = panel_report()
    del sent[name]
    with pytest.raises(ReportError, match=f"^{name}: missing"):
        validate_report(sent)


def test_an_unknown_field_is_named() -> None:
    with pytest.raises(ReportError, match=r"^instruction: unknown field"):
        validate_report(panel_report(instruction="answer in French"))


@pytest.mark.parametrize(
    ("name", "value", "wanted"),
    [
        ("id", "", "1 to 64 letters"),
        ("id", "a b", "1 to 64 letters"),
        ("id", "x" * 65, "1 to 64 letters"),
        ("id", 7, "1 to 64 letters"),
        ("vote", "meh", '"up", "down" or null'),
        ("vote", True, '"up", "down" or null'),
        ("reasons", ["bogus"], "a list of distinct reasons"),
        ("reasons", ["wrong", "wrong"], "a list of distinct reasons"),
        ("reasons", "wrong", "a list of distinct reasons"),
        ("sentence", "x" * 1001, "at most 1000 characters"),
        ("question", None, "a string of at most 32000"),
        ("question", "x" * 32_001, "a string of at most 32000"),
        ("quote", "x" * 501, "at most 500"),
        ("answer", ["Up", "to"], "a string"),
        ("sources", [{"address": "/a.html"}], '"address": string, "title": string'),
        ("sources", [{"address": "/a.html", "title": "A", "x": 1}], '"address": string'),
        ("sources", [{"address": "/a.html", "title": "A"}] * 101, "at most 100"),
        ("sources", {"address": "/a.html", "title": "A"}, "a list"),
        ("scope", "x" * 65, "a short string or null"),
        ("gate", {"top_score": 0.5}, 'null or {"top_score": number'),
        ("gate", {"top_score": "0.5", "threshold": 0.25}, 'null or {"top_score"'),
        ("gate", {"top_score": True, "threshold": 0.25}, 'null or {"top_score"'),
        ("retrieved", [1, 2], "a list of at most 100 addresses"),
        ("retrieved", ["/a.html"] * 101, "a list of at most 100 addresses"),
        ("page_url", None, "a string of at most 2048"),
        ("voted_at", 1.5, "epoch milliseconds"),
        ("voted_at", -1, "epoch milliseconds"),
        ("voted_at", 2**53, "epoch milliseconds"),
        ("voted_at", True, "epoch milliseconds"),
    ],
)
def test_a_wrong_value_names_its_field(name: str, value: object, wanted: str) -> None:
    with pytest.raises(ReportError, match=f"^{name}: expected .*{re.escape(wanted)}"):
        validate_report(panel_report(**{name: value}))


def test_reasons_and_a_sentence_belong_to_a_down_vote() -> None:
    with pytest.raises(ReportError, match='only a "down" vote carries them'):
        validate_report(panel_report("up", reasons=["wrong"]))
    with pytest.raises(ReportError, match='only a "down" vote carries them'):
        validate_report(panel_report(None, sentence="meh"))
    assert validate_report(panel_report("down", reasons=list(REASONS))).vote == "down"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[]", "expected a JSON object with the fields"),
        (b"", "expected a JSON object: Expecting value"),
        (b'{"id": ', "expected a JSON object"),
        (b"\xff\xfe{}", "expected UTF-8 JSON"),
        (b"[" * 100_000, "nested too deeply"),
        (body(panel_report()).replace(b'"id"', b'"id": "a", "id"'), "the key 'id' appears twice"),
        (body(panel_report()).replace(b"0.51", b"NaN"), "NaN is not a JSON number"),
        (body(panel_report()).replace(b"0.51", b"Infinity"), "Infinity is not a JSON number"),
    ],
)
def test_a_body_that_is_not_one_json_object_is_refused(raw: bytes, message: str) -> None:
    with pytest.raises(ReportError, match=message):
        parse_report(raw)


def test_a_body_over_the_limit_is_too_large() -> None:
    big = body(panel_report(answer="x" * MAX_REPORT_BYTES))
    with pytest.raises(ReportTooLarge, match=f"at most {MAX_REPORT_BYTES} bytes"):
        parse_report(big)


@given(secret=st.text(min_size=1, max_size=50), name=st.sampled_from(list(FIELDS)))
def test_an_error_never_quotes_the_report(secret: str, name: str) -> None:
    """Errors may be logged; a report carries the reader's words."""
    marked = f"\u2603{secret}"
    for wrong in (marked, [marked], {marked: marked}, marked * 40_000):
        try:
            validate_report(panel_report(**{name: wrong}))
        except ReportError as err:
            assert marked not in str(err)
