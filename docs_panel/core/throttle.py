"""When the answer endpoint says "not now": HTTP 429, or 503 with ``Retry-After``.

The reader is told when to ask again instead of only getting search results;
``Retry-After`` is seconds or an HTTP date (RFC 9110)::

    >>> retry_after(429, "7", now_s=0)
    7
    >>> retry_after(429, None, now_s=0)        # too many, no hint: "in a moment"
    0
    >>> retry_after(503, "Wed, 21 Oct 2015 07:28:30 GMT", now_s=1445412500)
    10
    >>> retry_after(503, None, now_s=0) is None  # a 503 without a hint is an outage
    True
"""

from __future__ import annotations

import math
from email.utils import parsedate_to_datetime
from typing import Final

MAX_WAIT_S: Final = 3600
"""A longer hint is capped: the reader can always try again later."""


def retry_after(status: int, header: str | None, *, now_s: float) -> int | None:
    """Seconds to wait before asking again, or None when ``status`` is not a throttle."""
    if status not in (429, 503):
        return None
    wait = _parse(header.strip(), now_s) if header else None
    if wait is None:
        return 0 if status == 429 else None
    return min(wait, MAX_WAIT_S)


def _parse(header: str, now_s: float) -> int | None:
    if header.isdigit():
        return int(header)
    try:
        when = parsedate_to_datetime(header).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0, math.ceil(when - now_s))
