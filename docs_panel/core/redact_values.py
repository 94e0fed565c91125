"""Whether a value found where a credential goes hides one (for docs_panel/core/redact.py).

:mod:`docs_panel.core.redact` finds where a secret would be — after ``token=``,
in ``Bearer …``, in a vendor's token shape — and asks this module whether the
value there is one. It decides only that, never where a value starts or ends.
It keeps what hides nothing and masks the rest (fail closed): placeholders
(:data:`PLACEHOLDER`, :data:`KEPT_VALUES`, ``{name}`` templates), filler in a
token's shape (``ghp_xxxx…``), names of a value kept elsewhere
(``db_password``, ``connect(password=password)``) and code (``getpass()``).
"""

from __future__ import annotations

import re

__all__ = ["KEPT_VALUES", "PLACEHOLDER", "is_literal", "random_text", "reads_as_code", "stands_in"]

PLACEHOLDER = re.compile(
    r"""[$<\[] | %\(?\w+\)?[%s]      # $TOKEN ${X} <token> [redacted: …] %X% %(x)s
    | [*x.•…\#_?-]+\Z            # ****, xxxx, ..., ---
    | [\w-]{0,8}(?:\.\.\.|…)\Z    # sk-..., ghp_…
    | your | redacted\Z           # your-password, YOUR_API_KEY, REDACTED
    | (?:arn|file): | ~?/ | \.\.?/  # where the secret is kept: an ARN, a file
    | \d+\.\d+\Z                  # a number, 1556312220.133
    """,
    re.IGNORECASE | re.VERBOSE,
)
_TEMPLATE = re.compile(r"\$\{|\{\{")  # "${HOME}/x", {{ vault_pass }}
_BRACED = re.compile(r"\{([A-Za-z_][\w.]*)\}")  # f"…{token}…", or a secret in braces
# The values kept after a label because they are no value: nothing, or a type
# standing for one (FastAPI's example body is {"password": "string"}). Fail
# closed: a default people really run with (changeme, admin, password123) is
# the reader's live password and is masked, however often docs print it.
KEPT_VALUES = frozenset(("true", "false", "null", "none", "nil", "undefined", "string"))
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # snake_case, camelCase, kebab-case
_WORD_BREAK = re.compile(r"[_-]+|(?<=[a-z0-9])(?=[A-Z])")
#: The words that name a password (``redact`` masks ``password=password`` outside code).
PASSWORD_WORDS = frozenset(("password", "passwd", "pass", "pwd", "passphrase"))
_CREDENTIAL_WORDS = PASSWORD_WORDS | {"secret", "token", "key", "apikey", "auth"}
_CREDENTIAL_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "authkey")
# credential words that name one thing: user:passwd@host is as much a placeholder as :password@
_SAME_CREDENTIAL = {
    **dict.fromkeys(PASSWORD_WORDS, "password"),
    **dict.fromkeys(("key", "apikey"), "key"),
    **{word: word for word in ("secret", "token", "auth")},
}


def _names_its_key(value: str, key: str | None) -> bool:
    """``password=password``, ``token=token``, ``user:passwd@host``: the label's own word.

    In code that passes a variable of the same name on (``connect(password=password)``);
    in docs a placeholder. (Where a password word is not passed on, the caller gives
    no key: ``password=password`` in a config is a password, see
    ``redact._naming_key``.) Another credential word after a key (``token=password``) is
    a value; where no key labels the value (a URL, ``Bearer``) any credential word stays.
    """
    word = value.lower()
    if key is None or word == key.lower():
        return key is not None or word in _SAME_CREDENTIAL
    squeezed = key.lower().replace("_", "").replace("-", "")
    ending = next(
        (w for w in sorted(_SAME_CREDENTIAL, key=len, reverse=True) if squeezed.endswith(w)), ""
    )
    return word in _SAME_CREDENTIAL and _SAME_CREDENTIAL[word] == _SAME_CREDENTIAL.get(ending)


