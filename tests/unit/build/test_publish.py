"""Writing the output folder: all or nothing, never over someone else's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_panel.build.publish import MARKER, PREVIOUS, publish
from docs_panel.portable.errors import ConfigError


def _files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def test_the_previous_builds_files_stay_for_one_more_build(tmp_path: Path) -> None:
    """A new build replaces embed.js; the previous build's other files stay one build
    (a page opened before the deploy still fetches them), and then go."""
    out = tmp_path / "docs-panel"
    publish({"old.1.js": b"1", "embed.js": b"a", "runtime/x.mjs": b"c"}, out)
    publish({"embed.js": b"b", "runtime/x.mjs": b"c2", "index-terms-0.2.json": b"2"}, out)
    carried = [MARKER, PREVIOUS, "embed.js", "index-terms-0.2.json", "old.1.js", "runtime/x.mjs"]
    assert _files(out) == carried
    assert (out / "embed.js").read_bytes() == b"b"
    assert (out / "runtime/x.mjs").read_bytes() == b"c2"
    publish({"embed.js": b"c"}, out)
    assert _files(out) == [MARKER, PREVIOUS, "embed.js", "index-terms-0.2.json", "runtime/x.mjs"]


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
