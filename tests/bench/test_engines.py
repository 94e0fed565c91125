"""bench/engines.py: an engine column and the options it runs with."""

from __future__ import annotations

import pytest

from bench.engines import engine_options


def test_engines_and_webkit_options() -> None:
    assert engine_options("chromium") == ("chromium", {})
    assert engine_options("webkit+JSC_useOMGJIT=0+WEBKIT_X=a=b") == (
        "webkit",
        {"JSC_useOMGJIT": "0", "WEBKIT_X": "a=b"},
    )


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("safari", "unknown browser 'safari'"),
        ("chromium+X=1", "only webkit takes options"),
        ("webkit+JSC_useOMGJIT", "is not NAME=VALUE"),
        ("webkit+=1", "is not NAME=VALUE"),
    ],
)
def test_bad_specs_say_why(spec: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        engine_options(spec)
