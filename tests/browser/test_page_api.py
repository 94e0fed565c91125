"""The site owner's page in Chromium: the page API on ``window.docsPanel``,
the ``docs-panel:*`` events, ``?ask=`` deep links and asking before keeping anything."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from playwright.sync_api import ConsoleMessage, Locator, Page, expect

from docs_panel.portable.caps import QUESTION_CHARS
from docs_panel.portable.i18n import table
from docs_panel.portable.page_api import EVENTS
from tests.browser.a11y import axe_violations
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    archive,
    ask_and_wait,
    open_panel,
    settled_archive,
    stored,
    wait_ready,
)

pytestmark = pytest.mark.browser

SHOTS = Path("/work/scratch/shots-pageapi")
TOKEN = "ghp_" + "Zx9Kq2Lm7Pw4Rt8Yb3Nc6Vd1Fg5Hj0Ks2Qe9"
MASK = "[redacted: GitHub token]"
QUESTION = "How do I retry a job that failed?"
_KEEPER = (Path(__file__).parents[2] / "docs_panel" / "shell" / "persistence.py").read_text()
DRAFT_DELAY_MS = round(
    1000 * float(re.search(r"^DRAFT_DELAY_S = ([\d.]+)$", _KEEPER, re.M)[1])  # type: ignore[index]
)
"""The keeper's delay before it stores a draft (the shell's module needs PyScript)."""
# Every docs-panel:* event, as the page sees it, reported on the console (which outlives
# a navigation, as a link followed from the panel causes).
RECORDER = (
    "for (const name of " + json.dumps(list(EVENTS)) + ") {"
    """
  document.addEventListener("docs-panel:" + name, (e) => {
    const seen = JSON.stringify([name, e.detail]);
    if (e instanceof CustomEvent) console.info("docs-panel-event " + seen);
  });
}"""
)
# Both storage areas, whole: what a test compares before and after.
STORAGE = """() => Object.fromEntries(["localStorage", "sessionStorage"].map((area) =>
  [area, Object.fromEntries(Object.keys(window[area]).sort().map((k) => [k, window[area][k]]))]))"""


@pytest.fixture
def events(page: Page) -> Iterator[list[tuple[str, dict[str, object]]]]:
    seen: list[tuple[str, dict[str, object]]] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.text.startswith("docs-panel-event "):
            name, detail = json.loads(message.text.removeprefix("docs-panel-event "))
            seen.append((name, detail))

    page.add_init_script(RECORDER)
    page.on("console", on_console)
    yield seen


def named(events: list[tuple[str, dict[str, object]]], name: str) -> list[dict[str, object]]:
    return [detail for seen, detail in events if seen == name]


def panel(page: Page) -> Locator:
    return page.get_by_role("region", name="Docs assistant")


def test_calls_made_before_the_runtimes_load_are_queued_and_settle(
    page: Page, site: Site, events: list[tuple[str, dict[str, object]]]
) -> None:
    """ask() and open() made at once, before any runtime loaded, are answered in order;
    ask's promise ends with the answer's figures, and events carry no text by default."""
    page.goto(site.page_with_config("api-queue", "{chat: false}"))
    queued, answered = page.evaluate(
        """async (question) => {
            const queued = window.__docsPanel.call === null && !window.__docsPanel.toggle;
            const opened = docsPanel.open();
            const asked = performance.now(), answered = docsPanel.ask(question);
            await opened;
            const figures = await answered;
            return [queued, {...figures, elapsedMs: performance.now() - asked}];
        }""",
        QUESTION,
    )
    assert queued, "the shell was already up: the calls were not made before load"
    expect(panel(page)).to_be_visible()
    expect(page.get_by_role("list", name="Search results")).to_have_count(1)
    assert answered["outcome"] == "results"
    # The latency is the ask's own: some time, within what the page saw ask() take.
    assert answered["sources"] == 0 and 0 < answered["latencyMs"] <= answered["elapsedMs"]
    [conversation] = settled_archive(page, [[QUESTION]])
    assert [answered["conversation"]] == list(archive(page))
    assert conversation == [QUESTION]
    [ask_event], [answer_event] = named(events, "ask"), named(events, "answer")
    assert "question" not in ask_event and "answer" not in answer_event
    assert answer_event["turn"] == answered["turn"] and answer_event["outcome"] == "results"
    assert [name for name, _ in events][:3] == ["open", "ask", "answer"]
    # close and newChat settle once done: hidden, then an empty thread.
    page.evaluate("docsPanel.newChat()")
    expect(page.locator(".turn")).to_have_count(0)
    page.evaluate("docsPanel.close()")
    expect(panel(page)).to_be_hidden()
    assert [name for name, _ in events][-1] == "close"


def test_bad_arguments_reject_with_a_clear_error_and_open_nothing(page: Page, site: Site) -> None:
    """Each bad call rejects with what was expected; none of them opens the panel."""
    page.goto(
        site.page_with_config(
            "api-bad",
            '{chat: false, scopes: [{id: "all", label: "All"}, {id: "api", label: "API"}]}',
        )
    )
    errors = page.evaluate(
        """async () => {
            const calls = [() => docsPanel.open("retry"), () => docsPanel.ask(""),
                           () => docsPanel.ask(), () => docsPanel.open({submit: true}),
                           () => docsPanel.open({question: "q", colour: "red"}),
                           () => docsPanel.close(1), () => docsPanel.open({scope: "nope"})];
            const out = [];
            for (const call of calls) {
                try { await call(); out.push("resolved"); }
                catch (e) { out.push(e.name + ": " + e.message); }
            }
            return out;
        }"""
    )
    assert errors == [
        'TypeError: docsPanel.open({question, submit, scope}): expected an object, got "retry"',
        'TypeError: docsPanel.ask(question): expected a non-blank string, got ""',
        "TypeError: docsPanel.ask(question): expected one question, got 0 arguments",
        "TypeError: docsPanel.open({question, submit, scope}): with submit, question:"
        " expected a non-blank string, got null",
        'TypeError: docsPanel.open({question, submit, scope}): unknown option "colour"',
        "TypeError: docsPanel.close(): expected no arguments, got 1 arguments",
        'TypeError: docsPanel.open({question, submit, scope}): scope: unknown scope "nope"'
        ' (known: "all", "api")',
    ]
    expect(panel(page)).to_be_hidden()
    # A good call after them works: the question waits in the box, in the chosen scope.
    page.evaluate('docsPanel.open({question: "webhook signatures", scope: "api"})')
    expect(page.get_by_role("textbox", name="Ask a question")).to_have_value("webhook signatures")
    expect(page.get_by_role("combobox", name="Search in")).to_have_value("api")


def test_events_carry_text_only_when_the_site_asks(
    page: Page, site: Site, endpoint: FakeEndpoint, events: list[tuple[str, dict[str, object]]]
) -> None:
    """events: {text: true}: ask and answer carry the (masked) question and the answer's
    Markdown; vote and source-click carry the turn, the vote and the address."""
    endpoint.queue(stream("Retry it with `jobs retry` [1].", size=6, delay_s=0.01))
    page.goto(site.page_with_config("api-text", "{chat: true, gate: 0, events: {text: true}}"))
    answered = page.evaluate("(q) => docsPanel.ask(q)", f"How do I retry a failed job? {TOKEN}")
    assert len(endpoint.requests) == 1, "the gate stayed shut: no model answer to test"
    assert answered["outcome"] == "done" and answered["sources"] == 1
    [asked], [answer] = named(events, "ask"), named(events, "answer")
    assert asked["question"] == answer["question"] == f"How do I retry a failed job? {MASK}"
    assert answer["answer"] == "Retry it with `jobs retry` [1]."
    assert answer["sources"] == 1 and answer["outcome"] == "done"
    page.get_by_role("button", name="Helpful", exact=True).click()
    expect(page.get_by_role("button", name="Helpful", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    page.get_by_role("button", name="Helpful", exact=True).click()  # taken back
    expect(page.get_by_role("button", name="Helpful", exact=True)).to_have_attribute(
        "aria-pressed", "false"
    )
    assert [(v["turn"], v["vote"]) for v in named(events, "vote")] == [
        (answered["turn"], "up"),
        (answered["turn"], "none"),
    ]
    link = page.get_by_role("list", name="Sources").get_by_role("link").first
    address = link.get_attribute("href")
    # The page stays (leaving mid-start would abort the panel's fetches): the event is
    # dispatched before the link's default action, which the page cancels here.
    page.evaluate("document.addEventListener('click', (e) => e.preventDefault())")
    link.click()
    page.wait_for_function("() => true")
    assert page.url.endswith("/tests/api-text.html")
    [clicked] = named(events, "source-click")
    assert clicked["address"] == address and clicked["list"] == "sources"
    assert TOKEN not in json.dumps(events)


def test_error_events_name_their_kind(
    page: Page,
    site: Site,
    endpoint: FakeEndpoint,
    watch: Watch,
    events: list[tuple[str, dict[str, object]]],
) -> None:
    """A model that fails mid-answer: an error event of kind "answer", and the answer's
    outcome is the search results the reader got."""
    from tests.browser.endpoint import then

    endpoint.queue(then("Half an ans", b"data: {not json\n\n"))
    watch.expect_bad_request(r"/api/chat \(net::ERR_INCOMPLETE_CHUNKED_ENCODING\)")
    page.goto(site.page_with_config("api-error", "{chat: true}"))
    answered = page.evaluate("(q) => docsPanel.ask(q)", QUESTION)
    assert answered["outcome"] == "results"
    assert named(events, "error") == [{"conversation": answered["conversation"], "kind": "answer"}]


def test_a_deep_link_asks_once_masked_and_leaves_the_address_bar(
    page: Page, site: Site, events: list[tuple[str, dict[str, object]]]
) -> None:
    """?ask= with a token in it: asked once, masked on screen and in storage, gone from
    the address (other parameters kept), never asked again on reload."""
    url = site.page_with_config("deep", "{chat: false}")
    page.goto(f"{url}?ref=docs&ask={quote(f'{QUESTION} my token is {TOKEN}')}#top")
    expect(panel(page)).to_be_visible(timeout=READY_TIMEOUT_MS)
    expect(page.get_by_role("list", name="Search results")).to_have_count(
        1, timeout=READY_TIMEOUT_MS
    )
    expect(page.locator(".turn .question")).to_have_text(f"{QUESTION} my token is {MASK}")
    assert page.url == f"{url}?ref=docs#top"
    settled_archive(page, [[f"{QUESTION} my token is {MASK}"]])
    kept = json.dumps(page.evaluate(STORAGE))
    assert TOKEN not in kept and TOKEN[4:] not in kept
    page.reload()
    expect(page.locator(".turn")).to_have_count(1, timeout=READY_TIMEOUT_MS)  # restored
    wait_ready(page)
    expect(page.locator(".turn")).to_have_count(1)
    assert len(named(events, "ask")) == 1


def test_a_huge_hostile_deep_link_is_capped_and_shown_as_text(page: Page, site: Site) -> None:
    """A 54,000-character value (about what a server takes in a request line) with markup
    in it: a question of QUESTION_CHARS characters, drawn as text; a parameter named by
    askParam; null turns links off."""
    hostile = '<img src=x onerror="window.__ran=1">' + "retry " * 9_000
    url = site.page_with_config("deep-huge", '{chat: false, askParam: "q"}')
    page.goto(f"{url}?q={quote_plus(hostile)}")
    expect(page.get_by_role("list", name="Search results")).to_have_count(
        1, timeout=READY_TIMEOUT_MS
    )
    settled = settled_archive(page, [[hostile.strip()[:QUESTION_CHARS].rstrip()]])
    assert len(settled[0][0]) <= QUESTION_CHARS
    assert page.evaluate("window.__ran") is None
    assert page.url == url
    # A new tab: this one would restore its conversation (and load the runtimes).
    tab = page.context.new_page()
    off = site.page_with_config("deep-off", "{chat: false, askParam: null}")
    tab.goto(f"{off}?ask=retry")
    tab.wait_for_load_state("load")
    expect(tab.get_by_role("button", name="Ask the docs")).to_be_visible()
    # Nothing was asked of the panel, nor did its runtimes start loading.
    assert tab.evaluate("[window.__docsPanel.calls.length, window.__docsPanel.shellFiles]") == [
        0,
        None,
    ]
    assert tab.url == f"{off}?ask=retry"


CONSENT = '{chat: false, history: {consent: "ask"}}'


def test_consent_declined_leaves_local_storage_byte_identical(page: Page, site: Site) -> None:
    """Until the reader accepts, nothing is written: ask, vote, type a draft, say "Not
    now", reload: both storage areas are as the page left them."""
    page.goto(site.page_with_config("consent-no", CONSENT))
    page.evaluate(
        "localStorage.setItem('site.theme', 'dark'); sessionStorage.setItem('site.tab', '2')"
    )
    before = page.evaluate(STORAGE)
    open_panel(page)
    wait_ready(page)
    keep = page.get_by_role("button", name="Keep my conversations on this device")
    expect(keep).to_be_visible()
    ask_and_wait(page, QUESTION, stored=False)
    page.get_by_role("textbox", name="Ask a question").fill("a draft " + TOKEN)
    # A draft is written DRAFT_DELAY_S after a key, after a call to the worker. A page
    # timer of that delay set now fires after the keeper's (timers of one delay fire in
    # the order they were set); the vote set after it is shown once the worker replies,
    # after any draft call it had before. So once it shows, a draft would be stored.
    page.evaluate("(ms) => new Promise(done => setTimeout(done, ms))", DRAFT_DELAY_MS)
    page.get_by_role("button", name="Helpful", exact=True).click()
    expect(page.get_by_role("button", name="Helpful", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    assert stored(page, "draft") is None
    page.get_by_role("button", name="Not now").click()
    expect(keep).to_be_hidden()
    ask_and_wait(page, "webhook signatures", stored=False)
    assert page.evaluate(STORAGE) == before
    page.reload()
    open_panel(page)
    wait_ready(page)
    expect(page.locator(".turn")).to_have_count(0)  # nothing kept, nothing restored
    expect(keep).to_be_visible()  # "Not now" asks again on the next page
    assert page.evaluate(STORAGE) == before


def test_consent_accepted_keeps_the_conversation_then_settings_takes_it_back(
    page: Page, site: Site
) -> None:
    """Accepting writes what the visit held in memory, and one key for the choice;
    unticking the setting forgets it all but the choice, which stops the notice."""
    page.goto(site.page_with_config("consent-yes", CONSENT))
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, QUESTION, stored=False)
    assert stored(page, "history") is None
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / "consent-notice-en.png")
    page.get_by_role("button", name="Keep my conversations on this device").click()
    assert settled_archive(page, [[QUESTION]]) == [[QUESTION]]
    assert page.evaluate("localStorage.getItem('docs-panel.consent')") == "granted"
    page.reload()
    expect(page.locator(".turn")).to_have_count(1, timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    expect(page.get_by_role("button", name="Not now")).to_be_hidden()
    page.get_by_role("button", name="Settings").click()
    setting = page.get_by_role("checkbox", name="Keep my conversations on this device")
    expect(setting).to_be_checked()
    page.screenshot(path=SHOTS / "consent-setting-en.png")
    setting.uncheck()
    page.wait_for_function("localStorage.getItem('docs-panel.consent') === 'denied'")
    assert page.evaluate(STORAGE) == {
        "localStorage": {"docs-panel.consent": "denied"},
        "sessionStorage": {},
    }
    ask_and_wait(page, "webhook signatures", stored=False)
    page.reload()
    open_panel(page)
    wait_ready(page)
    expect(page.get_by_role("button", name="Not now")).to_be_hidden()
    expect(page.locator(".turn")).to_have_count(0)
    assert page.evaluate(STORAGE)["localStorage"] == {"docs-panel.consent": "denied"}


@pytest.mark.parametrize("language", ["en", "fr", "ar"])
def test_consent_states_have_no_axe_violations(page: Page, site: Site, language: str) -> None:
    """The notice and the setting, in English, French and Arabic: 0 violations."""
    words = table(language)
    page.goto(site.page_with_config(f"consent-{language}", CONSENT, html=f'lang="{language}"'))
    open_panel(page, words)
    wait_ready(page, words)
    expect(page.get_by_role("button", name=words["consent_keep"])).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    found = axe_both_schemes(page, "notice", SHOTS / f"consent-notice-{language}")
    page.get_by_role("button", name=words["settings"]).click()
    expect(page.get_by_role("checkbox", name=words["consent_keep"])).to_be_visible()
    found += axe_both_schemes(page, "setting", SHOTS / f"consent-setting-{language}")
    assert found == [], "\n".join(found)


def axe_both_schemes(page: Page, state: str, shot: Path) -> list[str]:
    """axe on the panel in the light and the dark scheme, a screenshot of each."""
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [
            f"{state}, {scheme}: {line}" for line in axe_violations(page, "[data-docs-panel]")
        ]
        page.screenshot(path=f"{shot}-{scheme}.png")
    page.emulate_media(color_scheme="light")
    return found
