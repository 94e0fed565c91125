"""The docs' MCP server in the server install, over Streamable HTTP on a real socket
(uvicorn), driven by the MCP SDK's own client; two instances share their rate limits
over a real Redis, as a site's replicas do."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from docs_panel.build.cli import build
from docs_panel.core.server_wire import QUESTION_CHARS
from docs_panel.server.app import create_app
from docs_panel.server.limits import Bucket, LimitSettings
from docs_panel.server.mcp_mount import RATE_LIMITED
from docs_panel.server.settings import Settings
from tests.browser.conftest import Site
from tests.event_loops import on_own_loop
from tests.server.test_app import settings_for
from tests.server_install import running

FURO = Path(__file__).parents[1] / "fixtures" / "generators" / "sphinx-furo-dirhtml" / "site"
SECRET_IN_QUESTION = "sk-proj-" + "A1b2C3d4" * 6


def agent(url: str, script: Callable[[Client], Awaitable[None]]) -> None:
    async def run() -> None:
        async with Client(url + "/mcp") as client:
            await script(client)

    on_own_loop(run())


async def search(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    result = await client.call_tool("search_docs", arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    hits: list[dict[str, Any]] = result.structured_content["result"]
    return hits


def test_an_agent_searches_and_reads_over_http_with_request_ids_and_redacted_logs(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings_for(site, log_questions=True))

    async def script(client: Client) -> None:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == {"search_docs", "read_section"}
        hits = await search(client, query="how do I retry a job")
        assert hits[0]["address"] == "/api/jobs.html#retry-a-job"
        assert await search(client, query=f"my key {SECRET_IN_QUESTION} is refused")
        section = await client.call_tool("read_section", {"address": hits[0]["address"]})
        assert not section.is_error and section.structured_content is not None
        assert section.structured_content["title"] == "Retry a job"
        with pytest.raises(MCPError) as refused:
            await client.call_tool("search_docs", {"query": "x" * (QUESTION_CHARS + 1)})
        assert refused.value.code == INVALID_PARAMS
        wrong = await client.call_tool("read_section", {"address": 7})
        assert wrong.is_error

    with caplog.at_level(logging.INFO, logger="docs_panel.server"), running(app) as url:
        agent(url, script)
    questions = [r for r in caplog.records if r.getMessage() == "question"]
    logged = [r.question for r in questions]  # type: ignore[attr-defined]
    assert len(logged) == 2, "the oversize query is refused before it is logged"
    assert logged[0] == "how do I retry a job"
    assert SECRET_IN_QUESTION not in logged[1] and "is refused" in logged[1]
    requests = [r for r in caplog.records if r.getMessage() == "request"]
    mcp_requests = [r for r in requests if r.path == "/mcp"]  # type: ignore[attr-defined]
    assert mcp_requests and all(len(r.request_id) == 16 for r in mcp_requests)  # type: ignore[attr-defined]
    assert questions[0].request_id in {r.request_id for r in mcp_requests}  # type: ignore[attr-defined]


def test_rate_limits_are_shared_over_redis_by_two_instances(site: Site, redis_url: str) -> None:
    """A client's burst of 3 searches is spent across both instances: the fourth search,
    on either, is refused with an MCP error that says when to ask again."""
    limits = LimitSettings(client=Bucket(rate=0.01, burst=3), redis=redis_url)
    first = create_app(settings_for(site, redis=redis_url), limits=limits)
    second = create_app(settings_for(site, redis=redis_url), limits=limits)

    async def two(url: str, count: int) -> None:
        async def script(client: Client) -> None:
            for _ in range(count):
                await search(client, query="retry a job")

        async with Client(url + "/mcp") as client:
            await script(client)

    with running(first) as one, running(second) as other:
        on_own_loop(two(one, 2))
        on_own_loop(two(other, 1))

        async def refused(client: Client) -> None:
            with pytest.raises(MCPError) as error:
                await client.call_tool("search_docs", {"query": "retry a job"})
            assert error.value.code == RATE_LIMITED
            assert error.value.data["retry_after"] >= 1
            read = await client.call_tool("read_section", {"address": "/api/jobs.html"})
            assert not read.is_error, "reading a section spends no question"

        agent(one, refused)
        agent(other, refused)


def test_a_page_of_another_origin_is_refused_and_a_closed_session_is_gone(site: Site) -> None:
    app = create_app(settings_for(site, origins=("https://docs.example.org",)))
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    with running(app) as url, httpx.Client(base_url=url, headers=headers) as http:
        foreign = http.post("/mcp", json=initialize, headers={"Origin": "https://evil.example"})
        assert foreign.status_code == 403 and "x-request-id" in foreign.headers
        allowed = http.post("/mcp", json=initialize, headers={"Origin": "https://docs.example.org"})
        assert allowed.status_code == 200, allowed.text
        opened = http.post("/mcp", json=initialize)
        assert opened.status_code == 200
        session = opened.headers["mcp-session-id"]
        assert http.delete("/mcp", headers={"Mcp-Session-Id": session}).status_code == 200
        listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        gone = http.post(
            "/mcp",
            json=listed,
            headers={"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"},
        )
        assert gone.status_code == 404, gone.text
        assert json.loads(gone.text)["error"]


def test_without_an_mcp_path_no_mcp_route_is_served(site: Site) -> None:
    app = create_app(settings_for(site, mcp_path=""))
    with running(app) as url, httpx.Client(base_url=url) as http:
        assert http.post("/mcp", json={}).status_code == 404


def test_a_generator_sites_install_answers_agents_in_each_language(tmp_path: Path) -> None:
    """Sphinx + Furo (dirhtml, English and French), built with the panel and served."""
    root = tmp_path / "site"
    shutil.copytree(FURO, root)
    build(root, llms_txt="skip")
    settings = Settings.from_environment(
        environ={"DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32},
        index=root / "docs-panel",
        upstream="http://127.0.0.1:9/v1/chat/completions",  # never reached by an agent
        model="server-model",
        database=str(tmp_path / "votes.sqlite3"),
    )

    async def script(client: Client) -> None:
        english = await search(client, query="install with pipx")
        french = await search(client, query="installer avec pipx", language="fr")
        assert english[0]["address"].startswith("/getting-started/install/")
        assert french[0]["address"].startswith("/fr/getting-started/install/")
        page = await client.read_resource("docs://page/fr/getting-started/install/index.html")
        assert page.contents[0].text.startswith("# Installer Lumen\n")  # type: ignore[union-attr]

    with running(create_app(settings)) as url:
        agent(url, script)
