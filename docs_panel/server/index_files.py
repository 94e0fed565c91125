"""The docs index a ``build.py`` output folder holds, read whole into this process.

The folder's ``embed.js`` names the current index (``files.index`` of its manifest):
the folder also keeps the previous build's files for one more build, so "the newest
``index.*.json``" would be a guess. The index's parts, kept only as ``.zst``, are all
added at once: a server has the memory, and a question should never wait on a disk::

    index = read_index(Path("site/docs-panel"))
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Final

from docs_panel.core.docs_index import DocsIndex, load_index
from docs_panel.portable.errors import DocsIndexError

try:
    from compression import zstd  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # before Python 3.14
    from backports import zstd  # type: ignore[no-redef,unused-ignore]

_INDEX_NAME: Final = re.compile(r'"index":"(index\.[0-9a-f]{10}\.json)"')
_REBUILD: Final = "run `python build.py --site DIR` first, then point --index at its output"


def current_index_name(folder: Path) -> str:
    """The index file the folder's ``embed.js`` loads."""
    embed = folder / "embed.js"
    try:
        text = embed.read_text(encoding="utf-8")
    except OSError as err:
        raise DocsIndexError(f"{embed}: cannot read it ({err.strerror}); {_REBUILD}") from None
    found = _INDEX_NAME.search(text)
    if found is None:
        raise DocsIndexError(f"{embed} names no index; {_REBUILD}")
    return found[1]


def read_index(folder: Path) -> DocsIndex:
    """The folder's current index with every part added."""
    head = folder / current_index_name(folder)
    index = load_index(_json(head))
    for key in index.part_keys():
        index.add_part(key, _json(folder / (index.part_file(key) + ".zst")))
    return index


def _json(path: Path) -> object:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DocsIndexError(f"{path}: cannot read it ({err.strerror}); {_REBUILD}") from None
    if path.suffix == ".zst":
        data = zstd.decompress(data)
    try:
        return json.loads(data)
    except ValueError:
        raise DocsIndexError(f"{path} is not JSON; {_REBUILD}") from None
