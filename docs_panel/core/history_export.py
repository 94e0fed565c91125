"""The reader's export file of conversations, and importing one back: its format,
the checks that refuse a file, and the merge (contract §3 and §4).

An export holds what the archive stores (questions already redacted), the site's
origin and the archive's schema version; the file is named by the site and the
date (UTC)::

    >>> from docs_panel.core.history_schema import Source
    >>> turn = Turn(question="retry?", answer="Call `retry()`.", status="done",
    ...             asked_at=1_000, finished_at=2_000, sources=(Source("/api#retry", "Retry"),))
    >>> mine = Archive((Conversation("c1", (turn,), "v1"),))
    >>> exported = export_file(mine, None, origin="https://docs.example.org", now_ms=0)
    >>> exported.name
    'docs-panel-docs.example.org-1970-01-01.json'
    >>> read_export(exported.text, origin="https://docs.example.org") == mine
    True
    >>> read_export(exported.text, origin="https://other.example.org")
    Traceback (most recent call last):
    ...
    docs_panel.core.history_export.ImportRefused: other_site: this file was exported from \
https://docs.example.org, not from this site (https://other.example.org)

Importing never trusts the file: anything that does not parse, an address that
is not a path on this site, another site's origin or a newer schema refuses the
whole file (``ImportRefused``, whose ``reason`` picks the reader's message), and
nothing is written. Questions, quotes and sentences are redacted again, since a
file may come from anywhere. ``merge_import`` merges by conversation id; for a
turn both sides have (same ``Turn.key``), the one that finished later wins.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, Literal

from docs_panel.core.history import apply_bounds, dump_archive, writable_archive
from docs_panel.core.history_schema import (
    SCHEMA_VERSION,
    Archive,
    Conversation,
    Turn,
    compact_json,
    conversation_record,
    conversations_strictly,
)
from docs_panel.core.redact import redact_text
from docs_panel.core.site_links import may_link
from docs_panel.portable.errors import WidgetError
from docs_panel.portable.protocol import IMPORT_FILE_LIMIT

FORMAT: Final = "docs-panel.conversations"
"""The ``format`` field that says a JSON file is one of ours."""
_UNSAFE_IN_NAME: Final = re.compile(r"[^A-Za-z0-9.-]+")

Reason = Literal["other_site", "newer", "damaged"]


class ImportRefused(WidgetError):
    """An import file this page will not merge; ``reason`` names the reader's message."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason: Reason = reason


@dataclass(frozen=True, slots=True)
class ExportFile:
    """An export, as the reader's browser downloads it."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Merged:
    """The archive to write (None: the import changes nothing) and how many of the
    file's conversations added or replaced something."""

    value: str | None
    changed: int


def file_name(origin: str, now_ms: int) -> str:
    """``docs-panel-<host>-<date>.json``; the port joins the host with a dash."""
    host = _UNSAFE_IN_NAME.sub("-", origin.partition("://")[2]).strip("-") or "site"
    day = time.strftime("%Y-%m-%d", time.gmtime(now_ms / 1000))
    return f"docs-panel-{host}-{day}.json"


def export_file(
    archive: Archive, ids: Iterable[str] | None, *, origin: str, now_ms: int
) -> ExportFile:
    """The conversations with ``ids`` (None: all), in archive order, as a file."""
    wanted = None if ids is None else set(ids)
    chosen = [c for c in archive.conversations if wanted is None or c.id in wanted]
    document = {
        "format": FORMAT,
        "version": SCHEMA_VERSION,
        "origin": origin,
        "exported_at": now_ms,
        "conversations": [conversation_record(c) for c in chosen],
    }
    return ExportFile(file_name(origin, now_ms), compact_json(document))


def _checked(conversation: Conversation) -> Conversation:
    turns = []
    for turn in conversation.turns:
        addresses = [s.address for s in turn.sources] + [r.address for r in turn.results]
        if not all(map(may_link, addresses)):
            raise ImportRefused("damaged", f"{conversation.id}: a link that is not on this site")
        turns.append(
            replace(
                turn,
                question=redact_text(turn.question),
                quote=redact_text(turn.quote),
                sentence=redact_text(turn.sentence),
            )
        )
    return replace(conversation, turns=tuple(turns))


def read_export(text: str, *, origin: str) -> Archive:
    """The file's conversations, checked; raises ``ImportRefused`` for any other file."""
    if len(text) > IMPORT_FILE_LIMIT:
        raise ImportRefused("damaged", f"over {IMPORT_FILE_LIMIT} characters")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        raise ImportRefused("damaged", "not JSON") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ImportRefused("damaged", f"not a {FORMAT} file")
    version = document.get("version")
    if type(version) is int and version > SCHEMA_VERSION:
        raise ImportRefused("newer", f"schema {version}; this panel reads up to {SCHEMA_VERSION}")
    if document.get("origin") != origin:
        raise ImportRefused(
            "other_site",
            f"this file was exported from {document.get('origin')}, not from this site ({origin})",
        )
    try:
        conversations = conversations_strictly(version, document.get("conversations"))
    except ValueError as err:
        raise ImportRefused("damaged", str(err)) from None
    return Archive(tuple(map(_checked, conversations)))


def _newer(stored: Turn, imported: Turn) -> Turn:
    return imported if imported.finished_at > stored.finished_at else stored


def _merged(stored: Conversation, imported: Conversation) -> Conversation:
    """Both copies' turns by key, the later-finished copy of a shared one, in time order."""
    turns = {turn.key: turn for turn in stored.turns}
    for turn in imported.turns:
        turns[turn.key] = _newer(turns[turn.key], turn) if turn.key in turns else turn
    ordered = tuple(sorted(turns.values(), key=lambda turn: turn.key))
    return replace(stored, turns=ordered)


def merge_import(
    raw: str | None, imported: Archive, *, max_conversations: int, max_bytes: int
) -> Merged:
    """The stored archive with ``imported`` merged in by id, newest activity first, within
    the bounds. Raises ``StorageError`` when ``raw`` was written by a newer schema."""
    stored = writable_archive(raw)
    by_id = {c.id: c for c in stored.conversations}
    changed = 0
    for conversation in imported.conversations:
        known = by_id.get(conversation.id)
        merged = conversation if known is None else _merged(known, conversation)
        if merged != known:
            changed += 1
            by_id[conversation.id] = merged
    if not changed:
        return Merged(None, 0)
    ordered = sorted(by_id.values(), key=lambda c: c.last_active, reverse=True)
    bounded = apply_bounds(
        Archive(tuple(ordered)), max_conversations=max_conversations, max_bytes=max_bytes
    )
    return Merged(dump_archive(bounded), changed)
