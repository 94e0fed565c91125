"""Answer Markdown to safe HTML for the panel, whole or while it streams.

A model's answer is untrusted text that ends up in the panel's ``innerHTML``.
Three layers keep it harmless:

1. markdown-it-py parses it (``commonmark`` preset plus tables) with raw HTML
   off, so ``<script>`` in an answer is text, never markup.
2. Every link and image destination is judged here, where the site is known:
   ``http:``, ``https:`` and ``mailto:`` links, and same-site links to a page
   that is in the docs index, stay links; anything else (``javascript:``,
   ``data:``, an unknown scheme, a page that is gone) becomes its link text.
   An image loads only from this site; any other image becomes its alt text
   (just the text: no wording such as "image:", which would need translating).
   Same-site destinations are written root-relative (``/x.html#a``) and
   relative ones resolve against the site root, so a link means the same page
   on every page the panel is shown on.
3. One bleach :data:`CLEANER`, built at import, drops every tag, attribute and
   value outside the allow-lists below, whatever the first two layers missed.

    >>> render_answer(
    ...     "See [json](/library/json.html#basic) and [evil](javascript:alert(1)).",
    ...     site_origin="https://docs.example.org",
    ...     page_exists=lambda path: path == "/library/json.html",
    ... )
    '<p>See <a href="/library/json.html#basic">json</a> and evil.</p>\\n'

Citations: with ``cite``, a ``[n]`` in the answer's text becomes a link
(``class="cite"``) to the address ``cite(n)`` returns, judged like any other
link; without it, or where ``cite`` returns None, ``[n]`` stays text.

While an answer streams, :class:`StreamingRenderer` re-renders only the last,
still open block; blocks that can no longer change are handed out once as
``stable_html``.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import SplitResult, quote, unquote, urljoin, urlsplit

from bleach.sanitizer import Cleaner
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from docs_panel.core.citations import CITATION
from docs_panel.core.site_links import may_link
from docs_panel.portable.errors import ConfigError

ALLOWED_TAGS: Final = frozenset(
    {
        *("p", "br", "hr", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("em", "strong", "code", "pre", "a", "img", "ul", "ol", "li"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
)
"""Exactly what the renderer emits: no ``svg``, ``math``, ``form``, ``iframe``, ``style``..."""

ALLOWED_ATTRIBUTES: Final = {
    "a": frozenset({"href", "title", "rel", "target", "class"}),
    "img": frozenset({"src", "alt", "title"}),
    "code": frozenset({"class"}),
    "ol": frozenset({"start"}),
}
"""Per tag. Nothing global: no ``style`` (table alignment is dropped), no ``on*``,
no ``id``/``name`` (DOM clobbering)."""

ALLOWED_PROTOCOLS: Final = frozenset({"http", "https", "mailto"})
"""Schemes bleach lets through in ``href``; scheme-less values are same-site paths."""

EXTERNAL_REL: Final = "noopener noreferrer nofollow"
"""``rel`` of every link that leaves the site (they also open in a new tab)."""

LANGUAGE_NAME: Final = re.compile(r"[a-z0-9+-]+")
"""A fence's language as it may appear in ``class="language-..."``."""

Cite = Callable[[int], str | None]
"""The section address a citation ``[n]`` links to, or None when ``n`` names none."""

_LANGUAGE_CLASS = re.compile(f"language-{LANGUAGE_NAME.pattern}")
_ROOT_RELATIVE = re.compile(r"/(?![/\\])")  # "//host" or "/\host" would leave the site
_START_NUMBER = re.compile(r"[0-9]{1,9}")

_ALLOWED_VALUES: Final[dict[tuple[str, str], Callable[[str], object]]] = {
    ("a", "rel"): EXTERNAL_REL.__eq__,
    ("a", "target"): "_blank".__eq__,
    ("a", "class"): "cite".__eq__,
    ("img", "src"): _ROOT_RELATIVE.match,
    ("code", "class"): _LANGUAGE_CLASS.fullmatch,
    ("ol", "start"): _START_NUMBER.fullmatch,
}
"""Attributes whose value is restricted too; bleach checks ``href`` protocols itself."""


def _allow_attribute(tag: str, name: str, value: str) -> bool:
    if name not in ALLOWED_ATTRIBUTES.get(tag, ()):
        return False
    rule = _ALLOWED_VALUES.get((tag, name))
    return rule is None or bool(rule(value))


CLEANER: Final = Cleaner(
    tags=ALLOWED_TAGS,
    attributes=_allow_attribute,
    protocols=ALLOWED_PROTOCOLS,
    strip=False,  # a stray tag shows as escaped text rather than vanishing silently
    strip_comments=True,
)
"""The one sanitizer; cleaning its own output again changes nothing."""


class _AnswerMarkdown(MarkdownIt):
    """markdown-it whose every link destination reaches :class:`_Site` intact.

    markdown-it's own check is a deny-list that leaves a refused link as its
    Markdown source (``[a](javascript:x)``); judging every destination against
    our allow-list instead turns it into its link text, like any refused link.
    """

    def validateLink(self, url: str) -> bool:
        return True


