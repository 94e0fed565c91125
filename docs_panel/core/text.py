"""Words to index terms: one tokenizer for the docs index and for readers' questions.

Both sides must agree exactly, so both call the same :class:`Words`. In English
(:data:`ENGLISH`, whose methods are this module's :func:`terms`, :func:`word_terms`
and :func:`query_terms`), a word is lower-cased, checked against a short stopword
list and reduced by the Porter stemmer, so "Reading files" and "read a file" meet
on ``read`` and ``file``. Other languages bring their own stemmer and stopwords, and
Chinese, Japanese and Korean their own segmentation (``analyzers`` decides which
language gets which); what follows holds in every language.

Identifiers are indexed whole *and* in parts, because readers type both
``json.dumps`` and "json dumps": a dotted name also gives its dotted prefixes,
and ``snake_case`` / ``CamelCase`` give their words. Whole identifiers are not
stemmed, so an exact name outranks its parts appearing apart::

    >>> terms("Reading files with os.path.join")
    ['read', 'file', 'with', 'os.path.join', 'os.path', 'os', 'path', 'join']
    >>> terms("JSONDecoder.__init__")
    ['jsondecoder.__init__', 'jsondecoder', '__init__', 'json', 'decoder', 'init']
    >>> terms("How do I get the URLs?")
    ['get', 'url']
    >>> terms("f-strings and python -m")
    ['f-string', 'string', 'and', 'python', '-m']

Python keywords (``with``, ``is``, ``not``…) are deliberately not stopwords:
readers ask about them, and BM25's idf already gives common words little weight.

A question is read a little differently from a page (:func:`query_terms`):
words of question phrasing ("use", "difference between") count for less, a
few reader words also look for the word docs use instead ("dict" for
"dictionary", "folder" for "directory"), and operators typed on their own
(``==``, ``:=``) become the words docs use for them::

    >>> [(q.term, q.aliases, q.weight) for q in query_terms("use a dict folder")]
    [('us', (), 0.3), ('dict', ('dictionari',), 1.0), ('folder', ('directori',), 1.0)]
    >>> [q.term for q in query_terms("is vs ==")]
    ['is', 'vs', 'equal', 'comparison']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

#: A word, a dotted name (``os.path.join``, ``3.11``), a hyphenated compound
#: (``f-strings``) or a command-line option (``-m``, ``--user``).
WORD = re.compile(r"(?<![\w-])--?[^\W\d_][\w-]*|\w+(?:[.-]\w+)*")

# A word list reads best as words, hence the noqa: SIM905.
STOPWORDS = frozenset(
    """a about above after again all also am an any are at be been before being both
    but by can could did do does doing down during each etc few further had has
    have having he her here hers him his how i i.e e.g into it its itself just
    me more most my myself no nor of off on once only other our ours out over
    own same she should so some such than that the their theirs them then there
    these they this those through to too under until up very was we were what
    when where which who whom why will would you your yours""".split()  # noqa: SIM905
)

_PART = re.compile(r"[^\W_]+")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
# Split CamelCase only where it is unambiguous ("getItem", "JSONDecoder"), not
# plurals of acronyms ("URLs", "IDs").
_CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]{2}")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _parts(word: str) -> list[str]:
    """The words inside an identifier: split at dots, underscores and CamelCase."""
    parts: list[str] = []
    for piece in _PART.findall(word):
        parts += _CAMEL_PART.findall(piece) if _CAMEL_HINT.search(piece) else [piece]
    return parts


# --- The Porter stemmer (M. F. Porter, 1980), the classic algorithm as published.


def _consonant(word: str, i: int) -> bool:
    char = word[i]
    if char in "aeiou":
        return False
    if char == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant runs in ``stem``."""
    shape = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return re.sub(r"(.)\1+", r"\1", shape).count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) > 1 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow")."""
    return (
        len(word) > 2
        and _consonant(word, len(word) - 3)
        and not _consonant(word, len(word) - 2)
        and _consonant(word, len(word) - 1)
        and word[-1] not in "wxy"
    )


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of a lower-case word: ``stem("running") == "run"``."""
    if len(word) <= 2:
        return word
    # Step 1a: plurals.
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    # Step 1b: -ed, -ing.
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif _double_consonant(word) and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _cvc(word):
                    word += "e"
                break
    # Step 1c: y -> i.
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    # Step 5: a final -e, a final double l.
    if word.endswith("e"):
        measure = _measure(word[:-1])
        if measure > 1 or (measure == 1 and not _cvc(word[:-1])):
            word = word[:-1]
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


# --- Questions: the same terms, weighted and widened for how readers ask.

#: How much a word of question phrasing counts, relative to a content word.
QUESTION_WEIGHT = 0.3

# Words that frame a question rather than say what it is about ("how to *use*
# f-strings", "what is the *difference between* a and b", "how do decorators
# *work*"). Kept as terms, since "use" or "work" can be the topic, but weak.
_QUESTION_WORDS = """use using work way difference between vs versus mean meaning explain
    possible proper correct best need want something"""

# Reader word: the words docs use for it. Short and general on purpose: the
# abbreviations, everyday words and operators of programming that any docs
# site shares, never one site's vocabulary or one question's words. A reader's
# own word still counts most (aliases are alternatives at ALIAS_WEIGHT, see
# docs_index), so an alias helps only sections that lack the reader's word.
_ALIASES = """
    dict: dictionary | dictionary: dict | str: string | string: str
    int: integer | integer: int | bool: boolean | func: function
    args: argument | kwargs: keyword | param: parameter | var: variable
    len: length | env: environment | config: configuration
    folder: directory | dir: directory | make: create | exists: isfile | pause: sleep
    """
#: Operators a reader may type on their own (``is vs ==``): read as these words.
_SYMBOLS = """
    ==: equal comparison | !=: not equal | :=: assignment expression | **: power
    //: floor division | %: modulo | @: decorator | ->: return annotation | ...: ellipsis
    """
#: A symbol of ``_SYMBOLS`` standing alone, or ``@`` before a name (``@property``).
SYMBOL = re.compile(r"(?<![^\s'\"`(])(?:==|!=|:=|->|\*\*|//|%|\.\.\.)(?![^\s'\"`)?,])|@(?=\w)")


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One term of a question: what it matches, its alternatives, how much it counts."""

    term: str
    aliases: tuple[str, ...] = ()
    weight: float = 1.0


