"""Whether this visit may keep conversations on the reader's device (contract §4), from
the site's ``history`` config and the reader's stored choice (``docs-panel.consent``).

With ``history: {consent: "ask"}`` nothing is written until the reader accepts the
panel's notice; "Not now" is not stored (so nothing is), and the notice comes back
on the next page. A choice made in Settings is stored, either way::

    >>> decide(HistoryConfig(consent="ask"), None)
    Consent(record=False, state='pending', forget=())
    >>> decide(HistoryConfig(consent="ask"), GRANTED)
    Consent(record=True, state='granted', forget=())
    >>> decide(HistoryConfig(consent="ask"), DENIED).forget
    ('history', 'feedback', 'conversation', 'composer.draft', 'instruction', 'private')
    >>> decide(HistoryConfig(), None)
    Consent(record=True, state='', forget=())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from docs_panel.core.config import STORAGE_NAMES, HistoryConfig
from docs_panel.portable.errors import ProtocolError

GRANTED: Final = "granted"
DENIED: Final = "denied"
"""The stored choice's values; anything else in the key reads as no choice yet."""
PENDING: Final = "pending"
"""The reader has not chosen yet (never stored: a missing key)."""
LATER: Final = "later"
"""The notice's "Not now": a choice for this page only, never stored."""
_ALL_BUT_THE_CHOICE: Final = tuple(name for name in STORAGE_NAMES if name != "consent")


@dataclass(frozen=True, slots=True)
class Consent:
    record: bool
    """Conversations, votes, the draft and the session may be written."""
    state: str
    """What the panel shows: "" (the site does not ask: no notice, no setting),
    PENDING (the notice), GRANTED or DENIED (the setting, ticked or not)."""
    forget: tuple[str, ...] = ()
    """The storage names (``STORAGE_NAMES``) to remove now: "record nothing" means
    nothing, and a reader who said no keeps only that choice."""


def decide(history: HistoryConfig, stored: str | None) -> Consent:
    """What this visit does, given the config and the stored choice (None: none)."""
    if not history.enabled:
        return Consent(record=False, state="", forget=STORAGE_NAMES)
    if history.consent == "assumed":
        return Consent(record=True, state="")
    if stored == GRANTED:
        return Consent(record=True, state=GRANTED)
    if stored == DENIED:
        return Consent(record=False, state=DENIED, forget=_ALL_BUT_THE_CHOICE)
    return Consent(record=False, state=PENDING)  # nothing written, nothing removed


def choose(history: HistoryConfig, choice: str) -> tuple[Consent, str | None]:
    """The reader's ``choice`` (GRANTED, DENIED or LATER): what the visit does from now
    on, and the consent key's value to store (None: store nothing).

    >>> choose(HistoryConfig(consent="ask"), LATER)
    (Consent(record=False, state='pending', forget=()), None)
    >>> choose(HistoryConfig(consent="ask"), GRANTED)
    (Consent(record=True, state='granted', forget=()), 'granted')
    """
    if choice not in (GRANTED, DENIED, LATER):
        expected = f"{GRANTED!r}, {DENIED!r} or {LATER!r}"
        raise ProtocolError(f"consent: expected {expected}, got {choice!r}")
    if choice == LATER:
        return decide(history, None), None
    return decide(history, choice), choice
