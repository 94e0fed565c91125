"""Snippets: a short piece of a section's text around the words a question matched.

Decides only which window of the text to show; never ranks. It runs for every
hit of every search, so in the worker it was the largest share of a search's
time: the text is scanned by one regular expression (in C) for words that may
hold a question term, and only those few words are stemmed and checked::

    >>> snippet("Intro. " * 40 + "Use os.path.splitext to get the extension.",
    ...         {"extens": 1.0, "splitext": 2.0}, length=40)
    '…Use os.path.splitext to get the…'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

from docs_panel.core.text import ENGLISH, WORD, Words

SNIPPET_LENGTH = 200


def snippet(
    text: str, weights: Mapping[str, float], words: Words = ENGLISH, length: int = SNIPPET_LENGTH
) -> str:
    """About ``length`` characters of ``text`` around its best run of weighted terms (read
    as ``words`` reads the text's language)."""
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    matches = []
    for match in _words_with_roots(text, _roots(tuple(sorted(weights)))):
        found = [term for term in words.word_terms(match.group()) if term in weights]
        if found:
            matches.append((match.start(), max(found, key=weights.__getitem__)))
    start, best = 0, 0.0
    # A window opens a little before each match; it is worth the weight of the
    # distinct terms in it (counted as matches enter and leave it).
    counts: dict[str, int] = {}
    value, end = 0.0, 0
    for position, term in matches:
        window_start = max(0, position - length // 5)
        while end < len(matches) and matches[end][0] < window_start + length:
            entering = matches[end][1]
            counts[entering] = counts.get(entering, 0) + 1
            value += weights[entering] if counts[entering] == 1 else 0.0
            end += 1
        if value > best:
            start, best = window_start, value
        counts[term] -= 1
        value -= weights[term] if not counts[term] else 0.0
    if start:
        start = text.find(" ", start) + 1 or start
    end = min(len(text), start + length)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def _words_with_roots(text: str, roots: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """The :data:`WORD` matches of ``text`` holding a match of ``roots``, in order."""
    last = -1
    for hit in roots.finditer(text):
        # Words never hold a space: the word holding the hit starts after the last one.
        for word in WORD.finditer(text, text.rfind(" ", 0, hit.start()) + 1):
            if word.end() > hit.start():
                if word.start() <= hit.start() and word.start() > last:
                    last = word.start()
                    yield word
                break


@lru_cache(maxsize=64)
def _roots(terms: tuple[str, ...]) -> re.Pattern[str]:
    """Finds where a word giving one of ``terms`` may be (a superset of where one is)."""
    roots = sorted({re.escape(_root(term)) for term in terms}, key=len, reverse=True)
    return re.compile("|".join(roots) or "(?!)", re.IGNORECASE)


def _root(term: str) -> str:
    """The part of a term every word giving it contains: Porter turns a final "y"
    into "i" ("copy" gives ``copi``) and may add an "e" ("writing" gives ``write``),
    so a stem's final "i" or "e" is left out."""
    return term[:-1] if term.endswith(("i", "e")) and len(term) > 2 else term
