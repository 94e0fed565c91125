"""Words that depend on the reader's language, decided here and spelled by the
browser: the shell passes ``(value, unit)`` to ``Intl.RelativeTimeFormat``.

    >>> relative_time(then_ms=0, now_ms=3 * 3_600_000)
    (-3, 'hour')
    >>> relative_time(then_ms=0, now_ms=20_000)
    (0, 'second')
"""

from __future__ import annotations

# (unit, milliseconds in it, below how many of it the next unit takes over)
_UNITS = (
    ("second", 1_000, 60),
    ("minute", 60_000, 60),
    ("hour", 3_600_000, 24),
    ("day", 86_400_000, 7),
    ("week", 604_800_000, 5),
    ("month", 2_629_800_000, 12),
    ("year", 31_557_600_000, None),
)
_JUST_NOW_MS = 45_000


def relative_time(*, then_ms: int, now_ms: int) -> tuple[int, str]:
    """The largest whole unit for ``then - now`` (negative for the past).

    Under 45 seconds is ``(0, "second")``, which ``numeric: "auto"`` says as "now".
    """
    delta = then_ms - now_ms
    if abs(delta) < _JUST_NOW_MS:
        return 0, "second"
    for unit, size, limit in _UNITS:
        count = round(delta / size)
        if limit is None or abs(count) < limit:
            return count, unit
    raise AssertionError("unreachable: the last unit has no limit")
