"""Elements drawn from protocol records (MicroPython): each function takes a record
(``widget.core.protocol.RECORDS``) and returns elements, deciding nothing::

    article = turn_article("How do I retry?", quote="", scope_label="API")
    for element in answer_elements(turn, on_ask_again=ask_again, votes=votes.bar):
        article.append(element)

Text always goes in as text nodes; only the ``answer`` HTML, which the worker
rendered and sanitized with its one bleach Cleaner, is set as markup.
"""

from shell.dom import h, icon_button, listen


def empty_state():
    return h(
        "div",
        {"class": "empty"},
        h("strong", None, "Ask about these docs"),
        "Answers link to the sections they come from.",
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
        article.append(h("p", {"class": "asked-in"}, "In " + scope_label))
    return article


def answer_elements(turn: "Turn", on_ask_again, votes, failed=False):
    """A finished turn below its question: answer, Stopped + Ask again, sources, or
    results; then ``votes(turn)``, the vote buttons."""
    out = _answer_body(turn, on_ask_again, failed)
    out.append(votes(turn))
    return out


def _answer_body(turn: "Turn", on_ask_again, failed):
    if turn.status == "results":
        out = []
        if failed:
            out.append(
                note(
                    "The assistant could not answer just now, "
                    "so here are the best-matching sections."
                )
            )
        return out + results_elements(turn.results, intro=not failed)
    body = h("div", {"class": "answer"})
    body.innerHTML = turn.answer  # rendered and sanitized by the worker
    out = [body]
    if turn.status == "stopped":
        again = h("button", {"class": "text", "type": "button"}, "Ask again")
        listen(again, "click", lambda event: on_ask_again(turn))
        out.append(h("div", {"class": "after"}, h("span", {"class": "stopped"}, "Stopped"), again))
    if turn.sources:
        out.append(sources_block(turn.sources))
    return out


def throttle_notice(wait_s, on_ask_again):
    """The endpoint asked to wait: when to ask again, and "Ask again", off until then."""
    when = "in " + str(wait_s) + " s" if wait_s else "in a moment"
    again = h("button", {"class": "text", "type": "button", "disabled": wait_s > 0}, "Ask again")
    listen(again, "click", lambda event: on_ask_again())
    text = "Too many questions right now. Try again " + when + "."
    return h("p", {"class": "note throttled", "role": "status"}, text, " ", again), again


def sources_block(sources: "list[Source]"):
    items = h("ol", {"class": "sources", "aria-label": "Sources"})
    for source in sources:
        item = h("li", None, h("a", {"href": source.address}, source.title))
        if source.ref:
            item.setAttribute("value", str(source.ref))
        items.append(item)
    return h("div", {"class": "sources-block"}, h("p", {"class": "label"}, "Sources"), items)


def results_elements(results: "list[Result]", intro=True):
    if not results:
        return [note("No section of the docs matches that. Try other words.")]
    out = [note("The best-matching sections of the docs:")] if intro else []
    items = h("ol", {"class": "results", "aria-label": "Search results"})
    for result in results:
        items.append(
            h(
                "li",
                None,
                h("a", {"href": result.address}, result.title),
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
        h("summary", None, "Reasoning"),
        reasoning_text,
    )
    stable, tail = h("div"), h("div")
    return reasoning, reasoning_text, stable, tail, h("div", {"class": "answer"}, stable, tail)


def history_row(row: "Row", current, when, on_open, on_delete):
    opener = h(
        "button",
        {"class": "open", "type": "button", "aria-current": "true" if current else None},
        h("span", {"class": "title"}, row.title),
        h("span", {"class": "when"}, when),
    )
    listen(opener, "click", lambda event: on_open(row.id))
    remove = icon_button(
        "Delete conversation", "bin", lambda event: on_delete(row.id), css="icon bin"
    )
    return h("li", None, opener, remove)
