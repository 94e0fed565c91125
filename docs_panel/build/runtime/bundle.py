"""Assemble the self-contained ``docs-panel/`` folder a site serves.

Everything the panel loads comes from this folder: ``embed.js`` (the one fixed
name a site pastes), the pinned runtimes copied from ``node_modules``, the
panel's Python as zips, the CSS and the docs index. Every other file carries a
content hash in its name, so it can be cached forever; compressible files get a
``.gz`` twin that ``build.py serve`` (or any static server) can send as is.
``THIRD-PARTY-NOTICES.txt`` holds the licenses of what it carries
(:mod:`docs_panel.build.runtime.notices`).

The worker's side is cut to what it runs: its interpreter module is
``pyodide-loader.mjs``, which loads Pyodide's wasm, the standard library,
the worker's zip and the index from their Zstandard (``.zst``) twins whatever
the host (the wasm and the standard library only ship as twins): a fifth fewer
bytes than gzip, the same whether or not the host compresses, and no
Chromium has a built-in decoder for anything better than gzip, so the loader
brings one: Zstandard's own, compiled to wasm (``zstd_wasm``). The standard
library is trimmed to the modules the worker imports, there is no package lock,
and the worker's Python and that library come as bytecode for the bundled
Pyodide (:mod:`docs_panel.build.runtime.pyodide_bytecode`).

    >>> from docs_panel.core.index_build import build_index
    >>> files = bundle_files(build_index([]))
    >>> "embed.js" in files
    True

Output is deterministic: the same sources give the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import json
import re
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import get_args

from docs_panel.build.runtime.import_walk import reachable
from docs_panel.build.runtime.js_modules import inlined
from docs_panel.build.runtime.lean_source import lean_source
from docs_panel.build.runtime.node_cache import cached, digest, run_node
from docs_panel.build.runtime.notices import notices, npm_package
from docs_panel.build.runtime.pyodide_bytecode import compile_worker, pyscript_modules
from docs_panel.build.runtime.pyodide_wasm import pruned_wasm
from docs_panel.build.runtime.runtime_archive import Runtime, deterministic_zip
from docs_panel.core.analyzers import stemmer_module
from docs_panel.core.config import (
    ASK_PARAM_PATTERN,
    DEFAULTS,
    LANGUAGE_PATTERN,
    SHORTCUT_PATTERN,
    STORAGE_NAMES,
    STORAGE_PREFIX_PATTERN,
    Preload,
)
from docs_panel.core.docs_index import PART_KINDS
from docs_panel.core.errors import ConfigError
from docs_panel.core.i18n import LANGUAGES, RIGHT_TO_LEFT, table
from docs_panel.core.index_build import split_index
from docs_panel.core.session_fields import EMBED_FIELDS

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

ROOT = Path(__file__).resolve().parents[3]
NODE_MODULES = ROOT / "node_modules"
PACKAGE = ROOT / "docs_panel"

PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
MICROPYTHON_DIR = NODE_MODULES / "@micropython" / "micropython-webassembly-pyscript"
PYODIDE_DIR = NODE_MODULES / "pyodide"
ZSTDDEC_DIR = NODE_MODULES / "zstddec"

# The chunks PyScript imports dynamically while the panel runs: the error plugin (it
# shows a Python error on the page). The rest serve features the panel never uses:
# the zip reader for `files` (the shell's modules come as one JSON file), TOML,
# pyodide_graph, and the plugins in PYSCRIPT_PLUGINS_OFF.
PYSCRIPT_DYNAMIC_CHUNKS = ("error",)
# PyScript's plugins the panel does not use, taken out of its core's table of plugins
# (pyscript_core): it loads every plugin on every start, for each script type, unless
# a config turns it off (five requests; the editor, terminal and game loop never run).
PYSCRIPT_PLUGINS_OFF = (
    "deprecations-manager",
    "donkey",
    "py-editor",
    "py-game",
    "py-terminal",
)
# MicroPython's module fetches its wasm here; micropython_module() fetches the gzip twin.
MICROPYTHON_WASM_FETCH = 'var response=fetch(binaryFile,{credentials:"same-origin"});'
# zstddec's streaming module holds its wasm as one base64 string.
ZSTDDEC_WASM = re.compile(r'const wasm = "([A-Za-z0-9+/=]+)";')
# Pure-Python packages the worker imports, shipped as files (no micropip offline).
WORKER_DEPENDENCIES = ("markdown_it", "mdurl", "bleach", "webencodings")
# Shipped beside a site's index, only the stemmers its languages use (``stemmer_files``).
STEMMERS = "snowballstemmer"

COMPRESSIBLE = (".js", ".mjs", ".wasm", ".json", ".css", ".py", ".zip")
MIN_GZIP_SIZE = 1024
# Level 19 with a 2 MiB window: the wasm is 2.8 MiB (3.4 as gzip). The window is what
# the streaming decoder copies along per block, so a larger one costs the reader time.
ZSTD_OPTIONS: dict[int, int] = {
    zstd.CompressionParameter.compression_level: 19,
    zstd.CompressionParameter.window_log: 21,
}
#: Each twin's method in full (library version, options): what a cache of twins
#: (``build.twin_cache``) keys them by beside the bytes.
ZSTD_METHOD = f"zstd {zstd.zstd_version} {sorted(ZSTD_OPTIONS.items())}"
GZIP_METHOD = f"gzip {zlib.ZLIB_RUNTIME_VERSION} level 9 mtime 0"
#: Makes a twin of the bytes given: ``zstd_twin``, ``gzip_twin``, or a cache of them.
Compress = Callable[[bytes], bytes]
MANIFEST_MARK = "__DOCS_PANEL_MANIFEST__"
LOADER_MARK = "__DOCS_PANEL_LOADER__"

# What embed.js shows before the shell exists, from each language's table, in order;
# and its alerts, fetched only when one is shown (see ``alerts``).
EMBED_WORDS = ("launcher", "launcher_title", "key_ctrl", "ask_about_this")
ALERTS = ("csp_blocked", "start_failed")
# The panel's own JavaScript goes out minified, by terser from npm (pinned).
MINIFY_JS = ROOT / "docs_panel" / "build" / "runtime" / "minify_js.mjs"
TERSER = NODE_MODULES / "terser" / "package.json"

# A large index's part files: the loader answers them from their twins by this rule.
INDEX_PART = rf"index-(?:{'|'.join(PART_KINDS)})-\d+\.[0-9a-f]{{10}}\.json"
_STATIC_IMPORT = re.compile(r'from\s*"\./([\w.-]+\.js)"')
# What function_module rewrites, and what it refuses (a statement only a module has).
_SOURCE_MAP = re.compile(r"\n//# sourceMappingURL=\S*\s*$")
_EXPORT_LIST = re.compile(r"export\s*\{([\w$]+(?: as [\w$]+)?(?:,[\w$]+(?: as [\w$]+)?)*)\};?")
_EXPORT_DEFAULT = re.compile(r"export default ([\w$]+);")
_EXPORT_FUNCTION = re.compile(r"export ((?:async )?function\*? ?([\w$]+))")
_MODULE_STATEMENT = re.compile(
    r"(?:^|[;{}])\s*(?:import\s*(?:[{*]|\"[^\"]*\"|[\w$]+\s*from\s*\")"
    r"|export\s*(?:[{*]|default\b|const\b|let\b|var\b|class\b|(?:async\s+)?function\b))"
)
_DYNAMIC_IMPORT = re.compile(r'import\("\./([\w.-]+\.js)"\)')


def _package_version(folder: Path) -> str:
    return str(npm_package(folder)["version"])


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


def _python_files(folder: Path, arcroot: str) -> Iterable[tuple[str, bytes]]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield f"{arcroot}/{path.relative_to(folder).as_posix()}", path.read_bytes()


def dependency_files() -> Iterable[tuple[str, bytes]]:
    for name in WORKER_DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(f"Python package {name!r} is not installed; run `pip install .`")
        yield from _python_files(Path(next(iter(spec.submodule_search_locations))), name)


def stemmer_files(analyzers: object) -> dict[str, str]:
    """The Snowball modules an index's ``analyzers`` import, by path (none for English or
    CJK alone): the worker fetches them with the index (``stemmers`` in its head). Not the
    package's own __init__, which imports all 36 stemmers."""
    needed = {stemmer_module(value) for value in analyzers} if isinstance(analyzers, list) else ()
    modules = sorted(name for name in needed if name)
    if not modules:
        return {}
    spec = importlib.util.find_spec(STEMMERS)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"Python package {STEMMERS!r} is not installed; run `pip install .`")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = {f"{STEMMERS}/__init__.py": '"""The Snowball stemmers a site uses."""\n'}
    for name in ("among", "basestemmer", *(module.rpartition(".")[2] for module in modules)):
        files[f"{STEMMERS}/{name}.py"] = (folder / f"{name}.py").read_text(encoding="utf-8")
    return files