# xhtmlOut off: HTML5 void tags (<br>), the way bleach writes them back.
_MARKDOWN: Final = _AnswerMarkdown(
    "commonmark", {"html": False, "linkify": False, "xhtmlOut": False}
).enable("table")

_ALT_TEXT: Final = RendererHTML()  # for the plain-text alt of an image not shown

# markdown-it percent-encodes destinations, leaving printable ASCII; anything else
# (whitespace, control characters, backslashes) is refused, not second-guessed.
_URL = re.compile(r"[!-\[\]-~]*")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def _origin_of(parts: SplitResult) -> str:
    """``scheme://host[:port]`` the way browsers compare origins; ValueError on a bad port."""
    host = parts.hostname or ""
    port = parts.port
    bracketed = f"[{host}]" if ":" in host else host
    suffix = "" if port in (None, _DEFAULT_PORTS.get(parts.scheme)) else f":{port}"
    return f"{parts.scheme}://{bracketed}{suffix}"


@dataclass(frozen=True, slots=True)
class _Target:
    """Where an allowed destination leads; ``page`` is its path if it is on this site."""

    href: str
    page: str | None


@dataclass(frozen=True, slots=True)
class _Site:
    """The site an answer is shown on, which decides what its links may point at."""

    origin: str
    page_exists: Callable[[str], bool]

    @classmethod
    def of(cls, site_origin: str, page_exists: Callable[[str], bool]) -> "_Site":
        parts = urlsplit(site_origin)
        try:
            origin = _origin_of(parts)
        except ValueError:
            origin = ""
        if (
            parts.scheme not in _DEFAULT_PORTS
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or parts.username is not None
            or not origin
        ):
            raise ConfigError(
                f"site_origin: expected the page's origin such as 'https://docs.example.org' "
                f"(http or https, a host, no path), got {site_origin!r}; pass location.origin"
            )
        return cls(origin, page_exists)

    def target(self, url: str) -> _Target | None:
        """Where ``url`` leads, or None when it may not be a link (scheme, no host, bad port)."""
        if not _URL.fullmatch(url):
            return None
        scheme = _SCHEME.match(url)
        kind = scheme[1].lower() if scheme else ""
        if kind == "mailto":
            return _Target(url, None)
        if kind not in ("", *_DEFAULT_PORTS):
            return None
        if url.startswith("/") and not url.startswith("//") and not may_link(url):
            return None  # a site path a server could read as another ("/a%2F%2Fb")
        absolute = urljoin(self.origin + "/", url)
        parts = urlsplit(absolute)
        try:
            same_site = _origin_of(parts) == self.origin
        except ValueError:
            return None
        if not same_site:  # "http:host" has no host of its own: browsers would guess one
            return _Target(absolute, None) if parts.hostname else None
        path = "/" + parts.path.lstrip("/")
        query = f"?{parts.query}" if parts.query else ""
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        # The docs index spells paths as urllib's quote() does ("/a%28b%29.html"):
        # markdown-it leaves "(" as is and a reader may type "é" raw or encoded.
        return _Target(path + query + fragment, quote(unquote(path)))


def _keep_link(token: Token, site: _Site) -> bool:
    """Point an allowed link at its checked target; False when it must become text."""
    target = site.target(str(token.attrs["href"]))
    if target is None or (target.page is not None and not site.page_exists(target.page)):
        return False
    token.attrSet("href", target.href)
    if target.page is None:
        token.attrSet("rel", EXTERNAL_REL)
        token.attrSet("target", "_blank")
    return True


def _image_or_alt(token: Token, site: _Site) -> Token:
    """A same-site image, or its alt text: an outside image could carry data out."""
    target = site.target(str(token.attrs["src"]))
    if target is not None and target.page is not None:
        token.attrSet("src", target.href)
        return token
    return _text(_ALT_TEXT.renderInlineAsText(token.children, _MARKDOWN.options, {}))


def _citation_tokens(text: str, site: _Site, cite: Cite) -> list[Token]:
    """``text`` with each ``[n]`` that names a section turned into a link to it."""
    tokens: list[Token] = []
    start = 0
    for match in CITATION.finditer(text):
        address = cite(int(match[1]))
        target = site.target(address) if address is not None and may_link(address) else None
        # Only to a page of this site that is still in the index.
        if target is None or target.page is None or not site.page_exists(target.page):
            continue
        link = Token("link_open", "a", 1, attrs={"href": target.href, "class": "cite"})
        if match.start() > start:
            tokens.append(_text(text[start : match.start()]))
        tokens += [link, _text(match[0]), Token("link_close", "a", -1)]
        start = match.end()
    if start < len(text):
        tokens.append(_text(text[start:]))
    return tokens


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _safe_inline(children: Iterable[Token], site: _Site, cite: Cite | None) -> list[Token]:
    kept: list[Token] = []
    open_links: list[bool] = []  # whether each open link was kept, to match its close
    for token in children:
        if token.type == "link_open":
            open_links.append(_keep_link(token, site))
            if not open_links[-1]:
                continue
        elif token.type == "link_close" and not open_links.pop():
            continue
        elif token.type == "text" and cite is not None and not any(open_links):
            kept += _citation_tokens(token.content, site, cite)  # never a link inside a link
            continue
        kept.append(_image_or_alt(token, site) if token.type == "image" else token)
    return kept