def _is_name(identifier: str, key: str | None) -> bool:
    """A name for a value kept elsewhere, not the value itself.

    A credential's name in several words (``db_password``, ``hashedPassword``,
    ``OPENAI_API_KEY``) or in capitals, as an environment variable (``MYTOKEN``),
    the label's own word (see :func:`_names_its_key`), or a snake_case name
    without digits (``next_marker``). One lowercase word is a value, even made
    of credential words: ``rootpasswd``, ``adminsecret``.
    """
    words = _WORD_BREAK.split(identifier)
    if len(words) > 1 and words[-1].lower() in _CREDENTIAL_WORDS:
        return True
    if _names_its_key(identifier, key):
        return True
    if any(c.isdigit() for c in identifier):
        return False
    return "_" in identifier or (
        identifier.isupper() and identifier.lower().endswith(_CREDENTIAL_ENDINGS)
    )


def is_literal(value: str, key: str | None = None) -> bool:
    """False for a value that hides nothing.

    ``key`` is the label's word where a label made the value secret (``""``
    for a quoted string, which names no variable), None where none did.

    That is a placeholder or template, a reference (an ARN, a path), one of
    :data:`KEPT_VALUES`, a value too short to matter (``token: "1"``,
    ``token = 0``), or a name (see :func:`_is_name`).
    """
    if len(value) < 3 or (value.isdigit() and len(value) < 4) or value.lower() in KEPT_VALUES:
        return False
    if PLACEHOLDER.match(value) or _TEMPLATE.search(value) or stands_in(value, value):
        return False
    if any(
        not random_text(braced[1].replace("_", "").replace(".", ""))
        for braced in _BRACED.finditer(value)
    ):
        return False  # {token}, {self.api_key}: a template's field, not {ZqL5kVrX1n8tA2}
    return not (_IDENTIFIER.fullmatch(value) and _is_name(value, key))


_PLACEHOLDER_WORD = re.compile(r"example|your|placeholder|here(?![a-z])", re.IGNORECASE)
# a body mostly of one character is filler (ghp_xxxx…1234) when it uses fewer than this many
_FILLER_DISTINCT = 10


def stands_in(value: str, body: str) -> bool:
    """A value in a secret's shape around no secret (``body``: the part past its prefix).

    Random text uses many characters evenly: a token-long body of fewer than
    5 distinct characters (``GR1348941123123…``) or mostly one among few
    (``ghp_xxxx…``, ``pplx-xxxx…``, ``aaaaaaaa``), or a token-long value that spells
    ``EXAMPLE`` or ``PUT_YOUR_TOKEN_HERE``, stands for a secret (a short
    word stays a password: Docker's ``POSTGRES_PASSWORD: example``).
    """
    distinct = len(set(body))
    if len(body) >= 16 and distinct < 5:  # not a password: 12341234 may be one
        return True
    # ids of ones around a random tail (xoxa-2-911111111-5111…-fa4e0c2d…) are no filler
    most = max(map(body.count, set(body)), default=0)
    if len(body) >= 8 and distinct < _FILLER_DISTINCT and 2 * most > len(body):
        return True
    return len(value) > 12 and _PLACEHOLDER_WORD.search(value) is not None


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
# a dotted part no name has: long, with digits (VAULT_TOKEN=hvs.CAESIJ…, dp.pt.e8iq…)
_RANDOM_PART = re.compile(r"(?=[A-Za-z_]*[0-9])[\w$]{12,}")


# a call or an index: getpass(), env("X"), os.environ["X"], Field(..., alias=…)
_CALL = re.compile(r"[A-Za-z_$][\w$.]*[(\[]")


def reads_as_code(value: str, text: str, end: int) -> bool:
    """An unquoted value (ending at ``end`` in ``text``) that is an expression:
    ``getpass()``, ``env["X"]``, ``os.environ``, ``str``…"""
    return (
        value.lower() in _CODE_WORDS
        or _CALL.match(value) is not None
        or text.startswith(("(", "["), end)
        or (_DOTTED_NAME.fullmatch(value) is not None and _RANDOM_PART.search(value) is None)
    )


_VOWELS = frozenset("aeiouAEIOU")


def random_text(body: str) -> bool:
    """Random letters, not words: they hold a digit, or are mixed case in even
    measure, or have few vowels (about 1 in 5, where words have 2 in 5); a
    camelCase name has none of the three."""
    letters = [c for c in body if c.isalpha()]
    if len(letters) < len(body) or not letters:
        return True
    upper = sum(c.isupper() for c in letters) / len(letters)
    vowels = sum(c in _VOWELS for c in letters) / len(letters)
    return 0.3 <= upper <= 0.7 or vowels < 0.3
