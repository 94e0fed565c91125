"""Which analyzer reads each language, and the record of it the index carries.

Decides, for a page's language at build time and a reader's at question time (a
BCP 47 tag), how words become terms (``text.Words``): English by the house's
Porter stemmer and stopwords; the languages of :data:`SNOWBALL` by the Snowball
stemmer of PyPI ``snowballstemmer`` (what Sphinx's search uses) and the stopwords
of PyPI ``stop-words``; Chinese, Japanese and Korean (:data:`CJK`) by character
bigrams, their Latin-script words as in English; any other language by its
lower-cased words, unstemmed. The index records each of its languages' analyzer
(:func:`record`), stopwords included, and the worker rebuilds it from that record
(:func:`from_record`), refusing one it does not know: terms made one way never
meet questions read another. Never decides a page's language (the build does).

    >>> analyzer("zh-Hans").name, analyzer("pt-BR").name, analyzer("").name
    ('cjk-bigram', 'snowball-portuguese', 'english')
    >>> analyzer("zh").words.terms("部署到 GitHub Pages")
    ['部署', '署到', 'github', 'git', 'hub', 'page']
    >>> analyzer("fr").words.terms("Les fichiers de configuration")
    ['fichi', 'configur']
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from docs_panel.core.text import ENGLISH, STOPWORDS, Words, stem

#: Bumped whenever an analyzer's terms change, so an index made by the old one is refused.
VERSION = 1

#: Language (primary subtag) → Snowball algorithm. Persian has one since Snowball 3.
SNOWBALL = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "es": "spanish",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "it": "italian",
    "nb": "norwegian",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
}
#: Languages written without spaces between words (Korean has them, but its words
#: carry particles): read as character bigrams.
CJK = frozenset({"zh", "ja", "ko"})


@dataclass(frozen=True, eq=False)
class Analyzer:
    """One language's way from words to terms, by name (what the index records)."""

    name: str
    words: Words


def analyzer(language: str) -> Analyzer:
    """The analyzer for pages or readers in ``language`` ("" reads as English)."""
    code = language.partition("-")[0].lower()
    if code in ("", "en"):
        return Analyzer("english", ENGLISH)
    if code in CJK:
        return _cjk()
    if code in SNOWBALL:
        algorithm = SNOWBALL[code]
        return _snowball(algorithm, _stopwords(algorithm))
    return _plain()


def record(analyzer: Analyzer) -> dict[str, Any]:
    """What the index keeps of ``analyzer``: its name and version, and a Snowball
    analyzer's stopwords (so the worker needs no stopword package)."""
    out: dict[str, Any] = {"name": analyzer.name, "version": VERSION}
    if analyzer.name.startswith("snowball-"):
        out["stopwords"] = sorted(analyzer.words.stopwords)
    return out


def from_record(value: object) -> Analyzer:
    """The analyzer an index's :func:`record` names; ValueError for one this code does
    not make the same way (another version, an unknown name, a malformed record)."""
    if not isinstance(value, dict) or value.get("version") != VERSION:
        raise ValueError(f"analyzer {value!r} is not version {VERSION}")
    name = value.get("name")
    if name == "english":
        return Analyzer("english", ENGLISH)
    if name == "cjk-bigram":
        return _cjk()
    if name == "plain":
        return _plain()
    stopwords = value.get("stopwords")
    algorithm = str(name).removeprefix("snowball-")
    if (
        isinstance(name, str)
        and algorithm in SNOWBALL.values()
        and isinstance(stopwords, list)
        and all(isinstance(word, str) for word in stopwords)
    ):
        return _snowball(algorithm, frozenset(stopwords))
    raise ValueError(f"unknown analyzer {name!r}")


def stemmer_module(value: object) -> str | None:
    """The Snowball module the analyzer an index records imports (None for one without):
    the build ships it beside the index, so a reader fetches only the site's stemmers."""
    name = value.get("name") if isinstance(value, dict) else None
    algorithm = name.removeprefix("snowball-") if isinstance(name, str) else ""
    return f"snowballstemmer.{algorithm}_stemmer" if algorithm in SNOWBALL.values() else None


@cache
def _cjk() -> Analyzer:
    return Analyzer("cjk-bigram", Words(stem, STOPWORDS, cjk=True))


@cache
def _plain() -> Analyzer:
    return Analyzer("plain", Words(str, frozenset()))


@cache
def _snowball(algorithm: str, stopwords: frozenset[str]) -> Analyzer:
    # The stemmer's module alone: the worker gets the package's modules without the
    # package's own __init__, which imports all 36 of them (see stemmer_module).
    module = importlib.import_module(f"snowballstemmer.{algorithm}_stemmer")
    stemmer = getattr(module, f"{algorithm.title()}Stemmer")()
    return Analyzer(f"snowball-{algorithm}", Words(stemmer.stemWord, stopwords))


def _stopwords(algorithm: str) -> frozenset[str]:
    """The stopwords of ``stop-words`` (at build time only), lower-cased, as single words."""
    from stop_words import AVAILABLE_LANGUAGES, get_stop_words  # type: ignore[import-untyped]

    if algorithm not in AVAILABLE_LANGUAGES:
        return frozenset()
    return frozenset(word.lower() for word in get_stop_words(algorithm) if word.isalpha())
