"""Mask credentials in a reader's text before it is stored or sent anywhere.

The question, the quoted passage and the draft all pass through :func:`redact`
before a turn exists (DESIGN.md section 5). Each credential is replaced by a
mask naming its kind; every other character stays as it was::

    >>> r = redact("clone fails: https://octocat:hunter2@example.com/repo.git")
    >>> r.text
    'clone fails: https://octocat:[redacted: password]@example.com/repo.git'
    >>> r.kinds
    ('password',)
    >>> redact_text(r.text) == r.text  # idempotent: a mask is never masked again
    True

How it decides, in priority order (an earlier rule wins where two overlap, so
``password=ghp_…`` is reported as a GitHub token, not a password):

1. Shapes that are credentials wherever they appear: private key blocks, JWTs,
   webhook URLs, and tokens with a vendor prefix (``ghp_``, ``sk-ant-``,
   ``AKIA``, ``xoxb-``…), matched with their real lengths and charsets so that
   ``sk-learn``, ``task-1`` or ``hf_hub_download`` stay as they are.
2. Values made secret by their label: ``Authorization:`` headers, the password
   of ``scheme://user:pass@host``, ``curl -u user:pass``, requests' ``auth=``
   tuples, ``.netrc`` lines, and ``key = value`` assignments whose key *ends*
   with a credential word (``password``, ``DB_PASS``, ``client_secret``,
   ``apiKey``, ``GITHUB_TOKEN``; not ``max_tokens`` or ``token_type``).

Unlabelled random-looking text (UUIDs, git SHAs, hex digests, base64) is never
masked: without a prefix or a label it cannot be told from ordinary data.

A labelled value that hides nothing is kept as it is, placeholders included:
an empty value, ``$TOKEN``, ``${{ secrets.X }}``, ``%PASS%``, ``{token}``,
``<your-password>``, ``****``, ``xxx``, ``...``, ``sk-...``, ``YOUR_API_KEY``,
``REDACTED``, ``"string"``, ``true``/``None``, values under 3 characters, a
name (``token=token``, ``password=db_password``, ``user:password@host``,
``next_marker``) and a reference (an ARN, a file path). So is an unquoted
value that reads as code: a call or index (``getpass()``, ``env["X"]``), a
dotted name (``process.env.TOKEN``), a type or keyword (``str``, ``await``).
Three guards keep prose readable: a ``key: value`` colon must touch its key
(not "pass :func:`x`"); its value, when made only of letters, is masked only
if it ends the line (YAML); and a space-separated value counts only after a
``--flag`` and with a digit or symbol in it ("use --password to set it"), or
in SQL's ``PASSWORD 'x'``.

Every pattern is compiled once at import, is anchored on a literal or a
boundary, and bounds its repetitions, so the cost stays linear in the length
of the text (stdlib ``re`` only: it runs in CPython and in Pyodide alike).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KINDS", "Redaction", "mask", "redact", "redact_text"]


@dataclass(frozen=True, slots=True)
class Redaction:
    """The redacted text, and the kinds masked in it (each once, first appearance first)."""

    text: str
    kinds: tuple[str, ...]


def mask(kind: str) -> str:
    """The text that stands in for a credential of that kind."""
    return f"[redacted: {kind}]"


# A mask already in the text is left alone: no match may start in one or cover one.
_MASK = re.compile(r"\[redacted: [^\[\]\n]{1,60}\]")

_Accept = Callable[[re.Match[str]], bool]


def _always(_: re.Match[str]) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class _Rule:
    """Where ``pattern`` matches and ``accept`` agrees, group ``secret`` is a ``kind``.

    ``needles`` are lowercase strings one of which every match contains: a rule
    whose needles are all absent is skipped (a substring test costs far less
    than a regex scan). No needles: the rule always runs.
    """

    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()
    accept: _Accept = _always


# --- what a value is when it is not a secret --------------------------------

_PLACEHOLDER = re.compile(
    r"""[${<\[] | %\(?\w+\)?[%s]     # $TOKEN ${X} {token} <token> [redacted: …] %X% %(x)s
    | [*x.•…\#_?-]+\Z            # ****, xxxx, ..., ---
    | [\w-]{0,8}(?:\.\.\.|…)\Z    # sk-..., ghp_…
    | your | redacted\Z           # your-password, YOUR_API_KEY, REDACTED
    | (?:arn|file): | ~?/ | \.\.?/  # where the secret is kept: an ARN, a file
    | \d+\.\d+\Z                  # a number, 1556312220.133
    """,
    re.IGNORECASE | re.VERBOSE,
)
_TEMPLATE = re.compile(r"\$\{|\{\{|\{[A-Za-z_][\w.]*\}")  # f"…{token}…", "${HOME}/x"
# nothing, or a type standing for a value (FastAPI's example body is {"password": "string"})
_NOTHING = frozenset(("true", "false", "null", "none", "nil", "undefined", "string"))
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BREAK = re.compile(r"[_-]+|(?<=[a-z0-9])(?=[A-Z])")
_CREDENTIAL_WORDS = frozenset(
    ("password", "passwd", "pass", "pwd", "passphrase", "secret", "token", "key", "apikey", "auth")
)
_CREDENTIAL_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "authkey")


def _is_name(identifier: str) -> bool:
    """A name for a value kept elsewhere, not the value itself.

    A credential's name (``db_password``, ``hashedPassword``, ``OPENAI_API_KEY``,
    ``MYTOKEN``) or a snake_case name without digits (``next_marker``).
    """
    if _WORD_BREAK.split(identifier)[-1].lower() in _CREDENTIAL_WORDS:
        return True
    if any(c.isdigit() for c in identifier):
        return False
    return "_" in identifier or identifier.lower().endswith(_CREDENTIAL_ENDINGS)


def _is_literal(value: str) -> bool:
    """False for a value that hides nothing.

    That is a placeholder or template, a reference (an ARN, a path), a boolean
    or null, a value too short to matter (``token: "1"``, ``token = 0``), or a
    name (see :func:`_is_name`).
    """
    if len(value) < 3 or (value.isdigit() and len(value) < 4) or value.lower() in _NOTHING:
        return False
    if _PLACEHOLDER.match(value) or _TEMPLATE.search(value):
        return False
    return not (_IDENTIFIER.fullmatch(value) and _is_name(value))


def _literal_secret(m: re.Match[str]) -> bool:
    return _is_literal(m["secret"])


# unquoted values that are code, not a literal: `password: str`, `token = await …`
_CODE_WORDS = frozenset(
    {
        *("str", "bytes", "int", "float", "bool", "boolean", "number", "any", "object"),
        *("dict", "list", "tuple", "callable"),
        *("secretstr", "optional", "await", "new", "yield", "lambda", "function", "async"),
        *("this", "self"),
    }
)
_DOTTED_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


def _reads_as_code(m: re.Match[str]) -> bool:
    """An unquoted value that is an expression: ``getpass()``, ``env["X"]``, ``os.environ``…"""
    value = m["secret"]
    return (
        value.lower() in _CODE_WORDS
        or m.string.startswith(("(", "["), m.end())
        or _DOTTED_NAME.fullmatch(value) is not None
    )


# --- rules -------------------------------------------------------------------


def _token(kind: str, body: str, *needles: str) -> _Rule:
    """A token recognised by its shape alone, not glued to a longer word."""
    pattern = rf"(?<![A-Za-z0-9_-])(?P<secret>{body})(?![A-Za-z0-9_-])"
    return _Rule(kind, re.compile(pattern), needles)


_B64_RUN = re.compile(r"[A-Za-z0-9+/=]{16,}")

_SHAPES = (
    _Rule(
        "private key",
        re.compile(
            r"(?P<secret>-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
            # a whole block: headers, base64 (also with literal \n, as in JSON) up to END …
            r"(?:(?:[A-Za-z0-9+/=\s:,.…\\]|-(?!----))*"
            r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
            # … or a block cut short: the header and base64 lines after the BEGIN line
            r"|(?:(?:\s|\\[nr])+"
            r"(?:(?:Proc-Type|DEK-Info|Version|Comment):[^\n]*|[A-Za-z0-9+/=]{16,}))+))"
        ),
        ("private key",),
        # "should the file start with -----BEGIN RSA PRIVATE KEY-----?" holds no key
        lambda m: _B64_RUN.search(m["secret"]) is not None,
    ),
    _token("JWT", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", "eyj"),
    _token(
        "Slack webhook URL",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}",
        "hooks.slack.com",
    ),
    _token(
        "Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}",
        "/api/webhooks/",
    ),
    _token("Anthropic API key", r"sk-ant-[A-Za-z0-9_-]{32,}", "sk-ant-"),
    # project/service keys carry hyphens; legacy keys are one alphanumeric run (not "sk-learn")
    _token(
        "OpenAI API key",
        r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})",
        "sk-",
    ),
    _token(
        "GitHub token",
        r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}",
        "gh",
        "github_pat_",
    ),
    _token(
        "GitLab token",
        r"gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*",
        "gl",
    ),
    _token(
        "Slack token",
        r"(?:xox[abposre]|xapp)-(?=[A-Za-z0-9-]{20})[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+",
        "xox",
        "xapp-",
    ),
    _token(
        "Stripe key",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
        "_live_",
        "_test_",
        "whsec_",
    ),
    _token("Google API key", r"AIza[A-Za-z0-9_-]{35}", "aiza"),
    _token("Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_-]{28}", "gocspx-"),
    _token("Hugging Face token", r"hf_[A-Za-z0-9]{30,}", "hf_"),
    _token("npm token", r"npm_[A-Za-z0-9]{36}", "npm_"),
    _token("PyPI token", r"pypi-Ag[A-Za-z0-9_-]{60,}", "pypi-"),
    _token("SendGrid API key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", "sg."),
    _token("Twilio API key", r"SK[0-9a-f]{32}", "sk"),
    _token("AWS access key ID", r"(?:AKIA|ASIA)[A-Z0-9]{16}", "akia", "asia"),
    _token("Discord bot token", r"[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"),
    _Rule(
        "Telegram bot token",  # also inside https://api.telegram.org/bot<token>/
        re.compile(
            r"(?:(?<=bot)|(?<![A-Za-z0-9_:-]))"
            r"(?P<secret>[0-9]{8,10}:[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])"
        ),
        (":",),
    ),
)

# A key's closing quote or bracket (JSON "password", env['TOKEN']), then the separator.
_KEY_CLOSE = r"""(?![A-Za-z0-9_-])["'\]]{0,2}"""

_LABELLED = (
    _Rule(
        "AWS secret access key",
        re.compile(
            rf"(?<![A-Za-z0-9])(?:(?:aws_?)?secret_?access_?key|aws_?secret_?key){_KEY_CLOSE}"
            r"""[ \t]*[:=][ \t]*["']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
            re.IGNORECASE,
        ),
        ("secret",),
    ),
    _Rule(
        "Azure access key",  # storage and service bus connection strings
        re.compile(
            r"(?<![A-Za-z0-9])(?:Account|SharedAccess)Key=(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            re.IGNORECASE,
        ),
        ("key=",),
    ),
)


def _authorization(kind: str, scheme: str, accept: _Accept = _literal_secret) -> _Rule:
    """The credentials of an ``Authorization`` header (also in curl -H, dicts, kwargs)."""
    pattern = (
        r"""(?<![A-Za-z0-9_])Authorization["'\]]{0,2}[ \t]*[:=][ \t]*(?:[bBfFrR]?["'`])?"""
        rf"{scheme}(?P<secret>[A-Za-z0-9._~+/=-]+)"
    )
    return _Rule(kind, re.compile(pattern, re.IGNORECASE), ("authorization",), accept)


_HEADERS = (
    _authorization("bearer token", r"Bearer[ \t]+"),
    _authorization("Basic auth credentials", r"Basic[ \t]+"),
    _authorization(
        "authorization token",
        # another scheme, or a bare key long enough not to be a word ("Authorization: header")
        # and not code (authorization = self.headers.get(…)) nor a signature's algorithm
        r"(?:(?:Token|Bot|ApiKey|Api-Key|Key|JWT|SSWS)[ \t]+"
        r"|(?!AWS4-HMAC-SHA256)(?=[A-Za-z0-9._~+/=-]{16}))",
        lambda m: _literal_secret(m) and not _reads_as_code(m),
    ),
)


def _not_ids(m: re.Match[str]) -> bool:
    """``-u 1000:1000`` is a uid:gid pair (docker run), not curl credentials."""
    return _literal_secret(m) and not (m["user"].isdigit() and m["secret"].isdigit())


def _password(pattern: str, needle: str, accept: _Accept = _literal_secret) -> _Rule:
    return _Rule("password", re.compile(pattern, re.IGNORECASE), (needle,), accept)


_PASSWORDS = (
    # scheme://user:pass@host: the last "@" ends the password (p@ss unencoded)
    _password(
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://"
        r"""[^\s:/?#@"'<>`\[\]]{0,256}:(?P<secret>[^\s/?#"'<>`]{1,256})@(?=[^\s/?#@"'<>`])""",
        "://",
    ),
    # curl -u user:pass
    _password(
        r"""(?<![A-Za-z0-9_-])(?:-u|--user)[ \t]+["']?(?P<user>[^\s:"'(]{1,128}):"""
        r"""(?P<secret>[^\s"']{1,256})""",
        "-u",
        _not_ids,
    ),
    # requests: auth=("user", "pass"), HTTPBasicAuth("user", "pass")
    _password(
        r"""(?:\bauth[ \t]*=[ \t]*\(|(?:Basic|Digest)Auth\()[ \t]*(?P<q1>["'])[^"'\n]{0,128}"""
        r"""(?P=q1)[ \t]*,[ \t]*(?P<q2>["'])(?P<secret>[^"'\n]{1,256})(?P=q2)""",
        "auth",
    ),
    # .netrc: machine host login user password pass
    _password(
        r"\bmachine\s+\S{1,256}\s+login\s+\S{1,256}\s+password\s+(?P<secret>\S{1,256})",
        "machine",
    ),
)

# --- key = value assignments -------------------------------------------------

_ANNOTATION = r"[A-Za-z_][\w.]*(?:\[[^\]\n]{0,60}\])?"
_SEPARATOR = (
    r"(?:[ \t]*(?:"
    # password: str = "…" (Python, TypeScript)
    rf"(?::[ \t]*{_ANNOTATION}(?:[ \t]*\|[ \t]*{_ANNOTATION})*[ \t]*=(?!=))"
    r"|=>|:=|=(?!=)"
    r")[ \t]*"
    r"|(?P<colon>:(?![:/=]))[ \t]*"  # right after the key, as YAML wants (not "pass :func:`x`")
    r"|(?P<space>[ \t]+))"  # --password hunter2, PASSWORD 'x' (SQL)
)
_VALUE = (
    r"""(?:[rRbBfFuU]{0,2}(?P<q>["'`]))?"""
    r"""(?P<secret>(?(q)(?:\\.|(?!(?P=q))[^\\\n]){1,256}|[^\s"'`,;&()\[\]{}<>]{1,256}))"""
    r"(?(q)(?P=q))"
)
_FLAG_BEFORE = re.compile(r"""(?<![^\s"'])--[A-Za-z0-9_-]*\Z""")
_LINE_END_AFTER = re.compile(r"""[ \t]*(?:[\r\n`"'#,}]|\Z)""")


def _assigned(m: re.Match[str]) -> bool:
    value = m["secret"]
    if not _is_literal(value):
        return False
    if m["space"] is not None:  # SQL's PASSWORD 'x', or a command-line flag ("pass `0` to")
        if m["q"] == "'" and m["key"].lower().startswith(("password", "identified")):
            return True
        start = m.start()
        if _FLAG_BEFORE.search(m.string, max(0, start - 64), start) is None:
            return False
        # a bare value no word ("--token flag") or next flag could be
        return m["q"] is not None or not (value.isalpha() or value.startswith("-"))
    if m["q"] is not None:
        return True
    if _reads_as_code(m):
        return False
    if m["colon"] is not None:  # "Password: at least 8 characters" is prose; YAML ends the line
        return not value.isalpha() or _LINE_END_AFTER.match(m.string, m.end()) is not None
    return True


def _assignment(kind: str, key_end: str, *needles: str) -> _Rule:
    """``<…key_end> = value`` in env files, YAML, JSON, code, URLs and CLI flags."""
    # not after ":" (arn:aws:secretsmanager:…:secret:name is no assignment)
    pattern = rf"(?<!:)(?P<key>{key_end}){_KEY_CLOSE}{_SEPARATOR}{_VALUE}"
    return _Rule(kind, re.compile(pattern, re.IGNORECASE), needles, _assigned)


_ASSIGNMENTS = (
    # PGPASSWORD, MYSQL_ROOT_PASSWORD; a short "pass"/"pwd" must start its word (not "bypass")
    _assignment(
        "password",
        r"pass(?:word|wd|phrase)|(?<![A-Za-z])(?:pass|pwd|identified[ \t]+by)",
        "pass",
        "pwd",
        "identified",
    ),
    _assignment("API key", r"api[_-]?key", "key"),
    _assignment(
        "secret",
        r"secret(?:[_-]?(?:access[_-]?)?key)?"
        r"|(?:private|access|account|auth|signing|encryption|master|app|license|subscription)"
        r"[_-]?key",
        "secret",
        "key",
    ),
    _assignment("token", r"token", "token"),
)

_RULES: tuple[_Rule, ...] = (*_SHAPES, *_LABELLED, *_HEADERS, *_PASSWORDS, *_ASSIGNMENTS)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in _RULES))
"""Every kind :func:`redact` can report, for a UI legend or a test."""


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
    for rule in _RULES:
        if rule.needles and not any(needle in lowered for needle in rule.needles):
            continue
        for m in rule.pattern.finditer(text):
            start, end = m.span("secret")
            # a match must not start inside a taken span either: in "[redacted: GitLab
            # token]" the word "token" is no key, so redacting twice changes nothing
            if taken(m.start(), m.start() + 1) or taken(start, end) or not rule.accept(m):
                continue
            take(start, end)
            found.append((start, end, rule.kind))
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
