"""Section vectors for hybrid retrieval: stored small, compared fast, in pure Python.

An embedding model maps a section (at build time) and a question (at ask time)
to unit vectors whose dot product says how close their meanings are. The
index keeps each section's vector as **one sign bit per dimension** (``encode``),
and a question, kept whole, is compared with the sign vector (``scorer``): the
cosine between the question and the section's ±1 vector, which ranks sections
much as their true cosines do. Why bits: a question fetches the vectors of every
section of its ten best pages by words, which as int8 codes (a byte a dimension
and a scale) took the whole Python docs three times a 100 KB budget, and as bits
fits it; bits rank about as int8 did (``bench/hybrid.py`` measures every site).

A code is the bits, dimension ``8j + k`` in bit ``k`` of byte ``j`` (set when
the value is not negative), as base64 so that it rides in the index's JSON.

    >>> code = encode([0.6, -0.8, 0.1])
    >>> code, decode(code, 3) == [1 / 3**0.5, -1 / 3**0.5, 1 / 3**0.5]
    ('BQ==', True)
    >>> round(scorer([0.6, -0.8, 0.0])(code), 4)  # (0.6 + 0.8 + 0) / sqrt(3)
    0.8083
    >>> scorer([1.0, 0.0, 0.0])("not base64!")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    docs_panel.portable.errors.DocsIndexError: a section vector is corrupt; rebuild the index ...
"""

from __future__ import annotations

import binascii
import math
from collections.abc import Callable, Sequence
from operator import getitem

from docs_panel.portable.errors import DocsIndexError

#: The code form, as the index's ``embeddings.codes`` names it: an index with any
#: other was made by another release and is rebuilt, never misread.
CODES = "sign-bits"
_CORRUPT = "a section vector is corrupt; rebuild the index with build.py"


def normalized(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    length = math.sqrt(sum(x * x for x in vector))
    return [x / length for x in vector] if length else [0.0] * len(vector)


def encode(vector: Sequence[float]) -> str:
    """A vector's sign-bit code, base64."""
    return encode_bits([value >= 0 for value in vector])


def encode_bits(bits: Sequence[bool]) -> str:
    """The code whose dimension ``d`` is set where ``bits[d]`` is (``encode``'s form)."""
    raw = bytearray((len(bits) + 7) // 8)
    for dimension, bit in enumerate(bits):
        if bit:
            raw[dimension >> 3] |= 1 << (dimension & 7)
    return binascii.b2a_base64(bytes(raw), newline=False).decode()


def decode_bits(code: str, dimension: int) -> list[bool]:
    """Which of a code's ``dimension`` dimensions are set (not negative)."""
    raw = _unpack(code, dimension)
    return [bool(raw[d >> 3] >> (d & 7) & 1) for d in range(dimension)]


def _unpack(code: str, dimension: int) -> bytes:
    try:
        raw = binascii.a2b_base64(code)
    except (binascii.Error, ValueError) as err:
        raise DocsIndexError(_CORRUPT) from err
    if len(raw) != (dimension + 7) // 8:
        raise DocsIndexError(_CORRUPT)
    return raw


def decode(code: str, dimension: int) -> list[float]:
    """The unit ±1 vector a code stands for (for tests and tools)."""
    raw, unit = _unpack(code, dimension), 1 / math.sqrt(dimension)
    return [unit if raw[d >> 3] >> (d & 7) & 1 else -unit for d in range(dimension)]


def scorer(question: Sequence[float]) -> Callable[[str], float]:
    """How close a section's code is to the unit ``question``: its cosine with the
    section's sign vector. Each byte of a code picks the sum of its eight dimensions
    from a table made once per question, so a code costs one lookup a byte."""
    dimension = len(question)
    tables = []
    for start in range(0, dimension, 8):
        table = [0.0]
        for value in question[start : start + 8]:
            table += [total + value for total in table]
        tables.append(table * (256 // len(table)))  # a short last byte ignores high bits
    whole, unit = sum(question), 1 / math.sqrt(dimension)

    def similarity(code: str) -> float:
        # The set bits' values count for, the others against: 2 * set - whole.
        chosen = sum(map(getitem, tables, _unpack(code, dimension)))
        return (2 * chosen - whole) * unit

    return similarity
