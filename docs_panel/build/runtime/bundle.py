"""Assemble the self-contained ``docs-panel/`` folder a site serves.

Everything the panel loads comes from this folder: ``embed.js`` (the one fixed
name a site pastes), the pinned runtimes copied from ``node_modules``
(:mod:`.vendor_patches`), the panel's Python as zips (:mod:`.python_sources`), the
CSS and the docs index. Every other file carries a content hash in its name, so it
can be cached forever; compressible files get a ``.gz`` twin that ``build.py
serve`` (or any static server) can send as is (:mod:`.twins`).
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

    >>> from docs_panel.build.index_build import build_index
    >>> files = bundle_files(build_index([]))
    >>> "embed.js" in files
    True

It decides which files a bundle holds and what its manifests say; it never
patches a runtime, rewrites a module or compresses a file itself.
Output is deterministic: the same sources give the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import get_args

from docs_panel.build.index_build import split_index
from docs_panel.build.runtime.function_module import STATIC_IMPORT, function_module
from docs_panel.build.runtime.js_templates import (
    EMBED_WORDS,
    LOADER_MARK,
    MANIFEST_MARK,
    alerts,
    filled,
    template,
)
from docs_panel.build.runtime.node_cache import digest
from docs_panel.build.runtime.notices import notices, npm_package
from docs_panel.build.runtime.paths import (
    MICROPYTHON_DIR,
    PACKAGE,
    PYODIDE_DIR,
    PYSCRIPT_DIST,
    ZSTDDEC_DIR,
)
from docs_panel.build.runtime.pyodide_bytecode import compile_worker, pyscript_modules
from docs_panel.build.runtime.pyodide_wasm import pruned_wasm
from docs_panel.build.runtime.python_sources import (
    STEMMERS,
    WORKER_DEPENDENCIES,
    shell_files,
    stemmer_files,
    worker_sources,
)
from docs_panel.build.runtime.runtime_archive import Runtime, deterministic_zip
from docs_panel.build.runtime.twins import Compress, gzipped, hashed_name, json_bytes, zstd_twin
from docs_panel.build.runtime.vendor_patches import (
    glue_body,
    micropython_module,
    pyscript_chunks,
    pyscript_core,
    zstd_wasm,
)
from docs_panel.core.config import (
    ASK_PARAM_PATTERN,
    DEFAULTS,
    LANGUAGE_PATTERN,
    SHORTCUT_PATTERN,
    STORAGE_NAMES,
    STORAGE_PREFIX_PATTERN,
    Preload,
)
from docs_panel.core.index_format import PART_KINDS
from docs_panel.portable.errors import ConfigError
from docs_panel.portable.i18n import LANGUAGES, RIGHT_TO_LEFT, table
from docs_panel.portable.session_fields import EMBED_FIELDS

# A large index's part files: the loader answers them from their twins by this rule.
INDEX_PART = rf"index-(?:{'|'.join(PART_KINDS)})-\d+\.[0-9a-f]{{10}}\.json"


def _package_version(folder: Path) -> str:
    return str(npm_package(folder)["version"])


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
    core = STATIC_IMPORT.findall((PYSCRIPT_DIST / "core.js").read_text(encoding="utf-8"))
    if len(core) != 1:
        raise ConfigError("PyScript's core.js changed shape: its core chunk was not found")
    core_body_name = core[0].replace(".js", ".body.js.gz")
    core_stub, core_body = function_module(pyscript_core(PYSCRIPT_DIST / core[0]), core_body_name)
    pyscript = runtime(PYSCRIPT_DIST.parent, "pyscript", [], "-" + digest(core_body)[:8])
    for chunk in pyscript_chunks():
        out[f"{pyscript}/{chunk}"] = (PYSCRIPT_DIST / chunk).read_bytes()
    out[f"{pyscript}/{core[0]}"] = core_stub
    out[f"{pyscript}/{core_body_name}"] = gzipped(core_body)
    micropython_body_name = "micropython.body.js.gz"
    micropython_stub, micropython_body = function_module(
        micropython_module(), micropython_body_name
    )
    micropython = runtime(
        MICROPYTHON_DIR, "micropython", ["micropython.wasm"], "-" + digest(micropython_body)[:8]
    )
    out[f"{micropython}/micropython.mjs"] = micropython_stub
    out[f"{micropython}/{micropython_body_name}"] = gzipped(micropython_body)
    out[f"{micropython}/micropython.wasm.gz"] = gzipped(out[f"{micropython}/micropython.wasm"])
    # Pyodide's wasm and glue are the build's own transforms of the package's files: the
    # folder's name says which, since its files are cached for good under it.
    wasm, glue_js = pruned_wasm(PYODIDE_DIR), glue_body()
    _, module_js = function_module(
        (PYODIDE_DIR / "pyodide.mjs").read_text(encoding="utf-8"), "pyodide.body.js"
    )
    pyodide = runtime(PYODIDE_DIR, "pyodide", [], "-" + digest(wasm, glue_js, module_js)[:8])
    zstd_decoder = runtime(ZSTDDEC_DIR, "zstddec", []) + "/zstd.wasm.gz"
    out[zstd_decoder] = gzipped(zstd_wasm())

    def hashed(name: str, data: bytes) -> str:
        path = hashed_name(name, data)
        out[path] = data
        return path

    # Files the loader answers from their Zstandard twins (the name plus ".zst"), by the
    # name they are asked for, grouped by content type; index parts go by INDEX_PART
    # instead of a list (a large site has hundreds).
    twins: dict[str, list[str]] = {}
    zstd_twin(out, twins, f"{pyodide}/pyodide.asm.wasm", wasm, "application/wasm")
    glue = zstd_twin(out, twins, f"{pyodide}/pyodide.asm.js", glue_js, "text/javascript")
    module = zstd_twin(out, twins, f"{pyodide}/pyodide.body.js", module_js, "text/javascript")
    chunks = (PYSCRIPT_DIST / chunk for chunk in pyscript_chunks())
    compiled = compile_worker(
        worker_sources(),
        pyscript_modules(p.read_text(encoding="utf-8") for p in chunks),
        PYODIDE_DIR,
    )
    stdlib = deterministic_zip(compiled.stdlib.items())
    stdlib_name = zstd_twin(
        out, twins, hashed_name("stdlib.zip", stdlib), stdlib, "application/zip"
    )
    worker = deterministic_zip(compiled.worker.items())
    worker_name = zstd_twin(
        out, twins, hashed_name("worker.zip", worker), worker, "application/zip"
    )
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
        "alerts": hashed("alerts.json", json_bytes({lang: alerts(lang) for lang in LANGUAGES})),
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
        embed=template("embed.js", MANIFEST_MARK),
        loader=template("pyodide-loader.mjs", LOADER_MARK, module=True),
    )


def site_files(
    runtime: Runtime, index_payload: Mapping[str, object], compress: Compress | None = None
) -> dict[str, bytes]:
    """``runtime``'s files plus the site's own: the index, and the loader and embed.js
    with the manifests that name it, each Zstandard twin made by ``compress`` (default
    ``twins.zstd_compressed``). Pure Python: no Node, no network."""
    out = dict(runtime.files)
    values = runtime.values
    twins = {kind: list(names) for kind, names in values["loader"]["twins"].items()}
    # A large site's index comes as a head and parts the worker fetches for a question.
    head, parts = split_index(index_payload)
    for key, part in parts.items():
        data = json_bytes(part)
        name = hashed_name(f"index-{key}.json", data)
        if not re.fullmatch(INDEX_PART, name):
            raise ConfigError(f"index part {name} does not fit the loader's rule {INDEX_PART}")
        head["parts"]["files"][key] = name
        zstd_twin(out, twins, name, data, "application/json", listed=False, compress=compress)
    stemmers = stemmer_files(head.get("analyzers", []))
    if stemmers:
        data = json_bytes(stemmers)
        head["stemmers"] = hashed_name("index-stemmers.json", data)
        zstd_twin(out, twins, head["stemmers"], data, "application/json", compress=compress)
    index = json_bytes(head)
    index_name = hashed_name("index.json", index)
    zstd_twin(out, twins, index_name, index, "application/json", keep=True, compress=compress)
    loader = {**values["loader"], "twins": twins, "index": index_name}
    loader_js = filled(runtime.loader, LOADER_MARK, loader)
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
    out["embed.js"] = filled(runtime.embed, MANIFEST_MARK, embedded)
    return out
