"""The bundle build.py writes: pinned runtimes, hashed names, deterministic bytes."""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from docs_panel.build.index_build import SPLIT_BYTES, build_index
from docs_panel.build.runtime import function_module, pyodide_wasm, vendor_patches
from docs_panel.build.runtime.bundle import bundle_files
from docs_panel.build.runtime.js_templates import LOADER_MARK, MANIFEST_MARK
from docs_panel.build.runtime.lean_source import lean_source
from docs_panel.build.runtime.paths import (
    MICROPYTHON_DIR,
    PACKAGE,
    PYODIDE_DIR,
    PYSCRIPT_DIST,
    ROOT,
    ZSTDDEC_DIR,
)
from docs_panel.build.runtime.pyodide_bytecode import pyscript_modules
from docs_panel.build.runtime.pyodide_wasm import pruned_wasm
from docs_panel.build.runtime.python_sources import STEMMERS, WORKER_DEPENDENCIES, stemmer_files
from docs_panel.build.runtime.runtime_archive import deterministic_zip
from docs_panel.build.runtime.twins import hashed_name, with_gzip_twins, zstd
from docs_panel.build.runtime.vendor_patches import (
    MICROPYTHON_WASM_FETCH,
    PYSCRIPT_PLUGINS_OFF,
    pyscript_chunks,
    zstd_wasm,
)
from docs_panel.build.serve import IMMUTABLE_PATH
from docs_panel.core.analyzers import VERSION, analyzer
from docs_panel.core.config import DEFAULTS, STORAGE_NAMES, config_to_json, parse_config
from docs_panel.core.docs_index import Section, load_index
from docs_panel.portable.errors import ConfigError
from docs_panel.portable.session_fields import EMBED_FIELDS

PAYLOAD = build_index([Section("/a.html", "A", "A", "Alpha.")])


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return bundle_files(PAYLOAD)


def embedded(files: dict[str, bytes], name: str = "embed.js") -> dict[str, Any]:
    """The JSON object build.py wrote into ``name`` in place of its placeholder."""
    source = files[name].decode()
    found = re.search(r"\bM=(?=\{)", source)
    assert found, f"{name} has no manifest M"
    return dict(json.JSONDecoder().raw_decode(source, found.end())[0])


def manifest(files: dict[str, bytes]) -> dict[str, str]:
    return dict(embedded(files)["files"])


def wasm_path(files: dict[str, bytes]) -> str:
    """Where Pyodide asks for its wasm: beside its JS glue."""
    return str(loader_manifest(files)["glue"]).replace("pyodide.asm.js", "pyodide.asm.wasm")


CANDIDATES = {
    "storagePrefix": ["docs-panel", "acme.docs", "A_b-9", "my docs", "", "x" * 40, "x" * 41, "é"],
    "shortcut": ["/", "k", "K", ".", " ", "", "ctrl+k", "kk", "\n"],
    "language": ["auto", "en", "pt-BR", "zh-Hant-TW", "pt_BR", "", "e", "english", "en-", "Auto"],
}
RULES = {"storagePrefix": "storage", "shortcut": "shortcut", "language": "language"}


@pytest.mark.parametrize("key", sorted(CANDIDATES))
def test_the_loader_judges_values_as_the_config_does(files: dict[str, bytes], key: str) -> None:
    """embed.js's copy of a config rule, run by JavaScript, accepts what parse_config does."""
    rule = embedded(files)[RULES[key]]
    assert rule["fallback"] == config_to_json(DEFAULTS)[key]
    script = (
        "const [pattern, values] = JSON.parse(process.argv[1]);"
        "const rule = new RegExp('^(?:' + pattern + ')$');"
        "console.log(JSON.stringify(values.map((v) => rule.test(v))));"
    )
    argument = json.dumps([rule["pattern"], CANDIDATES[key]])
    run = subprocess.run(["node", "-e", script, argument], capture_output=True, check=True)
    in_javascript = json.loads(run.stdout)
    in_python = [not parse_config({key: value}).errors for value in CANDIDATES[key]]
    assert in_javascript == in_python


