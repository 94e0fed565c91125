"""The sites the load benchmark opens, and the hosts that serve them.

Four sites: the demo (``site_demo``, answers from the demo endpoint), the
whole Python docs (Debian's ``python3.11-doc``, about 500 pages), the
pandas API reference (``python-pandas-doc``, Sphinx + pydata theme, about
4,100 pages) and ``pandas-x5``, five marked copies of it (20,610 files,
``bench.scale.make_site``: no real docs site that large is at hand), each large
one behind one host page. Each is
served twice: by a host that gzips (the ``.gz`` twins, gzip on the fly for
pages) and by one that sends every file as it is. Every host counts the body
bytes it sends, so "bytes on the wire" includes the worker's requests and
leaves out what the HTTP cache answered (a 304 sends no body)::

    site = build_site("demo", tmp)
    with Host(site, compress=False) as host:
        host.sent = 0; ...; host.sent     # bytes since the reset
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from docs_panel.build.cli import PANEL_FOLDER, build, build_demo, demo_head
from docs_panel.build.demo.answers import demo_reply
from docs_panel.build.serve import CHAT_PATH, StaticHandler, make_server

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
PANDAS_DOCS = Path("/usr/share/doc/python-pandas-doc/html")
#: The built docs behind a host page, by site name.
FOLDERS = {"pydocs": PYTHON_DOCS, "pandas": PANDAS_DOCS, "pandas-x5": PANDAS_DOCS}
#: Sites made of marked copies of a folder's pages: how many copies.
COPIES = {"pandas-x5": 5}
QUESTIONS = {
    "demo": "How do I retry a job that failed?",
    "pydocs": "How do I parse a JSON string into a dict?",
    "pandas": "How do I read a CSV file into a DataFrame?",
    "pandas-x5": "How do I read a CSV file into a DataFrame?",
}


@dataclass(frozen=True, slots=True)
class Site:
    name: str
    root: Path
    page: str  # the path of the page the panel is opened on
    question: str
    pages: int
    sections: int


def build_site(name: str, tmp: Path) -> Site:
    """Build ``demo`` or ``pydocs`` with the panel (answers from the demo endpoint)."""
    root = tmp / name
    if name == "demo":
        report = build_demo(root, endpoint=CHAT_PATH)
        page = "/"
    elif name in FOLDERS:
        root.mkdir(parents=True)
        source = FOLDERS[name]
        if name in COPIES:
            from bench.scale import make_site, pages_of  # scale imports this module

            make_site(source, pages_of(source), tmp / f"{name}-copies", COPIES[name])
            source = tmp / f"{name}-copies"
        report = build(source, root / PANEL_FOLDER)
        page = "/index.html"
        (root / "index.html").write_text(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title>'
            f'<link rel="icon" href="data:,">{demo_head(CHAT_PATH)}</head>'
            "<body><h1>The docs</h1><p>Ask the panel.</p></body></html>",
            encoding="utf-8",
        )
    else:
        raise ValueError(f"unknown site {name!r}: expected demo, {' or '.join(FOLDERS)}")
    return Site(name, root, page, QUESTIONS[name], report.pages, report.sections)


class _Counting(StaticHandler):
    """Adds each file body's length to ``counter`` (304s send none; chat replies,
    a few KiB streamed without a Content-Length, are left out)."""

    counter: list[int]

    def send_header(self, keyword: str, value: str) -> None:
        if keyword == "Content-Length":
            self.counter[0] += int(value)
        super().send_header(keyword, value)


class Host:
    """``site`` served on a free loopback port, gzipping or ``compress=False``."""

    def __init__(self, site: Site, *, compress: bool) -> None:
        self._counter = [0]
        handler = type("Handler", (_Counting,), {"counter": self._counter})
        self._server = make_server(
            site.root, port=0, chat=demo_reply, compress=compress, handler=handler
        )
        self.url = f"http://127.0.0.1:{self._server.server_port}{site.page}"

    @property
    def sent(self) -> int:
        return self._counter[0]

    @sent.setter
    def sent(self, value: int) -> None:
        self._counter[0] = value

    def __enter__(self) -> Host:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