def worker_sources() -> list[tuple[str, bytes]]:
    """The worker's Python: ``docs_panel.worker``, the ``docs_panel.core`` modules it imports
    however deep (the server install's own, such as ``report_shape``, stay out of the
    browser), every locale (``i18n`` imports them by name), and their dependencies."""
    start = sorted((PACKAGE / "worker").glob("*.py"))
    start += sorted((PACKAGE / "core" / "locales").glob("*.py"))
    paths = sorted(reachable(start, "docs_panel", ROOT))
    files = [(path.relative_to(ROOT).as_posix(), path.read_bytes()) for path in paths]
    files += dependency_files()
    return files


SHARED_CORE = (
    "caps.py",
    "copy_text.py",
    "errors.py",
    "i18n.py",
    "lifecycle.py",
    "page_api.py",
    "protocol.py",
    "session_fields.py",
    *(f"locales/{path.name}" for path in sorted((PACKAGE / "core" / "locales").glob("*.py"))),
)
"""The core modules the shell imports too, written in the Python MicroPython has: the
UI words of every language are among them (the shell draws before the worker is up)."""


def shell_files() -> bytes:
    """The MicroPython shell's modules (``main.py`` is loaded as the script itself) and
    the core modules both runtimes share, as one gzipped JSON object of sources by path.

    Without comments or docstrings (``lean_source``: a third fewer bytes), line for
    line. ``main.py`` writes them out before its first import. PyScript's ``files`` would
    unpack a zip with a 70 KiB reader of its own, fetched after the zip; and one
    gzip stream over all the sources is a quarter smaller than a zip of them.
    """
    files = [
        f
        for f in _python_files(PACKAGE / "shell", "docs_panel/shell")
        if f[0] != "docs_panel/shell/main.py"
    ]
    files += [("docs_panel/__init__.py", b""), ("docs_panel/core/__init__.py", b"")]
    files += [
        (f"docs_panel/core/{name}", (PACKAGE / "core" / name).read_bytes()) for name in SHARED_CORE
    ]
    return gzip_twin(_json({name: lean_source(data.decode("utf-8")) for name, data in files}))


