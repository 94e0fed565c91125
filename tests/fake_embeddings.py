"""A deterministic stand-in for a site's embeddings model, speaking OpenAI's
``POST /v1/embeddings`` (tests only; the benchmarks use a real model).

A text's vector counts its words on a few "meaning" axes, so that words that
share no letters share a direction ("pause" and "suspend"), plus a small constant
so that no vector is zero::

    >>> [round(x, 2) for x in vector("Freeze for two seconds")]
    [0.71, 0.71, 0.0, 0.0, 0.07]
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fake-meaning-5"
AXES = (
    frozenset({"pause", "sleep", "suspend", "delay", "halt", "freeze", "wait"}),
    frozenset({"second", "seconds", "minute", "minutes", "hour", "hours", "duration"}),
    frozenset({"thread", "threads", "parallel", "concurrent", "concurrently"}),
    frozenset({"retry", "retries", "again", "failure", "fails", "failed", "crash"}),
)
DIMENSION = len(AXES) + 1
_WORD = re.compile(r"[a-z]+")


def vector(text: str) -> list[float]:
    words = _WORD.findall(text.lower())
    raw = [float(sum(word in axis for word in words)) for axis in AXES] + [0.1]
    length = math.sqrt(sum(x * x for x in raw))
    return [x / length for x in raw]


class FakeEmbeddings:
    """A loopback server whose answers a test chooses (``respond``): by default the
    vectors above; or a status, a hang, or vectors of another dimension."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []
        self.respond: Callable[[list[str]], tuple[int, object]] = self.vectors
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_OPTIONS(self) -> None:  # the browser's preflight for a JSON POST
                self.send_response(204)
                self._cors()
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                status, answer = owner.respond(texts)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self._cors()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _cors(self) -> None:
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "Content-Type, Authorization")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/embeddings"

    @staticmethod
    def vectors(texts: list[str]) -> tuple[int, object]:
        data = [
            {"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)
        ]
        return 200, {"object": "list", "data": data, "model": MODEL}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
