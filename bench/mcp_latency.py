"""``search_docs`` latency through the MCP server, over stdio and over Streamable HTTP,
beside the same search in process and in Pyodide (the panel's worker's engine):

    python3 bench/mcp_latency.py [--site /usr/share/doc/python3.11/html] [--rounds 3]

The site (default: the whole Python docs, Debian's ``python3.11-doc``) is built once
into a scratch folder (its pages are not touched: ``--out`` there, no llms.txt). Each
question of the Python sets (``bench/questions_python_docs*.json``) is asked ``rounds``
times through each path by the MCP SDK's own client, one at a time, each call timed
from the client's side (so stdio and HTTP include the protocol, the JSON and the
transport); the HTTP server is the server install (uvicorn on loopback, rate limits
raised out of the way). Prints one JSON object of figures (ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.retrieval import PYTHON_SETS, _in_pyodide  # noqa: E402
from docs_panel.agent.tools import AgentDocs  # noqa: E402
from docs_panel.build.cli import build  # noqa: E402
from docs_panel.build.index_build import build_index  # noqa: E402
from docs_panel.build.site.extract import extract_site  # noqa: E402
from docs_panel.core.signing import parse_keys  # noqa: E402
from docs_panel.server.app import create_app  # noqa: E402
from docs_panel.server.index_files import read_index  # noqa: E402
from docs_panel.server.limits import Bucket, LimitSettings  # noqa: E402
from docs_panel.server.settings import Settings  # noqa: E402
from tests.server_install import running  # noqa: E402

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
LIMIT = 6


def figures(latencies: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p95_ms": round(statistics.quantiles(latencies, n=20)[-1] * 1000, 2),
        "calls": len(latencies),
    }


def through(open_client: Callable[[], Client], questions: list[str], rounds: int) -> list[float]:
    latencies: list[float] = []

    async def run() -> None:
        async with open_client() as client:
            await client.call_tool("search_docs", {"query": "warm up", "limit": LIMIT})
            for _ in range(rounds):
                for question in questions:
                    start = time.perf_counter()
                    result = await client.call_tool(
                        "search_docs", {"query": question, "limit": LIMIT}
                    )
                    latencies.append(time.perf_counter() - start)
                    assert not result.is_error, result.content

    anyio.run(run)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=PYTHON_DOCS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    questions = [
        case["q"]
        for name in PYTHON_SETS
        for case in json.loads((ROOT / "bench" / name).read_text())["questions"]
    ]
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        panel = tmp / "docs-panel"
        report = build(args.site, panel, llms_txt="skip")
        index = read_index(panel)
        docs = AgentDocs(lambda: index)
        in_process: list[float] = []
        for _ in range(args.rounds):
            for question in questions:
                start = time.perf_counter()
                docs.search(question, limit=LIMIT)
                in_process.append(time.perf_counter() - start)
        stdio = StdioServerParameters(
            command=sys.executable,
            args=["-m", "docs_panel.cli", "mcp", str(panel)],
            env={"PYTHONPATH": str(ROOT)},
        )
        over_stdio = through(lambda: Client(stdio), questions, args.rounds)
        settings = Settings(
            index=panel,
            upstream="http://127.0.0.1:9/v1/chat/completions",  # never called: no answers
            model="none",
            signing=parse_keys("k1:" + "s" * 32),
            database=str(tmp / "votes.sqlite3"),
        )
        unlimited = LimitSettings(client=Bucket(1e6, 1e6), total=Bucket(1e6, 1e6))
        with running(create_app(settings, limits=unlimited)) as url:
            over_http = through(lambda: Client(url + "/mcp"), questions, args.rounds)
        sections = extract_site(args.site.resolve()).sections
        raw = json.dumps(build_index(sections), separators=(",", ":")).encode()
        pyodide = _in_pyodide(raw, questions, tmp)
    print(
        json.dumps(
            {
                "site": str(args.site),
                "pages": report.pages,
                "sections": report.sections,
                "questions": len(questions),
                "in_process": figures(in_process),
                "stdio": figures(over_stdio),
                "http": figures(over_http),
                "pyodide_in_node": {
                    "p50_ms": round(pyodide["search_p50_ms"], 2),
                    "p95_ms": round(pyodide["search_p95_ms"], 2),
                },
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