def _table(text: str) -> dict[str, str]:
    """``"key: words | key: words"`` (or one entry per line) as a dict."""
    entries = (entry.partition(": ") for entry in re.split(r"[|\n]", text) if entry.strip())
    return {key.strip(): words.strip() for key, _, words in entries}


SYMBOLS = _table(_SYMBOLS)
_QUERY_TOKEN = re.compile(f"{SYMBOL.pattern}|{WORD.pattern}")

#: Chinese, Japanese and Korean characters (Han, kana, Hangul): a run of them has no
#: spaces between its words, so it is read as overlapping character pairs
#: (bigrams, as Lucene's CJK analyzer does), a lone character as itself.
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
CJK_RUN = re.compile(f"[{_CJK}]+")


@dataclass(frozen=True, eq=False)
class Words:
    """How one language's words become terms: its stemmer and stopwords, whether runs of
    CJK characters are read as bigrams, and (English only) the question words and
    aliases of :func:`query_terms`. Identifiers, dotted names and options are read
    the same way in every language."""

    stem: Callable[[str], str]
    stopwords: frozenset[str]
    cjk: bool = False
    question_words: frozenset[str] = frozenset()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def terms(self, text: str) -> list[str]:
        """Every index term of ``text``, in order and with repeats (for term counts)."""
        if self.cjk:
            text = CJK_RUN.sub(r" \g<0> ", text)
        return [term for match in WORD.finditer(text) for term in _word_terms(self, match.group())]

    def word_terms(self, word: str) -> tuple[str, ...]:
        """Index terms of one :data:`WORD` match (cached: docs repeat their words)."""
        return _word_terms(self, word)

    def query_terms(self, question: str) -> list[QueryTerm]:
        """The terms of a reader's question, each once, in order (see the module doc)."""
        if self.cjk:
            question = CJK_RUN.sub(r" \g<0> ", question)
        found: dict[str, QueryTerm] = {}
        for match in _QUERY_TOKEN.finditer(question):
            word = match.group()
            for term in PORTER.terms(SYMBOLS[word]) if word in SYMBOLS else _word_terms(self, word):
                weight = QUESTION_WEIGHT if term in self.question_words else 1.0
                found.setdefault(term, QueryTerm(term, self.aliases.get(term, ()), weight))
        return list(found.values())

    def _word_term(self, word: str) -> tuple[str, ...]:
        if len(word) < 2 or word in self.stopwords:
            return ()
        return (self.stem(word) if word.isalpha() else word,)


@lru_cache(maxsize=65536)
def _word_terms(words: Words, word: str) -> tuple[str, ...]:
    if words.cjk and CJK_RUN.fullmatch(word):
        return tuple(word[n : n + 2] for n in range(max(1, len(word) - 1)))
    whole = word.lower()
    parts = _parts(word)
    if whole in words.stopwords or (len(parts) == 1 and parts[0].lower() == whole):
        return words._word_term(whole)
    if "." in whole or not _COMPOUND.fullmatch(whole):
        # A dotted name's prefixes, and its own name without its owner: readers
        # type ``__add__`` or ``find_module`` for ``object.__add__``.
        pieces = whole.split(".")
        out = [".".join(pieces[:n]) for n in range(len(pieces), 0, -1)]
        name = word.rpartition(".")[2]
        if "." in word and _parts(name) != [name]:
            out.append(name.lower())
    else:  # a compound's words are stemmed, so "f-strings" meets "f-string"
        out = ["-".join(words.stem(piece) for piece in whole.split("-"))]
    for part in parts:
        out += words._word_term(part.lower())
    return tuple(dict.fromkeys(term for term in out if len(term) > 1))


#: Porter's English: plain words of another language, and Latin-script words in CJK text.
PORTER = Words(stem, STOPWORDS)
QUESTION_WORDS = frozenset(PORTER.terms(_QUESTION_WORDS))
ALIASES = {
    PORTER.terms(key)[0]: tuple(PORTER.terms(words)) for key, words in _table(_ALIASES).items()
}
#: English as readers ask it: Porter's terms, with the question words and aliases.
ENGLISH = Words(stem, STOPWORDS, question_words=QUESTION_WORDS, aliases=ALIASES)
terms = ENGLISH.terms
word_terms = ENGLISH.word_terms
query_terms = ENGLISH.query_terms
