"""Tests for docs_panel.core.history_export: the export file, the checks that refuse an
import, and the merge by conversation id (the newer turn wins).

Import files live in tests/fixtures/history_export/files.txt (markdown-it-py's
fixture format: title, the file's text, what reading it gives).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.core.history import dump_archive, load_archive, upsert
from docs_panel.core.history_export import (
    FORMAT,
    ImportRefused,
    export_file,
    file_name,
    merge_import,
    read_export,
)
from docs_panel.core.history_schema import SCHEMA_VERSION, Archive, Conversation, Source, Turn
from docs_panel.portable.errors import StorageError
from tests.fixture_files import FIXTURES, fixture_cases

ORIGIN = "https://docs.example.org"
FILES = fixture_cases(FIXTURES / "history_export" / "files.txt")
BOUNDS = {"max_conversations": 20, "max_bytes": 1_048_576}


def turn(question: str, asked_at: int, finished_at: int | None = None, answer: str = "A.") -> Turn:
    return Turn(
        question=question,
        answer=answer,
        status="done",
        asked_at=asked_at,
        finished_at=asked_at + 1 if finished_at is None else finished_at,
        sources=(Source("/api/jobs.html#retry", "Retry a job", 1),),
    )


def described(archive: Archive) -> str:
    return "".join(
        f"{c.id}: {' | '.join(t.question for t in c.turns)}\n" for c in archive.conversations
    )


@pytest.mark.parametrize(("line", "title", "text", "expected"), FILES, ids=[f[1] for f in FILES])
def test_import_files(line: int, title: str, text: str, expected: str) -> None:
    try:
        found = described(read_export(text.rstrip("\n"), origin=ORIGIN))
    except ImportRefused as err:
        found = f"refused: {err.reason}\n"
    assert found.strip() == expected.strip(), f"{title} (line {line})"


def test_an_export_holds_what_is_stored_and_reads_back() -> None:
    archive = Archive(
        (
            Conversation("c1", (turn("retry?", 1_000),), "v1"),
            Conversation("c2", (turn("delete?", 5_000),), "v1"),
        )
    )
    exported = export_file(archive, None, origin=ORIGIN, now_ms=1_765_100_000_000)
    document = json.loads(exported.text)
    assert document["format"] == FORMAT and document["version"] == SCHEMA_VERSION
    assert document["origin"] == ORIGIN and document["exported_at"] == 1_765_100_000_000
    # The conversations exactly as the archive stores them.
    assert document["conversations"] == json.loads(dump_archive(archive))["conversations"]
    assert read_export(exported.text, origin=ORIGIN) == archive
    one = export_file(archive, ["c2"], origin=ORIGIN, now_ms=0)
    assert [c.id for c in read_export(one.text, origin=ORIGIN).conversations] == ["c2"]


def test_the_file_is_named_by_the_site_and_the_date() -> None:
    assert file_name(ORIGIN, 1_765_100_000_000) == "docs-panel-docs.example.org-2025-12-07.json"
    assert file_name("http://127.0.0.1:8000", 0) == "docs-panel-127.0.0.1-8000-1970-01-01.json"


def test_an_import_merges_by_id_and_the_newer_turn_wins() -> None:
    stored = upsert(
        None,
        Conversation("c1", (turn("retry?", 1_000, 2_000, "Stopped half"),), "v1"),
        **BOUNDS,
    ).value
    imported = Archive(
        (
            # The same turn finished later (the full answer), and a turn only the file has.
            Conversation(
                "c1", (turn("retry?", 1_000, 3_000, "Whole"), turn("and then?", 4_000)), "v1"
            ),
            Conversation("c9", (turn("new one", 500),), "v1"),
        )
    )
    merged = merge_import(stored, imported, **BOUNDS)
    assert merged.changed == 2
    archive = load_archive(merged.value).archive
    c1 = archive.find("c1")
    assert c1 is not None
    assert [(t.question, t.answer) for t in c1.turns] == [
        ("retry?", "Whole"),
        ("and then?", "A."),
    ]
    assert [c.id for c in archive.conversations] == ["c1", "c9"]  # newest activity first
    # An older copy of a stored turn changes nothing; importing the same file twice neither.
    older = Archive((Conversation("c1", (turn("retry?", 1_000, 1_500, "Old"),), "v1"),))
    assert merge_import(merged.value, older, **BOUNDS).value is None
    assert merge_import(merged.value, imported, **BOUNDS).value is None


def test_an_import_keeps_to_the_bounds() -> None:
    imported = Archive(tuple(Conversation(f"c{n}", (turn("q", n * 10),), "v") for n in range(30)))
    merged = merge_import(None, imported, max_conversations=20, max_bytes=1_048_576)
    kept = load_archive(merged.value).archive.conversations
    assert [c.id for c in kept] == [f"c{n}" for n in range(29, 9, -1)]  # the 20 newest


def test_an_archive_from_a_newer_version_is_never_overwritten_by_an_import() -> None:
    newer = json.dumps({"version": SCHEMA_VERSION + 1, "conversations": []})
    with pytest.raises(StorageError, match="newer version"):
        merge_import(newer, Archive((Conversation("c1", (turn("q", 1),), "v"),)), **BOUNDS)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@given(st.text())
def test_any_text_is_read_or_refused_never_an_error(text: str) -> None:
    try:
        read_export(text, origin=ORIGIN)
    except ImportRefused as err:
        assert err.reason == "damaged"


@given(JSON_VALUES, st.sampled_from(["version", "origin", "conversations", "format"]))
def test_a_valid_file_with_any_field_replaced_is_read_or_refused(value: object, field: str) -> None:
    good = json.loads(FILES[0][2])
    good[field] = value
    try:
        archive = read_export(json.dumps(good), origin=ORIGIN)
    except ImportRefused:
        return
    # What is accepted is a well-formed archive of this site's links.
    for conversation in archive.conversations:
        assert conversation.turns
        for t in conversation.turns:
            assert all(s.address.startswith("/") for s in t.sources)
