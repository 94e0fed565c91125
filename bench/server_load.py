"""The server install under load, on loopback. Nothing here asserts: it
prints the figures (and ``--json FILE`` keeps them).

    python3 bench/server_load.py                     # every part below
    python3 bench/server_load.py --only stream,votes --streams 200 --tokens 300 --pace-ms 20

- **stream**: ``--streams`` questions at once through ``build.py server`` to a fake
  upstream (its own process) that streams ``--tokens`` tokens ``--pace-ms`` apart, and
  the same straight to the upstream: time to first token and to last token (p50/p95),
  errors.
- **python**: the server with the whole Python docs (Debian's ``python3.11-doc``)
  loaded: its RSS, and questions a second through retrieval, gate and prompt alone
  (``answering.plan_for``, in this process, over ``bench/questions_python_docs.json``).
- **votes**: clients send votes to the server while it is killed (SIGKILL) and started
  again, three times; every acknowledged (204) vote must be kept. SQLite and PostgreSQL
  (``tests/services.py`` starts one on loopback).
- **limits**: two server instances sharing one Redis, asked as fast as clients can for
  a few seconds: what they let through against what the buckets allow.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docs_panel.build.cli import build, build_demo  # noqa: E402
from docs_panel.core.server_wire import ServerStreamDecoder  # noqa: E402
from docs_panel.core.stream import ChatStreamDecoder, ContentDelta, Done  # noqa: E402
from tests.services import free_port, postgres_server, redis_server  # noqa: E402

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
QUESTIONS = ROOT / "bench" / "questions_python_docs.json"
KEYS = {"DOCS_PANEL_SIGNING_KEYS": "bench:" + "b" * 32}
ROOMY = ["--client-rate", "100000", "--client-burst", "100000"]
ROOMY += ["--total-rate", "100000", "--total-burst", "100000"]
ROOMY += ["--vote-rate", "100000", "--vote-burst", "100000"]
START_TIMEOUT_S = 180.0
PROFILE: Path | None = None
"""``--profile DIR``: where py-spy writes each server's samples."""
SPIES: dict[int, subprocess.Popen[bytes]] = {}
UPSTREAM_PIDS: dict[str, int] = {}
"""Each running fake upstream's process, by URL: its CPU time is reported."""

UPSTREAM = """
import asyncio, json, sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route
port, tokens, pace = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000

async def chat(request):
    await request.body()
    async def events():
        for n in range(tokens):
            await asyncio.sleep(pace)
            chunk = {"choices": [{"delta": {"content": f"w{n} "}}]}
            yield f"data: {json.dumps(chunk)}\\n\\n".encode()
        yield b"data: [DONE]\\n\\n"
    return StreamingResponse(events(), media_type="text/event-stream")

app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)
"""


def _wait(url: str, process: subprocess.Popen[bytes], path: str = "/readyz") -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + path, timeout=5).status_code in (200, 405):
                return
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not start (exit {process.poll()})")
        time.sleep(0.1)


@contextlib.contextmanager
def upstream(tokens: int, pace_ms: float) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", UPSTREAM, str(port), str(tokens), str(pace_ms)]
    )
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    UPSTREAM_PIDS[url] = process.pid
    try:
        _wait(f"http://127.0.0.1:{port}", process, "/v1/chat/completions")
        yield url
    finally:
        del UPSTREAM_PIDS[url]
        process.kill()
        process.wait()