def bundle_files(index_payload: Mapping[str, object]) -> dict[str, bytes]:
    """Every file of the output folder, by relative path (before ``.gz`` twins)."""
    return site_files(runtime_bundle(), index_payload)


def runtime_bundle() -> Runtime:
    """The site-independent part of every bundle: the runtimes as the panel ships them,
    its Python, CSS and notices, and embed.js and the loader minified with their
    manifests left as placeholders (:func:`site_files` fills them). Needs Node."""
    out: dict[str, bytes] = {}

    def runtime(folder: Path, prefix: str, names: Iterable[str], tag: str = "") -> str:
        directory = f"runtime/{prefix}-{_package_version(folder)}{tag}"
        for name in names:
            out[f"{directory}/{name}"] = (folder / name).read_bytes()
        return directory

    # PyScript's core chunk and MicroPython's module come as stubs and gzipped function
    # bodies (function_module); the folders say so, as their files are cached for good.
    core = _STATIC_IMPORT.findall((PYSCRIPT_DIST / "core.js").read_text(encoding="utf-8"))
    if len(core) != 1:
        raise ConfigError("PyScript's core.js changed shape: its core chunk was not found")
    core_body_name = core[0].replace(".js", ".body.js.gz")
    core_stub, core_body = function_module(pyscript_core(PYSCRIPT_DIST / core[0]), core_body_name)
    pyscript = runtime(PYSCRIPT_DIST.parent, "pyscript", [], "-" + digest(core_body)[:8])
    for chunk in pyscript_chunks():
        out[f"{pyscript}/{chunk}"] = (PYSCRIPT_DIST / chunk).read_bytes()
    out[f"{pyscript}/{core[0]}"] = core_stub
    out[f"{pyscript}/{core_body_name}"] = gzip_twin(core_body)
    micropython_body_name = "micropython.body.js.gz"
    micropython_stub, micropython_body = function_module(
        micropython_module(), micropython_body_name
    )
    micropython = runtime(
        MICROPYTHON_DIR, "micropython", ["micropython.wasm"], "-" + digest(micropython_body)[:8]
    )
    out[f"{micropython}/micropython.mjs"] = micropython_stub
    out[f"{micropython}/{micropython_body_name}"] = gzip_twin(micropython_body)
    out[f"{micropython}/micropython.wasm.gz"] = gzip_twin(out[f"{micropython}/micropython.wasm"])
    # Pyodide's wasm and glue are the build's own transforms of the package's files: the
    # folder's name says which, since its files are cached for good under it.
    wasm, glue_js = pruned_wasm(PYODIDE_DIR), glue_body()
    _, module_js = function_module(
        (PYODIDE_DIR / "pyodide.mjs").read_text(encoding="utf-8"), "pyodide.body.js"
    )
    pyodide = runtime(PYODIDE_DIR, "pyodide", [], "-" + digest(wasm, glue_js, module_js)[:8])
    zstd_decoder = runtime(ZSTDDEC_DIR, "zstddec", []) + "/zstd.wasm.gz"
    out[zstd_decoder] = gzip_twin(zstd_wasm())

    def hashed(name: str, data: bytes) -> str:
        path = hashed_name(name, data)
        out[path] = data
        return path

    # Files the loader answers from their Zstandard twins (the name plus ".zst"), by the
    # name they are asked for, grouped by content type; index parts go by INDEX_PART
    # instead of a list (a large site has hundreds).
    twins: dict[str, list[str]] = {}
    _twin(out, twins, f"{pyodide}/pyodide.asm.wasm", wasm, "application/wasm")
    glue = _twin(out, twins, f"{pyodide}/pyodide.asm.js", glue_js, "text/javascript")
    module = _twin(out, twins, f"{pyodide}/pyodide.body.js", module_js, "text/javascript")
    chunks = (PYSCRIPT_DIST / chunk for chunk in pyscript_chunks())
    compiled = compile_worker(
        worker_sources(),
        pyscript_modules(p.read_text(encoding="utf-8") for p in chunks),
        PYODIDE_DIR,
    )
    stdlib = deterministic_zip(compiled.stdlib.items())
    stdlib_name = _twin(out, twins, hashed_name("stdlib.zip", stdlib), stdlib, "application/zip")
    worker = deterministic_zip(compiled.worker.items())
    worker_name = _twin(out, twins, hashed_name("worker.zip", worker), worker, "application/zip")
    lock = json.loads((PYODIDE_DIR / "pyodide-lock.json").read_text(encoding="utf-8"))
    loader = {
        "pyodide": module,
        "zstd": zstd_decoder,
        "stdlib": stdlib_name,
        "glue": glue,
        "workerZip": worker_name,
        "early": [glue, worker_name],
        "twins": twins,
        "indexPart": INDEX_PART,
        "lockInfo": lock["info"],
    }
    manifest = {
        "pyscript": f"{pyscript}/core.js",
        "micropython": f"{micropython}/micropython.mjs",
        "shell": hashed("shell.py", (PACKAGE / "shell" / "main.py").read_bytes()),
        "shellFiles": hashed("shell.json.gz", shell_files()),
        "worker": hashed("worker.py", (PACKAGE / "worker" / "main.py").read_bytes()),
        "css": hashed("panel.css", (PACKAGE / "assets" / "panel.css").read_bytes()),
        "store": hashed("store.mjs", (PACKAGE / "assets" / "store.mjs").read_bytes()),
        # embed.js's alerts, by language: a Content Security Policy blocks the runtimes;
        # they failed to load
        "alerts": hashed("alerts.json", _json({lang: alerts(lang) for lang in LANGUAGES})),
    }
    # The loader needs the storage keys, the shortcut, the language and when to preload
    # before the worker exists (to see a conversation to restore, to open on the key, to
    # label the launcher, to fetch the runtimes), judged as the config does.
    storage = {
        "pattern": STORAGE_PREFIX_PATTERN,
        "fallback": DEFAULTS.storage_prefix,
        "names": list(STORAGE_NAMES),
    }
    shortcut = {"pattern": SHORTCUT_PATTERN, "fallback": DEFAULTS.shortcut}
    language = {"pattern": LANGUAGE_PATTERN, "fallback": DEFAULTS.language}
    preload = {"values": list(get_args(Preload)), "fallback": DEFAULTS.preload}
    ask_param = {"pattern": ASK_PARAM_PATTERN, "fallback": DEFAULTS.ask_param}
    embedded = {
        "storage": storage,
        "shortcut": shortcut,
        "language": language,
        "preload": preload,
        "askParam": ask_param,
        "session": list(EMBED_FIELDS),  # this tab's session record: its fields embed.js reads
        "words": {language: [table(language)[k] for k in EMBED_WORDS] for language in LANGUAGES},
        "alerts": alerts("en"),  # when alerts.json cannot be fetched either
        "rtl": list(RIGHT_TO_LEFT),
    }
    runtimes = (PYODIDE_DIR, PYSCRIPT_DIST.parent, MICROPYTHON_DIR, ZSTDDEC_DIR)
    licenses = notices(runtimes, (*WORKER_DEPENDENCIES, STEMMERS), cpython=lock["info"]["python"])
    out["THIRD-PARTY-NOTICES.txt"] = licenses.encode()
    return Runtime(
        files=out,
        values={
            "loader": loader,
            "manifest": manifest,
            "embedded": embedded,
            # Fetched by embed.js as the shell starts (see site_files), less the files
            # a site's build names.
            "runtimeLane": [zstd_decoder, module + ".zst", glue + ".zst", stdlib_name + ".zst"],
            "wasmLane": [f"{pyodide}/pyodide.asm.wasm.zst", worker_name + ".zst"],
        },
        embed=_template("embed.js", MANIFEST_MARK),
        loader=_template("pyodide-loader.mjs", LOADER_MARK, module=True),
    )


