"""``build.py server`` as its operator runs it: a process, signals, JSON logs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from docs_panel.build.cli import build
from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, hang
from tests.services import free_port

ROOT = Path(__file__).parents[2]
START_TIMEOUT_S = 60.0


def wait_for(check: object, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {START_TIMEOUT_S} s: {what}")
        time.sleep(0.05)


def ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz").status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def served(tmp_path: Path, site: Site) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """A copy of the demo build served by ``build.py server`` on a free port."""
    shutil.copytree(site.root, tmp_path / "site", ignore=shutil.ignore_patterns("tests"))
    port = free_port()
    log = tmp_path / "server.log"
    env = os.environ | {"DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "build.py", "server", "--site", str(tmp_path / "site"),
        "--upstream", f"{site.url}api/chat", "--model", "m", "--port", str(port),
        "--database", str(tmp_path / "votes.sqlite3"),
    ]  # fmt: skip
    with log.open("wb") as err:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: ready(url) or process.poll() is not None, "the server is ready")
        assert process.poll() is None, log.read_text()
        yield url, process, log
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_sighup_swaps_in_a_rebuilt_index_without_a_restart(
    served: tuple[str, subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    url, process, _ = served
    before = httpx.get(f"{url}/readyz").json()["index"]
    page = tmp_path / "site" / "guides" / "retries.html"
    page.write_text(page.read_text().replace("</h1>", " (rebuilt)</h1>", 1))
    build(tmp_path / "site")  # as a deploy would: the same folder, a new index
    assert httpx.get(f"{url}/readyz").json()["index"] == before  # nothing until told
    process.send_signal(signal.SIGHUP)
    wait_for(lambda: httpx.get(f"{url}/readyz").json()["index"] != before, "the new index")
    assert process.poll() is None


def test_shutdown_ends_open_streams_with_an_error_event(
    served: tuple[str, subprocess.Popen[bytes], Path], endpoint: FakeEndpoint
) -> None:
    url, process, log = served
    endpoint.queue(hang("Half an answer [1]"))
    got = b""
    with httpx.stream("POST", f"{url}/answer", json={"question": "how do I retry a job"}) as reply:
        for chunk in reply.iter_raw():
            got += chunk
            if b"Half" in got and process.poll() is None:
                process.send_signal(signal.SIGTERM)
    assert b"event: error" in got and b"restarting" in got
    # Once shut down, uvicorn re-raises the signal, so a supervisor sees how it ended.
    assert process.wait(START_TIMEOUT_S) in (0, -signal.SIGTERM)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert any(line.get("path") == "/answer" and line.get("request_id") for line in lines)
    assert not any("how do I retry" in json.dumps(line) for line in lines)  # no --log-questions


def test_bad_setups_stop_with_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from docs_panel.server.cli import main

    flags = ["--site", str(tmp_path), "--upstream", "http://127.0.0.1:9/", "--model", "m"]
    monkeypatch.delenv("DOCS_PANEL_SIGNING_KEYS", raising=False)
    assert main(flags) == 1
    assert "DOCS_PANEL_SIGNING_KEYS is not set" in capsys.readouterr().err
    monkeypatch.setenv("DOCS_PANEL_SIGNING_KEYS", "k1:short")
    assert main(flags) == 1
    assert "shorter than 32" in capsys.readouterr().err
    monkeypatch.setenv("DOCS_PANEL_SIGNING_KEYS", "k1:" + "s" * 32)
    assert main(flags) == 1
    assert "run `python build.py --site DIR` first" in capsys.readouterr().err
    assert main([*flags[:3], "ftp://x", "--model", "m"]) == 1
    assert "expected an http(s) URL" in capsys.readouterr().err
    assert main([*flags, "--scope", "api"]) == 1
    assert "expected ID=/PREFIX/" in capsys.readouterr().err
