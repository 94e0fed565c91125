"""Section vectors at build time, from the site owner's embeddings server.

``build.py --embeddings URL --embeddings-model NAME`` sends every section's
passage (``passage``: page title, heading and text, cut to what such models
read) to an OpenAI-compatible ``POST /v1/embeddings`` (llama.cpp's server,
Ollama, vLLM, Hugging Face TEI, hosted APIs), in batches, and keeps each
vector as ``docs_panel.core.vectors`` codes for the index. A retrieval model that
embeds questions and passages differently is told the passage side
(``--embeddings-passage-prefix``, ``-input-type``, ``-model``; see
``docs_panel.core.embedding_roles``), and the index records it with the query side
(``--embeddings-query-*``) that the panel is to send.

- The API key comes from the environment (``DOCS_PANEL_EMBEDDINGS_KEY``, sent as
  a bearer token), never from a flag, and is never written anywhere.
- A failed batch (no connection, a time-out, HTTP 429 or 5xx) is tried again after
  1, 2, 4 and 8 s (or the server's ``Retry-After``); any other answer, or one
  that does not hold one vector of one dimension per passage, stops the build
  with one line saying why (``EmbeddingsError``).
- A cache (SQLite, one row per request: model, role and passage) keeps every vector
  made, so a rebuild embeds only the sections whose text changed.
- Progress goes to stderr: sections done, rate, time left.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
import urllib.error
import urllib.request
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO

from docs_panel.build.index_build import Embedded
from docs_panel.core.docs_index import Section
from docs_panel.core.embedding_roles import NO_ROLE, Role, request_body
from docs_panel.core.vectors import encode
from docs_panel.portable.errors import WidgetError

KEY_VARIABLE = "DOCS_PANEL_EMBEDDINGS_KEY"
#: Characters of a passage sent to the model: small models read 256-512 tokens, and
#: a section's first 1,500 characters say what it is about.
PASSAGE_CHARACTERS = 1500
BATCH = 64
RETRIES = (1, 2, 4, 8)
TIMEOUT = 120
DEFAULT_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    / "docs-panel"
    / "embeddings.sqlite3"
)


class EmbeddingsError(WidgetError):
    """The embeddings server could not embed the sections."""


def passage(section: Section) -> str:
    """What is embedded for a section: where it is, what it is called, what it says."""
    return f"{section.page_title}: {section.title}\n{section.text}"[:PASSAGE_CHARACTERS]


Post = Callable[[str, bytes, dict[str, str]], tuple[int, dict[str, str], bytes]]


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers or {}), err.read()


class EmbeddingsClient:
    """``embed(texts)``: vectors from ``url`` for ``model``, asked for on ``role``'s
    side, with retries."""

    def __init__(
        self,
        url: str,
        model: str,
        role: Role = NO_ROLE,
        *,
        post: Post = _post,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url, self.model, self.role = url, model, role
        self._post, self._sleep = post, sleep
        self._headers = {"Content-Type": "application/json"}
        key = os.environ.get(KEY_VARIABLE)
        if key:
            self._headers["Authorization"] = f"Bearer {key}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        body = request_body(self.model, self.role, texts).encode()
        problem = ""
        for wait in (*RETRIES, None):
            try:
                status, headers, data = self._post(self.url, body, self._headers)
            except (OSError, TimeoutError) as err:  # no connection, a time-out
                status, headers, data = 0, {}, b""
                problem = f"no answer ({getattr(err, 'reason', err)})"
            if status == 200:
                return self._vectors(data, len(texts))
            if status and status != 429 and status < 500:
                raise EmbeddingsError(f"{self.url} answered HTTP {status}: {_said(data)}")
            if status:
                problem = f"HTTP {status}"
            if wait is None:
                break
            retry_after = headers.get("Retry-After", "")
            self._sleep(float(retry_after) if retry_after.isdigit() else wait)
        raise EmbeddingsError(f"{self.url}: {problem} after {len(RETRIES) + 1} tries")

    def _vectors(self, data: bytes, count: int) -> list[list[float]]:
        try:
            rows = sorted(json.loads(data)["data"], key=lambda row: row["index"])
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (ValueError, KeyError, TypeError) as err:
            raise EmbeddingsError(f"{self.url}: not an OpenAI embeddings answer ({err})") from err
        if len(vectors) != count or len({len(v) for v in vectors}) != 1 or not vectors[0]:
            raise EmbeddingsError(
                f"{self.url}: expected {count} vectors of one dimension, got {len(vectors)}"
            )
        return vectors


class VectorCache:
    """Vectors already made, by model and passage (SQLite at ``path``), kept whole
    (float32) so that a change of the index's code form needs no new embedding."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        with self._db:
            self._db.execute("DROP TABLE IF EXISTS vectors")  # int8 codes of an older release
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB)"
            )

    @staticmethod
    def key(model: str, text: str, role: Role = NO_ROLE) -> str:
        """The row of ``text`` asked for as ``role`` (a role-less one keeps the key it
        always had, so that vectors made before roles are still found)."""
        asked = f"{role.model or model}\0{role.prefix}{text}"
        if role.input_type:
            asked += f"\0{role.input_type}"
        return hashlib.sha256(asked.encode()).hexdigest()

    def get(self, keys: Iterable[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        keys = list(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, vector FROM embeddings WHERE key IN ({marks})"
            for key, blob in self._db.execute(query, chunk):
                found[key] = array("f", blob).tolist()
        return found

    def put(self, rows: dict[str, list[float]]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?)",
                ((key, array("f", vector).tobytes()) for key, vector in rows.items()),
            )

    def close(self) -> None:
        self._db.close()


def embed_sections(
    sections: Sequence[Section],
    client: EmbeddingsClient,
    cache: VectorCache,
    *,
    progress: IO[str] = sys.stderr,
    clock: Callable[[], float] = time.monotonic,
    query: Role = NO_ROLE,
) -> Embedded:
    """Every section's vector code, from the cache or the server (in ``BATCH``es); the
    index is to tell the panel to ask for questions as ``query``."""
    texts = {section.address: passage(section) for section in sections}
    keys = {address: cache.key(client.model, text, client.role) for address, text in texts.items()}
    known = cache.get(keys.values())
    todo = sorted({keys[a]: texts[a] for a in texts if keys[a] not in known}.items())
    started = clock()
    for done in range(0, len(todo), BATCH):
        batch = todo[done : done + BATCH]
        made = dict(
            zip((key for key, _ in batch), client.embed([t for _, t in batch]), strict=True)
        )
        cache.put(made)
        known.update(made)
        _report(progress, done + len(batch), len(todo), clock() - started)
    dimensions = {len(known[key]) for key in keys.values()}
    if len(dimensions) > 1:
        raise EmbeddingsError(
            f"{client.model}: vectors of {len(dimensions)} dimensions in the cache;"
            " delete it or use another --embeddings-cache"
        )
    codes = {address: encode(vector) for address, vector in _centered(known, keys).items()}
    roles = {"query": query, "passage": client.role}
    return Embedded(client.model, dimensions.pop() if dimensions else 0, codes, roles)


def _centered(known: dict[str, list[float]], keys: dict[str, str]) -> dict[str, list[float]]:
    """Each section's vector less the mean of all: a model whose vectors all lean one
    way (e5's cosines sit between 0.7 and 0.9) would otherwise set the same sign bits
    for every section, and the bits that tell sections apart would be few. A
    question's cosine with a centered section differs from its cosine with the
    section by the same amount for every section, so questions need no centering."""
    vectors = [known[key] for key in keys.values()]
    mean = [sum(column) / len(vectors) for column in zip(*vectors, strict=True)]
    return {
        address: [x - m for x, m in zip(known[key], mean, strict=True)]
        for address, key in keys.items()
    }


def _said(data: bytes) -> str:
    """An error answer's message (OpenAI's ``{"error": {"message"}}``), else its start."""
    try:
        error = json.loads(data).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    text = str(message) if message else data[:200].decode("utf-8", "replace")
    return " ".join(text.split()) or "no message"


def _report(out: IO[str], done: int, total: int, seconds: float) -> None:
    """One line redrawn on a terminal; in a log (CI), a line at each tenth done."""
    terminal = out.isatty()
    if not terminal and done < total and done * 10 // total == (done - BATCH) * 10 // total:
        return
    rate = done / seconds if seconds > 0 else 0.0
    left = (total - done) / rate if rate else 0.0
    start, end = ("\r" if terminal else ""), ("  " if terminal and done < total else "\n")
    out.write(
        f"{start}docs-panel: embedding sections {done:,}/{total:,} ({done / total:.0%})"
        f" · {rate:.0f}/s · {left / 60:.0f} min left{end}"
    )
    out.flush()