def site_files(
    runtime: Runtime, index_payload: Mapping[str, object], compress: Compress | None = None
) -> dict[str, bytes]:
    """``runtime``'s files plus the site's own: the index, and the loader and embed.js
    with the manifests that name it, each Zstandard twin made by ``compress`` (default
    ``zstd_twin``). Pure Python: no Node, no network."""
    compress = compress or zstd_twin
    out = dict(runtime.files)
    values = runtime.values
    twins = {kind: list(names) for kind, names in values["loader"]["twins"].items()}
    # A large site's index comes as a head and parts the worker fetches for a question.
    head, parts = split_index(index_payload)
    for key, part in parts.items():
        data = _json(part)
        name = hashed_name(f"index-{key}.json", data)
        if not re.fullmatch(INDEX_PART, name):
            raise ConfigError(f"index part {name} does not fit the loader's rule {INDEX_PART}")
        head["parts"]["files"][key] = name
        _twin(out, twins, name, data, "application/json", listed=False, compress=compress)
    stemmers = stemmer_files(head.get("analyzers", []))
    if stemmers:
        data = _json(stemmers)
        head["stemmers"] = hashed_name("index-stemmers.json", data)
        _twin(out, twins, head["stemmers"], data, "application/json", compress=compress)
    index = _json(head)
    index_name = hashed_name("index.json", index)
    _twin(out, twins, index_name, index, "application/json", keep=True, compress=compress)
    loader = {**values["loader"], "twins": twins, "index": index_name}
    loader_js = _filled(runtime.loader, LOADER_MARK, loader)
    # The worker's interpreter module: Pyodide, through the panel's loader.
    pyodide = hashed_name("pyodide-loader.mjs", loader_js)
    out[pyodide] = loader_js
    manifest = {**values["manifest"], "pyodide": pyodide, "index": index_name}
    # Fetched by embed.js as the shell starts, so the worker finds them in the cache, in
    # two lanes: what the interpreter's start needs, in the order the worker asks; and
    # the wasm, then the worker's zip and the index, which are read only once the
    # interpreter is up (on a slow network they would slow the wasm down).
    runtime_lane = [manifest["worker"], pyodide, *values["runtimeLane"]]
    wasm_lane = [*values["wasmLane"], index_name + ".zst"]
    embedded = {**values["embedded"], "files": manifest, "prefetch": [wasm_lane, runtime_lane]}
    out["embed.js"] = _filled(runtime.embed, MANIFEST_MARK, embedded)
    return out


