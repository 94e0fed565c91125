"""The Snowball stemmers a site's index uses, fetched beside it, made importable.

Decides only where their modules go (a folder on ``sys.path``); never which: the build
names them in the index's head (``stemmers``, see ``build.runtime.python_sources.stemmer_files``),
so a reader of an English site fetches none.
"""

from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath

from docs_panel.portable.errors import DocsIndexError

FOLDER = Path("/tmp/docs-panel-stemmers")


def add_stemmers(files: object, folder: Path = FOLDER) -> None:
    """Write ``files`` (path → Python source, as the build wrote them) under ``folder``
    and put it on ``sys.path``."""
    if not (
        isinstance(files, dict)
        and all(isinstance(path, str) and isinstance(text, str) for path, text in files.items())
        and all(_inside(path) for path in files)
    ):
        raise DocsIndexError("the index's stemmers file is malformed; rebuild the index")
    for path, source in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    # A folder new to sys.path gets its finder on the next import: no cache to clear
    # (importlib.invalidate_caches would import importlib.metadata, which the worker lacks).
    if str(folder) not in sys.path:
        sys.path.append(str(folder))


def _inside(path: str) -> bool:
    """A relative path of a Python module that stays inside the folder."""
    parts = PurePosixPath(path).parts
    return (
        bool(parts)
        and not PurePosixPath(path).is_absolute()
        and ".." not in parts
        and path.endswith(".py")
    )
