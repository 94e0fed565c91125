"""What a visit records under ``history.consent`` (docs_panel/core/consent.py), and what
the worker's tab does with it: nothing is logged or saved until the reader accepts."""

from __future__ import annotations

import pytest

from docs_panel.core.config import STORAGE_NAMES, HistoryConfig
from docs_panel.core.consent import DENIED, GRANTED, LATER, PENDING, Consent, choose, decide
from docs_panel.portable.errors import ProtocolError

ASK = HistoryConfig(consent="ask")
EVERYTHING_BUT_THE_CHOICE = tuple(n for n in STORAGE_NAMES if n != "consent")


@pytest.mark.parametrize(
    ("history", "stored", "expected"),
    [
        (HistoryConfig(), None, Consent(record=True, state="")),
        (HistoryConfig(), DENIED, Consent(record=True, state="")),  # the site does not ask
        (ASK, None, Consent(record=False, state=PENDING)),
        (ASK, "garbage", Consent(record=False, state=PENDING)),
        (ASK, GRANTED, Consent(record=True, state=GRANTED)),
        (ASK, DENIED, Consent(record=False, state=DENIED, forget=EVERYTHING_BUT_THE_CHOICE)),
        (HistoryConfig(enabled=False, consent="ask"), GRANTED, Consent(False, "", STORAGE_NAMES)),
    ],
)
def test_decide(history: HistoryConfig, stored: str | None, expected: Consent) -> None:
    assert decide(history, stored) == expected


def test_choices() -> None:
    assert choose(ASK, GRANTED) == (Consent(record=True, state=GRANTED), GRANTED)
    assert choose(ASK, DENIED) == (decide(ASK, DENIED), DENIED)
    assert choose(ASK, LATER) == (Consent(record=False, state=PENDING), None)  # stored nowhere
    with pytest.raises(ProtocolError, match="expected 'granted', 'denied' or 'later'"):
        choose(ASK, "yes")
