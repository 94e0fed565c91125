"""What a reader does with the panel, in any engine, by role and accessible name
(contract §3): the cross-engine twin of tests/browser/reader.py."""

from __future__ import annotations

import json

from tests.browser.reader import KEYS
from tests.cross.tabs import Tab

# WebKit runs the worker's CPython about five times slower than Firefox here.
READY_S = 120.0


def open_panel(tab: Tab) -> None:
    tab.click("button", "Ask the docs")
    tab.wait_count("region", "Docs assistant", 1)


def wait_ready(tab: Tab) -> None:
    tab.wait_count("progressbar", "Loading the assistant", 0, timeout_s=READY_S)


def ask(tab: Tab, question: str) -> None:
    """Type the question key by key, as a reader does, and send it with Enter."""
    tab.type("textbox", "Ask a question", question)
    tab.press("Enter")


# True once ``n`` turns are on screen, none still answering, and this tab's conversation
# is stored with each turn's status as shown (a checkpoint, stored as "stopped" while the
# answer streams, is not enough).
STORED_AS_SHOWN = """n => {
  const panel = document.querySelector('[data-docs-panel]').shadowRoot;
  const turns = [...panel.querySelectorAll('.turn')];
  if (turns.length !== n || turns.some(t => t.hasAttribute('aria-busy'))) return false;
  const shown = turns.map(t => t.querySelector('.results') ? 'results'
    : t.querySelector('.after .stopped') ? 'stopped' : 'done');
  const id = JSON.parse(sessionStorage.getItem('docs-panel.conversation') || '{}').id;
  const kept = JSON.parse(localStorage.getItem('docs-panel.history') || '{"conversations": []}')
    .conversations.find(c => c.id === id);
  return Boolean(kept) && JSON.stringify(kept.turns.map(t => t.status)) === JSON.stringify(shown);
}"""


def wait_answered(tab: Tab, count: int) -> None:
    """Until this conversation shows ``count`` finished turns and stores each as shown."""
    tab.wait_until(STORED_AS_SHOWN, count, timeout_s=READY_S, what=f"{count} answers stored")


def stored(tab: Tab, name: str) -> str | None:
    area, key = KEYS[name]
    return tab.stored(area, key)


def stored_questions(tab: Tab) -> list[list[str]]:
    """The questions of each stored conversation, sorted."""
    raw = stored(tab, "history")
    conversations = json.loads(raw)["conversations"] if raw else []
    return sorted([t["question"] for t in c["turns"]] for c in conversations)


def history_titles(tab: Tab) -> list[str]:
    """Open the history list (afresh: it is read when it opens) and read its rows' titles."""
    if tab.attribute("button", "Conversation history", "aria-expanded") == "true":
        tab.click("button", "Conversation history")
    tab.click("button", "Conversation history")
    tab.wait_count("list", "Conversations", 1)
    script = """() => [...document.querySelector('[data-docs-panel]').shadowRoot
      .querySelectorAll('.history li .title')].map(e => e.innerText)"""
    return list(tab.run(script))
