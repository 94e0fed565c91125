"""The server install's stores under load: votes and rate limits on the real
Redis and PostgreSQL that tests/services.py starts on loopback.

    python3 bench/server_ops.py                   # every figure below
    python3 bench/server_ops.py --only votes      # votes, limits, kills or instances
    python3 bench/server_ops.py --json out.json

- **votes**: puts a second and put latency (p50/p95) on SQLite and PostgreSQL, one at a
  time and 50 at once (each put is a durable commit).
- **limits**: takes a second of one limiter, in this process and on Redis.
- **kills**: a process putting votes is killed with SIGKILL after some acknowledged
  votes and started again, several times; every acknowledged vote must be there
  (``lost`` must be 0), on SQLite and PostgreSQL.
- **two instances**: two processes, each with its own limiter on one Redis, take as
  fast as they can for a few seconds; what they let through against what the buckets
  allow in that time (``over`` must be 0).

The functions are importable (``bench/server_load.py`` runs the same checks through the
HTTP server). Loads are bounded in count and time and stay on loopback; nothing here
asserts: figures are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.render_bench import percentile  # noqa: E402
from docs_panel.server.limits import (  # noqa: E402
    Bucket,
    Limiter,
    LimitSettings,
    LocalLimiter,
    RedisLimiter,
)
from docs_panel.server.report_shape import parse_report  # noqa: E402
from docs_panel.server.votes.store import open_votes  # noqa: E402
from tests.server.vote_writer import lost, vote_body, write_until_killed  # noqa: E402
from tests.services import PostgresServer, postgres_server, redis_server  # noqa: E402


async def _timed(count: int, concurrency: int, work: Callable[[int], Awaitable[object]]) -> Any:
    """Run ``work(n)`` for n < count, ``concurrency`` at a time: rate and latency."""
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []

    async def one(n: int) -> None:
        async with gate:
            started = time.perf_counter()
            await work(n)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(count)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "count": count,
        "concurrency": concurrency,
        "per_s": round(count / elapsed),
        "p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "p95_ms": round(percentile(latencies, 95) * 1000, 2),
    }


async def votes_throughput(database: str, *, puts: int, concurrency: int) -> dict[str, Any]:
    """Puts of distinct votes into a new store at ``database`` (a path or a URL)."""
    store = await open_votes(database, Path(database))
    reports = [parse_report(vote_body(n, "up", n)) for n in range(puts)]
    try:
        return dict(await _timed(puts, concurrency, lambda n: store.put(reports[n])))
    finally:
        await store.close()


async def limiter_throughput(limiter: Limiter, *, takes: int, concurrency: int) -> dict[str, Any]:
    """Takes spread over 1,000 clients (so most are allowed)."""
    try:
        return dict(await _timed(takes, concurrency, lambda n: limiter.take(f"c{n % 1000}")))
    finally:
        await limiter.close()


def votes_kill_restart(database: str, *, lives: int, ids_per_life: int) -> dict[str, Any]:
    """Kill a vote writer with SIGKILL ``lives`` times, starting it again each time;
    the acknowledged votes against those kept."""
    acked: dict[str, str] = {}
    started = time.perf_counter()
    for life in range(lives):
        acked |= write_until_killed(
            database, Path(database), first=life * 1_000_000, ids=ids_per_life
        )
    elapsed = time.perf_counter() - started

    async def read() -> dict[str, object]:
        store = await open_votes(database, Path(database))
        try:
            return {str(r["id"]): r["vote"] for r in await store.reports()}
        finally:
            await store.close()

    kept = asyncio.run(read())
    return {
        "kills": lives,
        "acknowledged": len(acked),
        "kept": len(kept),
        "lost": len(lost(acked, kept)),
        "seconds": round(elapsed, 1),
    }


INSTANCE = """
import asyncio, sys, time
from docs_panel.server.limits import Bucket, LimitSettings, RedisLimiter
url, seconds, client_rate, client_burst, total_rate, total_burst = sys.argv[1:7]
settings = LimitSettings(Bucket(float(client_rate), float(client_burst)),
                         Bucket(float(total_rate), float(total_burst)), redis=url)

