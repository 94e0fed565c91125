"""The demo/test server sends what a production server should."""

from __future__ import annotations

import gzip
import http.client
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_panel.build.serve import IMMUTABLE, ChatReply, DropConnection, make_server


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "docs-panel" / "runtime" / "pyodide-314.0.8").mkdir(parents=True)
    (tmp_path / "docs-panel" / "runtime" / "pyodide-314.0.8" / "pyodide.asm.wasm").write_bytes(
        b"\0asm"
    )
    (tmp_path / "docs-panel" / "embed.js").write_text("x" * 2000)
    (tmp_path / "docs-panel" / "embed.js.gz").write_bytes(gzip.compress(b"x" * 2000, mtime=0))
    (tmp_path / "docs-panel" / "panel.0123456789.css").write_text("a{}")
    (tmp_path / "docs-panel" / "stdlib.0123456789.zip.gz").write_bytes(b"\x1f\x8b")
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
    assert get(base + "/docs-panel/stdlib.0123456789.zip.gz")[1]["Cache-Control"] == IMMUTABLE


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


def test_a_plain_host_sends_every_file_as_it_is(tmp_path: Path) -> None:
    """compress=False ignores Accept-Encoding: no twin, no on-the-fly gzip."""
    (tmp_path / "embed.js").write_text("x" * 2000)
    (tmp_path / "embed.js.gz").write_bytes(gzip.compress(b"x" * 2000, mtime=0))
    (tmp_path / "index.html").write_text("<p>" + "hello " * 200)
    server = make_server(tmp_path, port=0, compress=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        for path, body in (("/embed.js", b"x" * 2000), ("/", b"<p>" + b"hello " * 200)):
            _, headers, sent = get(base + path, **{"Accept-Encoding": "gzip"})
            assert "Content-Encoding" not in headers and sent == body
    finally:
        server.shutdown()
        server.server_close()


def test_no_escape_from_the_root(base: str) -> None:
    """Paths that climb out of the served folder are not found."""
    assert get(base + "/../secret.txt")[0] == 404
    assert get(base + "/%2e%2e/secret.txt")[0] == 404


@pytest.fixture
def chat_base(tmp_path: Path) -> Iterator[str]:
    def chat(body: bytes) -> ChatReply:
        def chunks() -> Iterator[bytes]:
            yield b"data: " + body + b"\n\n"
            if body == b"drop":
                raise DropConnection
            yield b"data: [DONE]\n\n"

        return ChatReply(200, chunks())

    server = make_server(tmp_path, port=0, chat=chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def post(url: str, body: bytes) -> urllib.request.Request:
    return urllib.request.Request(url, data=body, method="POST")


def test_chat_replies_stream_chunked(chat_base: str) -> None:
    """POST /api/chat gets the handler's chunks, event-stream typed, never cached."""
    with urllib.request.urlopen(post(chat_base + "/api/chat", b"hi")) as response:
        assert response.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        assert response.headers["Transfer-Encoding"] == "chunked"
        assert response.headers["Cache-Control"] == "no-store"
        assert response.read() == b"data: hi\n\ndata: [DONE]\n\n"


def test_a_dropped_chat_reply_is_an_incomplete_body(chat_base: str) -> None:
    """DropConnection cuts the body off without its last chunk: a network error to clients."""
    response = urllib.request.urlopen(post(chat_base + "/api/chat", b"drop"))
    with response, pytest.raises(http.client.IncompleteRead):
        response.read()


def test_post_elsewhere_or_without_a_handler_is_refused(chat_base: str, base: str) -> None:
    """Only /api/chat takes POST, and only when the server has an answer handler."""
    for url, status in ((chat_base + "/other", 405), (base + "/api/chat", 404)):
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(post(url, b"{}"))
        assert raised.value.code == status
