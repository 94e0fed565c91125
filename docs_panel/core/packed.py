"""Lists of small non-negative numbers packed into strings, for the docs index.

A JSON list of 100,000 numbers costs ``json.loads`` 100,000 objects; the same
numbers as one string cost one, and are unpacked only when needed, by one
``map(ord, …)``. Number ``n`` is the character ``chr(n + ZERO)``: above the
characters JSON must escape, so most small numbers take one byte of UTF-8;
numbers that would land in the surrogate block (which JSON cannot carry
alone) go past it::

    >>> pack([0, 1, 79, 80, 60000])
    '01\\x7f\\x80\\uf290'
    >>> unpack(pack([0, 1, 79, 80, 60000]))
    [0, 1, 79, 80, 60000]

A character ``pack`` never writes unpacks to a negative number, which the
reader treats as damage. ``SEPARATOR`` is one such character: it can join two
packed lists in one string.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import repeat
from operator import add, sub

ZERO = 48
SEPARATOR = "/"
_SURROGATES = 0xD800 - ZERO
_SKIP = 0x800  # the surrogate block's size


def pack(numbers: Iterable[int]) -> str:
    """``numbers`` (each ``0 <= n < 0x10FFFF - 0x848``) as one string.

    Below the surrogate block (nearly always) the characters come out of two
    ``map`` calls: no Python step per number, as in ``unpack``.
    """
    numbers = list(numbers)
    if max(numbers, default=0) < _SURROGATES:
        return "".join(map(chr, map(add, numbers, repeat(ZERO))))
    return "".join(chr(n + ZERO if n < _SURROGATES else n + ZERO + _SKIP) for n in numbers)


def unpack(packed: str) -> list[int]:
    """The numbers :func:`pack` wrote; ``-1`` or less for a character it never writes.

    Code points come out of one UTF-32 encode, read as an array: no Python
    step per number, which matters for a common word's ten thousand.
    """
    points = array("I")
    points.frombytes(packed.encode("utf-32-le"))
    if max(points, default=0) < 0xD800:
        return list(map(sub, points, repeat(ZERO)))
    return [c - ZERO if c < 0xD800 else c - ZERO - _SKIP for c in points]
