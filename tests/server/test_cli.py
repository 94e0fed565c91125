"""``docs-panel server``'s flags reach the app: each is given on the command line
(``cli.main``, as the operator runs it, with uvicorn's socket left out, or two real
processes for ``--redis``) and seen in what the server does, against a fake upstream
whose stalls the test chooses."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from docs_panel.core.feedback import report
from docs_panel.core.history_schema import Turn
from docs_panel.portable.errors import StreamError
from docs_panel.server import cli
from docs_panel.server.settings import Settings, Timeouts
from docs_panel.server.upstream import ask_upstream, upstream_client
from tests.browser.conftest import Site
from tests.browser.endpoint import event
from tests.event_loops import on_own_loop
from tests.server.test_process import ready, wait_for
from tests.services import free_port

ROOT = Path(__file__).parents[2]
SIGNING_KEYS = "k1:" + "s" * 32
UPSTREAM_KEY = "sk-operator-key-0123456789"
QUESTION = {"question": "how do I retry a job"}
STALL_S = 5.0
"""How long the fake upstream stalls: far over the small limits the tests set, far
under the defaults, so a limit that is not applied lets the answer finish."""
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


class FakeUpstream:
    """An OpenAI-compatible chat endpoint on loopback that records each request's
    headers and answers as ``mode`` says: at once, after a silence before its headers
    (``silent``), after a silence mid-stream (``stall``), or a chunk every 50 ms
    (``trickle``), each for ``STALL_S`` at most."""

    def __init__(self) -> None:
        self.mode = "answer"
        self.headers: list[dict[str, str]] = []
        self.bodies: list[dict[str, Any]] = []
        self.released = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.headers.append(dict(self.headers))
                fake.bodies.append(json.loads(body))
                if fake.mode == "silent":
                    fake.released.wait(STALL_S)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(event({"role": "assistant"}) + event({"content": "Retry"}))
                self.wfile.flush()
                if fake.mode == "stall":
                    fake.released.wait(STALL_S)
                deadline = time.monotonic() + STALL_S
                while fake.mode == "trickle" and time.monotonic() < deadline:
                    if fake.released.wait(0.05):
                        break
                    self.wfile.write(event({"content": "."}))
                    self.wfile.flush()
                self.wfile.write(event({"content": " [1]."}, finish="stop") + b"data: [DONE]\n\n")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/chat/completions"

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream()
    yield fake
    fake.close()


@pytest.fixture
def flags(site: Site, tmp_path: Path, upstream: FakeUpstream) -> list[str]:
    """The flags every run needs: the demo build, the fake upstream, a votes file."""
    return [
        "--site", str(site.root), "--upstream", upstream.url, "--model", "m",
        "--database", str(tmp_path / "votes.sqlite3"),
    ]  # fmt: skip


def app_from(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> Starlette:
    """The app ``cli.main(argv)`` hands to uvicorn, which is not started."""
    monkeypatch.setenv("DOCS_PANEL_SIGNING_KEYS", SIGNING_KEYS)
    monkeypatch.setenv("DOCS_PANEL_UPSTREAM_KEY", UPSTREAM_KEY)
    monkeypatch.setattr(cli.logs, "configure", lambda: None)  # pytest keeps the logging
    served: list[Starlette] = []
    monkeypatch.setattr(cli._Server, "run", lambda server: served.append(server.config.app))
    assert cli.main(argv) == 0
    (app,) = served
    return app


def asks(client: TestClient, times: int, **headers: str) -> list[int]:
    return [
        client.post("/answer", json=QUESTION, headers=headers).status_code for _ in range(times)
    ]


def test_the_upstream_key_and_the_model_are_sent(
    flags: list[str], upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(app_from(flags, monkeypatch)) as client:
        reply = client.post("/answer", json=QUESTION)
    assert reply.status_code == 200 and b"event: error" not in reply.content
    assert upstream.headers[-1]["Authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert upstream.bodies[-1]["model"] == "m"


def test_origin_allows_that_origin_only(flags: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_from([*flags, "--origin", "https://docs.example.org"], monkeypatch)
    preflight = {"access-control-request-method": "POST"}
    with TestClient(app) as client:
        allowed = client.options(
            "/answer", headers={"origin": "https://docs.example.org"} | preflight
        )
        other = client.options("/answer", headers={"origin": "https://evil.example"} | preflight)
    assert allowed.headers["access-control-allow-origin"] == "https://docs.example.org"
    assert "access-control-allow-origin" not in other.headers


def test_client_rate_and_burst_are_each_readers(
    flags: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_from([*flags, "--client-rate", "0.01", "--client-burst", "2"], monkeypatch)
    with TestClient(app) as client:
        assert asks(client, 2) == [200, 200]
        refused = client.post("/answer", json=QUESTION)
    assert refused.status_code == 429
    assert 90 <= int(refused.headers["Retry-After"]) <= 100  # one question per 100 s


def test_trusted_proxy_and_total_rate_and_burst(
    flags: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind a trusted proxy each forwarded reader has a bucket of their own, and the
    site's total bucket holds them all; a proxy not named is not believed."""
    limits = ["--client-burst", "1", "--total-rate", "0.02", "--total-burst", "3"]
    trusted = app_from([*flags, *limits, "--trusted-proxy", "10.0.0.0/8"], monkeypatch)
    with TestClient(trusted, client=("10.1.2.3", 4000)) as client:
        readers = [
            client.post("/answer", json=QUESTION, headers={"X-Forwarded-For": f"192.0.2.{n}"})
            for n in range(4)
        ]
    assert [r.status_code for r in readers] == [200, 200, 200, 429]
    assert 40 <= int(readers[-1].headers["Retry-After"]) <= 50  # one per 50 s for the site
    untrusted = app_from([*flags, *limits], monkeypatch)
    with TestClient(untrusted, client=("10.1.2.3", 4000)) as client:
        codes = [asks(client, 1, **{"X-Forwarded-For": f"192.0.2.{n}"})[0] for n in range(2)]
    assert codes == [200, 429]


