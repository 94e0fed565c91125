"""The bundle build.py writes: pinned runtimes, hashed names, deterministic bytes."""

from __future__ import annotations

import gzip
import json
import subprocess
import zipfile
from io import BytesIO
from typing import Any

import pytest

from builder.bundle import (
    MANIFEST_MARK,
    bundle_files,
    deterministic_zip,
    hashed_name,
    pyscript_chunks,
    with_gzip_twins,
)
from widget.core.config import DEFAULTS, STORAGE_NAMES, parse_config

PAYLOAD = {"format": 1, "version": "test", "sections": []}


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return bundle_files(PAYLOAD)


def embedded(files: dict[str, bytes]) -> dict[str, Any]:
    source = files["embed.js"].decode()
    start = source.index("const M = ") + len("const M = ")
    return dict(json.loads(source[start : source.index(";\n", start)]))


def manifest(files: dict[str, bytes]) -> dict[str, str]:
    return dict(embedded(files)["files"])


PREFIXES = ["docs-panel", "acme.docs", "a", "A_b-9", "my docs", "", "x" * 40, "x" * 41, "é", "a\n"]


def test_the_loader_accepts_exactly_the_prefixes_the_config_accepts(
    files: dict[str, bytes],
) -> None:
    """embed.js, run by JavaScript, judges storagePrefix values as parse_config does."""
    storage = embedded(files)["storage"]
    assert storage["fallback"] == DEFAULTS.storage_prefix
    assert storage["names"] == list(STORAGE_NAMES)
    script = (
        "const [pattern, values] = JSON.parse(process.argv[1]);"
        "const rule = new RegExp('^(?:' + pattern + ')$');"
        "console.log(JSON.stringify(values.map((v) => rule.test(v))));"
    )
    argument = json.dumps([storage["pattern"], PREFIXES])
    run = subprocess.run(["node", "-e", script, argument], capture_output=True, check=True)
    in_javascript = json.loads(run.stdout)
    in_python = [not parse_config({"storagePrefix": p}).errors for p in PREFIXES]
    assert in_javascript == in_python


def test_same_input_gives_the_same_bytes(files: dict[str, bytes]) -> None:
    """Building twice from the same sources gives identical files, gzip twins included."""
    again = bundle_files(PAYLOAD)
    assert again == files
    assert with_gzip_twins(again) == with_gzip_twins(files)


def test_manifest_points_at_bundled_files(files: dict[str, bytes]) -> None:
    """Every URL embed.js will load exists in the bundle; the placeholder is gone."""
    assert MANIFEST_MARK.encode() not in files["embed.js"]
    for key, path in manifest(files).items():
        assert path in files, key


def test_index_name_changes_with_its_content(files: dict[str, bytes]) -> None:
    """A different index gets a different hashed name, so caches never serve a stale one."""
    other = bundle_files({**PAYLOAD, "version": "other"})
    assert manifest(other)["index"] != manifest(files)["index"]
    assert manifest(other)["workerZip"] == manifest(files)["workerZip"]


def test_runtimes_are_the_pinned_versions(files: dict[str, bytes]) -> None:
    """Pyodide, MicroPython and PyScript come from node_modules, in versioned folders."""
    folders = {name.split("/")[1] for name in files if name.startswith("runtime/")}
    assert folders == {"pyodide-314.0.8", "micropython-1.28.0-6", "pyscript-0.7.31"}


def test_only_used_pyscript_chunks_ship() -> None:
    """Editor, terminal and TOML chunks (codemirror, xterm) are left out."""
    chunks = pyscript_chunks()
    assert "core.js" in chunks
    assert not [c for c in chunks if c.startswith(("codemirror", "xterm", "toml", "pyodide_graph"))]
    assert any(c.startswith("zip-") for c in chunks)


def test_worker_zip_carries_core_and_dependencies(files: dict[str, bytes]) -> None:
    """The worker gets widget.core, widget.worker and the pure-Python packages it imports."""
    names = zipfile.ZipFile(BytesIO(files[manifest(files)["workerZip"]])).namelist()
    for module in (
        "widget/core/answers.py",
        "widget/worker/tab.py",
        "markdown_it/__init__.py",
        "bleach/__init__.py",
        "webencodings/__init__.py",
    ):
        assert module in names
    assert not [n for n in names if "__pycache__" in n]


def test_shell_zip_carries_the_shared_core(files: dict[str, bytes]) -> None:
    """The shell gets its modules plus the core modules it shares with the worker, no more."""
    names = set(zipfile.ZipFile(BytesIO(files[manifest(files)["shellZip"]])).namelist())
    shared = {"widget/core/protocol.py", "widget/core/lifecycle.py", "widget/core/i18n.py"}
    assert {"shell/panel.py", "widget/core/locales/ar.py"} | shared <= names
    assert "widget/core/history.py" not in names and "shell/main.py" not in names


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


def test_embed_js_is_small(files: dict[str, bytes]) -> None:
    """embed.js stays within DESIGN's 5 KB gzipped budget."""
    assert len(gzip.compress(files["embed.js"], 9)) <= 5 * 1024
