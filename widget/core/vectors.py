"""Section vectors for hybrid retrieval: stored small, compared fast, in pure Python.

An embedding model maps a section (at build time) and a question (at ask time)
to unit vectors whose dot product says how close their meanings are. The
index keeps each section's vector as **int8 with one scale per vector**
(``encode``): a quarter of float32's bytes, and on the benchmark's dev sets
(all-MiniLM-L6-v2) it ranks exactly as float32 does, where one bit per
dimension cost up to 8 points of hit@1. A code is the
scale (float32, little-endian) then one signed byte per dimension, as base64
so that it rides in the index's JSON.

    >>> code = encode([0.6, -0.8, 0.0])
    >>> decoded = decode(code, 3)
    >>> [round(x, 2) for x in decoded]
    [0.6, -0.8, 0.0]
    >>> round(similarity([0.6, -0.8, 0.0], code), 2)
    1.0
    >>> decode("not base64!", 3)
    Traceback (most recent call last):
    ...
    widget.core.errors.DocsIndexError: a section vector is corrupt; rebuild the index with build.py
"""

from __future__ import annotations

import binascii
import math
import struct
from array import array
from collections.abc import Sequence
from operator import mul

from widget.core.errors import DocsIndexError

_SCALE = struct.Struct("<f")
_CORRUPT = "a section vector is corrupt; rebuild the index with build.py"


def normalized(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    length = math.sqrt(sum(x * x for x in vector))
    return [x / length for x in vector] if length else [0.0] * len(vector)


def encode(vector: Sequence[float]) -> str:
    """A unit vector (normalized here) as its int8 code, base64."""
    unit = normalized(vector)
    peak = max(map(abs, unit), default=0.0)
    scale = peak / 127 if peak else 1.0
    values = array("b", (max(-127, min(127, round(x / scale))) for x in unit))
    return binascii.b2a_base64(_SCALE.pack(scale) + values.tobytes(), newline=False).decode()


def _unpack(code: str, dimension: int) -> tuple[float, array[int]]:
    try:
        raw = binascii.a2b_base64(code)
    except (binascii.Error, ValueError) as err:
        raise DocsIndexError(_CORRUPT) from err
    if len(raw) != _SCALE.size + dimension:
        raise DocsIndexError(_CORRUPT)
    values = array("b")
    values.frombytes(raw[_SCALE.size :])
    scale: float = _SCALE.unpack_from(raw)[0]
    return scale, values


def decode(code: str, dimension: int) -> list[float]:
    """The vector an int8 code stands for (for tests and tools)."""
    scale, values = _unpack(code, dimension)
    return [scale * value for value in values]


def similarity(question: Sequence[float], code: str) -> float:
    """The dot product of a unit ``question`` vector and a section's code: its cosine."""
    scale, values = _unpack(code, len(question))
    total: float = sum(map(mul, question, values))
    return scale * total