async def main() -> None:
    limiter = RedisLimiter(settings)
    await limiter.take("warm-up")
    print("ready", flush=True)
    sys.stdin.readline()
    end = time.monotonic() + float(seconds)
    allowed = {"one": 0, "many": 0}
    tried = 0
    while time.monotonic() < end:
        waits = await asyncio.gather(limiter.take("one"), *(limiter.take(f"m{tried + n}")
                                                          for n in range(15)))
        tried += 16
        allowed["one"] += waits[0] == 0
        allowed["many"] += sum(w == 0 for w in waits[1:])
    await limiter.close()
    print(tried, allowed["one"], allowed["many"], flush=True)

asyncio.run(main())
"""


def limits_two_instances(
    redis_url: str, *, seconds: float, client: Bucket, total: Bucket
) -> dict[str, Any]:
    """Two processes, a limiter each on one Redis, taking as fast as they can for
    ``seconds``: one client ("one") and a stream of new ones. What they let through,
    against what the buckets allow in the time they ran (burst + rate x time)."""
    args = [redis_url, seconds, client.rate, client.burst, total.rate, total.burst]
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", INSTANCE, *map(str, args)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        for process in processes:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        started = time.monotonic()
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        results = [process.communicate()[0].split() for process in processes]
        elapsed = time.monotonic() - started
    finally:
        for process in processes:
            process.kill()
            process.wait()
    tried = sum(int(r[0]) for r in results)
    one = sum(int(r[1]) for r in results)
    many = sum(int(r[2]) for r in results)
    # Elapsed from before the first take to after the last: an upper bound on the refill.
    allowed_total = int(total.burst - 2 + total.rate * elapsed)  # two warm-ups spent
    allowed_one = int(client.burst + client.rate * elapsed)
    return {
        "seconds": round(elapsed, 2),
        "tried": tried,
        "let_through": one + many,
        "bucket_allows": allowed_total,
        "over": max(0, one + many - allowed_total),
        "one_client_let_through": one,
        "one_client_allows": allowed_one,
        "one_client_over": max(0, one - allowed_one),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["votes", "limits", "kills", "instances"])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with (
        redis_server() as redis,
        postgres_server() as postgres,
        tempfile.TemporaryDirectory() as tmp,
    ):
        databases: dict[str, Callable[[str], str]] = {
            "sqlite": lambda name: str(Path(tmp) / f"{name}.sqlite3"),
            "postgresql": lambda name: _new_database(postgres, name),
        }
        if args.only in (None, "votes"):
            for kind, database in databases.items():
                for concurrency in (1, 50):
                    name = f"votes-{kind}-{concurrency}"
                    figures[name] = asyncio.run(
                        votes_throughput(database(name), puts=1000, concurrency=concurrency)
                    )
        if args.only in (None, "limits"):
            big = LimitSettings(Bucket(1000, 10_000), Bucket(1000, 1_000_000))
            figures["limits-local"] = asyncio.run(
                limiter_throughput(LocalLimiter(big), takes=100_000, concurrency=1)
            )
            redis_big = LimitSettings(big.client, big.total, redis=redis.url)
            for concurrency in (1, 50):
                figures[f"limits-redis-{concurrency}"] = asyncio.run(
                    limiter_throughput(
                        RedisLimiter(redis_big), takes=10_000, concurrency=concurrency
                    )
                )
        if args.only in (None, "kills"):
            for kind, database in databases.items():
                figures[f"kills-{kind}"] = votes_kill_restart(
                    database(f"kills-{kind}"), lives=5, ids_per_life=200
                )
        if args.only in (None, "instances"):
            redis.flush()
            figures["two-instances"] = limits_two_instances(
                redis.url, seconds=3, client=Bucket(rate=2, burst=5), total=Bucket(50, 100)
            )
    for name, row in figures.items():
        print(f"{name:22} " + "  ".join(f"{k}={v}" for k, v in row.items()))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


def _new_database(postgres: PostgresServer, name: str) -> str:
    safe = name.replace("-", "_")
    with psycopg.connect(postgres.url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{safe}"')
    return str(postgres.database_url(safe))


if __name__ == "__main__":
    main()
