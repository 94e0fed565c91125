"""Votes under answers, in Chromium: kept on the turn and in the local log, and sent
to a fake feedback receiver as ``feedback.send`` allows (contract §3, §4 and §7)."""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.feedback_endpoint import FakeFeedback
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    ask,
    ask_and_wait,
    history_titles,
    new_chat,
    open_history,
    open_panel,
    reload_open,
    stored,
    wait_ready,
)

pytestmark = pytest.mark.browser

LOG_WRITES = "performance.getEntriesByName('docs-panel:feedback-write').length"
SECRET = "ghp_" + "Z9y8X7w6V5u4" * 3


def voting_page(
    page: Page, site: Site, send: str = "all", chat: bool = False, record: bool = True
) -> list[str]:
    """Open a page whose votes go to the fake receiver; the list its POSTs are added to
    once they have ended (finished or failed)."""
    done: list[str] = []
    page.on("requestfinished", lambda r: done.append(r.url) if "/api/feedback" in r.url else None)
    page.on("requestfailed", lambda r: done.append(r.url) if "/api/feedback" in r.url else None)
    config = json.dumps(
        {
            "chat": chat,
            "feedbackEndpoint": "/api/feedback",
            "feedback": {"send": send},
            "history": {"enabled": record},
            "scopes": [{"id": "all", "label": "All docs"}, {"id": "api", "label": "API"}],
        }
    )
    page.goto(site.page_with_config(f"votes-{send}-{record}", config))
    open_panel(page)
    wait_ready(page)
    return done


def vote(page: Page, name: str, turn: int = -1) -> None:
    """Press a vote button and wait until the feedback log write after it is done."""
    before = page.evaluate(LOG_WRITES)
    vote_button(page, name, turn).click()
    page.wait_for_function(f"{LOG_WRITES} > {before}")


def votes(page: Page, turn: int = -1) -> Locator:
    return page.locator(".turn").nth(turn).locator(".votes")


def vote_button(page: Page, name: str, turn: int = -1) -> Locator:
    return votes(page, turn).get_by_role("button", name=name, exact=True)


def log(page: Page) -> list[dict[str, object]]:
    raw = stored(page, "feedback")
    return json.loads(raw)["entries"] if raw else []


def reports(
    page: Page, posts: list[str], feedback: FakeFeedback, count: int, wait_s: float = 10.0
) -> list[dict[str, object]]:
    """The reports received, once ``count`` POSTs have ended (or ``wait_s`` has passed:
    the assertions on them then fail)."""
    deadline = time.monotonic() + wait_s
    while len(posts) < count and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # lets Playwright deliver the request events
    return list(feedback.reports)


@pytest.mark.parametrize(
    ("send", "sent"), [("all", ["up", "down"]), ("negative", ["down"]), ("none", [])]
)
def test_feedback_send_decides_which_votes_are_posted(
    page: Page,
    site: Site,
    endpoint: FakeEndpoint,
    feedback: FakeFeedback,
    send: str,
    sent: list[str],
) -> None:
    """Helpful then Not helpful: every vote is kept locally, only allowed ones are POSTed."""
    posts = voting_page(page, site, send, chat=True)
    issued: list[str] = []
    page.on("request", lambda r: issued.append(r.url) if "/api/feedback" in r.url else None)
    ask(page, "retry a failed job")
    expect(votes(page)).to_be_visible(timeout=READY_TIMEOUT_MS)
    vote(page, "Helpful")
    expect(vote_button(page, "Helpful")).to_have_attribute("aria-pressed", "true")
    vote(page, "Not helpful")
    expect(vote_button(page, "Helpful")).to_have_attribute("aria-pressed", "false")
    expect(vote_button(page, "Not helpful")).to_have_attribute("aria-pressed", "true")
    # The worker starts its fetches in order, and a report's POST starts as its vote
    # is handled: once the next question's request is out, any report is out too.
    with page.expect_request(lambda r: "/api/chat" in r.url, timeout=READY_TIMEOUT_MS):
        ask(page, "schedule a cron job")
    assert len(issued) == len(sent), issued
    received = reports(page, posts, feedback, len(sent))
    assert [r["vote"] for r in received] == sent
    assert len({r["id"] for r in received}) <= 1  # a changed vote keeps its id
    entries = log(page)
    assert [(e["vote"], e["question"]) for e in entries] == [("down", "retry a failed job")]


def test_pressing_the_pressed_vote_takes_it_back(
    page: Page, site: Site, feedback: FakeFeedback
) -> None:
    """The vote leaves the turn and the log; the receiver learns it with the same id."""
    posts = voting_page(page, site)
    ask_and_wait(page, "retry a failed job")
    vote(page, "Helpful")
    vote(page, "Helpful")
    for name in ("Helpful", "Not helpful"):
        expect(vote_button(page, name)).to_have_attribute("aria-pressed", "false")
    assert log(page) == []
    first, second = reports(page, posts, feedback, 2)
    assert (first["vote"], second["vote"]) == ("up", None) and first["id"] == second["id"]