def start_server(
    index: Path, upstream_url: str, *extra: str, port: int = 0
) -> tuple[str, subprocess.Popen[bytes]]:
    port = port or free_port()
    command = [
        sys.executable,
        "build.py",
        "server",
        "--index",
        str(index),
        "--upstream",
        upstream_url,
    ]
    command += ["--model", "bench", "--port", str(port), *extra]
    if "--database" not in extra:  # never the working folder's default
        command += ["--database", str(Path(tempfile.mkdtemp()) / "votes.sqlite3")]
    env = os.environ | KEYS | {"PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    _wait(url, process)
    if PROFILE:  # py-spy samples the server until _stop: a collapsed-stack file per server
        spy = ["py-spy", "record", "--format", "raw", "--rate", "100", "--nonblocking"]
        spy += ["--pid", str(process.pid), "-o", str(PROFILE / f"server-{port}.txt")]
        SPIES[process.pid] = subprocess.Popen(spy, stdout=subprocess.DEVNULL)
    return url, process


def _stop(process: subprocess.Popen[bytes]) -> None:
    spy = SPIES.pop(process.pid, None)
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        spy.wait()
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p95": float("nan")}
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


async def _one_stream(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], server: bool
) -> tuple[float, float]:
    decoder = ServerStreamDecoder() if server else ChatStreamDecoder()
    started = time.perf_counter()
    first = 0.0
    async with client.stream("POST", url, json=body) as reply:
        if reply.status_code != 200:
            raise RuntimeError(f"HTTP {reply.status_code}")
        done = False
        async for chunk in reply.aiter_raw():
            for delta in decoder.feed(chunk):
                if isinstance(delta, ContentDelta) and not first:
                    first = time.perf_counter() - started
                done = done or isinstance(delta, Done)
        decoder.close()
    if not (first and done):
        raise RuntimeError("no answer")
    return first, time.perf_counter() - started


