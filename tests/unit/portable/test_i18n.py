"""The reader's language: every table complete and well-formed, the language a page
gets, its direction, and relative times for the history list."""

from __future__ import annotations

import string

import pytest

from docs_panel.core.feedback import REASONS
from docs_panel.portable.i18n import LANGUAGES, direction, relative_time, table, text

ENGLISH = table("en")
TRANSLATED = [language for language in LANGUAGES if language != "en"]


def placeholders(value: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(value) if field is not None}


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_table_has_exactly_the_english_keys(language: str) -> None:
    """A missing key would show nothing (or crash a draw); an extra one is a typo'd key."""
    keys = set(table(language))
    assert sorted(set(ENGLISH) - keys) == [], "missing"
    assert sorted(keys - set(ENGLISH)) == [], "extra"


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_match_english(language: str) -> None:
    """Every ``{name}`` the shell fills in is in each translation, and no other."""
    strings = table(language)
    wrong = {
        key: (placeholders(value), placeholders(strings[key]))
        for key, value in ENGLISH.items()
        if key in strings and placeholders(value) != placeholders(strings[key])
    }
    assert wrong == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_values_are_trimmed_text(language: str) -> None:
    """No empty label, no stray space (it would show in buttons and accessible names)."""
    bad = [key for key, value in table(language).items() if not value or value != value.strip()]
    assert bad == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_tables_are_translated(language: str) -> None:
    """A table left in English (beyond words such as "Ctrl") is not a translation."""
    same = [key for key, value in table(language).items() if value == ENGLISH[key]]
    assert len(same) <= 3, same


def test_every_vote_reason_has_words() -> None:
    """The panel names each reason a "Not helpful" vote may tick by its ``reason_<id>``."""
    assert [f"reason_{reason}" in ENGLISH for reason in REASONS] == [True] * len(REASONS)


def test_direction() -> None:
    """Arabic reads right to left, in any region; the rest left to right."""
    assert [direction(tag) for tag in ("ar", "ar-EG", "en", "ja", "")] == [
        "rtl",
        "rtl",
        "ltr",
        "ltr",
        "ltr",
    ]


def test_text_fills_named_placeholders() -> None:
    """``text`` looks up the key and fills its named values; an unknown table is English."""
    assert text("fr", "throttled_in", n=12).endswith(" Réessayez dans 12 s.")
    assert text("xx", "send") == "Send"
    with pytest.raises(KeyError):
        text("en", "no_such_key")


MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000


@pytest.mark.parametrize(
    ("ago_ms", "expected"),
    [
        (0, (0, "second")),
        (44_000, (0, "second")),
        (50_000, (-50, "second")),
        (5 * MINUTE, (-5, "minute")),
        (59 * MINUTE, (-59, "minute")),
        (3 * HOUR, (-3, "hour")),
        (23 * HOUR, (-23, "hour")),
        (DAY, (-1, "day")),
        (6 * DAY, (-6, "day")),
        (14 * DAY, (-2, "week")),
        (60 * DAY, (-2, "month")),
        (400 * DAY, (-1, "year")),
    ],
)
def test_largest_whole_unit(ago_ms: int, expected: tuple[int, str]) -> None:
    """Each delay is said in the largest unit that still reads naturally."""
    assert relative_time(then_ms=1_000_000_000_000 - ago_ms, now_ms=1_000_000_000_000) == expected


def test_future_times_are_positive() -> None:
    """A clock that moved backwards gives a future time, not a crash."""
    assert relative_time(then_ms=2 * HOUR, now_ms=0) == (2, "hour")
