"""Writing the output folder: all or nothing, never over someone else's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.publish import MARKER, publish
from widget.core.errors import ConfigError


def test_replaces_previous_output_exactly(tmp_path: Path) -> None:
    """A new build replaces the old files; stale ones do not linger."""
    out = tmp_path / "docs-panel"
    publish({"old.js": b"1", "embed.js": b"a"}, out)
    publish({"embed.js": b"b", "runtime/x.mjs": b"c"}, out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        MARKER,
        "embed.js",
        "runtime/x.mjs",
    ]
    assert (out / "embed.js").read_bytes() == b"b"


def test_failed_write_keeps_the_good_bundle(tmp_path: Path) -> None:
    """If writing fails half-way, the previous output is untouched and no temp folder stays."""
    out = tmp_path / "docs-panel"
    publish({"embed.js": b"good"}, out)
    with pytest.raises(OSError):
        publish({"embed.js": b"new", "a": b"file", "a/b": b"x"}, out)
    assert (out / "embed.js").read_bytes() == b"good"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs-panel"]


def test_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    """An existing folder without the bundle marker is never replaced."""
    out = tmp_path / "docs"
    out.mkdir()
    (out / "index.html").write_text("mine")
    with pytest.raises(ConfigError, match=r"not written by build\.py"):
        publish({"embed.js": b"x"}, out)
    assert (out / "index.html").read_text() == "mine"