def test_the_wasm_cache_key_covers_every_builder_module_the_wasm_step_runs() -> None:
    """What importing pyodide_wasm loads (a fresh interpreter's sys.modules) is read
    by its cache key: an edit to any of it makes the wasm again."""
    script = (
        "import json, sys, docs_panel.build.runtime.pyodide_wasm;"
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()"
        " if n.startswith('docs_panel.build.'))))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, cwd=ROOT)
    loaded = {Path(path).resolve() for path in json.loads(run.stdout)}
    assert loaded and loaded <= set(pyodide_wasm.DRIVERS), loaded - set(pyodide_wasm.DRIVERS)


def test_what_is_fetched_with_force_cache_has_a_name_that_never_changes(
    files: dict[str, bytes],
) -> None:
    """embed.js's prefetch and the loader's twins take any copy the HTTP cache holds
    (cache: "force-cache"): each is a name the server marks immutable."""
    loader = loader_manifest(files)
    twins = [f"{name}.zst" for names in loader["twins"].values() for name in names]
    part = "index-text-0." + "0123456789" + ".json"  # an index part, by its names' rule
    assert re.fullmatch(loader["indexPart"], part)
    prefetch = [path for lane in embedded(files)["prefetch"] for path in lane]
    fetched = [*prefetch, *twins, loader["zstd"], f"{part}.zst"]
    assert not [path for path in fetched if not IMMUTABLE_PATH.search(f"/docs-panel/{path}")]
    for script in ("embed.js", manifest(files)["pyodide"]):
        assert re.search(r'cache:\s*"force-cache"', files[script].decode()), script


def test_the_loader_starts_the_worker_by_the_name_the_shell_asks_for() -> None:
    """embed.js starts the worker before the shell runs; MicroPython's shell then finds it
    by name (client.WORKER_NAME), so the two spellings are held together here."""
    tree = ast.parse((PACKAGE / "shell" / "client.py").read_text(encoding="utf-8"))
    names = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(target, "id", "") for target in node.targets] == ["WORKER_NAME"]
        and isinstance(node.value, ast.Constant)
    ]
    loader = (PACKAGE / "assets" / "embed.js").read_text(encoding="utf-8")
    assert len(names) == 1 and re.findall(r'\bname: "([^"]+)"', loader) == names


def test_the_loader_preloads_as_the_config_says(files: dict[str, bytes]) -> None:
    """embed.js's preload choices and default are the config's."""
    rule = embedded(files)["preload"]
    assert rule["fallback"] == config_to_json(DEFAULTS)["preload"]
    candidates = ["intent", "idle", "none", "Idle", "eager", "", None, 1]
    in_loader = [value in rule["values"] for value in candidates]
    assert in_loader == [not parse_config({"preload": value}).errors for value in candidates]


def test_the_loader_names_the_storage_keys_the_config_does(files: dict[str, bytes]) -> None:
    """embed.js gets the key names the worker's config uses."""
    assert embedded(files)["storage"]["names"] == list(STORAGE_NAMES)


def test_the_loader_reads_the_session_record_by_the_cores_field_names(
    files: dict[str, bytes],
) -> None:
    """embed.js reads this tab's session record (id, left, open) by docs_panel/portable's names."""
    assert embedded(files)["session"] == list(EMBED_FIELDS) == ["id", "left", "open"]


def zip_names(data: bytes) -> list[str]:
    return zipfile.ZipFile(BytesIO(data)).namelist()


def loader_manifest(files: dict[str, bytes]) -> dict[str, Any]:
    return embedded(files, manifest(files)["pyodide"])


def decoded_twin(files: dict[str, bytes], name: str) -> bytes:
    """A file the loader answers from its Zstandard twin: listed, or an index part by rule."""
    loader = loader_manifest(files)
    listed = [twin for names in loader["twins"].values() for twin in names]
    assert name in listed or re.fullmatch(loader["indexPart"], name)
    return zstd.decompress(files[name + ".zst"])


def test_same_input_gives_the_same_bytes(files: dict[str, bytes]) -> None:
    """Building twice from the same sources gives identical files, gzip twins included."""
    again = bundle_files(PAYLOAD)
    assert again == files
    assert with_gzip_twins(again) == with_gzip_twins(files)


def test_manifest_points_at_bundled_files(files: dict[str, bytes]) -> None:
    """Every URL embed.js will load exists in the bundle; the placeholder is gone."""
    assert MANIFEST_MARK.encode() not in files["embed.js"]
    prefetch = [path for lane in embedded(files)["prefetch"] for path in lane]
    assert len(prefetch) == len(set(prefetch)) == 9
    for key, path in [*manifest(files).items(), *(("prefetch", p) for p in prefetch)]:
        assert path in files, key
    loader = loader_manifest(files)
    assert loader["zstd"] in files and loader["pyodide"] + ".zst" in files