async def _streams(url: str, body: dict[str, Any], count: int, server: bool) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        results = await asyncio.gather(
            *(_one_stream(client, url, body, server) for _ in range(count)), return_exceptions=True
        )
    timings = [r for r in results if isinstance(r, tuple)]
    errors = [str(r) for r in results if isinstance(r, BaseException)]
    return {
        "ttft_s": _percentiles([t[0] for t in timings]),
        "last_token_s": _percentiles([t[1] for t in timings]),
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:3],
    }


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _waited_s(pid: int) -> float:
    """Seconds the process's main thread has spent runnable but waiting for a CPU: on a
    busy machine, each hop of a token (upstream, server, client) waits this way."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def _round(
    url: str, body: dict[str, Any], streams: int, server: bool, pids: dict[str, int]
) -> dict[str, Any]:
    """One measured round, with the CPU seconds each process spent on it."""
    pids = pids | {"load_generator": os.getpid()}
    before = {name: (_cpu_s(pid), _waited_s(pid)) for name, pid in pids.items()}
    figures = asyncio.run(_streams(url, body, streams, server))
    figures["cpu_s"] = {name: round(_cpu_s(pid) - before[name][0], 2) for name, pid in pids.items()}
    figures["runqueue_wait_s"] = {
        name: round(_waited_s(pid) - before[name][1], 2) for name, pid in pids.items()
    }
    return figures


def _median_of_rounds(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    def median(*path: str) -> float:
        values = []
        for figures in rounds:
            for key in path:
                figures = figures[key]
            values.append(figures)
        return round(statistics.median(values), 3)

    return {
        "ttft_s": {p: median("ttft_s", p) for p in ("p50", "p95")},
        "last_token_s": {p: median("last_token_s", p) for p in ("p50", "p95")},
        "errors": sum(r["errors"] for r in rounds),
        "cpu_s": {name: median("cpu_s", name) for name in rounds[0]["cpu_s"]},
        "runqueue_wait_s": {name: median("runqueue_wait_s", name) for name in rounds[0]["cpu_s"]},
        "ttft_p95_per_round": [r["ttft_s"]["p95"] for r in rounds],
    }


def stream_part(
    index: Path, streams: int, tokens: int, pace_ms: float, rounds: int = 3, pin: bool = False
) -> dict[str, Any]:
    """Direct and through-the-server rounds, interleaved (which goes first alternates) so
    a busy spell on the machine falls on both; medians of the rounds' figures. ``pin``:
    the server alone on CPU 0, the fake upstream and this load generator on CPU 1."""
    question = {"question": "how do I retry a failed job"}
    direct_body = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "q"}]}
    with upstream(tokens, pace_ms) as upstream_url:
        url, process = start_server(index, upstream_url, *ROOMY, "--gate", "0")
        pids = {"server": process.pid, "upstream": UPSTREAM_PIDS[upstream_url]}
        if pin:
            os.sched_setaffinity(process.pid, {0})
            os.sched_setaffinity(pids["upstream"], {1})
            os.sched_setaffinity(0, {1})
        direct: list[dict[str, Any]] = []
        through: list[dict[str, Any]] = []
        try:
            for n in range(rounds):
                order = [False, True] if n % 2 == 0 else [True, False]
                for server in order:
                    if server:
                        through.append(_round(url + "/answer", question, streams, True, pids))
                    else:
                        direct.append(_round(upstream_url, direct_body, streams, False, pids))
        finally:
            _stop(process)
            if pin:
                os.sched_setaffinity(0, range(os.cpu_count() or 1))
    ratios = [t["ttft_s"]["p95"] / d["ttft_s"]["p95"] for d, t in zip(direct, through, strict=True)]
    return {"streams": streams, "tokens": tokens, "pace_ms": pace_ms, "rounds": rounds,
            "pinned": pin, "direct": _median_of_rounds(direct),
            "server": _median_of_rounds(through),
            "ttft_p95_ratio_per_round": [round(r, 2) for r in ratios],
            "ttft_p95_ratio": round(statistics.median(ratios), 2)}  # fmt: skip


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def python_part(work: Path) -> dict[str, Any]:
    if not PYTHON_DOCS.is_dir():
        return {"skipped": f"{PYTHON_DOCS} missing (apt-get install python3.11-doc)"}
    site = work / "python-docs"
    shutil.copytree(PYTHON_DOCS, site, symlinks=True)
    report = build(site)
    index = site / "docs-panel"
    with upstream(10, 1) as upstream_url:
        url, process = start_server(index, upstream_url, *ROOMY)
        try:
            rss = _rss_mib(process.pid)
            ready = httpx.get(url + "/readyz").json()
        finally:
            _stop(process)
    from docs_panel.server.answering import Context, Counters, plan_for
    from docs_panel.server.index_files import read_index
    from docs_panel.server.settings import Settings
    from docs_panel.server.upstream import Upstream

    settings = Settings.from_environment(
        environ=KEYS, index=index, upstream="http://127.0.0.1:9/", model="m"
    )
    loaded = read_index(index)
    context = Context(settings, lambda: loaded, Upstream(settings), Counters())
    from docs_panel.core.server_wire import ServerQuestion

    questions = [q["q"] for q in json.loads(QUESTIONS.read_text())["questions"]]
    started = time.perf_counter()
    for question in questions:
        plan_for(ServerQuestion(question=question), context, loaded, "bench")
    elapsed = time.perf_counter() - started
    return {"sections": report.sections, "pages": report.pages, "index": ready["index"],
            "server_rss_mib": rss, "retrieval_questions_per_s": round(len(questions) / elapsed, 1),
            "questions": len(questions)}  # fmt: skip


VOTE: dict[str, object] = {
    "vote": "up", "reasons": [], "sentence": "", "question": "q", "quote": "", "answer": "a",
    "sources": [], "scope": None, "gate": None, "retrieved": [],
    "page_url": "https://docs.example.org/",
}  # fmt: skip
"""A vote report in the panel's shape (``docs_panel.core.feedback.report``), id and time apart."""


async def _vote_until(url: str, first: int, acked: set[str], stop: asyncio.Event) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        n = first
        while not stop.is_set():
            vote_id = f"v{n}"
            n += 1
            body = VOTE | {"id": vote_id, "voted_at": n}
            with contextlib.suppress(httpx.HTTPError):
                if (await client.post(url + "/feedback", json=body)).status_code == 204:
                    acked.add(vote_id)


