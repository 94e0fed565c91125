"""Mask credentials in a reader's text before it is stored or sent anywhere.

The question, the quoted passage and the draft all pass through :func:`redact`
before a turn exists (contract §5). Each credential is replaced by a
mask naming its kind; every other character stays as it was::

    >>> r = redact("clone fails: https://octocat:hunter2@example.com/repo.git")
    >>> r.text
    'clone fails: https://octocat:[redacted: password]@example.com/repo.git'
    >>> r.kinds
    ('password',)
    >>> redact_text(r.text) == r.text  # idempotent: a mask is never masked again
    True

How it decides: one table of rules, ``_RULES`` (kind, pattern, where to
look, what to accept), in priority order (an earlier rule wins where two
overlap, so ``password=ghp_…`` is reported as a GitHub token, not a password):

1. Shapes that are credentials wherever they appear: private key blocks
   (whatever their body, once it is 64 characters long), JWTs
   (also unsigned, two parts), webhook URLs (Slack's also without a scheme),
   and tokens that name their vendor, one row per shape gitleaks has a rule
   for (``ghp_``, ``sk-ant-``, ``AKIA``/``ABIA``, ``xoxb-``, ``dop_v1_``,
   ``hvs.``, ``….atlasv1.…``, ``glc_``, ``AGE-SECRET-KEY-1``, ``sgp_``,
   ``ATATT3``, Azure AD's ``xxx8Q~…``), matched with
   their real lengths and charsets so that ``sk-learn``, ``task-1``,
   ``hf_hub_download`` or ``hf_requiredCharacteristicTypes…`` stay as they are.
2. Values made secret by their label: ``Authorization:`` headers, the password
   of ``scheme://user:pass@host``, ``curl -u user:pass``, requests' ``auth=``
   tuples, ``.netrc`` lines, and assignments whose key *ends* with a
   credential word (``password``, ``DB_PASS``, ``client_secret``,
   ``apiKey``, ``GITHUB_TOKEN``; not ``max_tokens`` or ``token_type``) in
   the forms gitleaks tests: env and INI, YAML, JSON, Go's ``var x string =``
   and ``:=``, PHP's ``.=``, Make's ``::=`` and ``?=``, ``=>``,
   ``setProperty("X_TOKEN", "…")`` and XML elements. The value is the
   secret whatever its characters (``token={ZqL5…}``, ``token=A,.:-@*?!``,
   ``token=rootpasswd``): quoted, to its quote; unquoted, to the next space,
   less the next parameter (``&page=2``, ``;User Id=``, ``, password=``), a
   closing tag and a closing bracket it did not open.

Unlabelled random-looking text (UUIDs, git SHAs, hex digests, base64) is never
masked: without a prefix or a label it cannot be told from ordinary data.

A labelled value that hides nothing is kept as it is, placeholders included
(and nothing else: a default such as ``changeme`` is someone's live password):
an empty value, ``$TOKEN``, ``${{ secrets.X }}``, ``%PASS%``, ``{token}``
(not ``{ZqL5kVrX1n8tA2}``), ``<your-password>``, ``****``, ``xxx``, ``...``,
``sk-...``, ``YOUR_API_KEY``, ``REDACTED``, ``"string"``, ``true``/``None``,
values under 3 characters, a name (``password=password``, ``token=token``,
``user:password@host``, ``Bearer token``, ``password=db_password``,
``MYTOKEN``, ``next_marker``; not ``token=password``, ``password="password"``
or ``rootpasswd``) and a reference (an ARN, a file path). So is an unquoted
value that reads as code: a call or index (``getpass()``, ``env["X"]``), a
dotted name (``process.env.TOKEN``), a type or keyword (``str``, ``await``).
Four guards keep prose readable: a ``key: value`` colon must touch its key
(not "pass :func:`x`"); its value, when made only of letters, is masked only
if it ends the line (YAML), and is not a Maven coordinate
(``io.jsonwebtoken:jjwt-api:0.11.5``); a word after ``key=`` and a space
with none before "=" is prose ("the token= parameter"); and a space-separated value counts
only after a ``--flag`` and with a digit or symbol in it ("use --password to
set it"), or in SQL's ``PASSWORD 'x'``. A rejected match never hides the
next: in "the access token TOKEN=x" the prose "token TOKEN=x" is rejected and
``TOKEN=x`` is still found.

Every pattern starts with a literal, a boundary or an anchor hit, and a
start inside a longer run fails at once, so the cost stays linear in the
length of the text; a value is read to a bound and then followed to its end,
so no tail leaks (stdlib ``re`` only: it runs in CPython and in Pyodide
alike). A rule's pattern is compiled the first time a text may hold its
match: most texts hold none of most rules' needles, and compiling all of
them at import took a third of the import time of the panel's own modules in
a cold start. ``bench/redact_bench.py`` measures recall on a corpus built
from gitleaks' rules, the clean fixtures and the cost of a 4 KB question.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docs_panel.core.redact_values import (
    PASSWORD_WORDS,
    PLACEHOLDER,
    is_literal,
    random_text,
    reads_as_code,
    stands_in,
)

__all__ = ["KINDS", "Redaction", "mask", "redact", "redact_text"]


@dataclass(frozen=True, slots=True)
class Redaction:
    """The redacted text, and the kinds masked in it (each once, first appearance first)."""

    text: str
    kinds: tuple[str, ...]


_MASK_START = "[redacted: "


def mask(kind: str) -> str:
    """The text that stands in for a credential of that kind (``_MASK`` reads it).

    >>> all(_MASK.fullmatch(mask(kind)) for kind in KINDS)
    True
    """
    return f"{_MASK_START}{kind}]"


# A mask already in the text is left alone: no match may start in one or cover one.
_MASK_PATTERN = re.escape(_MASK_START) + r"[^\[\]\n]{1,60}\]"
_MASK = re.compile(_MASK_PATTERN)

_Accept = Callable[[re.Match[str]], bool]


def _always(_: re.Match[str]) -> bool:
    return True


def _literal_secret(m: re.Match[str]) -> bool:
    return is_literal(m["secret"])


def _authorization_secret(m: re.Match[str]) -> bool:
    """A scheme's credentials are a token: ``Bearer token`` names it, ``Bearer password`` not."""
    value = m["secret"]
    return is_literal(value, "token") and not reads_as_code(value, m.string, m.end())