def test_loader_answers_from_zstd_twins_and_needs_no_lock(files: dict[str, bytes]) -> None:
    """The worker's loader serves the wasm, Pyodide's module and JS glue, stdlib, worker
    zip and index from .zst twins that decode to the real files, with the decoder it
    imports; the raw wasm, the module and glue as modules and pyodide-lock.json are not
    shipped."""
    loader = loader_manifest(files)
    assert LOADER_MARK.encode() not in files[str(manifest(files)["pyodide"])]
    assert decoded_twin(files, wasm_path(files)) == pruned_wasm(PYODIDE_DIR)
    assert decoded_twin(files, manifest(files)["index"]) == files[manifest(files)["index"]]
    assert decoded_twin(files, str(loader["workerZip"]))[:2] == b"PK"
    assert decoded_twin(files, str(loader["stdlib"]))[:2] == b"PK"
    glue = decoded_twin(files, str(loader["glue"])).decode()
    assert glue.rstrip().endswith("return _createPyodideModule;") and "import.meta" not in glue
    module = decoded_twin(files, str(loader["pyodide"])).decode()
    assert module.endswith("return{loadPyodide:dt,version:U};")
    shipped = ("asm.wasm", "asm.mjs", "pyodide.mjs", "pyodide-lock.json")
    assert not [n for n in files if n.endswith(shipped)]
    decoder = gzip.decompress(files[loader["zstd"]])
    assert loader["zstd"] == "runtime/zstddec-0.3.4/zstd.wasm.gz" and decoder == zstd_wasm()
    assert loader["lockInfo"] == {
        "abi_version": "2026_0",
        "arch": "wasm32",
        "platform": "emscripten_5_0_3",
        "python": "3.14.2",
    }


# The bundle's loader under Node, its files fetched from disk in chunks of a given size
# (mode "decoded": the decoder's .gz twin comes gunzipped, as from a host that labels it
# Content-Encoding: gzip; "corrupt" and "truncated" spoil the wasm's twin): each twin's
# SHA-256 as the loader's fetch answers it, or the error it fails with.
LOADER_RUNNER = """
const [root, loader, names, chunk, mode] = JSON.parse(process.argv[1]);
const { readFileSync } = await import("node:fs");
const { createHash } = await import("node:crypto");
const { gunzipSync } = await import("node:zlib");
globalThis.fetch = async (url) => {
  const path = new URL(url).pathname;
  let bytes = readFileSync(path);
  if (mode === "decoded" && path.endsWith("zstd.wasm.gz")) bytes = gunzipSync(bytes);
  if (path.endsWith("asm.wasm.zst")) {
    if (mode === "corrupt") bytes.fill(7, 100, 200);
    if (mode === "truncated") bytes = bytes.subarray(0, bytes.length >> 1);
  }
  const body = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += chunk) {
        controller.enqueue(bytes.subarray(at, at + chunk));
      }
      controller.close();
    },
  });
  return new Response(body);
};
await import(new URL(loader, root).href);
const out = {};
for (const name of names) {
  try {
    const bytes = await (await fetch(new URL(name, root).href)).arrayBuffer();
    out[name] = createHash("sha256").update(new Uint8Array(bytes)).digest("hex");
  } catch (error) {
    out[name] = error.message;
  }
}
console.log(JSON.stringify(out));
"""


def loader_in_node(files: dict[str, bytes], tmp_path: Path, chunk: int, mode: str = "") -> Any:
    """What LOADER_RUNNER prints for the loader's listed twins (decoded or failing)."""
    if shutil.which("node") is None:
        pytest.skip("needs Node (npm brings it)")
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    names = [name for names in loader_manifest(files)["twins"].values() for name in names]
    job = [tmp_path.as_uri() + "/", manifest(files)["pyodide"], names, chunk, mode]
    expected = {name: hashlib.sha256(decoded_twin(files, name)).hexdigest() for name in names}
    return json.loads(node_module(LOADER_RUNNER, json.dumps(job))), expected


@pytest.mark.parametrize(("chunk", "mode"), [(1000, ""), (300_000, "decoded")])
def test_loader_decodes_every_twin_to_its_file(
    files: dict[str, bytes], tmp_path: Path, chunk: int, mode: str
) -> None:
    """The loader's Zstandard decoder gives every twin's exact bytes, in network-sized
    chunks or in chunks larger than its input buffer, from the decoder's gzip twin
    or from a host that gunzipped it already."""
    got, expected = loader_in_node(files, tmp_path, chunk, mode)
    assert got == expected


