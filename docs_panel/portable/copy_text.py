"""What "Copy answer" puts on the clipboard: the answer's Markdown as the model wrote
it, then its sources as Markdown links, numbered as the answer cites them::

    >>> print(answer_markdown("Call `retry()` [1].", [("Retry", "https://d.org/api#retry", 1),
    ...                                                 ("Jobs", "https://d.org/jobs", 0)],
    ...                       "Sources"))
    Call `retry()` [1].
    <BLANKLINE>
    Sources:
    - [1] [Retry](https://d.org/api#retry)
    - [Jobs](https://d.org/jobs)

The shell calls it with absolute links (a copy is pasted elsewhere), so a link
text's brackets are escaped and a URL's spaces and parentheses encoded.

Both runtimes import this module, so it keeps to the Python MicroPython has.
"""


def _link_text(title: str) -> str:
    for ch in "\\[]":
        title = title.replace(ch, "\\" + ch)
    return " ".join(title.split())


def _url(address: str) -> str:
    return address.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def answer_markdown(answer: str, sources: list[tuple[str, str, int]], label: str) -> str:
    """``answer`` (Markdown) and ``sources`` as (title, absolute URL, citation number or
    0) under ``label``, as one Markdown text."""
    text = answer.strip()
    if not sources:
        return text
    lines = [text, "", label + ":"]
    for title, url, ref in sources:
        number = "[" + str(ref) + "] " if ref else ""
        lines.append("- " + number + "[" + _link_text(title) + "](" + _url(url) + ")")
    return "\n".join(lines)
