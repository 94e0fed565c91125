"""What ``docs-panel server --log-questions`` logs, stores and sends upstream, asked by a
client that is not the panel: a script that redacts nothing before posting."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from docs_panel.core.redact import mask
from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint
from tests.server.test_process import ROOT, ready, wait_for
from tests.services import free_port

TOKEN = "ghp_" + "Lq7Wm2Xc9Rt4Yb8Nv3Kd6Hf1Js5Pg0Za2Ue7"
MASK = mask("GitHub token")


@pytest.fixture
def logging_server(tmp_path: Path, site: Site) -> Iterator[tuple[str, Path, Path]]:
    """``docs-panel server --log-questions`` on a copy of the demo build: its URL, its
    log file and its votes database."""
    shutil.copytree(site.root, tmp_path / "site", ignore=shutil.ignore_patterns("tests"))
    port = free_port()
    log, database = tmp_path / "server.log", tmp_path / "votes.sqlite3"
    env = os.environ | {"DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "docs_panel.cli", "server", "--site", str(tmp_path / "site"),
        "--upstream", f"{site.url}api/chat", "--model", "m", "--port", str(port),
        "--database", str(database), "--log-questions",
    ]  # fmt: skip
    with log.open("wb") as err:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: ready(url) or process.poll() is not None, "the server is ready")
        assert process.poll() is None, log.read_text()
        yield url, log, database
    finally:
        process.terminate()
        process.wait()


def test_a_token_posted_by_a_script_is_masked_in_logs_votes_and_upstream(
    logging_server: tuple[str, Path, Path], endpoint: FakeEndpoint
) -> None:
    url, log, database = logging_server
    asked = {"question": f"how do I retry a job with token {TOKEN}"}
    reply = httpx.post(f"{url}/answer", json=asked, timeout=60)
    assert reply.status_code == 200 and b"[DONE]" in reply.content
    # A masked question retrieves the security page and stays unanswered: the text a
    # question's earlier turns and instruction carry is what reaches upstream here.
    follow_up = {
        "question": "how do I retry a job",
        "instruction": f"explain {TOKEN}",
        "history": [{"question": f"my key {TOKEN}", "answer": f"you sent {TOKEN}"}],
    }
    assert httpx.post(f"{url}/answer", json=follow_up, timeout=60).status_code == 200
    report = {
        "id": "9f2c41d07ab3e815", "vote": "down", "reasons": [], "sentence": TOKEN,
        "question": asked["question"], "quote": TOKEN, "answer": TOKEN,
        "sources": [], "scope": None, "gate": None, "retrieved": [],
        "page_url": f"https://docs.example/?token={TOKEN}", "voted_at": 1764750000000,
    }  # fmt: skip
    assert httpx.post(f"{url}/feedback", json=report, timeout=60).status_code == 204

    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    logged = [line["question"] for line in lines if "question" in line]
    assert logged == [f"how do I retry a job with token {MASK}", "how do I retry a job"]
    assert endpoint.requests, "the question retrieved nothing, so nothing went upstream"
    sent = json.dumps(endpoint.requests)
    assert MASK in sent and TOKEN not in sent
    with sqlite3.connect(database) as votes:
        stored = json.dumps(votes.execute("SELECT * FROM docs_panel_votes").fetchall())
    assert MASK in stored and TOKEN not in stored
    assert TOKEN not in log.read_text()