# --- what a token is when it is not a word ----------------------------------

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _looks_random(m: re.Match[str]) -> bool:
    """A token body of letters only must not read as words: ``hf_`` and ``api_org_``
    tokens are 34 letters, and so can be an identifier (``hf_requiredCharacteristic…``)."""
    return random_text(m["secret"].rpartition("_")[2])


def _has_digit_and_letter(m: re.Match[str]) -> bool:
    """``s.`` + 24 characters is a Vault token when random, not ``s.startswithsomethinglong``."""
    body = m["secret"][2:]
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


def _slack_random(m: re.Match[str]) -> bool:
    """Slack tokens carry numeric ids or random text; ``xoxa-faketoken`` and
    ``xoxb-abcdef-abcdef`` are words (``xoxa-WqPLmHvTrsKc`` is random letters)."""
    return random_text(m["secret"][5:].replace("-", ""))


def _secret_end(m: re.Match[str]) -> int:
    return m.end("secret")


class _Deferred:
    """A pattern compiled when first needed: ``_Deferred(r"x+", re.I)()`` is the pattern."""

    __slots__ = ("_pattern", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = (source, flags)
        self._pattern: re.Pattern[str] | None = None

    def __call__(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(*self._source)
        return self._pattern


@dataclass(frozen=True, slots=True)
class _Rule:
    """Where ``pattern`` matches and ``accept`` agrees, group ``secret`` is a ``kind``.

    Finding where to look is most of the cost, and ``re`` is fast only at
    finding a literal, so a rule may say where its matches can start:
    ``anchor``, a case-sensitive pattern run on the text lowercased (ASCII),
    whose hits are the only places ``pattern`` is tried (a case-insensitive
    key alternation scanned over the text costs ten times more). Without an
    anchor, ``pattern`` is searched for; it should then start with a literal.
    ``needles`` are lowercase strings one of which every match contains: a
    rule whose needles are all absent is skipped. ``end`` says where the
    secret ends when that is past the pattern's bounded repetition.
    """

    kind: str
    pattern: _Deferred
    accept: _Accept = _always
    anchor: _Deferred | None = None
    needles: tuple[str, ...] = ()
    end: Callable[[re.Match[str]], int] = _secret_end


# --- rule builders -----------------------------------------------------------


# the fixed text a token body starts with: letters, digits, _ ~ - and escaped . or -
_LEADING_LITERAL = re.compile(r"(?:[A-Za-z0-9_~-]|\\[.-])+(?![?*+{])")


def _token(
    kind: str, body: str, accept: _Accept = _always, needle: str = "", filler: bool = True
) -> _Rule:
    """A token recognised by its shape alone, not glued to a longer word.

    The left boundary sits after the fixed text the body starts with
    (``dop_v1_(?<![A-Za-z0-9_-]dop_v1_)…``), so ``re`` finds that text by its
    fast literal search instead of trying every position, and a start inside
    a longer run (``xoxb-xoxb-…``) fails at once instead of scanning the run
    again: every pattern stays linear in the text. A body that starts with a
    class names the ``needle`` it holds instead, when one is cheap to test
    (``[A-Za-z0-9]{14}\\.atlasv1\\.``). A body is one shape, without a
    top-level ``|``: the boundary would guard its first branch only. Unless
    ``filler`` is false, a body of filler (``ghp_xxxx…``) stands for a token in
    docs and is kept.
    """
    lead = _LEADING_LITERAL.match(body)
    fixed = lead.group() if lead else ""
    body = f"{fixed}(?<![A-Za-z0-9_.-]{fixed}){body[len(fixed) :]}"
    pattern = _Deferred(rf"(?P<secret>{body})(?![A-Za-z0-9_-])")
    literal = re.sub(r"\\(.)", r"\1", fixed)  # the fixed text as it is in the token
    skip = len(literal)

    def accepted(m: re.Match[str]) -> bool:
        secret = m["secret"]
        return not (filler and stands_in(secret, secret[skip:])) and accept(m)

    needle = needle or literal.lower()
    return _Rule(kind, pattern, accepted, None, (needle,) if needle else ())


_B64_RUN = re.compile(r"[A-Za-z0-9+/=]{16,}")
# Between its markers a block holds anything (base64, or a body mangled by a paste):
# at least this many characters make it a key, as in gitleaks; fewer ("should the
# file start with -----BEGIN … KEY----- and end with -----END … KEY-----?") need base64.
_KEY_BODY_MIN = 64
_PRIVATE_KEY = _Deferred(
    r"(?P<secret>-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    # a whole block up to END: its body stops at the next marker, so it is read once
    r"(?:(?P<body>(?:[^-]|-(?!----(?:BEGIN|END)))*)"
    r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    # … or a block cut short: the header and base64 lines after the BEGIN line
    r"|(?:(?:\s|\\[nr])+"
    r"(?:(?:Proc-Type|DEK-Info|Version|Comment):[^\n]*|[A-Za-z0-9+/=]{16,}))+))"
)


def _authorization(kind: str, scheme: str, value: str, accept: _Accept) -> _Rule:
    """The credentials of an ``Authorization`` header (also in curl -H, dicts, kwargs)."""
    pattern = (
        r"""(?<![A-Za-z0-9_])Authorization["'\]]{0,2}[ \t]*[:=][ \t]*(?:[bBfFrR]?["'`])?"""
        rf"{scheme}(?P<secret>{value})"
    )
    return _Rule(kind, _Deferred(pattern, re.IGNORECASE), accept, _AUTHORIZATION)


_AUTHORIZATION = _Deferred("authorization")


# a scheme's credentials run to the next space or quote (``Bearer a|b``, ``user:p@ss``),
# less a closing bracket or punctuation that ends the sentence ("… Bearer abc.") but
# not before a closing quote ('Bearer Root8756.'), nor a brace ({ZqL5kVrX1n8tA2})
_SCHEME_CREDENTIALS = r"""[^\s"'`]*(?:[^\s"'`,;.:)\]>]|[,;.:)\]>](?=["'`]))"""


def _curl_credentials(m: re.Match[str]) -> bool:
    """Not ``-u 1000:1000``, a uid:gid pair (docker run), nor ``-u <user:password>``."""
    user = m["user"]
    if PLACEHOLDER.match(user) or (user.isdigit() and m["secret"].isdigit()):
        return False
    return _literal_secret(m)


def _password(pattern: str, anchor: str, accept: _Accept = _literal_secret) -> _Rule:
    return _Rule("password", _Deferred(pattern, re.IGNORECASE), accept, _Deferred(anchor))


# --- key = value assignments -------------------------------------------------

# A key's closing quote or bracket (JSON "password", env['TOKEN']), then the separator.
_KEY_CLOSE = r"""(?![A-Za-z0-9_-])(?P<close>["'\]]{0,2})"""
_ANNOTATION = r"[A-Za-z_][\w.]*(?:\[[^\]\n]{0,60}\])?"
_SEPARATOR = (
    r"(?:[ \t]*(?:"
    # password: str = "…" (Python, TypeScript); the space before "=" tells it from
    # a YAML value holding "=" (db_password: Xy9Qw=Zz)
    rf"(?::[ \t]*{_ANNOTATION}(?:[ \t]*\|[ \t]*{_ANNOTATION})*[ \t]+=(?!=))"
    r"|[ \t](?:string|\[\]byte)[ \t]*=(?!=)"  # Go: var apiToken string = "…"
    r"|=>|:{1,3}=|[.?+]=|=(?!=)"  # Make's ::= and ?=, PHP's .=
    r")[ \t]*"
    r"|(?P<comma>[ \t]*,[ \t]*)"  # System.setProperty("X_TOKEN", "…")
    r"|(?P<tag>>\s*)"  # <apiToken>\n  value\n</apiToken> (XML)
    r"|(?P<colon>:(?![:/=]))[ \t]*"  # right after the key, as YAML wants (not "pass :func:`x`")
    r"|(?P<space>[ \t]+))"  # --password hunter2, PASSWORD 'x' (SQL)
)
# A value is read up to _VALUE_MAX characters, so a key whose value never ends
# costs no more than that; a longer value is followed to its end by _value_end.
_VALUE_MAX = 256
_VALUE = (
    r"""(?:[rRbBfFuU]{0,2}(?P<q>["'`]))?"""
    rf"""(?P<secret>(?(q)(?>(?:\\.|(?!(?P=q))[^\\\n]){{1,{_VALUE_MAX}}})"""
    # unquoted, whatever its characters up to a space or a quote (token=A,.:-@*?!),
    # less what _value_end cuts off: the next parameter, a closing bracket
    rf"""|[^\s"'`]{{1,{_VALUE_MAX}}}))"""
    # a quoted value ends at its quote, or runs on past the bound (no backtracking: atomic)
    r"(?(q)(?:(?P=q)|(?=[^\n])))"
)
_VALUE_TAIL: dict[str | None, re.Pattern[str]] = {
    None: re.compile(r"""[^\s"'`]*"""),
    **{q: re.compile(rf"(?:\\.|[^\\\n{q}])*") for q in "\"'`"},
}
_KEY_OWNERS = (
    r"(?:private|access|account|auth|signing|encryption|master|app|license|subscription)[_-]?key"
)
_SCHEME_BEFORE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}\Z")
_FLAG_BEFORE = re.compile(r"""(?<![^\s"'])--[A-Za-z0-9_-]*\Z""")
_CALL_BEFORE = re.compile(r"""\([ \t]*["'][\w.-]*\Z""")
# a key glued to the end of a dotted lowercase name is part of a package:
# io.jsonwebtoken:jjwt-api:0.11.5 holds no token (app.token: x still does)
_TAG_OPEN_BEFORE = re.compile(r"<[\w.:-]*\Z")
_TAG_CLOSE_AFTER = re.compile(r"\s*</(?P<name>[\w.:-]+)>")
_PACKAGE_BEFORE = re.compile(r"\.[a-z]+\Z")
_LINE_END_AFTER = re.compile(r"""[ \t]*(?:[\r\n`"'#,}]|\Z)""")


# where an unquoted value ends before a space: the next parameter (?token=x&user=y,
# Server=x;Password=y;User Id=z, f(api_key=X, password=y)) or a closing tag …
_NEXT_PARAMETER = re.compile(  # one leading class: re skips to its characters fast
    r"[,;&<](?:(?<=<)/|(?<!<)(?=[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+[\w.-]+)?[ \t]*=))"
)
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


class _RunEnd:
    """Where the run of unquoted value characters around a position ends.

    Every key inside one long run (``token=token=…``) has a value ending where
    the run does: the last run found is remembered, so it is read once, not once
    a key.
    """

    __slots__ = ("end", "start", "text")

    def __init__(self) -> None:
        self.text, self.start, self.end = "", 0, 0

    def __call__(self, text: str, at: int) -> int:
        if text is not self.text or not self.start <= at <= self.end:
            tail = _VALUE_TAIL[None].match(text, at)
            self.text, self.start, self.end = text, at, tail.end() if tail else at
        return self.end


_RUN_END = _RunEnd()


def _value_end(m: re.Match[str], follow: bool = True) -> int:
    """Where the value ends: with ``follow``, past the pattern's bound if it runs on
    (no tail may leak); without, within what the pattern read (enough to judge it)."""
    text, start, end = m.string, m.start("secret"), m.end("secret")
    if m["q"] is not None:
        if follow and end - start >= _VALUE_MAX:
            tail = _VALUE_TAIL[m["q"]].match(text, end)
            end = tail.end() if tail else end
        return end
    # the lookahead sees past the value's space: f(api_key=X, password=y)
    cut = _NEXT_PARAMETER.search(text, start, end + 64)
    if cut is not None and cut.start() < end:
        end = cut.start()
    elif follow and end - start >= _VALUE_MAX:
        end = _RUN_END(text, end)
    # … and the brackets around it it did not open: (token=x), connect(password=y)
    unopened = {
        c: text.count(c, start, end) - text.count(o, start, end) for c, o in _CLOSERS.items()
    }
    while end > start + 1 and unopened.get(text[end - 1], 0) > 0:
        unopened[text[end - 1]] -= 1
        end -= 1
    return end


def _assigned(m: re.Match[str]) -> bool:
    end = _value_end(m, follow=False)
    # read without a statement's or a list's end (process.env.API_KEY; "x": 1.5,), though a
    # value masked is masked with it: a secret may end in "," as well
    value = m.string[m.start("secret") : end].rstrip(",;") if m["q"] is None else m["secret"]
    # the form first, the value last: in a run of keys most matches fail on their form
    return _assigned_form(m, value, end) and is_literal(value, _naming_key(m, value))


# a call's argument list before a key: connect(user=user, password=password)
_ARGUMENTS_BEFORE = re.compile(r"[(,]\s*\Z")


def _naming_key(m: re.Match[str], value: str) -> str:
    """The key's word, when the value may be a variable of that name (``is_literal``)."""
    if m["q"] is not None:  # a quoted value is a string, never a variable: password = "password"
        return ""
    key = str(m["key"])
    if value.lower() not in PASSWORD_WORDS:
        return key
    # password=password in a config or an address, password: password in YAML, is a weak
    # password; a call's argument or a statement (self.password = password) passes it on
    separator = m.string[m.end("close") : m.start("secret")]
    statement = "=" in separator and separator != separator.strip()
    arguments = _ARGUMENTS_BEFORE.search(m.string, max(0, m.start("key") - 64), m.start("key"))
    return key if statement or arguments is not None else ""


def _assigned_form(m: re.Match[str], value: str, end: int) -> bool:
    """The assignment is one: not prose, code, a package name, a command or a stray tag."""
    start = m.start()
    if _PACKAGE_BEFORE.search(m.string, max(0, start - 64), start) is not None:
        return False
    if m["q"] == "`" and any(c.isspace() for c in value):  # `etcdctl get /x`: a command
        return False
    if m["tag"] is not None:  # an element: <…key>value</…key>, not "use <token> here"
        after = _TAG_CLOSE_AFTER.match(m.string, end if m["q"] is None else m.end())
        return (
            _TAG_OPEN_BEFORE.search(m.string, max(0, start - 64), start) is not None
            and after is not None
            and after["name"].lower().endswith(m["key"].lower())
        )
    if m["comma"] is not None:  # only a call's ("KEY", "value"), both quoted
        return (
            m["q"] is not None
            and m["close"][:1] in ("'", '"')
            and _CALL_BEFORE.search(m.string, max(0, start - 64), start) is not None
        )
    if m["space"] is not None:  # SQL's PASSWORD 'x', or a command-line flag ("pass `0` to")
        if m["q"] == "'" and m["key"].lower().startswith(("password", "identified")):
            return True
        if _FLAG_BEFORE.search(m.string, max(0, start - 64), start) is None:
            return False
        # a bare value no word ("--token flag") or next flag could be
        return m["q"] is not None or not (value.isalpha() or value.startswith("-"))
    if m["q"] is not None:
        return True
    if reads_as_code(value, m.string, end):
        return False
    if not value.isalpha():
        return True
    if m["colon"] is not None:  # "Password: at least 8 characters" is prose; YAML ends the line
        return _LINE_END_AFTER.match(m.string, end) is not None
    # "the token= parameter": a space after "=" and none before it is prose
    separator = m.string[m.end("close") : m.start("secret")]
    return not (separator[:1] in "=" and separator[1:].isspace())


def _assignment(kind: str, key_end: str, anchor: str) -> _Rule:
    """``<…key_end> = value`` in env files, YAML, JSON, code, URLs and CLI flags."""
    # not after ":" (arn:aws:secretsmanager:…:secret:name is no assignment)
    pattern = _Deferred(rf"(?<!:)(?P<key>{key_end}){_KEY_CLOSE}{_SEPARATOR}{_VALUE}", re.I)
    return _Rule(kind, pattern, _assigned, _Deferred(anchor), (), _value_end)


# --- the rules, in priority order --------------------------------------------

_RULES: tuple[_Rule, ...] = (
    # 1. Shapes that are credentials wherever they appear. The token shapes follow
    # gitleaks' rules (cmd/generate/config/rules/*.go), one row per vendor prefix.
    _Rule(
        "private key",
        _PRIVATE_KEY,
        # "should the file start with -----BEGIN RSA PRIVATE KEY-----?" holds no key
        lambda m: len(m["body"] or "") >= _KEY_BODY_MIN or _B64_RUN.search(m["secret"]) is not None,
        needles=("-----begin",),
    ),
    # a JWT: header.payload[.signature], base64url of JSON (two parts when unsigned)
    _token("JWT", r"ey[A-Za-z0-9_-]{17,}\.ey[A-Za-z0-9/_-]{17,}(?:\.[A-Za-z0-9/_-]*={0,2})?"),
    _token("JWT", r"ZXlK[A-Za-z0-9/_+-]{40,}={0,2}"),  # a JWT in base64 again
    _token(
        "Slack webhook URL",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{8,}",
    ),
    _token(
        "Slack webhook URL",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{8,}",
    ),
    _token(
        "Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}",
    ),
    _token(
        "Microsoft Teams webhook URL",
        r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{40,}",
    ),
    _token("Anthropic API key", r"sk-ant-[A-Za-z0-9_-]{32,}"),
    # project/service keys carry hyphens; legacy keys are one alphanumeric run (not "sk-learn")
    _token("OpenAI API key", r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})"),
    _token("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,255}"),
    _token("GitHub token", r"github_pat_[A-Za-z0-9_]{22,255}"),
    _token(
        "GitLab token",
        r"gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,}"
        r"(?:\.[A-Za-z0-9_-]+)*",
    ),
    _token("GitLab token", r"GR1348941[A-Za-z0-9_-]{20,}"),  # runner registration
    _token("Sourcegraph token", r"sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}"),
    _token("Atlassian API token", r"ATATT3[A-Za-z0-9_=-]{180,}"),
    # 3 characters, a digit and "Q~" (Microsoft's marker), then the rest: 37 to 40 in all
    _token(
        "Azure AD client secret",
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        needle="q~",
    ),
    _token(
        "Slack token",
        r"xox(?:e\.xox)?[abposre]-(?=[A-Za-z0-9-]{8})[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*",
        _slack_random,
    ),
    _token("Slack token", r"xapp-[0-9]+-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+"),
    _token("Stripe key", r"sk_(?:live|test|prod)_[A-Za-z0-9]{10,99}"),
    _token("Stripe key", r"rk_(?:live|test|prod)_[A-Za-z0-9]{10,99}"),
    _token("Stripe key", r"whsec_[A-Za-z0-9]{24,}"),
    _token("Google API key", r"AIza[A-Za-z0-9_-]{35}"),
    _token("Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    _token("Hugging Face token", r"hf_[A-Za-z0-9]{30,40}", _looks_random),
    _token("Hugging Face token", r"api_org_[A-Za-z0-9]{30,40}", _looks_random),
    _token("npm token", r"npm_[A-Za-z0-9]{36}"),
    _token("PyPI token", r"pypi-Ag[A-Za-z0-9_-]{60,}"),
    _token("SendGrid API key", r"SG\.(?:[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|[A-Za-z0-9=_.-]{66})"),
    _token("Twilio API key", r"SK[0-9a-fA-F]{32}"),
    _token("AWS access key ID", r"A(?:3T[A-Z0-9]|KIA|SIA|BIA|CCA)[A-Z0-9]{16}"),
    _token("Amazon Bedrock API key", r"ABSK[A-Za-z0-9+/]{109,269}={0,2}"),
    _token("Amazon Bedrock API key", r"bedrock-api-key-[A-Za-z0-9+/=_-]{20,}"),
    _token(
        "1Password secret key",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}",
    ),
    _token("1Password token", r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"),
    _token("Adobe client secret", r"p8e-[A-Za-z0-9]{32}"),
    # a key's body is Bech32 data, so a run of one letter is a key too (Q is 0: gitleaks'
    # own sample is the all-zero key), not a docs writer's filler
    _token(
        "age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", filler=False
    ),
    _token("Airtable token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _token("Alibaba Cloud access key ID", r"LTAI[A-Za-z0-9]{20}"),
    _token("Artifactory token", r"AKCp[A-Za-z0-9]{69}"),
    _token("Artifactory token", r"cmVmd[A-Za-z0-9]{59}"),
    _token(
        "Authress key",
        r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-]"
        r"[A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
        needle=".acc",
    ),
    _token("ClickHouse key", r"4b1d[A-Za-z0-9]{38}"),
    _token("Clojars token", r"CLOJARS_[A-Za-z0-9]{60}"),
    _token("Cloudflare key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    _token("Databricks token", r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    _token("DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}"),
    _token("Doppler token", r"dp\.pt\.[A-Za-z0-9]{43}"),
    _token("Duffel token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    _token("Dynatrace token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    _token("EasyPost key", r"EZ[AT]K[A-Za-z0-9]{54}"),
    _token("Facebook token", r"EAA[MC][A-Za-z0-9]{100,}"),
    _token("Flutterwave key", r"FLW(?:SECK|PUBK)_TEST-[A-Ha-h0-9]{12,32}(?:-X)?"),
    _token(
        "Fly.io token",
        r"f(?:o1_[\w-]{43}|m1[ar]_[A-Za-z0-9+/]{100,}={0,3}|m2_[A-Za-z0-9+/]{100,}={0,3})",
    ),
    _token("Frame.io token", r"fio-u-[A-Za-z0-9_=-]{64}"),
    _token("Grafana token", r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}"),
    _token("Grafana token", r"glc_[A-Za-z0-9+/]{32,400}={0,3}"),
    _token("Grafana token", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    _token("Harness key", r"pat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    _token("Harness key", r"sat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    _token(
        "Terraform Cloud token",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        needle="atlasv1",
    ),
    _token("Heroku key", r"HRKU-AA[0-9A-Za-z_-]{58}"),
    _token("Infracost token", r"ico-[A-Za-z0-9]{32}"),
    _token("42 Intra client secret", r"s-s4t2(?:ud|af)-[A-Fa-f0-9]{64}"),
    _token("Linear API key", r"lin_api_[A-Za-z0-9]{40}"),
    _token("Mailchimp API key", r"[0-9a-f]{32}-us[0-9]{1,2}", needle="-us"),
    _token("MaxMind license key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk", needle="_mmk"),
    _token("Notion token", r"ntn_[0-9]{11}[A-Za-z0-9]{35}"),
    _token("Octopus Deploy key", r"API-[A-Z0-9]{26}"),
    _token("OpenShift token", r"sha256~[\w-]{43}"),
    _token("Perplexity API key", r"pplx-[A-Za-z0-9]{48}"),
    _token("PlanetScale token", r"pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}"),
    _token("Postman key", r"PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}"),
    _token("Prefect token", r"pnu_[A-Za-z0-9]{36}"),
    _token("Pulumi token", r"pul-[a-f0-9]{40}"),
    _token("ReadMe key", r"rdme_[a-z0-9]{70}"),
    _token("RubyGems key", r"rubygems_[a-f0-9]{48}"),
    _token("Scalingo token", r"tk-us-[\w-]{48}"),
    _token("Brevo key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("Sentry token", r"sntry(?:u_[a-f0-9]{64}|s_eyJ[A-Za-z0-9+/=_]{50,})"),
    _token("SettleMint token", r"sm_[aps]at_[A-Za-z0-9]{16}"),
    _token("Shippo token", r"shippo_(?:live|test)_[A-Fa-f0-9]{40}"),
    _token("Shopify token", r"shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32}"),
    _token("Square token", r"EAAA[\w-]{22,60}"),
    _token("Square token", r"sq0(?:atp|csp)-[\w-]{22,60}"),
    _token("Vault token", r"hv(?:s\.[\w-]{90,120}|b\.[\w-]{138,300})"),
    _token("Vault token", r"s\.[A-Za-z0-9]{24}", _has_digit_and_letter),
    # the user id in base64: a digit 1-9 encodes to M, N or O
    *(
        _token(
            "Discord bot token",
            rf"{first}[A-Za-z0-9]{{23,27}}\.[A-Za-z0-9_-]{{6}}\.[A-Za-z0-9_-]{{27,40}}",
        )
        for first in "MNO"
    ),
    _Rule(
        "Telegram bot token",  # also inside https://api.telegram.org/bot<token>/
        _Deferred(r"(?P<secret>[0-9]{8,10}:[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])"),
        lambda m: (
            m.string.endswith("bot", 0, m.start())
            or not (m.start() and m.string[m.start() - 1] in _TOKEN_CHARS | {":"})
        ),
        needles=(":",),
    ),
    # 2. Values made secret by their label.
    _Rule(
        "AWS secret access key",
        _Deferred(
            rf"(?<![A-Za-z0-9])(?:(?:aws_?)?secret_?access_?key|aws_?secret_?key){_KEY_CLOSE}"
            r"""[ \t]*[:=][ \t]*["']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
            re.IGNORECASE,
        ),
        _literal_secret,
        anchor=_Deferred("aws|secret"),
    ),
    _Rule(
        "Azure access key",  # storage and service bus connection strings
        _Deferred(
            r"(?<![A-Za-z0-9])(?:Account|SharedAccess)Key=(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            re.IGNORECASE,
        ),
        anchor=_Deferred("(?:account|sharedaccess)key="),
    ),
    _Rule(
        "GitLab session cookie",
        _Deferred(r"_gitlab_session=(?P<secret>[0-9a-z]{32})(?![A-Za-z0-9])"),
        needles=("_gitlab_session=",),
    ),
    _authorization("bearer token", r"Bearer[ \t]+", _SCHEME_CREDENTIALS, _authorization_secret),
    _authorization("Basic auth credentials", r"Basic[ \t]+", _SCHEME_CREDENTIALS, _literal_secret),
    _authorization(
        "authorization token",
        # another scheme, or a bare key long enough not to be a word ("Authorization: header")
        # and not code (authorization = self.headers.get(…)) nor a signature's algorithm
        r"(?:(?:Token|Bot|ApiKey|Api-Key|Key|JWT|SSWS)[ \t]+"
        r"|(?!AWS4-HMAC-SHA256)(?=[A-Za-z0-9._~+/=-]{16}))",
        r"[A-Za-z0-9._~+/=-]+",
        _authorization_secret,
    ),
    # scheme://user:pass@host: the last "@" ends the password (p@ss unencoded)
    _Rule(
        "password",
        _Deferred(
            r"""://[^\s:/?#@"'<>`\[\]]{0,256}:(?P<secret>[^\s/?#"'<>`]{1,256})@(?=[^\s/?#@"'<>`])"""
        ),
        lambda m: (
            _SCHEME_BEFORE.search(m.string, max(0, m.start() - 32), m.start()) is not None
            and _literal_secret(m)
        ),
        needles=("://",),
    ),
    # curl -u user:pass
    _password(
        r"""(?<![A-Za-z0-9_-])(?:-u|--user)[ \t]+["']?(?P<user>[^\s:"'(]{1,128}):"""
        r"""(?P<secret>[^\s"']{1,256})""",
        "-u|--user",
        _curl_credentials,
    ),
    # requests: auth=("user", "pass"), HTTPBasicAuth("user", "pass")
    _password(
        r"""(?:\bauth[ \t]*=[ \t]*\(|(?:Basic|Digest)Auth\()[ \t]*(?P<q1>["'])[^"'\n]{0,128}"""
        r"""(?P=q1)[ \t]*,[ \t]*(?P<q2>["'])(?P<secret>[^"'\n]{1,256})(?P=q2)""",
        r"auth|basicauth\(|digestauth\(",
    ),
    # .netrc: machine host login user password pass
    _password(
        r"\bmachine\s+\S{1,256}\s+login\s+\S{1,256}\s+password\s+(?P<secret>\S{1,256})",
        "machine",
    ),
    # PGPASSWORD, MYSQL_ROOT_PASSWORD; a short "pass"/"pwd" must start its word (not "bypass")
    _assignment(
        "password",
        r"pass(?:word|wd|phrase)|(?<![A-Za-z])(?:pass|pwd|identified[ \t]+by)",
        "pass|pwd|identified",
    ),
    _assignment("API key", r"api[_-]?key", "api[_-]?key"),
    _assignment(
        "secret",
        r"secret(?:[_-]?(?:access[_-]?)?key)?|" + _KEY_OWNERS,
        "secret|" + _KEY_OWNERS.lower(),
    ),
    _assignment("token", r"token", "token"),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in _RULES))
"""Every kind :func:`redact` can report, for a UI legend or a test."""


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _next_match(
    rule: _Rule, text: str, hits: Iterator[re.Match[str]] | None, at: int
) -> re.Match[str] | None:
    """The rule's first match from ``at``: searched for, or tried at each anchor hit."""
    if hits is None:
        return rule.pattern().search(text, at)
    for hit in hits:
        if hit.start() >= at and (m := rule.pattern().match(text, hit.start())) is not None:
            return m
    return None


def _next_to_mask(text: str, start: int, end: int) -> bool:
    """A secret glued to a mask: a second pass sees a mask where the first saw the token
    it stands for, so ``SG.SG.…SG.<SendGrid key>`` must read the same both times."""
    return text.startswith(_MASK_START, end) or (
        text.endswith("]", 0, start)
        and _MASK_BEFORE.search(text, max(0, start - 80), start) is not None
    )


_MASK_BEFORE = re.compile(_MASK_PATTERN + r"\Z")


def redact(text: str) -> Redaction:
    """Mask every credential in ``text``; see the module docstring for what counts."""
    starts: list[int] = []  # taken spans, sorted and disjoint: masks already there, then secrets
    ends: list[int] = []

    def taken(start: int, end: int) -> bool:
        i = bisect_right(starts, start)
        return (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end)

    def take(start: int, end: int) -> None:
        i = bisect_right(starts, start)
        starts.insert(i, start)
        ends.insert(i, end)

    for existing in _MASK.finditer(text):
        take(*existing.span())
    found: list[tuple[int, int, str]] = []
    lowered = text.lower()
    if len(lowered) != len(text):  # "İ" lowers to two characters: keep positions aligned
        lowered = text.translate(_ASCII_LOWER)
    for rule in _RULES:
        if rule.needles and not any(needle in lowered for needle in rule.needles):
            continue
        hits = rule.anchor().finditer(lowered) if rule.anchor else None
        at = 0
        while (m := _next_match(rule, text, hits, at)) is not None:
            # a match must not start inside a taken span either: in "[redacted: GitLab
            # token]" the word "token" is no key, so redacting twice changes nothing;
            # where it ends is asked last, of an accepted match (it may read a long run)
            start = m.start("secret")
            if (
                taken(m.start(), m.start() + 1)
                or not rule.accept(m)
                or taken(start, end := rule.end(m))
                or _next_to_mask(text, start, end)
            ):
                # look again just after where this match started: in "the access token
                # TOKEN=x" the rejected "token TOKEN=x" must not hide "TOKEN=x"
                at = m.start() + 1
                continue
            take(start, end)
            found.append((start, end, rule.kind))
            at = end if end < m.end("secret") else max(m.end(), end)
    if not found:
        return Redaction(text, ())
    found.sort()
    pieces: list[str] = []
    done = 0
    for start, end, kind in found:
        pieces += (text[done:start], mask(kind))
        done = end
    pieces.append(text[done:])
    return Redaction("".join(pieces), tuple(dict.fromkeys(kind for _, _, kind in found)))


def redact_text(text: str) -> str:
    """``redact(text).text``: the text with every credential masked."""
    return redact(text).text