def _twin(
    out: dict[str, bytes],
    twins: dict[str, list[str]],
    name: str,
    data: bytes,
    content_type: str,
    *,
    keep: bool = False,
    listed: bool = True,
    compress: Compress | None = None,
) -> str:
    """Put ``name``'s Zstandard twin in ``out`` (and ``name`` itself if ``keep``), listed
    in ``twins`` under ``content_type`` for the loader unless not ``listed``."""
    out[name + ".zst"] = (compress or zstd_twin)(data)
    if keep:
        out[name] = data
    if listed:
        twins.setdefault(content_type, []).append(name)
    return name


def zstd_wasm() -> bytes:
    """Zstandard's decoder compiled to wasm (59 KiB, 22 gzipped), as the ``zstddec``
    package embeds it in its streaming module.

    The loader runs it through its exports (``ZSTD_decompressStream`` and the buffers it
    fills): in a fresh worker it decodes and compiles Pyodide's wasm in about half the
    time a JavaScript decoder takes, whose code is not yet optimised on any start that
    needs it. The package's own module is not used: it instantiates the wasm from a
    ``data:`` URL, which a site's ``connect-src`` would have to allow.
    """
    source = (ZSTDDEC_DIR / "dist" / "zstddec-stream.mjs").read_text(encoding="utf-8")
    found = ZSTDDEC_WASM.findall(source)
    wasm = base64.b64decode(found[0]) if len(found) == 1 else b""
    if not wasm.startswith(b"\0asm"):
        raise ConfigError("zstddec-stream.mjs changed shape: its wasm was not found")
    return wasm