@pytest.mark.parametrize(
    ("mode", "error"),
    [("corrupt", "a Zstandard file is corrupt"), ("truncated", "a Zstandard file ended early")],
)
def test_loader_refuses_a_spoiled_twin(
    files: dict[str, bytes], tmp_path: Path, mode: str, error: str
) -> None:
    """A twin spoiled on the way fails its request with a clear error; the others load."""
    got, expected = loader_in_node(files, tmp_path, 65536, mode)
    wasm = wasm_path(files)
    assert error in got.pop(wasm)
    assert got == {name: digest for name, digest in expected.items() if name != wasm}


def test_stdlib_is_bytecode_trimmed_to_what_the_worker_imports(files: dict[str, bytes]) -> None:
    """The stdlib keeps the modules the worker and Pyodide import (and the Unicode
    codecs), as unchecked hash-based .pyc (PEP 552 flags 0b01), and nothing else."""
    stdlib_zip = decoded_twin(files, str(loader_manifest(files)["stdlib"]))
    stdlib = zipfile.ZipFile(BytesIO(stdlib_zip))
    names = stdlib.namelist()
    for module in ("json/decoder.pyc", "asyncio/tasks.pyc", "encodings/utf_8_sig.pyc"):
        assert module in names
    assert not [n for n in names if n.startswith(("unittest/", "tkinter/", "pydoc", "idlelib/"))]
    assert not [n for n in names if not n.endswith(".pyc")]
    assert {stdlib.read(n)[4:8] for n in names} == {b"\x01\0\0\0"}