def _restrict_language(token: Token) -> None:
    """Keep a fence's language only if it fits ``language-[a-z0-9+-]+``."""
    words = token.info.split(maxsplit=1)
    language = words[0].lower() if words else ""
    token.info = language if LANGUAGE_NAME.fullmatch(language) else ""


def _render(markdown: str, site: _Site, env: dict[str, Any], cite: Cite | None) -> str:
    tokens = _MARKDOWN.parse(markdown, env)
    for token in tokens:
        if token.type == "fence":
            _restrict_language(token)
        elif token.children:
            token.children = _safe_inline(token.children, site, cite)
    return CLEANER.clean(_MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env))


def render_answer(
    markdown: str,
    *,
    site_origin: str,
    page_exists: Callable[[str], bool],
    cite: Cite | None = None,
) -> str:
    """Sanitized HTML for a whole answer.

    ``site_origin`` is the page's origin (``location.origin``). ``page_exists``
    gets the path of a same-site link without query or ``#anchor``,
    percent-encoded as ``urllib.parse.quote`` writes it (as the docs index
    stores addresses: ``/guide/%C3%A9.html``), and says whether the index
    still has that page; a link to a page it lacks becomes plain text (the
    "docs changed" behaviour). ``cite`` maps citation numbers to addresses.
    Raises :class:`ConfigError` when ``site_origin`` is not an origin.
    """
    return _render(markdown, _Site.of(site_origin, page_exists), {}, cite)


@dataclass(frozen=True, slots=True)
class RenderUpdate:
    """A screen update: append ``stable_html`` once; replace the tail with ``tail_html``."""

    stable_html: str
    tail_html: str


_LINE_BREAK = re.compile(r"\r\n?")


class StreamingRenderer:
    """Renders an answer as it streams, at a cost linear in its length.

    Each :meth:`feed` renders only the still-open blocks at the end; a block
    is handed out as ``stable_html`` once a later block, after a blank line,
    has started in complete lines, because CommonMark never reopens a closed
    block. Together the stable parts and the final tail equal
    :func:`render_answer` of the whole text, except that a reference
    definition (``[r]: /url``) only applies to what follows it.

        >>> renderer = StreamingRenderer(
        ...     site_origin="https://docs.example.org", page_exists=lambda path: True
        ... )
        >>> renderer.feed("# Title\\n\\nSome")
        RenderUpdate(stable_html='', tail_html='<h1>Title</h1>\\n<p>Some</p>\\n')
        >>> renderer.feed(" text\\n")
        RenderUpdate(stable_html='<h1>Title</h1>\\n', tail_html='<p>Some text</p>\\n')
        >>> renderer.finish()
        RenderUpdate(stable_html='<p>Some text</p>\\n', tail_html='')
    """

    __slots__ = ("_carry", "_cite", "_env", "_open", "_site")

    def __init__(
        self,
        *,
        site_origin: str,
        page_exists: Callable[[str], bool],
        cite: Cite | None = None,
    ) -> None:
        self._site = _Site.of(site_origin, page_exists)
        self._cite = cite
        self._env: dict[str, Any] = {}  # reference definitions from stable blocks
        self._open = ""  # source not yet handed out as stable, line breaks as "\n"
        self._carry = ""  # a final "\r" whose "\n" may come with the next delta

    def feed(self, delta: str) -> RenderUpdate:
        """Add the next piece of the answer."""
        text = self._carry + delta
        self._carry = "\r" if text.endswith("\r") else ""
        text = _LINE_BREAK.sub("\n", text.removesuffix("\r"))
        self._open += text
        stable = self._take_closed_blocks() if "\n" in text else ""
        references = dict(self._env.get("references", {}))  # the tail's may still change
        tail = _render(self._open, self._site, {"references": references}, self._cite)
        return RenderUpdate(stable, tail)

    def finish(self) -> RenderUpdate:
        """Hand out everything left as stable; the tail becomes empty."""
        source = self._open + ("\n" if self._carry else "")
        self._open = self._carry = ""
        return RenderUpdate(_render(source, self._site, self._env, self._cite), "")

    def _take_closed_blocks(self) -> str:
        """Render and drop the blocks before the last top-level block that follows a blank line."""
        lines = self._open.split("\n")[:-1]  # complete lines only: the last one may still grow
        tokens: list[Token] = []
        _MARKDOWN.block.parse("\n".join(lines) + "\n", _MARKDOWN, {}, tokens)
        starts = [t.map[0] for t in tokens if t.level == 0 and t.map]
        cut = next((line for line in reversed(starts[1:]) if not lines[line - 1].strip(" \t")), 0)
        if not cut:
            return ""
        offset = sum(len(line) + 1 for line in lines[:cut])
        closed, self._open = self._open[:offset], self._open[offset:]
        return _render(closed, self._site, self._env, self._cite)
