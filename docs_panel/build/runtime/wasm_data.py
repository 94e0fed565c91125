"""A wasm's initial memory as one byte array: read it, change it by address, write it back.

A wasm module's data section fills its memory at start, in segments placed at
fixed addresses. Tools split those segments wherever a run of zeros saves bytes
(memory starts zeroed), so a C object may lie across several segments and
segment bounds say nothing about objects. Edits that respect what the C code
addresses are easier on the memory itself: ``Memory`` reads every segment into
one image, lets a build step find and change bytes by address, and encodes the
image back into segments, again leaving out runs of zeros::

    memory = Memory.of(wasm)
    address = memory.find(frozen_os)          # exactly one place, or ValueError
    memory.image[address : address + n] = new_bytes
    wasm = memory.to_wasm()

Only active segments at constant addresses are handled (what Emscripten emits
for a main module without threads); anything else is refused, not guessed at.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

DATA, DATA_COUNT = 11, 12
# Only a run of zeros this long ends a segment. Emscripten's tools cut at far
# shorter runs, and the segments' headers then cost more compressed bytes than
# the zeros they spare: Pyodide's wasm is 52 KB smaller as Zstandard cut here.
ZERO_RUN = 4096
_ZEROS = re.compile(b"\0{%d,}" % ZERO_RUN)


def _leb(data: bytes, at: int, *, signed: bool = False) -> tuple[int, int]:
    """The LEB128 number at ``at``, and where the next field starts."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (value - (1 << shift) if signed and byte & 0x40 else value), at


def _uleb_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _sleb_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        done = (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def _sections(wasm: bytes) -> list[tuple[int, bytes]]:
    if wasm[:8] != b"\0asm\1\0\0\0":
        raise ValueError("not a wasm module (version 1)")
    sections, at = [], 8
    while at < len(wasm):
        kind = wasm[at]
        size, start = _leb(wasm, at + 1)
        sections.append((kind, wasm[start : start + size]))
        at = start + size
    return sections


def _segments(body: bytes) -> list[tuple[int, bytes]]:
    count, at = _leb(body, 0)
    segments = []
    for _ in range(count):
        flags, at = _leb(body, at)
        if flags != 0 or body[at] != 0x41:  # active, memory 0, at (i32.const N)
            raise ValueError("a data segment is passive or not at a constant address")
        address, at = _leb(body, at + 1, signed=True)
        if body[at] != 0x0B:
            raise ValueError("a data segment's address is not a lone constant")
        size, at = _leb(body, at + 1)
        segments.append((address, body[at : at + size]))
        at += size
    return segments


@dataclass
class Memory:
    """The initial memory of ``sections``' module, from address 0."""

    sections: list[tuple[int, bytes]]
    image: bytearray

    @classmethod
    def of(cls, wasm: bytes) -> Memory:
        sections = _sections(wasm)
        data = [body for kind, body in sections if kind == DATA]
        segments = _segments(data[0]) if data else []
        image = bytearray(max((a + len(d) for a, d in segments), default=0))
        for address, chunk in segments:
            image[address : address + len(chunk)] = chunk
        return cls(sections, image)

    def find(self, data: bytes) -> int:
        """The address of ``data``, which must occur exactly once."""
        address = self.image.find(data)
        if address < 0 or self.image.find(data, address + 1) >= 0:
            times = "never" if address < 0 else "more than once"
            raise ValueError(f"{len(data)} bytes are in the memory image {times}, not once")
        return address

    def segments(self) -> list[tuple[int, bytes]]:
        """The image cut into segments around runs of ``ZERO_RUN`` or more zeros."""
        image = bytes(self.image)
        segments, start = [], 0
        for zeros in [*_ZEROS.finditer(image), None]:
            end = zeros.start() if zeros else len(image)
            chunk = image[start:end].rstrip(b"\0")
            lead = len(chunk) - len(chunk.lstrip(b"\0"))
            if chunk[lead:]:
                segments.append((start + lead, chunk[lead:]))
            start = zeros.end() if zeros else end
        return segments

    def to_wasm(self) -> bytes:
        """The module with its data section (and data count) encoded from ``image``."""
        segments = self.segments()
        body = bytearray(_uleb_bytes(len(segments)))
        for address, chunk in segments:
            body += b"\0\x41" + _sleb_bytes(address) + b"\x0b" + _uleb_bytes(len(chunk)) + chunk
        out = bytearray(b"\0asm\1\0\0\0")
        for kind, content in self.sections:
            if kind == DATA:
                content = bytes(body)
            elif kind == DATA_COUNT:
                content = _uleb_bytes(len(segments))
            out += bytes([kind]) + _uleb_bytes(len(content)) + content
        return bytes(out)


def names_any(addresses: Sequence[int], start: int, end: int) -> bool:
    """Whether sorted ``addresses`` hold one in ``[start, end)``."""
    found = bisect.bisect_left(addresses, start)
    return found < len(addresses) and addresses[found] < end