def micropython_module() -> str:
    """MicroPython's module, its wasm fetched as the gzip twin beside it and decoded by
    embed.js's ``gunzipped`` unless the host decoded it already, so a host that
    compresses nothing sends the gzipped bytes too (the wasm stays, for its fallback)."""
    source = (MICROPYTHON_DIR / "micropython.mjs").read_text(encoding="utf-8")
    if source.count(MICROPYTHON_WASM_FETCH) != 1:
        raise ConfigError("micropython.mjs changed shape: its wasm's fetch was not found")
    twin = 'var response=globalThis.__docsPanel.gunzipped(binaryFile+".gz","application/wasm");'
    return source.replace(MICROPYTHON_WASM_FETCH, twin)


def pyscript_core(path: Path) -> str:
    """PyScript's core chunk without the plugins in PYSCRIPT_PLUGINS_OFF in its table of
    plugins, which it otherwise loads on every start."""
    source = path.read_text(encoding="utf-8")
    for name in PYSCRIPT_PLUGINS_OFF:
        entry = re.compile(rf'(?:"{name}"|{name}):\(\)=>import\("\./{name}-[\w-]+\.js"\),?')
        source, found = entry.subn("", source)
        if found != 1:
            raise ConfigError(f"PyScript's core changed shape: its {name} plugin was not found")
    return source


