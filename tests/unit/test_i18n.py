"""Relative times for the history list: the unit a reader expects."""

from __future__ import annotations

import pytest

from widget.core.i18n import relative_time

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
