"""``docs-panel mcp`` on stdio, driven by the MCP SDK's own client as a coding agent's
would: on the demo's build and on a real generator's output (Sphinx + Furo, dirhtml,
two languages) that was never built with the panel."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from docs_panel.agent.tools import QUERY_CHARS
from docs_panel.core.answers import MAX_RESULTS, plan_answer
from docs_panel.core.config import DEFAULTS
from docs_panel.server.index_files import read_index
from tests.browser.conftest import Site
from tests.event_loops import on_own_loop
from tests.fixture_files import GENERATORS, ROOT, generator_expected

FURO = GENERATORS / "sphinx-furo-dirhtml"
QUESTIONS = ROOT / "bench" / "questions_demo_dev.json"


def session(path: Path, script: Callable[[Client], Awaitable[None]]) -> None:
    """Start ``docs-panel mcp PATH`` and run ``script`` against it over stdio."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_panel.cli", "mcp", str(path)],
        env={"PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
    )

    async def run() -> None:
        async with Client(params) as client:
            await script(client)

    on_own_loop(run())


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    content = result.structured_content
    assert content is not None
    return content["result"] if tool == "search_docs" else content


def test_an_agent_searches_and_reads_the_demo(site: Site) -> None:
    async def script(client: Client) -> None:
        assert client.server_info is not None and client.server_info.name == "docs-panel"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"search_docs", "read_section"}
        assert tools["search_docs"].input_schema["required"] == ["query"]
        assert set(tools["search_docs"].input_schema["properties"]) == {
            "query",
            "scope",
            "language",
            "limit",
        }
        hits = await call(client, "search_docs", query="how do I retry a job", limit=3)
        assert len(hits) == 3 and hits[0]["address"] == "/api/jobs.html#retry-a-job"
        assert set(hits[0]) == {"title", "page_title", "address", "excerpt", "score"}
        assert 0 < hits[0]["score"] <= 1 and "retry" in hits[0]["excerpt"]
        scoped = await call(client, "search_docs", query="retry", scope="/guides/")
        assert scoped and all(hit["address"].startswith("/guides/") for hit in scoped)
        section = await call(client, "read_section", address=hits[0]["address"])
        assert section["title"] == "Retry a job" and "409" in section["text"]
        outline = [entry["address"] for entry in section["outline"]]
        assert outline[0] == "/api/jobs.html" and hits[0]["address"] in outline
        page = await call(client, "read_section", address="/api/jobs.html")
        assert page["address"] == "/api/jobs.html" and page["outline"] == section["outline"]
        listing = await client.read_resource("docs://pages")
        pages = json.loads(listing.contents[0].text)  # type: ignore[union-attr]
        assert {"path": "/api/jobs.html", "title": "Jobs"} in pages
        markdown = await client.read_resource("docs://page/api/jobs.html")
        text = markdown.contents[0].text  # type: ignore[union-attr]
        assert text.startswith("# Jobs\n") and "## Retry a job" in text

    session(site.root, script)


def test_bad_arguments_are_refused_and_the_session_goes_on(site: Site) -> None:
    async def script(client: Client) -> None:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("search_docs", {"query": "retry " * QUERY_CHARS})
        assert refused.value.code == INVALID_PARAMS and "query" in refused.value.message
        for arguments in ({"query": "retry", "limit": 0}, {"query": "retry", "scope": "api"}):
            with pytest.raises(MCPError) as refused:
                await client.call_tool("search_docs", arguments)
            assert refused.value.code == INVALID_PARAMS
        wrong_type = await client.call_tool("search_docs", {"query": 42})
        assert wrong_type.is_error
        missing = await client.call_tool("read_section", {"address": "/api/jobs.html#nope"})
        assert missing.is_error and "search_docs" in missing.content[0].text  # type: ignore[union-attr]
        hits = await call(client, "search_docs", query="retry")
        assert hits, "the session still answers after the refusals"

    session(site.root, script)


def test_a_closed_session_ends_the_server(site: Site) -> None:
    """The client closing stdin ends ``docs-panel mcp``: no process is left behind."""
    server = subprocess.Popen(
        [sys.executable, "-m", "docs_panel.cli", "mcp", str(site.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert server.stdin is not None
    server.stdin.close()
    assert server.wait(timeout=30) == 0


def test_ranking_through_mcp_is_the_panels(site: Site) -> None:
    """Every question of the demo's set ranks the same sections in the same order as
    the panel's answer planner, with the same scores."""
    index = read_index(site.root / "docs-panel")
    questions = [case["q"] for case in json.loads(QUESTIONS.read_text())["questions"]]
    panel = []
    for question in questions:
        plan = plan_answer(index, DEFAULTS, question, scope_id=None)
        panel.append([(hit.section.address, round(hit.score, 4)) for hit in plan.hits])  # type: ignore[union-attr]

    async def script(client: Client) -> None:
        for question, expected in zip(questions, panel, strict=True):
            hits = await call(client, "search_docs", query=question, limit=MAX_RESULTS)
            assert [(hit["address"], hit["score"]) for hit in hits] == expected, question

    session(site.root, script)


def test_a_generator_site_without_a_panel_build_is_indexed_and_searched_per_language() -> None:
    async def script(client: Client) -> None:
        hits = await call(client, "search_docs", query="install with pipx")
        assert hits[0]["address"].startswith("/getting-started/install/")
        french = await call(client, "search_docs", query="installer pipx", language="fr")
        assert french[0]["address"].startswith("/fr/getting-started/install/")
        section = await call(client, "read_section", address=hits[0]["address"])
        assert section["language"] == "en"
        served = await call(client, "read_section", address="/getting-started/install/")
        assert served["address"] == "/getting-started/install/index.html", "as the site links it"
        read = json.dumps(section)
        for chrome in generator_expected(FURO.name)["theme_text"]:
            assert chrome not in read

    session(FURO / "site", script)


def test_a_folder_without_docs_is_one_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "docs_panel.cli", "mcp", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("docs-panel mcp: error:") and done.stderr.count("\n") == 1