def test_a_large_index_comes_as_a_head_and_parts(files: dict[str, bytes]) -> None:
    """A site past SPLIT_BYTES of text gets an index head whose parts are hashed Zstandard
    twins beside it; the head's name changes with them, so caches never serve a stale one."""
    words = [" ".join(f"w{n}x{k}" for k in range(80)) for n in range(2 * SPLIT_BYTES // 600)]
    sections = (Section(f"/p{n}.html", "P", "P", text) for n, text in enumerate(words))
    large = bundle_files(build_index(sections))
    assert manifest(large)["index"] != manifest(files)["index"]
    assert loader_manifest(large)["workerZip"] == loader_manifest(files)["workerZip"]
    head = json.loads(decoded_twin(large, manifest(large)["index"]))
    index = load_index(head)
    keys = index.parts_needed("w7x3")
    assert keys and all(key.startswith("terms-") for key in keys)
    for key in keys:
        part = decoded_twin(large, index.part_file(key))
        assert index.part_file(key) == hashed_name(f"index-{key}.json", part)
        assert index.part_file(key) not in json.dumps(loader_manifest(large)["twins"])
        index.add_part(key, json.loads(part))
    assert index.parts_needed("w7x3") == ["text-0"]
    assert json.loads(decoded_twin(files, manifest(files)["index"]))["parts"]["files"] == {}


def test_runtimes_are_the_pinned_versions(files: dict[str, bytes]) -> None:
    """Pyodide, MicroPython, PyScript and zstddec come from node_modules, in versioned folders
    (Pyodide's also names the build's own wasm and glue, which it holds)."""
    folders = {name.split("/")[1] for name in files if name.startswith("runtime/")}
    pyodide = next(folder for folder in folders if folder.startswith("pyodide-"))
    assert re.fullmatch(r"pyodide-314\.0\.8-[0-9a-f]{8}", pyodide)
    micropython = next(folder for folder in folders if folder.startswith("micropython-"))
    assert re.fullmatch(r"micropython-1\.28\.0-6-[0-9a-f]{8}", micropython)
    pyscript = next(folder for folder in folders if folder.startswith("pyscript-"))
    assert re.fullmatch(r"pyscript-0\.7\.31-[0-9a-f]{8}", pyscript)
    assert folders == {pyodide, micropython, pyscript, "zstddec-0.3.4"}


def test_micropython_fetches_its_wasm_as_the_gzip_twin(files: dict[str, bytes]) -> None:
    """MicroPython's module asks embed.js for the wasm's .gz twin, which ships beside the
    wasm and decodes to it; the module changes in that one place (and runs as a function,
    see function_module)."""
    module = manifest(files)["micropython"]
    wasm = module.replace(".mjs", ".wasm")
    body = gzip.decompress(files[module.replace(".mjs", ".body.js.gz")]).decode()
    assert 'gunzipped(new URL("micropython.body.js.gz",import.meta.url)' in files[module].decode()
    patched = body.removeprefix('"use strict";').rpartition("\nreturn{")[0]
    patched = patched.replace("importMeta", "import.meta")
    exports = "export default _createMicroPythonModule;export async function loadMicroPython"
    patched = patched.replace("async function loadMicroPython", exports)
    assert 'globalThis.__docsPanel.gunzipped(binaryFile+".gz","application/wasm")' in patched
    original = (MICROPYTHON_DIR / "micropython.mjs").read_text(encoding="utf-8")
    assert patched.replace(patched_fetch(patched), MICROPYTHON_WASM_FETCH) == original
    assert gzip.decompress(files[wasm + ".gz"]) == files[wasm]


def patched_fetch(module: str) -> str:
    match = re.search(r"var response=globalThis\.__docsPanel\.gunzipped\([^;]*\);", module)
    assert match
    return match.group(0)


def test_only_used_pyscript_chunks_ship(files: dict[str, bytes]) -> None:
    """Editor, terminal, game, TOML and zip-reader chunks (codemirror, xterm, zip.js) are
    left out, and PyScript's core no longer asks for the plugins among them."""
    chunks = pyscript_chunks()
    assert "core.js" in chunks and "error-D2315lOB.js" in chunks
    unused = ("codemirror", "xterm", "toml", "pyodide_graph", "zip-", *PYSCRIPT_PLUGINS_OFF)
    assert not [c for c in chunks if c.startswith(unused)]
    body = next(data for name, data in files.items() if name.endswith("/core-C9KDLldu.body.js.gz"))
    code = gzip.decompress(body).decode()
    assert 'error:()=>import(new URL("./error-' in code
    table = [name for name in PYSCRIPT_PLUGINS_OFF if re.search(rf'"?{name}"?:\(\)=>', code)]
    assert not table


def test_a_pyscript_core_that_changed_shape_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin the core does not list is an error naming it, not a silent no-op."""
    monkeypatch.setattr(vendor_patches, "PYSCRIPT_PLUGINS_OFF", ("py-editor", "py-spreadsheet"))
    with pytest.raises(ConfigError, match="py-spreadsheet plugin was not found"):
        vendor_patches.pyscript_core(PYSCRIPT_DIST / "core-C9KDLldu.js")


def test_page_modules_keep_their_exports_as_function_bodies(files: dict[str, bytes]) -> None:
    """The stubs of PyScript's core and MicroPython's module export exactly the names the
    modules do, from bodies with no module syntax left."""
    originals = {
        "core-C9KDLldu.js": (PYSCRIPT_DIST / "core-C9KDLldu.js").read_text("utf-8"),
        "micropython.mjs": (MICROPYTHON_DIR / "micropython.mjs").read_text("utf-8"),
    }
    for name, original in originals.items():
        stub = next(data for path, data in files.items() if path.endswith("/" + name)).decode()
        listed = re.search(r"export\{([^}]*)\}", original)
        items = listed.group(1).split(",") if listed else []
        names = {item.rpartition(" as ")[2] for item in items}
        names |= set(re.findall(r"export (?:async )?function ([\w$]+)", original))
        names |= {"default"} if "export default " in original else set()
        exported = set(re.search(r"export const\{([^}]*)\}", stub).group(1).split(","))
        exported |= {"default"} if "export default __module.default;" in stub else set()
        assert exported == names, name


def test_a_module_runs_the_same_from_its_function_body(tmp_path: Path) -> None:
    """In Node, a stub and its gzipped body export what the module does: import.meta is
    the stub's, and a chunk it imports resolves beside it."""
    if shutil.which("node") is None:
        pytest.skip("needs Node (npm brings it)")
    module = (
        'export async function load(){return (await import("./chunk.js")).value}'
        "const where=import.meta.url;export{where as w};export default 42;"
    )
    stub, body = function_module.function_module(module, "module.body.js.gz")
    (tmp_path / "module.js").write_bytes(stub)
    (tmp_path / "module.body.js.gz").write_bytes(gzip.compress(body))
    (tmp_path / "chunk.js").write_text("export const value = 'beside';")
    script = """
const { readFileSync } = await import("node:fs");
const { gunzipSync } = await import("node:zlib");
const { fileURLToPath } = await import("node:url");
globalThis.__docsPanel = {
  gunzipped: async (url) => new Response(gunzipSync(readFileSync(fileURLToPath(url)))),
};
const m = await import(process.argv[1]);
console.log(JSON.stringify([m.default, m.w, await m.load()]));
"""
    url = (tmp_path / "module.js").as_uri()
    assert json.loads(node_module(script, url)) == [42, url, "beside"]


@pytest.mark.parametrize(
    "module",
    [
        'import{a}from"./x.js";export{a};',
        "const a=1;export const b=a;export{a};",
        "export*from'./x.js';export{a};",
        "const a=1;",
    ],
)
def test_a_module_that_cannot_run_as_a_function_is_refused(module: str) -> None:
    """Static imports, export declarations other than functions, re-exports and a
    module with nothing exported are refused, not half-rewritten."""
    with pytest.raises(ConfigError, match="cannot run as a function"):
        function_module.function_module(module, "x.body.js.gz")


def test_worker_zip_carries_core_and_dependencies(files: dict[str, bytes]) -> None:
    """The worker gets docs_panel.core, docs_panel.worker and the pure-Python packages it imports,
    as bytecode only."""
    names = zip_names(decoded_twin(files, str(loader_manifest(files)["workerZip"])))
    for module in (
        "docs_panel/core/answers.pyc",
        "docs_panel/worker/tab.pyc",
        "markdown_it/__init__.pyc",
        "bleach/__init__.pyc",
        "webencodings/__init__.pyc",
    ):
        assert module in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".py")]