def test_not_helpful_sends_reasons_and_a_redacted_sentence(
    page: Page, site: Site, endpoint: FakeEndpoint, feedback: FakeFeedback
) -> None:
    """Reasons and the sentence (credentials masked) go with the turn's facts; after a
    reload the turn still shows the vote, and a change resends the same id."""
    posts = voting_page(page, site, chat=True)
    endpoint.queue(stream("Call `retry()` [1]."))
    page.get_by_role("combobox", name="Search in").select_option("api")
    ask(page, "how do I retry a failed job")
    expect(votes(page)).to_be_visible(timeout=READY_TIMEOUT_MS)
    vote(page, "Not helpful")
    form = votes(page).locator("form")
    expect(form.get_by_role("textbox", name="What was wrong?")).to_be_visible()
    form.get_by_role("checkbox", name="Outdated").check()
    form.get_by_role("textbox", name="What was wrong?").fill(f"my token {SECRET} leaks")
    before = page.evaluate(LOG_WRITES)
    form.get_by_role("button", name="Send feedback").click()
    page.wait_for_function(f"{LOG_WRITES} > {before}")
    expect(form).to_be_hidden()
    first, second = reports(page, posts, feedback, 2)
    assert first["id"] == second["id"] and first["reasons"] == []
    assert second["reasons"] == ["outdated"]
    assert second["sentence"] == "my token [redacted: GitHub token] leaks"
    assert second["question"] == "how do I retry a failed job"
    assert second["answer"] == "Call `retry()` [1]."
    assert second["scope"] == "api" and second["retrieved"]
    assert second["sources"] and second["page_url"] == page.url
    gate = second["gate"]
    assert isinstance(gate, dict) and gate["top_score"] >= gate["threshold"]
    assert SECRET not in json.dumps(second) + json.dumps(log(page))
    assert SECRET not in (stored(page, "history") or "")

    reload_open(page)
    expect(vote_button(page, "Not helpful")).to_have_attribute("aria-pressed", "true")
    vote(page, "Helpful")
    third = reports(page, posts, feedback, 3)[2]
    assert (third["id"], third["vote"], third["retrieved"]) == (first["id"], "up", [])


def test_a_failing_receiver_loses_nothing_and_is_retried_once(
    page: Page, site: Site, feedback: FakeFeedback, watch: Watch
) -> None:
    """An HTTP 500 leaves the vote on the turn and in the log, shows the reader nothing,
    and the report is sent again a few seconds later."""
    watch.expect_bad_request(r"^HTTP 500: .*/api/feedback$")
    # On a busy machine Chromium has reported one of the two 500s as aborted though the
    # worker read it to the end; what counts is that both reports arrived, the same.
    watch.expect_bad_request(r"^failed: .*/api/feedback \(net::ERR_ABORTED\)$")
    feedback.fail(500)
    posts = voting_page(page, site)
    ask_and_wait(page, "retry a failed job")
    vote(page, "Helpful")
    assert [e["vote"] for e in log(page)] == ["up"]
    first, retry = reports(page, posts, feedback, 2, wait_s=15.0)
    assert first == retry
    expect(page.get_by_role("alert")).to_have_count(0)


def test_deleting_conversations_empties_the_feedback_log(
    page: Page, site: Site, feedback: FakeFeedback
) -> None:
    """Deleting a conversation drops its votes from the log; Delete all clears it."""
    voting_page(page, site)
    ask_and_wait(page, "retry a failed job")
    vote(page, "Helpful")
    new_chat(page)
    ask_and_wait(page, "schedule a cron job")
    vote(page, "Not helpful")
    assert [e["question"] for e in log(page)] == ["retry a failed job", "schedule a cron job"]
    assert history_titles(page) == ["schedule a cron job", "retry a failed job"]
    rows = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    rows.nth(1).get_by_role("button", name="Delete conversation").click()
    expect(rows).to_have_count(1)
    page.wait_for_function(
        "() => JSON.parse(localStorage.getItem('docs-panel.feedback')).entries.length === 1"
    )
    assert [e["question"] for e in log(page)] == ["schedule a cron job"]
    open_history(page)
    page.get_by_role("button", name="Delete all").click()
    page.get_by_role("button", name="Confirm delete all").click()
    expect(page.get_by_text("No conversations yet.")).to_be_visible()
    assert stored(page, "feedback") is None


def test_recording_nothing_keeps_no_log_but_still_sends(
    page: Page, site: Site, feedback: FakeFeedback
) -> None:
    """With history.enabled false the vote is drawn and POSTed, and no key is written."""
    posts = voting_page(page, site, record=False)
    ask_and_wait(page, "retry a failed job", stored=False)
    vote(page, "Helpful")
    expect(vote_button(page, "Helpful")).to_have_attribute("aria-pressed", "true")
    assert [r["vote"] for r in reports(page, posts, feedback, 1)] == ["up"]
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