def function_module(source: str, body_name: str) -> tuple[bytes, bytes]:
    """An ES module of the page's runtimes as a stub module and the body of an async
    function of ``importMeta`` that runs its code and returns its exports.

    The page imports modules from their URLs, so a host that compresses nothing sends
    them as they are: PyScript's core is 133 KiB against 47 gzipped, MicroPython's
    module 106 against 30. The stub, imported in their place, fetches the body (the
    gzip twin ``body_name``, beside it) through embed.js's ``gunzipped``, runs it and
    exports what it returns::

        stub, body = function_module('const a=1;export{a as b};', "x.body.js.gz")
        # stub: const __module=await new(async()=>{}).constructor("importMeta",
        #       <x.body.js.gz, gunzipped>)({url:import.meta.url});export const{b}=__module;
        # body: "use strict";const a=1;return{b:a};

    Only the shapes these bundles have are rewritten (an export list, ``export
    default name``, exported functions; ``import.meta``; dynamic imports of chunks
    beside it, which resolve from ``importMeta.url``); anything else, such as a static
    import, is refused. ``new Function`` needs only the ``'unsafe-eval'`` the
    runtimes need anyway; a ``blob:`` module would need ``blob:`` in the site's
    ``script-src``.
    """
    exports: dict[str, str] = {}  # exported name -> local name

    def listed(match: re.Match[str]) -> str:
        for item in match.group(1).split(","):
            local, _, exported = item.partition(" as ")
            exports[exported or local] = local
        return ""

    def default(match: re.Match[str]) -> str:
        exports["default"] = match.group(1)
        return ""

    def declared(match: re.Match[str]) -> str:
        exports[match.group(2)] = match.group(2)
        return match.group(1)

    body = _SOURCE_MAP.sub("", source)
    body = _EXPORT_LIST.sub(listed, body)
    body = _EXPORT_DEFAULT.sub(default, body)
    body = _EXPORT_FUNCTION.sub(declared, body)
    if not exports or "__module" in exports or _MODULE_STATEMENT.search(body):
        raise ConfigError(f"{body_name}: the module changed shape; it cannot run as a function")
    body = body.replace("import.meta", "importMeta")
    body = _DYNAMIC_IMPORT.sub(r'import(new URL("./\1",importMeta.url).href)', body)
    returned = ",".join(f"{name}:{local}" for name, local in exports.items())
    named = ",".join(name for name in exports if name != "default")
    url = f"new URL({json.dumps(body_name)},import.meta.url).href"
    code = f'await(await globalThis.__docsPanel.gunzipped({url},"text/javascript")).text()'
    stub = f'const __module=await new(async()=>{{}}).constructor("importMeta",{code})'
    stub += "({url:import.meta.url});"
    stub += f"export const{{{named}}}=__module;" if named else ""
    stub += "export default __module.default;" if "default" in exports else ""
    return stub.encode(), f'"use strict";{body}\nreturn{{{returned}}};'.encode()