def test_the_notices_name_everything_the_bundle_carries(files: dict[str, bytes]) -> None:
    """THIRD-PARTY-NOTICES.txt names each runtime and each worker dependency with its
    pinned version and license, carries the license texts their packages ship (bleach's
    vendored html5lib's too) and is never fetched by the panel."""
    text = files["THIRD-PARTY-NOTICES.txt"].decode()
    for folder in (PYODIDE_DIR, PYSCRIPT_DIST.parent, MICROPYTHON_DIR, ZSTDDEC_DIR):
        package = json.loads((folder / "package.json").read_text())
        assert f"{package['name']} {package['version']} ({package['license']})" in text
    lock = json.loads((PYODIDE_DIR / "pyodide-lock.json").read_text())
    assert f"CPython {lock['info']['python']} " in text
    for module in (*WORKER_DEPENDENCIES, STEMMERS):  # the stemmers ship beside the index
        (name,) = metadata.packages_distributions()[module]
        assert (
            f"\n{metadata.distribution(name).metadata['Name']} {metadata.version(name)} (" in text
        )
    assert "Apache License" in text and "Copyright (c) 2020 Don McCurdy" in text
    assert "html5lib-1.1.dist-info/LICENSE ---" in text
    assert b"THIRD-PARTY-NOTICES" not in files["embed.js"]


def test_worker_zip_leaves_out_dependency_modules_never_imported(
    files: dict[str, bytes],
) -> None:
    """Of bleach's html5lib, the etree tree builder the cleaner uses ships; the lxml and
    DOM ones, and markdown-it's command line, do not."""
    names = zip_names(decoded_twin(files, str(loader_manifest(files)["workerZip"])))
    html5lib = "bleach/_vendor/html5lib/"
    assert f"{html5lib}treebuilders/etree.pyc" in names
    assert f"{html5lib}treebuilders/etree_lxml.pyc" not in names
    assert f"{html5lib}treebuilders/dom.pyc" not in names
    assert "markdown_it/cli/parse.pyc" not in names
    # Of the panel's own, what the worker imports (its locales by name) and no more:
    assert {"docs_panel/core/render.pyc", "docs_panel/portable/locales/ar.pyc"} <= set(names)
    assert "docs_panel/server/report_shape.pyc" not in names  # the server install's
    assert "docs_panel/build/index_build.pyc" not in names  # build.py's


def test_pyscript_imports_are_read_from_its_bundle() -> None:
    """The Python PyScript carries as "name.py": "source" pairs gives its absolute imports."""
    bundle = 'x={pyscript:{"__init__.py":"import json\\nfrom pyscript.ffi import to_js\\n",'
    bundle += '"a.py":"  import base64, re\\nfrom . import b\\n"}}'
    assert pyscript_modules([bundle]) == ["base64", "json", "pyscript.ffi", "re"]


def test_shell_files_carry_the_portable_folder_whole(files: dict[str, bytes]) -> None:
    """The shell gets its modules plus every file of ``docs_panel.portable``, no more, as
    sources by path in one gzipped JSON object."""
    shell = json.loads(gzip.decompress(files[manifest(files)["shellFiles"]]))
    protocol = (ROOT / "docs_panel/portable/protocol.py").read_text()
    assert shell["docs_panel/portable/protocol.py"] == lean_source(protocol)  # test_lean_source
    folders = [PACKAGE / "shell", PACKAGE / "portable"]
    expected = {p.relative_to(ROOT).as_posix() for f in folders for p in f.rglob("*.py")}
    expected = expected - {"docs_panel/shell/main.py"} | {"docs_panel/__init__.py"}
    assert set(shell) == expected
    assert "docs_panel/portable/locales/ar.py" in expected


