"""The worker's stemmer file: what the build writes beside the index becomes importable,
and a malformed one is refused."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_panel.build.runtime.python_sources import stemmer_files
from docs_panel.portable.errors import DocsIndexError
from docs_panel.worker.stemmers import add_stemmers


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[Path]:
    """A folder for the modules, and sys.path / sys.modules as they were afterwards."""
    path, modules = list(sys.path), dict(sys.modules)
    for name in [name for name in sys.modules if name.startswith("snowballstemmer")]:
        del sys.modules[name]
    yield tmp_path
    sys.path[:] = path
    sys.modules.clear()
    sys.modules.update(modules)


def test_the_builds_stemmer_file_imports_from_the_folder(isolated: Path) -> None:
    files = stemmer_files([{"name": "snowball-german"}])
    sys.path[:] = [entry for entry in sys.path if "site-packages" not in entry]  # as in Pyodide
    add_stemmers(files, isolated)
    from snowballstemmer.german_stemmer import GermanStemmer  # type: ignore[import-untyped]

    assert GermanStemmer().stemWord("dateien") == "datei"
    assert str(sys.modules["snowballstemmer"].__file__).startswith(str(isolated))
    assert "snowballstemmer.french_stemmer" not in sys.modules


@pytest.mark.parametrize(
    "files",
    [
        ["snowballstemmer/among.py"],
        {"../escape.py": ""},
        {"ABSOLUTE": ""},
        {"snowballstemmer/data.json": ""},
        {"snowballstemmer/among.py": 1},
    ],
)
def test_a_malformed_stemmer_file_is_refused(isolated: Path, files: object) -> None:
    if isinstance(files, dict) and "ABSOLUTE" in files:  # a path outside, made absolute
        files = {str(isolated / "absolute.py"): ""}
    with pytest.raises(DocsIndexError, match="rebuild the index"):
        add_stemmers(files, isolated / "in")
    assert not [path.name for path in isolated.rglob("*")]
