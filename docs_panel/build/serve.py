"""A small static server for the demo and for tests, on loopback only.

It serves what a production server should: the right MIME types (``.mjs``,
``.wasm``), the precompressed ``.gz`` twins to clients that accept gzip,
on-the-fly gzip for pages, ``immutable`` caching for content-hashed and
versioned files and revalidation (ETag) for the rest::

    server = make_server(Path("site_demo/_build"), port=0)

``compress=False`` plays a host that sends every file as it is (no twins, no
gzip), the case the panel's own decompression covers.
    threading.Thread(target=server.serve_forever, daemon=True).start()

Given a ``chat`` handler, it also answers ``POST /api/chat`` the way a model
server does: the handler gets the request body and returns a :class:`ChatReply`
whose chunks are sent as they come (chunked transfer encoding, flushed one by
one). A handler whose chunks raise :class:`DropConnection` cuts the connection
mid-body, which a browser sees as a network error. Given a ``feedback`` handler,
``POST /api/feedback`` gets the vote report's body and replies with the status
the handler returns (and no body), as a site's feedback receiver would.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
COMPRESS_ON_THE_FLY = (".html", ".css", ".js", ".json", ".svg", ".txt")
# runtime/pyodide-314.0.8/... and name.0123456789.ext(.gz) never change under the same URL.
IMMUTABLE_PATH = re.compile(r"/runtime/[\w.@-]+-\d[\w.-]*/|\.[0-9a-f]{10}(?:\.\w+)+$")
IMMUTABLE = "public, max-age=31536000, immutable"
CHAT_PATH = "/api/chat"
FEEDBACK_PATH = "/api/feedback"


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What the chat endpoint sends: a status, then the body as it is produced."""

    status: int
    chunks: Iterable[bytes]
    content_type: str = "text/event-stream; charset=utf-8"
    headers: Mapping[str, str] = field(default_factory=dict)  # e.g. Retry-After


class DropConnection(Exception):
    """Raised by a reply's chunks: close the connection without finishing the body."""


ChatHandler = Callable[[bytes], ChatReply]
FeedbackHandler = Callable[[bytes], int]


class StaticHandler(BaseHTTPRequestHandler):
    root: Path
    chat: ChatHandler | None = None
    feedback: FeedbackHandler | None = None
    compress = True
    quiet = True
    server_version = "docs-panel"
    # 1.1 for chunked chat replies; every other reply carries its Content-Length.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm on a kept-alive
    # connection, the body waited for the browser's delayed ACK of the headers, 40 ms
    # per request (real hosts set TCP_NODELAY; the load benchmark serves through this).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    def do_HEAD(self) -> None:
        self._send(head=True)

    def do_GET(self) -> None:
        self._send(head=False)

    def do_POST(self) -> None:
        feedback = type(self).feedback
        if feedback is not None and urlsplit(self.path).path == FEEDBACK_PATH:
            status = feedback(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        chat = type(self).chat
        if chat is None or urlsplit(self.path).path != CHAT_PATH:
            self.send_error(HTTPStatus.NOT_FOUND if chat is None else HTTPStatus.METHOD_NOT_ALLOWED)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = chat(body)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Cache-Control", "no-store")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for chunk in reply.chunks:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except DropConnection:
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):  # the reader stopped or left
            self.close_connection = True

    def _resolve(self) -> Path | None:
        path = unquote(urlsplit(self.path).path)
        target = (self.root / path.lstrip("/")).resolve()
        if not target.is_relative_to(self.root):
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None

    def _send(self, *, head: bool) -> None:
        target = self._resolve()
        if target is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        accepts_gzip = self.compress and "gzip" in self.headers.get("Accept-Encoding", "")
        twin = target.with_name(target.name + ".gz")
        encoding = None
        if accepts_gzip and twin.is_file():
            body, encoding = twin.read_bytes(), "gzip"
        else:
            body = target.read_bytes()
            if accepts_gzip and target.suffix in COMPRESS_ON_THE_FLY and len(body) > 512:
                body, encoding = gzip.compress(body, compresslevel=6, mtime=0), "gzip"
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        if self.headers.get("If-None-Match") == etag:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", MIME_TYPES.get(target.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Vary", "Accept-Encoding")
        immutable = IMMUTABLE_PATH.search(self.path.split("?")[0])
        self.send_header("Cache-Control", IMMUTABLE if immutable else "no-cache")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        if not head:
            self.wfile.write(body)


def make_server(
    root: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    chat: ChatHandler | None = None,
    feedback: FeedbackHandler | None = None,
    compress: bool = True,
    handler: type[StaticHandler] = StaticHandler,
) -> ThreadingHTTPServer:
    """A threaded server for ``root``; ``port=0`` picks a free port (see ``server_port``).

    ``chat`` answers ``POST /api/chat`` and ``feedback`` ``POST /api/feedback``;
    without them, POST is not found. ``compress=False`` sends every file as it is.
    ``handler`` may be a subclass that observes what is sent (the benchmarks count bytes).
    """
    attributes = {
        "root": root.resolve(),
        "chat": staticmethod(chat) if chat else None,
        "feedback": staticmethod(feedback) if feedback else None,
        "compress": compress,
    }
    bound = type("Handler", (handler,), attributes)
    server = ThreadingHTTPServer((host, port), bound)
    server.daemon_threads = True  # a kept-alive or streaming connection never blocks exit
    return server