def test_gzip_twins_only_where_they_help() -> None:
    """Text files get a .gz twin that decompresses to the same bytes; tiny files do not."""
    out = with_gzip_twins({"a.js": b"x" * 4000, "b.js": b"tiny", "c.png": b"y" * 4000})
    assert gzip.decompress(out["a.js.gz"]) == b"x" * 4000
    assert "b.js.gz" not in out and "c.png.gz" not in out


def test_hashed_name_and_zip_are_stable() -> None:
    """Names carry a content hash; zips do not depend on file order or the clock."""
    assert hashed_name("panel.css", b"a") == hashed_name("panel.css", b"a")
    assert hashed_name("panel.css", b"a") != hashed_name("panel.css", b"b")
    assert hashed_name("panel.css", b"a").endswith(".css")
    assert deterministic_zip([("b", b"2"), ("a", b"1")]) == deterministic_zip(
        [("a", b"1"), ("b", b"2")]
    )


def test_embed_js_is_under_the_size_the_docs_state(files: dict[str, bytes]) -> None:
    """embed.js, gzipped, is under what docs/build.md says (within the contract's 5 KB budget)."""
    page = (ROOT / "docs" / "build.md").read_text(encoding="utf-8")
    stated = re.search(r"`embed\.js` \(under ([\d.]+) KiB gzipped", page)
    assert stated, "docs/build.md no longer states embed.js's size"
    limit = float(stated[1]) * 1024
    assert limit <= 5 * 1024
    assert len(gzip.compress(files["embed.js"], 9)) < limit


# Pyodide under Node, on the bundle's wasm, standard library and worker zip: for the
# innermost frame of an error in each, [file, line, its function's first line]; and
# what importing some of the wasm's built-in modules gives.
BUNDLE_RUNNER = """
const [pyodide, stdlib, worker, stemmers] = JSON.parse(process.argv[1]);
const { readFileSync } = await import("node:fs");
const py = await (await import(pyodide)).loadPyodide({ stdLibURL: stdlib });
py.FS.writeFile("/tmp/worker.zip", readFileSync(worker));
py.FS.writeFile("/tmp/stemmers.json", readFileSync(stemmers));
console.log(py.runPython(`
import importlib, json, sys, zipfile
zipfile.ZipFile("/tmp/worker.zip").extractall("/home/pyodide")
sys.path.insert(0, "/home/pyodide")
from docs_panel.portable.protocol import arguments
from docs_panel.core.analyzers import from_record
from docs_panel.worker.stemmers import add_stemmers
add_stemmers(json.load(open("/tmp/stemmers.json", encoding="utf-8")))
def stemmed(algorithm, stopwords, text):
    record = {"name": "snowball-" + algorithm, "version": ANALYZER_VERSION, "stopwords": stopwords}
    return from_record(record).words.terms(text)
def innermost(call):
    try:
        call()
    except Exception as error:
        tb = error.__traceback__
        while tb.tb_next:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        return [code.co_filename, tb.tb_lineno, code.co_firstlineno]
def imported(name):
    try:
        importlib.import_module(name)
        return "ok"
    except ImportError as error:
        return type(error).__name__
import inspect, os
json.dumps({
    "frames": [innermost(lambda: json.loads("{")), innermost(lambda: arguments("nope", ()))],
    "imports": {name: imported(name) for name in ("_codecs_jp", "_codecs_iso2022", "unicodedata")},
    "builtin": [isinstance.__doc__, str(inspect.signature(isinstance))],
    "frozen": [os.__spec__.origin, os.path.join("a", "b"), os.walk.__doc__, imported("runpy")],
    "stemmed": [
        stemmed("french", ["les"], "Les fichiers"),
        stemmed("persian", [], "کتابهای"),
        sorted(name for name in sys.modules if name.startswith("snowballstemmer.")),
    ],
})
`));
"""


