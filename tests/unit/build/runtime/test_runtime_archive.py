"""The runtime as the wheel carries it (docs_panel/build/runtime/runtime_archive.py): the same
runtime gives the same bytes, and a file that is not one says how to make one."""

from __future__ import annotations

import pytest

from docs_panel.build.runtime.runtime_archive import FORMAT, Runtime, read_runtime, runtime_archive
from docs_panel.portable.errors import ConfigError

RUNTIME = Runtime(
    files={"runtime/a.js": b"a", "embed-free.txt": b"\0\1"},
    values={"manifest": {"css": "panel.1.css"}, "lanes": ["x", "y"]},
    embed="const M=__MARK__;",
    loader="export const M=__MARK__;",
)


def test_an_archive_reads_back_as_it_was_and_is_deterministic() -> None:
    data = runtime_archive(RUNTIME)
    assert read_runtime(data) == RUNTIME
    reordered = Runtime(
        dict(reversed(RUNTIME.files.items())), RUNTIME.values, RUNTIME.embed, RUNTIME.loader
    )
    assert runtime_archive(reordered) == data


@pytest.mark.parametrize("data", [b"", b"not a zip", runtime_archive(RUNTIME)[:200]])
def test_an_unreadable_archive_says_how_to_make_one(data: bytes) -> None:
    with pytest.raises(ConfigError, match=r"unreadable .*python build\.py runtimes"):
        read_runtime(data)


def test_another_format_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from docs_panel.build.runtime import runtime_archive as module

    monkeypatch.setattr(module, "FORMAT", FORMAT + 1)
    data = runtime_archive(RUNTIME)
    monkeypatch.undo()
    with pytest.raises(ConfigError, match=rf"format {FORMAT + 1}, this docs-panel reads {FORMAT}"):
        read_runtime(data)
