"""Real Redis and PostgreSQL servers for tests and benchmarks, started from Debian's
binaries on loopback, each in a temporary folder of its own, and stopped after.

Nothing here touches a system service: each server listens on a free loopback port
(Redis has no port 0) and keeps its files in its folder, which goes with it. Readiness
is probed (a PING, a connection), never slept for.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import redis

START_TIMEOUT_S = 60.0
"""How long a server may take to start on a busy machine before the fixture gives up."""
PG_USER = "postgres"
"""PostgreSQL refuses to run as root; as root the cluster runs as Debian's postgres user."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until(
    name: str, ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path
) -> None:
    """Probe until ``ready()``; a server that exits or never answers fails with its log."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}:\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} not ready in {START_TIMEOUT_S} s:\n{_tail(log)}")
        time.sleep(0.05)


def _tail(log: Path) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(log.read_text(errors="replace").splitlines()[-20:])
    return "(no log)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class RedisServer:
    """A running ``redis-server``; :meth:`stop` and :meth:`start` again on the same port
    play an outage."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError(
                "redis-server not found: apt-get install redis-server (./dev test does)"
            )
        log = self.folder / "redis.log"
        args = [
            binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.folder),
            "--logfile",
            str(log),
        ]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        try:
            _wait_until("redis-server", answers, self.process, log)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process)
            self.process = None

    def flush(self) -> None:
        with redis.Redis(port=self.port) as client:
            client.flushall()


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    folder = Path(tempfile.mkdtemp(prefix="docs-panel-redis-"))
    server = RedisServer(free_port(), folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _pg_bin(name: str) -> str:
    """A PostgreSQL server binary: Debian keeps them under /usr/lib/postgresql/<ver>/bin."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True
    )
    for folder in versions:
        if (folder / name).exists():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found: apt-get install postgresql (./dev test does)")
    return found


@dataclass
class PostgresServer:
    """A running ``postgres``; :meth:`crash` and :meth:`start` again on the same data
    directory play a database server that dies and recovers from its write-ahead log."""

    port: int
    folder: Path
    user: str | None
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{name}"

    @contextlib.contextmanager
    def new_database(self) -> Iterator[str]:
        """A fresh empty database's URL, dropped after."""
        name = f"test_{os.urandom(6).hex()}"
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield self.database_url(name)
        finally:
            with psycopg.connect(self.url, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')

    def start(self) -> None:
        """Run ``postgres`` on the data directory (recovering it if it crashed), in a
        process group of its own so :meth:`crash` reaches every one of its processes."""
        log = self.folder / "postgres.log"
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    _pg_bin("postgres"),
                    "-D",
                    str(self.folder / "data"),
                    "-p",
                    str(self.port),
                    "-k",
                    str(self.folder),
                    "-c",
                    "listen_addresses=127.0.0.1",
                ],
                user=self.user,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                cwd=self.folder,
                start_new_session=True,
            )

        def answers() -> bool:
            try:
                with psycopg.connect(self.url, connect_timeout=1):
                    return True
            except psycopg.OperationalError:
                return False

        _wait_until("postgres", answers, self.process, log)

    def crash(self) -> None:
        """SIGKILL the postmaster and every backend at once: nothing is flushed on the
        way out, so what survives is what PostgreSQL had written when it committed."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            # SIGTERM is a "smart" shutdown that waits for clients; SIGINT ends them.
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
            _stop(self.process)
            self.process = None


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """``initdb`` into a temporary folder and run ``postgres`` there on a loopback port,
    its Unix socket in the same folder; as the postgres user when running as root."""
    folder = Path(tempfile.mkdtemp(prefix="docs-panel-pg-"))
    user: str | None = PG_USER if os.geteuid() == 0 else None
    if user is not None:
        try:
            owner = pwd.getpwnam(user)
        except KeyError:
            raise RuntimeError(
                f"PostgreSQL will not run as root and there is no {user!r} user to run it as: "
                "apt-get install postgresql creates it (./dev test does)"
            ) from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = PostgresServer(free_port(), folder, user)
    try:
        made = subprocess.run(
            [
                _pg_bin("initdb"),
                "-D",
                str(folder / "data"),
                "-U",
                PG_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            user=user,
            capture_output=True,
            cwd=folder,
        )
        if made.returncode != 0:
            raise RuntimeError(f"initdb failed: {made.stderr.decode(errors='replace')}")
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