@pytest.fixture(scope="module")
def bundle_in_node(files: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory) -> Any:
    """What BUNDLE_RUNNER prints, run on the bundle's own Pyodide files."""
    if shutil.which("node") is None:
        pytest.skip("needs Node (npm brings it)")
    tmp_path = tmp_path_factory.mktemp("node")
    runtime = tmp_path / "pyodide"
    shutil.copytree(PYODIDE_DIR, runtime)
    (runtime / "pyodide.asm.wasm").write_bytes(decoded_twin(files, wasm_path(files)))
    stdlib = tmp_path / "stdlib.zip"
    stdlib.write_bytes(decoded_twin(files, str(loader_manifest(files)["stdlib"])))
    worker = tmp_path / "worker.zip"
    worker.write_bytes(decoded_twin(files, str(loader_manifest(files)["workerZip"])))
    stemmers = tmp_path / "stemmers.json"
    records = [{"name": "snowball-french"}, {"name": "snowball-persian"}, {"name": "english"}]
    stemmers.write_text(json.dumps(stemmer_files(records)), encoding="utf-8")
    job = json.dumps([(runtime / "pyodide.mjs").as_uri(), str(stdlib), str(worker), str(stemmers)])
    runner = BUNDLE_RUNNER.replace("ANALYZER_VERSION", str(VERSION))
    return json.loads(node_module(runner, job).strip().splitlines()[-1])


def node_module(script: str, argument: str) -> str:
    """What Node prints running ``script`` as a module, with ``argument`` in its argv."""
    command = ["node", "--input-type=module", "-e", script, argument]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout


def test_line_tables_shrink_outside_the_panels_own_code(bundle_in_node: Any) -> None:
    """A standard-library frame keeps its file and function but sits on the function's
    first line; the panel's own frames keep their exact lines (on the bundle's wasm)."""
    in_stdlib, in_panel = bundle_in_node["frames"]
    assert in_stdlib[0].endswith("json/decoder.py") and in_stdlib[1] == in_stdlib[2]
    assert in_panel[0].endswith("docs_panel/portable/protocol.py") and in_panel[1] > in_panel[2]


def test_the_cjk_codecs_are_gone_and_say_so(bundle_in_node: Any) -> None:
    """The CJK codecs, whose tables the build zeroes, cannot be imported; other
    built-in modules can."""
    assert bundle_in_node["imports"] == {
        "_codecs_jp": "ModuleNotFoundError",
        "_codecs_iso2022": "ModuleNotFoundError",
        "unicodedata": "ok",
    }


def test_builtin_docstrings_keep_their_signature_only(bundle_in_node: Any) -> None:
    """A C function's docstring text is gone from the wasm; its signature stays."""
    assert bundle_in_node["builtin"] == [None, "(obj, class_or_tuple, /)"]


def test_frozen_modules_run_from_their_lean_bytecode(bundle_in_node: Any) -> None:
    """os still comes frozen and works, without docstrings; a frozen module the worker
    never imports (runpy) still imports."""
    assert bundle_in_node["frozen"] == ["frozen", "a/b", None, "ok"]


def test_the_worker_stems_with_the_sites_stemmers_only(bundle_in_node: Any) -> None:
    """With the stemmer file a French and Persian site's build writes, the bundle's worker
    stems as at build time, importing those two stemmers and none of the other 34."""
    french, persian, modules = bundle_in_node["stemmed"]
    assert french == analyzer("fr").words.terms("Les fichiers") == ["fichi"]
    assert persian == analyzer("fa").words.terms("کتابهای") != ["کتابهای"]
    assert [name for name in modules if name.endswith("_stemmer")] == [
        "snowballstemmer.french_stemmer",
        "snowballstemmer.persian_stemmer",
    ]


def test_stemmers_ship_beside_the_index_and_never_in_the_worker(
    files: dict[str, bytes],
) -> None:
    """An English site gets no stemmer at all; a site's stemmer file holds the modules of
    its languages' stemmers only, and the package's __init__ without its 36 imports."""
    names = zip_names(decoded_twin(files, str(loader_manifest(files)["workerZip"])))
    assert not [name for name in names if "snowball" in name]
    assert not [name for name in files if "stemmers" in name]
    assert stemmer_files([{"name": "english"}, {"name": "cjk-bigram"}]) == {}
    shipped = stemmer_files([{"name": "snowball-french"}, {"name": "snowball-french"}])
    assert sorted(shipped) == [
        "snowballstemmer/__init__.py",
        "snowballstemmer/among.py",
        "snowballstemmer/basestemmer.py",
        "snowballstemmer/french_stemmer.py",
    ]
    assert "import" not in shipped["snowballstemmer/__init__.py"]
