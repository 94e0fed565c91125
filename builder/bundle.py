"""Assemble the self-contained ``docs-panel/`` folder a site serves.

Everything the panel loads comes from this folder: ``embed.js`` (the one fixed
name a site pastes), the pinned runtimes copied from ``node_modules``, the
panel's Python as zips, the CSS and the docs index. Every other file carries a
content hash in its name, so it can be cached forever; compressible files get a
``.gz`` twin that ``build.py serve`` (or any static server) can send as is.

    >>> files = bundle_files(index_payload={"format": 1, "version": "v", "sections": []})
    >>> "embed.js" in files
    True

Output is deterministic: the same sources give the same bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from widget.core.config import DEFAULTS, STORAGE_NAMES, STORAGE_PREFIX_PATTERN
from widget.core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
WIDGET = ROOT / "widget"

PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
MICROPYTHON_DIR = NODE_MODULES / "@micropython" / "micropython-webassembly-pyscript"
PYODIDE_DIR = NODE_MODULES / "pyodide"

# The chunks PyScript imports dynamically while the panel runs: its plugins'
# small entry modules (always loaded) and the zip reader for `files`. The rest
# (codemirror, xterm, TOML, pyodide_graph) serve features the panel never uses.
PYSCRIPT_DYNAMIC_CHUNKS = (
    "deprecations-manager",
    "donkey",
    "error",
    "py-editor",
    "py-game",
    "py-terminal",
    "zip",
)
MICROPYTHON_FILES = ("micropython.mjs", "micropython.wasm")
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# Pure-Python packages the worker imports, shipped as files (no micropip offline).
WORKER_DEPENDENCIES = ("markdown_it", "mdurl", "bleach", "webencodings")

COMPRESSIBLE = (".js", ".mjs", ".wasm", ".json", ".css", ".py")
MIN_GZIP_SIZE = 1024
ZIP_DATE = (2020, 1, 1, 0, 0, 0)
MANIFEST_MARK = "__DOCS_PANEL_MANIFEST__"

_STATIC_IMPORT = re.compile(r'from\s*"\./([\w.-]+\.js)"')
_DYNAMIC_IMPORT = re.compile(r'import\("\./([\w.-]+\.js)"\)')


def _package_version(folder: Path) -> str:
    try:
        return str(json.loads((folder / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError) as err:
        raise ConfigError(
            f"{folder} is missing or unreadable ({err}); run `npm ci` in {ROOT} first"
        ) from err


def hashed_name(name: str, data: bytes) -> str:
    """``panel.css`` → ``panel.3f2a9c1b0d.css``: a new name whenever the bytes change."""
    stem, dot, ext = name.partition(".")
    digest = hashlib.sha256(data).hexdigest()[:10]
    return f"{stem}.{digest}{dot}{ext}"


def pyscript_chunks(dist: Path = PYSCRIPT_DIST) -> list[str]:
    """``core.js`` and the chunks it reaches: static imports plus the dynamic ones we use."""
    wanted = {"core.js"}
    todo = ["core.js"]
    while todo:
        source = (dist / todo.pop()).read_text(encoding="utf-8")
        found = set(_STATIC_IMPORT.findall(source))
        found |= {
            chunk
            for chunk in _DYNAMIC_IMPORT.findall(source)
            if chunk.rsplit("-", 1)[0] in PYSCRIPT_DYNAMIC_CHUNKS
        }
        todo.extend(sorted(found - wanted))
        wanted |= found
    return sorted(wanted)


def deterministic_zip(files: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip whose bytes depend only on names and contents (fixed dates, sorted)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def _python_files(folder: Path, arcroot: str) -> Iterable[tuple[str, bytes]]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield f"{arcroot}/{path.relative_to(folder).as_posix()}", path.read_bytes()


def _dependency_files() -> Iterable[tuple[str, bytes]]:
    import importlib.util

    for name in WORKER_DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(f"Python package {name!r} is not installed; run `pip install .`")
        yield from _python_files(Path(next(iter(spec.submodule_search_locations))), name)


def worker_zip() -> bytes:
    """The worker's Python: ``widget.core``, ``widget.worker`` and their dependencies."""
    files = [("widget/__init__.py", b"")]
    files += _python_files(WIDGET / "core", "widget/core")
    files += _python_files(WIDGET / "worker", "widget/worker")
    files += _dependency_files()
    return deterministic_zip(files)


