"""Elements drawn from protocol records (MicroPython): each function takes a record
(``docs_panel.portable.protocol.RECORDS``) and returns elements, deciding nothing::

    article = turn_article("How do I retry?", quote="", scope_label="API")
    for element in answer_elements(turn, on_ask_again=ask_again, votes=votes.bar):
        article.append(element)

Text always goes in as text nodes; only the ``answer`` HTML, which the worker
rendered and sanitized with its one bleach Cleaner, is set as markup.
"""

from docs_panel.shell.dom import h, icon_button, listen
from docs_panel.shell.words import say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import Result, Row, Source, Turn


def empty_state():
    return h(
        "div",
        {"class": "empty"},
        h("strong", None, say("empty_title")),
        say("empty_body"),
    )


def note(text, css="note", role=None):
    return h("p", {"class": css, "role": role}, text)


def turn_article(question, quote, scope_label=""):
    """A question as the thread shows it: the quoted passage above it, and the scope
    it was asked in when the site has several."""
    article = h("article", {"class": "turn"})
    if quote:
        article.append(h("blockquote", {"class": "quote"}, quote))
    article.append(h("p", {"class": "question"}, question))
    if scope_label:
        article.append(h("p", {"class": "asked-in"}, say("asked_in", scope=scope_label)))
    return article


def answer_elements(turn: "Turn", on_ask_again, votes, copier, failed=False):
    """A finished turn below its question: answer (its code blocks with "Copy code"),
    Stopped + Ask again, sources and "Copy answer", or results; then ``votes(turn)``,
    the vote buttons."""
    out = _answer_body(turn, on_ask_again, copier, failed)
    out.append(votes(turn))
    return out


def _answer_body(turn: "Turn", on_ask_again, copier, failed):
    if turn.status == "results":
        out = []
        if failed:
            out.append(note(say("model_failed")))
        return out + results_elements(turn.results, intro=not failed)
    body = h("div", {"class": "answer", "dir": "auto"})
    body.innerHTML = turn.answer  # rendered and sanitized by the worker
    copier.code_buttons(body)
    out = [body]
    if turn.status == "stopped":
        again = h("button", {"class": "text", "type": "button"}, say("ask_again"))
        listen(again, "click", lambda event: on_ask_again(turn))
        out.append(
            h("div", {"class": "after"}, h("span", {"class": "stopped"}, say("stopped")), again)
        )
    if turn.sources:
        out.append(sources_block(turn.sources))
    if turn.text.strip():
        out.append(copier.answer_button(turn))
    return out


def throttle_notice(wait_s, on_ask_again):
    """The endpoint asked to wait: when to ask again, and "Ask again", off until then."""
    text = say("throttled_in", n=wait_s) if wait_s else say("throttled_soon")
    again = h(
        "button", {"class": "text", "type": "button", "disabled": wait_s > 0}, say("ask_again")
    )
    listen(again, "click", lambda event: on_ask_again())
    return h("p", {"class": "note throttled", "role": "status"}, text, " ", again), again


def _link(address, title):
    """A link to a section, or its title as text when the worker gave no address (one
    the panel may not link)."""
    return h("a", {"href": address}, title) if address else h("span", None, title)


def sources_block(sources: "list[Source]"):
    items = h("ol", {"class": "sources", "aria-label": say("sources")})
    for source in sources:
        item = h("li", None, _link(source.address, source.title))
        if source.ref:
            item.setAttribute("value", str(source.ref))
        items.append(item)
    return h("div", {"class": "sources-block"}, h("p", {"class": "label"}, say("sources")), items)


def results_elements(results: "list[Result]", intro=True):
    if not results:
        return [note(say("no_results"))]
    out = [note(say("results_intro"))] if intro else []
    items = h("ol", {"class": "results", "aria-label": say("results")})
    for result in results:
        items.append(
            h(
                "li",
                None,
                _link(result.address, result.title),
                h("span", {"class": "page"}, result.page) if result.page else None,
                h("p", {"class": "snippet"}, result.snippet),
            )
        )
    out.append(items)
    return out


def streaming_answer():
    """The parts a streaming answer fills: (reasoning, reasoning text, stable, tail, body)."""
    reasoning_text = h("div", {"class": "reasoning-text"})
    reasoning = h(
        "details",
        {"class": "reasoning", "hidden": True},
        h("summary", None, say("reasoning")),
        reasoning_text,
    )
    stable, tail = h("div"), h("div")
    return (
        reasoning,
        reasoning_text,
        stable,
        tail,
        h("div", {"class": "answer", "dir": "auto"}, stable, tail),
    )


def history_row(row: "Row", current, when, on_open, on_export, on_delete):
    opener = h(
        "button",
        {"class": "open", "type": "button", "aria-current": "true" if current else None},
        h("span", {"class": "title"}, row.title),
        h("span", {"class": "when"}, when),
    )
    listen(opener, "click", lambda event: on_open(row.id))
    export = icon_button(
        say("export"), "download", lambda event: on_export(row.id), css="icon row-action"
    )
    remove = icon_button(
        say("delete_conversation"), "bin", lambda event: on_delete(row.id), css="icon bin"
    )
    return h("li", None, opener, export, remove)
