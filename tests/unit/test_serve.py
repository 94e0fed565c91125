"""The demo/test server sends what a production server should."""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.serve import IMMUTABLE, make_server


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "docs-panel" / "runtime" / "pyodide-314.0.8").mkdir(parents=True)
    (tmp_path / "docs-panel" / "runtime" / "pyodide-314.0.8" / "pyodide.asm.wasm").write_bytes(
        b"\0asm"
    )
    (tmp_path / "docs-panel" / "embed.js").write_text("x" * 2000)
    (tmp_path / "docs-panel" / "embed.js.gz").write_bytes(gzip.compress(b"x" * 2000, mtime=0))
    (tmp_path / "docs-panel" / "panel.0123456789.css").write_text("a{}")
    (tmp_path / "index.html").write_text("<p>" + "hello " * 200)
    (tmp_path.parent / "secret.txt").write_text("outside")
    server = make_server(tmp_path, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), b""


def test_mime_types_and_immutable_caching(base: str) -> None:
    """wasm gets application/wasm; versioned and hashed files are cached forever."""
    status, headers, _ = get(base + "/docs-panel/runtime/pyodide-314.0.8/pyodide.asm.wasm")
    assert status == 200 and headers["Content-Type"] == "application/wasm"
    assert headers["Cache-Control"] == IMMUTABLE
    assert get(base + "/docs-panel/panel.0123456789.css")[1]["Cache-Control"] == IMMUTABLE


def test_precompressed_twin_and_revalidation(base: str) -> None:
    """embed.js comes gzipped from its twin, revalidated by ETag rather than cached blind."""
    status, headers, body = get(base + "/docs-panel/embed.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == b"x" * 2000
    assert headers["Cache-Control"] == "no-cache"
    again = get(
        base + "/docs-panel/embed.js",
        **{"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]},
    )
    assert again[0] == 304


def test_plain_body_without_gzip_and_pages_compressed(base: str) -> None:
    """Clients that do not accept gzip get plain bytes; pages are gzipped on the fly."""
    assert get(base + "/docs-panel/embed.js")[2] == b"x" * 2000
    status, headers, body = get(base + "/", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert gzip.decompress(body).startswith(b"<p>hello")


def test_no_escape_from_the_root(base: str) -> None:
    """Paths that climb out of the served folder are not found."""
    assert get(base + "/../secret.txt")[0] == 404
    assert get(base + "/%2e%2e/secret.txt")[0] == 404