SHARED_CORE = (
    "errors.py",
    "i18n.py",
    "lifecycle.py",
    "protocol.py",
    *(f"locales/{path.name}" for path in sorted((WIDGET / "core" / "locales").glob("*.py"))),
)
"""The core modules the shell imports too, written in the Python MicroPython has: the
UI words of every language are among them (the shell draws before the worker is up)."""


def shell_zip() -> bytes:
    """The MicroPython shell's modules (``main.py`` is loaded as the script itself), and
    the core modules both runtimes share."""
    files = [f for f in _python_files(WIDGET / "shell", "shell") if f[0] != "shell/main.py"]
    files += [("widget/__init__.py", b""), ("widget/core/__init__.py", b"")]
    files += [
        (f"widget/core/{name}", (WIDGET / "core" / name).read_bytes()) for name in SHARED_CORE
    ]
    return deterministic_zip(files)


def bundle_files(index_payload: Mapping[str, object]) -> dict[str, bytes]:
    """Every file of the output folder, by relative path (before ``.gz`` twins)."""
    out: dict[str, bytes] = {}

    def runtime(folder: Path, prefix: str, names: Iterable[str]) -> str:
        directory = f"runtime/{prefix}-{_package_version(folder)}"
        for name in names:
            out[f"{directory}/{name}"] = (folder / name).read_bytes()
        return directory

    pyscript = runtime(PYSCRIPT_DIST.parent, "pyscript", [])
    for chunk in pyscript_chunks():
        out[f"{pyscript}/{chunk}"] = (PYSCRIPT_DIST / chunk).read_bytes()
    micropython = runtime(MICROPYTHON_DIR, "micropython", MICROPYTHON_FILES)
    pyodide = runtime(PYODIDE_DIR, "pyodide", PYODIDE_FILES)

    def hashed(name: str, data: bytes) -> str:
        path = hashed_name(name, data)
        out[path] = data
        return path

    index = json.dumps(index_payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    manifest = {
        "pyscript": f"{pyscript}/core.js",
        "micropython": f"{micropython}/micropython.mjs",
        "pyodide": f"{pyodide}/pyodide.mjs",
        "shell": hashed("shell.py", (WIDGET / "shell" / "main.py").read_bytes()),
        "shellZip": hashed("shell.zip", shell_zip()),
        "worker": hashed("worker.py", (WIDGET / "worker" / "main.py").read_bytes()),
        "workerZip": hashed("worker.zip", worker_zip()),
        "css": hashed("panel.css", (WIDGET / "assets" / "panel.css").read_bytes()),
        "index": hashed("index.json", index.encode("utf-8")),
    }
    template = (WIDGET / "assets" / "embed.js").read_text(encoding="utf-8")
    if MANIFEST_MARK not in template:
        raise ConfigError(f"widget/assets/embed.js lost its {MANIFEST_MARK} placeholder")
    # The loader needs the storage keys before the worker exists (to see a conversation
    # to restore), and must name them exactly as the worker's config does.
    storage = {
        "pattern": STORAGE_PREFIX_PATTERN,
        "fallback": DEFAULTS.storage_prefix,
        "names": list(STORAGE_NAMES),
    }
    manifest_json = json.dumps(
        {"files": manifest, "storage": storage}, sort_keys=True, separators=(",", ":")
    )
    out["embed.js"] = template.replace(MANIFEST_MARK, manifest_json).encode("utf-8")
    return out


def with_gzip_twins(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """Add ``name.gz`` beside each compressible file where gzip actually saves bytes."""
    out = dict(files)
    for name, data in files.items():
        if name.endswith(COMPRESSIBLE) and len(data) >= MIN_GZIP_SIZE:
            packed = gzip.compress(data, compresslevel=9, mtime=0)
            if len(packed) < len(data) * 0.9:
                out[name + ".gz"] = packed
    return out