async def _kill_mid_load(
    url: str, process: subprocess.Popen[bytes], first: int, acked: set[str]
) -> None:
    """50 clients send votes; the server is killed (SIGKILL) once 300 more are taken."""
    before, stop = len(acked), asyncio.Event()
    writers = [
        asyncio.ensure_future(_vote_until(url, first + w * 1_000_000, acked, stop))
        for w in range(50)
    ]
    while len(acked) < before + 300:
        await asyncio.sleep(0.01)
    process.send_signal(signal.SIGKILL)  # puts in flight
    await asyncio.sleep(0.5)
    stop.set()
    await asyncio.gather(*writers)


async def _kept(database: str) -> set[str]:
    from docs_panel.server.votes.store import open_votes

    store = await open_votes(database, Path(database))
    try:
        return {str(r["id"]) for r in await store.reports()}
    finally:
        await store.close()


def votes_part(index: Path, database: str, upstream_url: str, lives: int = 3) -> dict[str, Any]:
    acked: set[str] = set()
    port = free_port()
    for life in range(lives):
        url, process = start_server(index, upstream_url, *ROOMY, "--database", database, port=port)
        asyncio.run(_kill_mid_load(url, process, life * 100_000_000, acked))
        process.wait()
    _, process = start_server(index, upstream_url, "--database", database, port=port)
    _stop(process)
    stored = asyncio.run(_kept(database))
    return {"kills": lives, "acknowledged": len(acked), "lost": len(acked - stored)}


def limits_part(
    index: Path, upstream_url: str, redis_url: str, seconds: float = 5.0
) -> dict[str, Any]:
    rate, burst = 20.0, 40.0
    flags = ["--redis", redis_url, "--client-rate", "100000", "--client-burst", "100000",
             "--total-rate", str(rate), "--total-burst", str(burst), "--gate", "1"]  # fmt: skip
    servers = [start_server(index, upstream_url, *flags) for _ in range(2)]

    async def hammer() -> tuple[int, int, float]:
        ok = refused = 0
        async with httpx.AsyncClient(timeout=30) as client:
            started = time.monotonic()

            async def one(url: str) -> None:
                nonlocal ok, refused
                while time.monotonic() - started < seconds:
                    status = (
                        await client.post(url + "/answer", json={"question": "retry"})
                    ).status_code
                    ok += status == 200
                    refused += status == 429

            await asyncio.gather(*(one(url) for url, _ in servers for _ in range(10)))
            return ok, refused, time.monotonic() - started

    try:
        ok, refused, elapsed = asyncio.run(hammer())
    finally:
        for _, process in servers:
            _stop(process)
    allowed = int(burst + rate * elapsed)
    return {"instances": 2, "seconds": round(elapsed, 1), "let_through": ok, "refused_429": refused,
            "bucket_allows": allowed, "over": max(0, ok - allowed)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="stream,python,votes,limits")
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--pace-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3, help="direct/server rounds, interleaved")
    parser.add_argument(
        "--pin", action="store_true", help="server on CPU 0; upstream and load generator on CPU 1"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=Path, help="sample each server with py-spy into DIR")
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile
    parts = set(args.only.split(","))
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        build_demo(work / "demo")
        demo = work / "demo" / "docs-panel"
        if "stream" in parts:
            figures["stream"] = stream_part(
                demo, args.streams, args.tokens, args.pace_ms, args.rounds, args.pin
            )
            print(json.dumps({"stream": figures["stream"]}), flush=True)
        if "python" in parts:
            figures["python"] = python_part(work)
            print(json.dumps({"python": figures["python"]}), flush=True)
        with upstream(5, 1) as upstream_url:
            if "votes" in parts:
                figures["votes_sqlite"] = votes_part(
                    demo, str(work / "votes.sqlite3"), upstream_url
                )
                print(json.dumps({"votes_sqlite": figures["votes_sqlite"]}), flush=True)
                with postgres_server() as postgres, postgres.new_database() as url:
                    figures["votes_postgres"] = votes_part(demo, url, upstream_url)
                print(json.dumps({"votes_postgres": figures["votes_postgres"]}), flush=True)
            if "limits" in parts:
                with redis_server() as redis:
                    figures["limits"] = limits_part(demo, upstream_url, redis.url)
                print(json.dumps({"limits": figures["limits"]}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
