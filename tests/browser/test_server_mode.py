"""The panel in server mode (``server`` set), in Chromium, against the real server
install (uvicorn on loopback, another origin: CORS for real) whose upstream is the
scripted fake endpoint speaking the OpenAI streaming protocol."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from docs_panel.portable.caps import HISTORY_ANSWER_CHARS, QUESTION_CHARS
from docs_panel.server.app import create_app
from docs_panel.server.limits import Bucket, LimitSettings
from docs_panel.server.settings import Settings
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, hang, http_error, stream
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, stored, wait_ready
from tests.browser.test_answers import answer_text, settled_turns, wait_answered
from tests.server_install import running

pytestmark = pytest.mark.browser

ROOMY = LimitSettings(client=Bucket(rate=100, burst=1000), total=Bucket(rate=100, burst=1000))


def install(site: Site, limits: LimitSettings) -> Iterator[str]:
    settings = Settings.from_environment(
        environ={"DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32},
        index=site.root / "docs-panel",
        upstream=f"{site.url}api/chat",
        model="server-model",
        origins=(site.url.rstrip("/"),),
        database=str(site.root.parent / "votes.sqlite3"),
    )
    with running(create_app(settings, limits=limits)) as url:
        yield url


@pytest.fixture(scope="module")
def server(site: Site) -> Iterator[str]:
    yield from install(site, ROOMY)


@pytest.fixture
def server_watch(watch: Watch, server: str) -> Watch:
    """The server is another origin, on purpose; Stop and reloads abort its stream."""
    watch.expect_bad_request(rf"^off-site request: {re.escape(server)}/answer$")
    watch.expect_bad_request(rf"^failed: {re.escape(server)}/answer \(net::ERR_ABORTED\)$")
    return watch


def server_page(page: Page, site: Site, server: str, name: str = "server") -> None:
    page.goto(site.page_with_config(name, json.dumps({"server": server, "model": "page-model"})))
    open_panel(page)
    wait_ready(page)


def section_one(request: dict[str, object]) -> str:
    """The address of section [1] in the prompt the server built."""
    found = re.search(r"^\[1\] .* \((/[^ )]*)\)$", system_text(request), re.M)
    assert found, system_text(request)
    return found[1]


def system_text(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list)
    return "\n".join(m["content"] for m in messages if m["role"] == "system")


def test_an_answer_with_sources_comes_from_the_server(
    page: Page, site: Site, endpoint: FakeEndpoint, server: str, server_watch: Watch
) -> None:
    endpoint.queue(stream("Retry with `retry()` [1].", reasoning="SERVER-REASONING", delay_s=0.02))
    server_page(page, site, server)
    ask(page, "How do I retry a failed job?")
    wait_answered(page, 1)
    assert answer_text(page) == "Retry with retry() [1]."
    (request,) = endpoint.requests
    assert request["model"] == "server-model"  # the page's model never reaches the upstream
    cited = section_one(request)  # the server's numbering names the source
    link = page.get_by_role("list", name="Sources").get_by_role("link")
    expect(link).to_have_count(1)
    assert str(link.get_attribute("href", timeout=1000)).endswith(cited)
    (turn,) = settled_turns(page, 1)
    assert str(turn["citations"]).startswith("k1.") and turn["sources"][0]["address"] == cited  # type: ignore[index]
    assert "SERVER-REASONING" not in page.evaluate("JSON.stringify({...localStorage})")


def test_stop_and_reload_mid_answer(
    page: Page, site: Site, endpoint: FakeEndpoint, server: str, server_watch: Watch
) -> None:
    endpoint.queue(hang("The first half [1]", probe_s=0.1), hang("Half of it [1]"))
    server_page(page, site, server, "server-stop")
    ask(page, "retry a job")
    expect(page.locator(".turn .answer")).to_contain_text("first half", timeout=READY_TIMEOUT_MS)
    page.get_by_role("button", name="Stop").click()
    assert endpoint.closed.wait(10), "Stop left the upstream request open"
    expect(page.get_by_text("Stopped", exact=True)).to_be_visible()
    ask(page, "retry a job again")
    expect(page.locator(".turn .answer").last).to_contain_text(
        "Half of it", timeout=READY_TIMEOUT_MS
    )
    page.reload()
    expect(page.get_by_text("Stopped", exact=True)).to_have_count(2, timeout=READY_TIMEOUT_MS)
    assert [t["status"] for t in settled_turns(page, 2)] == ["stopped", "stopped"]


def test_a_follow_up_is_primed_by_a_valid_signature_only(
    page: Page, site: Site, endpoint: FakeEndpoint, server: str, server_watch: Watch
) -> None:
    endpoint.queue(*(stream(f"Answer {n} [1].") for n in range(4)))
    before = primed_count(server)
    server_page(page, site, server, "server-follow-up")
    ask(page, "How do I retry a failed job?")
    wait_answered(page, 1)
    cited = section_one(endpoint.requests[-1])
    ask(page, "what about webhook signatures")
    wait_answered(page, 2)
    primed = endpoint.requests[-1]
    assert cited in system_text(primed)
    assert primed["messages"][-3]["content"] == "How do I retry a failed job?"  # type: ignore[index]
    assert primed_count(server) == before + 1

    # After a reload the stored signed list, untouched, still primes a follow-up.
    page.reload()  # the panel comes back open, in the same conversation
    expect(page.locator(".turn")).to_have_count(2, timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    ask(page, "How do I purge a queue?")
    wait_answered(page, 3)
    assert primed_count(server) == before + 2

    # The stored signed lists altered (one character), then a follow-up after a reload.
    page.evaluate(
        """() => {
        const key = 'docs-panel.history', archive = JSON.parse(localStorage.getItem(key));
        for (const turn of archive.conversations[0].turns) {
          turn.citations = turn.citations.replace(/.$/, c => c === 'A' ? 'B' : 'A');
        }
        localStorage.setItem(key, JSON.stringify(archive));
    }"""
    )
    page.reload()
    expect(page.locator(".turn")).to_have_count(3, timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    ask(page, "what about webhook signatures")
    wait_answered(page, 4)
    assert cited not in system_text(endpoint.requests[-1])
    assert primed_count(server) == before + 2


def primed_count(server: str) -> int:
    """How many questions the server has primed with a valid signed list (/readyz)."""
    with urllib.request.urlopen(f"{server}/readyz", timeout=10) as response:
        return int(json.loads(response.read())["primed"])


def test_an_upstream_failure_shows_search_results(
    page: Page, site: Site, endpoint: FakeEndpoint, server: str, server_watch: Watch
) -> None:
    endpoint.queue(http_error(500))
    server_page(page, site, server, "server-down")
    ask(page, "How do I retry a failed job?")
    expect(page.get_by_role("list", name="Search results")).to_have_count(
        1, timeout=READY_TIMEOUT_MS
    )
    (turn,) = settled_turns(page, 1)
    assert turn["status"] == "results" and turn["results"]


def test_a_throttled_reader_is_told_when_to_ask_again(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    strict = LimitSettings(client=Bucket(rate=0.2, burst=1))
    for url in install(site, strict):
        watch.expect_bad_request(rf"^off-site request: {re.escape(url)}/answer$")
        watch.expect_bad_request(rf"^HTTP 429: {re.escape(url)}/answer$")
        watch.expect_bad_request(rf"^failed: {re.escape(url)}/answer \(net::ERR_ABORTED\)$")
        endpoint.queue(stream("First [1]."))
        server_page(page, site, url, "server-throttled")
        ask(page, "How do I retry a failed job?")
        wait_answered(page, 1)
        ask(page, "And again?")
        notice = page.get_by_text(
            re.compile(r"Too many questions right now\. Try again in [1-5] s\.")
        )
        expect(notice).to_be_visible(timeout=READY_TIMEOUT_MS)
        assert len(endpoint.requests) == 1
        assert stored(page, "history")


def test_a_question_at_the_cap_and_a_long_earlier_answer_are_answered(
    page: Page, site: Site, endpoint: FakeEndpoint, server: str, server_watch: Watch
) -> None:
    """The panel's caps are the server's: a question of QUESTION_CHARS characters is
    taken, and a follow-up carries an earlier answer longer than the server would take
    clipped to HISTORY_ANSWER_CHARS."""
    long_answer = "Retry it [1]. " + "Backoff doubles each time. " * 200
    endpoint.queue(stream(long_answer), stream("Webhooks [1]."))
    server_page(page, site, server, "server-caps")
    question = "How do I retry a failed job? "
    question += "retry " * ((QUESTION_CHARS - len(question)) // 6)
    question = question.ljust(QUESTION_CHARS, "x")
    assert len(question) == QUESTION_CHARS
    ask(page, question)
    wait_answered(page, 1)
    first = endpoint.requests[-1]["messages"][-1]["content"]  # type: ignore[index]
    assert question.rstrip() in first
    ask(page, "what about webhook signatures")
    wait_answered(page, 2)
    assert answer_text(page) == "Webhooks [1]."
    earlier = endpoint.requests[-1]["messages"][-2]["content"]  # type: ignore[index]
    assert len(earlier) == HISTORY_ANSWER_CHARS and long_answer.startswith(earlier[:-1])
