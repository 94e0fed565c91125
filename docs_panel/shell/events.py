"""The ``docs-panel:*`` events the page can listen to (MicroPython): each one a
``CustomEvent`` on ``document``, its detail decided by
``docs_panel.portable.page_api.event_detail``: ids and figures, text only if the site asked::

    events.emit("answer", {"turn": key, "outcome": "done", "latencyMs": 840, "sources": 2},
                {"question": asked.question, "answer": text})

Every detail names the conversation (its id, null before the first question).
"""

import json

import js

from docs_panel.portable.page_api import conversation_id, event_detail


class Events:
    def __init__(self, keeper):
        self.keeper = keeper
        self.with_text = False  # the config's events.text, once the worker has read it

    def conversation(self):
        """This tab's conversation id (None before its first question)."""
        return conversation_id(self.keeper.session)

    def emit(self, name, figures=None, texts=None):
        detail = {"conversation": self.conversation()}
        detail.update(figures or {})
        init = {"detail": event_detail(detail, texts or {}, self.with_text)}
        # A plain JS object by JSON; a listener's exception is the page's to report:
        # dispatchEvent never throws it here.
        event = js.CustomEvent.new("docs-panel:" + name, js.JSON.parse(json.dumps(init)))
        js.document.dispatchEvent(event)

    def on_thread_click(self, event):
        """A link in an answer, its Sources or its search results: ``source-click``."""
        target = event.target
        link = target.closest("a[href]") if target.closest else None
        if link is None or link.closest(".thread") is None:
            return
        where = "sources" if link.closest(".sources") else "results"
        if link.closest(".answer"):
            where = "answer"
        self.emit("source-click", {"address": link.getAttribute("href"), "list": where})
