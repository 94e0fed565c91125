"""``pip install 'docs-panel[server]'`` in a fresh venv runs the server: the extra alone,
offline from the pinned wheelhouse, with none of the dev extra's packages beside it."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.wheel.install import Installed

pytestmark = pytest.mark.wheel

SITES = Path(__file__).parent.parent / "fixtures" / "sites"
START_S = 30  # a cold uvicorn start on a busy 2-core machine, with room to spare


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_the_server_extra_alone_runs_docs_panel_server(
    installed_server: Installed, tmp_path: Path
) -> None:
    """The venv holds the wheel and its server extra, nothing else: the installed command
    indexes a site, then ``docs-panel server`` answers /healthz and /readyz with the index."""
    site = tmp_path / "site"
    shutil.copytree(SITES / "sphinx", site)
    done = installed_server.run("docs-panel", "build", site, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = installed_server.run("python", "-m", "pip", "list", "--format=json", cwd=tmp_path)
    names = {package["name"].lower() for package in json.loads(listed.stdout)}
    assert not names & {"sphinx", "mkdocs", "httpx", "pytest"}  # nothing else

    port = _free_port()
    command = ["docs-panel", "server", "--site", str(site), "--port", str(port)]
    command += ["--upstream", "http://127.0.0.1:9/v1/chat/completions", "--model", "m"]
    env = {**installed_server.env, "DOCS_PANEL_SIGNING_KEYS": "k1:" + "0" * 64}
    server = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + START_S
        health: tuple[int, dict[str, object]] | None = None
        while health is None and time.monotonic() < deadline and server.poll() is None:
            try:
                health = _get(f"http://127.0.0.1:{port}/healthz")
            except OSError:
                time.sleep(0.2)
        if health is None:
            server.kill()
            raise AssertionError(f"docs-panel server did not start:\n{server.communicate()[0]}")
        assert health == (200, {"status": "ok"})
        status, ready = _get(f"http://127.0.0.1:{port}/readyz")
        assert (status, ready["status"]) == (200, "ready")
    finally:
        server.terminate()
        server.wait(timeout=15)