def test_vote_rate_and_burst(flags: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_from([*flags, "--vote-rate", "0.1", "--vote-burst", "2"], monkeypatch)
    turn = Turn(question="q", answer="a", status="done", asked_at=1, finished_at=2, vote="up")
    with TestClient(app) as client:
        replies = [
            client.post("/feedback", json=report(replace(turn, vote_id=f"v{n}"), retrieved=[],
                        page_url="https://docs.example.org/", now=n))
            for n in range(3)
        ]  # fmt: skip
    assert [r.status_code for r in replies] == [204, 204, 429]
    assert 5 <= int(replies[-1].headers["Retry-After"]) <= 10  # one vote per 10 s


def test_timeout_bounds_the_upstreams_silence(
    flags: list[str], upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--timeout is the wait for the first byte and between two chunks: an upstream
    silent for longer gets an error event (with the default the answer would finish)."""
    with TestClient(app_from([*flags, "--timeout", "0.3"], monkeypatch)) as client:
        for mode in ("silent", "stall"):
            upstream.mode = mode
            reply = client.post("/answer", json=QUESTION)
            assert b"event: error" in reply.content, mode
            assert b"[1]." not in reply.content, mode


def test_two_processes_on_one_redis_share_their_limits(
    site: Site, tmp_path: Path, redis_url: str, upstream: FakeUpstream
) -> None:
    """Two ``docs-panel server --redis URL`` processes: the second is refused the
    question the first spent the reader's burst on."""
    env = os.environ | {
        "DOCS_PANEL_SIGNING_KEYS": SIGNING_KEYS,
        "DOCS_PANEL_UPSTREAM_KEY": UPSTREAM_KEY,
        "PYTHONPATH": str(ROOT),
    }
    urls, processes = [], []
    try:
        for n in range(2):
            port = free_port()
            command = [
                sys.executable, "-m", "docs_panel.cli", "server", "--site", str(site.root),
                "--upstream", upstream.url, "--model", "m", "--port", str(port),
                "--database", str(tmp_path / f"votes-{n}.sqlite3"), "--redis", redis_url,
                "--client-burst", "1", "--client-rate", "0.01",
            ]  # fmt: skip
            processes.append(
                subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url, process in zip(urls, processes, strict=True):
            wait_for(lambda u=url, p=process: ready(u) or p.poll() is not None, f"{url} is ready")
            assert process.poll() is None, f"{url} exited"
        first = httpx.post(f"{urls[0]}/answer", json=QUESTION, timeout=30)
        second = httpx.post(f"{urls[1]}/answer", json=QUESTION, timeout=30)
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert first.status_code == 200
    assert second.status_code == 429 and int(second.headers["Retry-After"]) >= 90


def documented_timeouts() -> dict[str, float]:
    """The upstream timeouts as the owner's docs state them."""
    sentence = re.compile(
        r"connect (?P<connect>[\d.]+) s, first byte and each chunk `--timeout` "
        r"(?P<idle>[\d.]+) s, a whole\s+answer (?P<total>[\d.]+) s"
    )
    for page in DOCS:
        found = sentence.search(page.read_text(encoding="utf-8"))
        if found:
            return {name: float(value) for name, value in found.groupdict().items()}
    raise AssertionError("no page states the upstream timeouts")


def test_the_documented_timeouts_are_the_ones_the_server_uses(
    flags: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    documented = documented_timeouts()
    seen: list[Settings] = []
    real = cli.create_app

    def create_app(settings: Settings, **limits: Any) -> Starlette:
        seen.append(settings)
        return real(settings, **limits)

    monkeypatch.setattr(cli, "create_app", create_app)
    app_from(flags, monkeypatch)
    timeouts = seen[0].timeouts
    assert (timeouts.connect, timeouts.first_byte, timeouts.idle, timeouts.total) == (
        documented["connect"],
        documented["idle"],
        documented["idle"],
        documented["total"],
    )

    async def client_timeout() -> Any:
        client = upstream_client(seen[0])
        try:
            return client.session().timeout
        finally:
            await client.aclose()

    timeout = on_own_loop(client_timeout())
    assert (timeout.sock_connect, timeout.sock_read) == (timeouts.connect, timeouts.idle)


def failure(url: str, timeouts: Timeouts, flags: list[str], site: Site) -> str:
    """The StreamError ``ask_upstream`` ends with, on settings with these timeouts."""
    settings = Settings.from_environment(
        environ={"DOCS_PANEL_SIGNING_KEYS": SIGNING_KEYS},
        index=site.root / "docs-panel",
        upstream=url,
        model="m",
        timeouts=timeouts,
    )

    async def run() -> str:
        client = upstream_client(settings)
        try:
            async for _ in ask_upstream(client, settings, {"model": "m", "messages": []}):
                pass
        except StreamError as err:
            return str(err)
        finally:
            await client.aclose()
        return "no error"

    return on_own_loop(run())


LONG = STALL_S * 4
"""A limit the fake upstream never reaches: only the limit under test can end the call."""


def test_each_upstream_timeout_ends_the_call(
    upstream: FakeUpstream, flags: list[str], site: Site
) -> None:
    """Each step's limit, made small, ends a call the fake upstream stalls at that step."""
    wide = Timeouts(connect=LONG, first_byte=LONG, idle=LONG, total=LONG)
    small = 0.3
    upstream.mode = "silent"
    assert (
        failure(
            upstream.url,
            Timeouts(connect=LONG, first_byte=small, idle=LONG, total=LONG),
            flags,
            site,
        )
        == "the upstream model did not answer (TimeoutError)"
    )
    upstream.mode = "stall"
    assert (
        failure(
            upstream.url,
            Timeouts(connect=LONG, first_byte=LONG, idle=small, total=LONG),
            flags,
            site,
        )
        == "the upstream model's stream failed (SocketTimeoutError)"
    )
    upstream.mode = "trickle"
    assert (
        failure(
            upstream.url,
            Timeouts(connect=LONG, first_byte=LONG, idle=LONG, total=small),
            flags,
            site,
        )
        == f"the upstream model took over {small:g} s"
    )
    upstream.mode = "answer"
    assert failure(upstream.url, wide, flags, site) == "no error"


def test_the_connect_timeout_ends_a_connection_never_accepted(flags: list[str], site: Site) -> None:
    """A listener whose queue is full drops new connections' SYNs, so a connect hangs
    until the connect limit ends it."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        try:
            got = failure(
                f"http://127.0.0.1:{port}/v1/chat/completions",
                Timeouts(connect=0.3, first_byte=LONG, idle=LONG, total=LONG),
                flags,
                site,
            )
        finally:
            for filler in fillers:
                filler.close()
    assert got == "the upstream model did not answer (ConnectionTimeoutError)"
