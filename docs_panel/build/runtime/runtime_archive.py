"""The site-independent runtime bundle as one file, the form the wheel ships.

``python build.py runtimes`` (Node, binaryen, terser) writes it; ``docs-panel
build`` reads it and adds a site's index in pure Python
(``docs_panel.build.runtime.bundle.site_files``).
The archive is a deterministic zip: ``runtime.json`` (the manifests' site-independent
values and the two minified templates) and ``files/<path>`` (the output files)::

    data = runtime_archive(runtime)       # the same runtime gives the same bytes
    assert read_runtime(data) == runtime
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from collections.abc import Iterable
from typing import Any

from docs_panel.build.runtime.lean_code import ZIP_DATE
from docs_panel.portable.errors import ConfigError

FORMAT = 1
_META = "runtime.json"
_FILES = "files/"


@dataclasses.dataclass(frozen=True, slots=True)
class Runtime:
    """What every site's bundle shares (``docs_panel.build.runtime.bundle.runtime_bundle``)."""

    files: dict[str, bytes]  # output path -> bytes
    values: dict[str, Any]  # the manifests' site-independent entries
    embed: str  # embed.js, minified, its manifest a placeholder
    loader: str  # pyodide-loader.mjs, minified, its manifest a placeholder


def deterministic_zip(files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip whose bytes depend only on names and contents (fixed dates, sorted).

    The files are stored as they are: the zip travels as a Zstandard twin, one
    stream that compresses across files, and reading it is a copy.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def runtime_archive(runtime: Runtime) -> bytes:
    meta = {"format": FORMAT, "values": runtime.values, "embed": runtime.embed}
    meta["loader"] = runtime.loader
    text = json.dumps(meta, sort_keys=True, ensure_ascii=False, indent=1)
    entries = [(_META, text.encode("utf-8"))]
    entries += [(_FILES + name, data) for name, data in runtime.files.items()]
    return deterministic_zip(entries)


def read_runtime(data: bytes) -> Runtime:
    """The runtime in ``data``; a file that is not one says how to make one."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            meta = json.loads(archive.read(_META))
            files = {
                name.removeprefix(_FILES): archive.read(name)
                for name in archive.namelist()
                if name.startswith(_FILES)
            }
    except (zipfile.BadZipFile, KeyError, ValueError) as err:
        raise ConfigError(
            f"the runtime bundle is unreadable ({err}); rebuild it with `python build.py runtimes`"
        ) from err
    if meta.get("format") != FORMAT:
        raise ConfigError(
            f"the runtime bundle has format {meta.get('format')!r}, this docs-panel reads "
            f"{FORMAT}; rebuild it with `python build.py runtimes`"
        )
    return Runtime(files, meta["values"], meta["embed"], meta["loader"])
