"""Signed citation lists: what verifies, and that nothing else does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.core.signing import MAX_AGE_S, parse_keys, sign, verify
from docs_panel.portable.errors import ConfigError, SignatureError

KEYS = parse_keys("new:" + "n" * 32 + ",old:" + "o" * 32)
OLD = parse_keys("old:" + "o" * 32)
TOKEN = sign(KEYS, "v1", ["/api/jobs.html#retry", "/guides/é.html"], now_s=1_000)


def test_the_first_key_signs_and_either_verifies_during_a_rotation() -> None:
    assert TOKEN.startswith("new.")
    assert verify(KEYS, sign(OLD, "v1", ["/a"], now_s=1_000), now_s=1_000).addresses == ("/a",)
    with pytest.raises(SignatureError) as refused:
        verify(OLD, TOKEN, now_s=1_000)
    assert refused.value.reason == "unknown-key"


def test_expired_and_future_lists_are_refused() -> None:
    assert verify(KEYS, TOKEN, now_s=1_000 + MAX_AGE_S).signed_at == 1_000
    for now in (1_000 + MAX_AGE_S + 1, 0):
        with pytest.raises(SignatureError, match="expired"):
            verify(KEYS, TOKEN, now_s=now)


@given(st.data())
def test_any_change_to_the_signed_bytes_fails_verification(data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(TOKEN) - 1), label="at")
    replacement = data.draw(st.characters(codec="ascii").filter(lambda c: c != TOKEN[at]))
    changed = TOKEN[:at] + replacement + TOKEN[at + 1 :]
    with pytest.raises(SignatureError):
        verify(KEYS, changed, now_s=1_000)


@given(st.text(max_size=200))
def test_garbage_is_refused_never_crashes(garbage: str) -> None:
    with pytest.raises(SignatureError):
        verify(KEYS, garbage, now_s=1_000)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "1 or 2"),
        ("k1:short", "shorter than 32"),
        ("k1", "id:secret"),
        ("a:" + "x" * 32 + ",a:" + "y" * 32, "twice"),
        ("a:" + "x" * 32 + ",b:" + "y" * 32 + ",c:" + "z" * 32, "1 or 2"),
    ],
)
def test_bad_keys_stop_the_server_with_a_clear_message(value: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        parse_keys(value)
