"""The protocol's records and replies as mypy reads them in the shell's annotations
(``turn: "Turn"``, ``started: "StartReply"``); MicroPython never reads this file.

Generated from ``docs_panel.portable.protocol`` (``RECORDS``, ``CALLS``) by
``python -m tests.unit.test_shell_records``; tests/unit/test_shell_records.py fails
when the two differ."""

from typing import Protocol

class Scope(Protocol):
    kind: str
    id: str
    label: str

class Feedback(Protocol):
    kind: str
    vote: str
    reasons: list[str]
    sentence: str

class Source(Protocol):
    kind: str
    address: str
    title: str
    ref: int

class Result(Protocol):
    kind: str
    address: str
    title: str
    page: str
    snippet: str

class Turn(Protocol):
    kind: str
    key: str
    question: str
    quote: str
    status: str
    scope: str
    answer: str
    text: str
    sources: list[Source]
    results: list[Result]
    feedback: Feedback

class Conversation(Protocol):
    kind: str
    id: str
    turns: list[Turn]
    docs_changed: bool

class Row(Protocol):
    kind: str
    id: str
    title: str
    when_value: int
    when_unit: str

class StartReply(Protocol):
    kind: str
    errors: list[str]
    record: bool
    consent: str
    forget: list[str]
    events_text: bool
    keep_in_flight: bool
    scopes: list[Scope]
    reasons: list[str]

class RestoreReply(Protocol):
    kind: str
    adopted: bool
    private: bool
    conversation: Conversation | None
    session: str
    rewrite: bool
    persist: bool

class NormalizeReply(Protocol):
    kind: str
    value: str | None

class RedactReply(Protocol):
    kind: str
    text: str

class QuoteReply(Protocol):
    kind: str
    text: str

class AskReply(Protocol):
    kind: str
    streaming: bool
    question: str
    turn: Turn | None
    in_flight: str | None
    session: str

class PullReply(Protocol):
    kind: str
    stable: str
    tail: str | None
    reasoning: str
    text: str
    ended: bool
    error: str | None
    retry_after: int | None

class StopReply(Protocol):
    kind: str

class FinishReply(Protocol):
    kind: str
    turn: Turn
    session: str

class SaveReply(Protocol):
    kind: str
    value: str | None

class EvictReply(Protocol):
    kind: str
    value: str | None

class ConversationsReply(Protocol):
    kind: str
    rows: list[Row]
    current: str | None

class FilterConversationsReply(Protocol):
    kind: str
    rows: list[Row]
    current: str | None

class ExportReply(Protocol):
    kind: str
    name: str
    text: str

class ImportFileReply(Protocol):
    kind: str
    value: str | None
    changed: int
    refused: str

class SetPrivateReply(Protocol):
    kind: str

class PrivateCopyReply(Protocol):
    kind: str
    copy: str | None

class OpenConversationReply(Protocol):
    kind: str
    conversation: Conversation | None
    session: str

class NewChatReply(Protocol):
    kind: str
    session: str

class DeleteConversationReply(Protocol):
    kind: str
    value: str | None
    on_screen: bool
    session: str

class DeleteAllReply(Protocol):
    kind: str
    session: str

class VoteReply(Protocol):
    kind: str
    value: str | None
    feedback: Feedback

class DropFeedbackReply(Protocol):
    kind: str
    value: str | None

class CheckRegressedReply(Protocol):
    kind: str
    regressed: bool

class ConsentReply(Protocol):
    kind: str
    record: bool
    keep_in_flight: bool
    stored: str | None
    forget: list[str]