def glue_body() -> bytes:
    """Pyodide's JS glue (``pyodide.asm.mjs``) as the body of a function of ``importMeta``
    that returns its ``createPyodideModule``, for the loader to build with ``new Function``.

    As a module it could only be imported from its URL, so it would cross the wire as
    the host sends it: 1.2 MB from a host that compresses nothing. As a function body it
    travels as a Zstandard twin like the wasm (the CSP already allows ``'unsafe-eval'``,
    which Pyodide needs).
    """
    source = (PYODIDE_DIR / "pyodide.asm.mjs").read_text(encoding="utf-8")
    name = "_createPyodideModule"
    export = f"export default {name};"
    if source.count(export) != 1 or not source.startswith(f"async function {name}("):
        raise ConfigError("pyodide.asm.mjs changed shape: the loader cannot rebuild it")
    body = source.replace("import.meta", "importMeta").replace(export, f"return {name};")
    return body.encode("utf-8")


def alerts(language: str) -> list[str]:
    """embed.js's alerts in ``language``, as ``ALERTS`` orders them."""
    return [table(language)[key] for key in ALERTS]


def _template(asset: str, mark: str, *, module: bool = False) -> str:
    """``docs_panel/assets/<asset>`` with the modules it imports inlined
    (:mod:`docs_panel.build.runtime.js_modules`), minified, ``mark`` standing for its manifest."""
    assets = PACKAGE / "assets"
    source = inlined((assets / asset).read_text(encoding="utf-8"), assets, asset)
    template = _minified(source.encode("utf-8"), module=module).decode()
    if mark not in template:
        raise ConfigError(f"docs_panel/assets/{asset} lost its {mark} placeholder")
    return template


def _filled(template: str, mark: str, values: Mapping[str, object]) -> bytes:
    """``template`` with ``values`` as a JSON object in place of ``mark`` (its ``M``)."""
    return template.replace(mark, _json(values).decode("utf-8")).encode("utf-8")


def _minified(source: bytes, *, module: bool) -> bytes:
    """Our JS minified (terser, in Node; cached): comments, spaces and long local names
    are for this repository's readers, and every page pays for embed.js, every start
    for the loader (embed.js: 5,079 → 4,531 bytes gzipped)."""
    kind = "module" if module else "script"
    key = digest(MINIFY_JS.read_bytes(), TERSER.read_bytes(), kind.encode(), source)

    def make(out: Path) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            plain = Path(scratch) / "plain.js"
            plain.write_bytes(source)
            run_node([MINIFY_JS, plain, out, kind], "minify the panel's JavaScript")

    return cached("js", key, ".js", make).read_bytes()


def _json(values: object) -> bytes:
    return json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def gzip_twin(data: bytes) -> bytes:
    """``data``'s gzip twin (``GZIP_METHOD``)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def zstd_twin(data: bytes) -> bytes:
    """``data``'s Zstandard twin (``ZSTD_METHOD``)."""
    return zstd.compress(data, options=ZSTD_OPTIONS)


def with_gzip_twins(
    files: Mapping[str, bytes], compress: Compress | None = None
) -> dict[str, bytes]:
    """Add ``name.gz`` beside each compressible file where gzip (``compress``, default
    ``gzip_twin``) actually saves bytes."""
    compress = compress or gzip_twin
    out = dict(files)
    for name, data in files.items():
        if name + ".zst" in files or name + ".gz" in files:  # its twin is made already
            continue
        if name.endswith(COMPRESSIBLE) and len(data) >= MIN_GZIP_SIZE:
            packed = compress(data)
            if len(packed) < len(data) * 0.9:
                out[name + ".gz"] = packed
    return out
