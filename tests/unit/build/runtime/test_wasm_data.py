"""A wasm's initial memory, read into one image, edited by address and written back."""

from __future__ import annotations

import pytest

from docs_panel.build.runtime.wasm_data import DATA, DATA_COUNT, ZERO_RUN, Memory

MEMORY = 5


def module(*segments: tuple[int, bytes]) -> bytes:
    """A module with one memory and ``segments`` (address, bytes) as its data."""
    image = bytearray(max(a + len(d) for a, d in segments))
    for address, data in segments:
        image[address : address + len(data)] = data
    sections = [(MEMORY, b"\x01\x00\x01"), (DATA_COUNT, b"\x00"), (DATA, b"\x00")]
    return Memory(sections, image).to_wasm()


def test_segments_read_into_one_image_at_their_addresses() -> None:
    """Bytes land at their segments' addresses, zeros between and before them."""
    memory = Memory.of(module((3, b"ab"), (9, b"cd")))
    assert bytes(memory.image) == b"\0\0\0ab\0\0\0\0cd"


def test_an_edited_image_is_written_back_and_read_again() -> None:
    """What a build step changes in the image is what the written module holds."""
    memory = Memory.of(module((16, b"frozen os"), (70_000, b"table")))
    memory.image[16:22] = b"lean\0\0"
    memory.image[70_000:70_005] = bytes(5)
    again = Memory.of(memory.to_wasm())
    assert bytes(again.image) == bytes(memory.image).rstrip(b"\0")
    assert again.segments() == [(16, b"lean\0\0 os")]


def test_only_long_runs_of_zeros_cut_segments() -> None:
    """Segments end at ZERO_RUN zeros, not at shorter runs, and the count follows."""
    wasm = module((0, b"a" + bytes(ZERO_RUN - 1) + b"b"), (3 * ZERO_RUN, b"c"))
    memory = Memory.of(wasm)
    assert memory.segments() == [(0, b"a" + bytes(ZERO_RUN - 1) + b"b"), (3 * ZERO_RUN, b"c")]
    assert dict(memory.sections)[DATA_COUNT] == b"\x02"


def test_find_wants_bytes_that_occur_exactly_once() -> None:
    """A missing or repeated pattern is an error, not a guess."""
    memory = Memory.of(module((0, b"xyzxy")))
    assert memory.find(b"z") == 2
    with pytest.raises(ValueError, match="more than once"):
        memory.find(b"xy")
    with pytest.raises(ValueError, match="never"):
        memory.find(b"q")


def test_segments_not_at_a_constant_address_are_refused() -> None:
    """A passive segment is not guessed at."""
    passive = b"\0asm\1\0\0\0" + bytes([DATA, 4, 1, 1, 1, 0x61])
    with pytest.raises(ValueError, match="passive"):
        Memory.of(passive)
