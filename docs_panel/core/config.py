"""Read the page's ``window.docsPanel`` object into a typed, always-usable ``Config``.

A site owner's typo must never take the panel down, so parsing never raises:
each unknown key or unusable value becomes one message for ``console.error``,
naming the key path and what was expected, and that key keeps its default while
every other key keeps its good value. Messages show values as the site owner
wrote them in JavaScript (``true``, ``null``, ``"high"``), not as Python reprs.

    >>> parsed = parse_config({"gate": "high", "history": {"max": 50}})
    >>> parsed.config.gate, parsed.config.history.max
    (0.25, 50)
    >>> print(*parsed.errors)
    docsPanel.gate: expected a number from 0 to 1, got "high"; using the default 0.25
    >>> parse_config({"gat": 0.5}).errors
    ('docsPanel.gat: unknown key; did you mean "gate"?',)
    >>> parse_config(config_to_json(parsed.config)).config == parsed.config
    True
    >>> parsed.config.storage_key("history")
    'docs-panel.history'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Literal, get_args
from urllib.parse import urlsplit

from docs_panel.core.embedding_roles import PREFIX_MAX, Role

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

FeedbackSend = Literal["all", "negative", "none"]
# When embed.js starts loading the runtimes before a click: on intent (the pointer
# over or focus on the launcher), once the page is idle, or not at all.
Preload = Literal["intent", "idle", "none"]
# Whether the panel may keep conversations on the device at once ("assumed") or only once
# the reader has accepted its notice ("ask"; until then everything stays in memory).
Consent = Literal["assumed", "ask"]

# Bounds, in one place; the defaults are the field defaults of the dataclasses below.
MAX_SCOPES: Final = 12
HISTORY_MAX_RANGE: Final = (1, 200)
HISTORY_MAX_BYTES_RANGE: Final = (16_384, 10_485_760)
STORAGE_PREFIX_MAX_LENGTH: Final = 40
IDLE_TIMEOUT_RANGE: Final = (1, 600)
LANGUAGE_PATTERN: Final = r"auto|[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*"
"""``auto`` or a BCP 47 tag ("pt-BR", never the POSIX "pt_BR"); build.py writes it into
embed.js, which picks the launcher's words before the worker checks the config."""
SHORTCUT_PATTERN: Final = r"[^\s]"
"""A shortcut is one key (used with Ctrl or ⌘); like the prefix rule, build.py writes
it into embed.js, which listens for the key before the panel is loaded."""
STORAGE_PREFIX_PATTERN: Final = rf"[A-Za-z0-9._-]{{1,{STORAGE_PREFIX_MAX_LENGTH}}}"
"""The prefix rule, as a regular expression that reads the same in Python and JavaScript:
build.py writes it into embed.js, so the loader and the worker agree on the keys."""
ASK_PARAM_PATTERN: Final = r"[A-Za-z0-9_-]{1,40}"
"""A deep link's query parameter name (``?ask=…``); build.py writes it into embed.js,
which reads the parameter before the worker exists."""
STORAGE_NAMES: Final = (
    "history",
    "feedback",
    "conversation",
    "composer.draft",
    "instruction",
    "consent",
    "private",
)
"""The storage keys' names after the prefix (contract §4): ``docs-panel.history`` and so on."""


@dataclass(frozen=True, slots=True)
class Scope:
    """One choice in the scope picker; ``prefix`` limits search to paths under it."""

    id: str
    label: str
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryConfig:
    """What the panel may keep on the reader's device (contract §4)."""

    enabled: bool = True
    max: int = 20
    max_bytes: int = 1_048_576
    save_on_unload: bool = True
    consent: Consent = "assumed"


@dataclass(frozen=True, slots=True)
class EventsConfig:
    """What the ``docs-panel:*`` DOM events carry besides ids and figures."""

    text: bool = False
    """True: the question's and the answer's text too (the site asked for it)."""


@dataclass(frozen=True, slots=True)
class FeedbackConfig:
    """Which votes are POSTed to ``feedback_endpoint``."""

    send: FeedbackSend = "all"


@dataclass(frozen=True, slots=True)
class EmbeddingsConfig:
    """The site's OpenAI-compatible embeddings endpoint for hybrid retrieval: ``model``
    must be the one ``build.py --embeddings-model`` embedded the sections with."""

    endpoint: str
    model: str
    query: Role | None = None
    """How questions are asked for (``embedding_roles``); None: as the index says."""


@dataclass(frozen=True, slots=True)
class Config:
    """The panel's settings; attribute names are the snake_case of the JSON keys."""

    chat: bool = True
    endpoint: str = "/api/chat"
    model: str = "docs-assistant"
    gate: float = 0.25
    scopes: tuple[Scope, ...] = ()
    history: HistoryConfig = field(default_factory=HistoryConfig)
    feedback_endpoint: str | None = None
    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    language: str = "auto"
    storage_prefix: str = "docs-panel"
    idle_timeout: float = 30.0
    """Seconds without a byte from the endpoint before an answer is given up."""
    shortcut: str | None = "/"
    """Ctrl (⌘ on a Mac) plus this key opens the panel; None: no shortcut."""
    preload: Preload = "intent"
    """When embed.js starts loading the runtimes before the first click."""
    embeddings: EmbeddingsConfig | None = None
    """Questions are embedded here and fused with lexical ranking; None: lexical only."""
    events: EventsConfig = field(default_factory=EventsConfig)
    ask_param: str | None = "ask"
    """``?ask=…`` on a page opens the panel and asks once; None: no deep links."""
    server: str | None = None
    """A server install's path or URL: it answers (``endpoint``, ``model`` and ``gate``
    are then the server's); None: answers are built in the browser."""

    def storage_key(self, name: str) -> str:
        """The storage key for ``name`` under this site's prefix, e.g. ``docs-panel.history``."""
        return f"{self.storage_prefix}.{name}"


@dataclass(frozen=True, slots=True)
class ParsedConfig:
    """A usable config plus one message per problem found in the page's object."""

    config: Config
    errors: tuple[str, ...]


DEFAULTS: Final = Config()

_ROOT: Final = "docsPanel"
_LANGUAGE: Final = re.compile(LANGUAGE_PATTERN)
_STORAGE_PREFIX: Final = re.compile(STORAGE_PREFIX_PATTERN)
_SHORTCUT: Final = re.compile(SHORTCUT_PATTERN)
_ASK_PARAM: Final = re.compile(ASK_PARAM_PATTERN)
_JS_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_SHOWN_LENGTH: Final = 80

# A check turns a JSON value into its Python form, or returns _INVALID
# (a sentinel, because None is a valid value for the nullable keys).
_INVALID: Final = object()
# A nested value whose problems are already reported: unusable, with no message of its own.
_REPORTED: Final = object()
_Check = Callable[[object], object]
# A parse also gets the key's path and the error list, so nested values
# (history, feedback, scopes) can report problems inside themselves.
_Parse = Callable[[object, str, list[str]], object]


@dataclass(frozen=True, slots=True)
class _Key:
    expected: str
    parse: _Parse


def parse_config(raw: object) -> ParsedConfig:
    """Parse the page's config; ``None`` (no ``window.docsPanel``) means all defaults."""
    if raw is None:
        return ParsedConfig(DEFAULTS, ())
    if not isinstance(raw, dict):
        message = f"{_ROOT}: expected an object, got {_show(raw)}; using the defaults"
        return ParsedConfig(DEFAULTS, (message,))
    errors: list[str] = []
    values = _parse_keys(raw, _ROOT, _CONFIG_KEYS, errors, _default_of(DEFAULTS))
    config = replace(DEFAULTS, **values)
    return ParsedConfig(config, tuple(errors))


def config_to_json(config: Config) -> dict[str, object]:
    """The camelCase, plain-values form of ``config``; ``parse_config`` reads it back unchanged."""
    return _fields_to_json(config, _CONFIG_KEYS)


def _parse_keys(
    raw: dict[Any, object],
    path: str,
    keys: Mapping[str, _Key],
    errors: list[str],
    fallback: Callable[[str], str],
) -> dict[str, Any]:
    """Good values by attribute name; one error per unknown key or unusable value."""
    values: dict[str, Any] = {}
    for key, value in raw.items():
        where = _path(path, key)
        spec = keys.get(key)
        if spec is None:
            errors.append(_unknown_key(where, key, keys))
            continue
        parsed = spec.parse(value, where, errors)
        if parsed is _REPORTED:
            continue
        if parsed is _INVALID:
            errors.append(_expected(where, spec.expected, _show(value), fallback(_attr(key))))
        else:
            values[_attr(key)] = parsed
    return values


def _section(defaults: DataclassInstance, keys: Mapping[str, _Key]) -> _Parse:
    """Parse a nested object key by key, each sub-key falling back on its own."""

    def parse(value: object, where: str, errors: list[str]) -> object:
        if not isinstance(value, dict):
            return _INVALID
        return replace(defaults, **_parse_keys(value, where, keys, errors, _default_of(defaults)))

    return parse


def _parse_scopes(value: object, where: str, errors: list[str]) -> object:
    """Keep the good entries: a bad one is dropped with its own errors, not the whole list."""
    if not isinstance(value, list) or len(value) > MAX_SCOPES:
        return _INVALID
    scopes: list[Scope] = []
    for index, entry in enumerate(value):
        scope = _parse_scope(entry, f"{where}[{index}]", {kept.id for kept in scopes}, errors)
        if scope is not None:
            scopes.append(scope)
    return tuple(scopes)


def _parse_scope(entry: object, where: str, taken: set[str], errors: list[str]) -> Scope | None:
    drop = "dropping this scope"
    if not isinstance(entry, dict):
        errors.append(_expected(where, 'an object with "id" and "label"', _show(entry), drop))
        return None
    values = _parse_keys(entry, where, _SCOPE_KEYS, errors, lambda _name: drop)
    usable = all(_attr(key) in values for key in entry if key in _SCOPE_KEYS)
    for required in ("id", "label"):
        if required not in entry:
            expected = _SCOPE_KEYS[required].expected
            errors.append(_expected(_path(where, required), expected, "nothing", drop))
            usable = False
    if values.get("id") in taken:
        where_id = _path(where, "id")
        errors.append(_expected(where_id, "an id no earlier scope uses", _show(values["id"]), drop))
        usable = False
    return Scope(**values) if usable else None


def _expected(where: str, expected: str, got: str, fallback: str) -> str:
    return f"{where}: expected {expected}, got {got}; {fallback}"


def _default_of(defaults: DataclassInstance) -> Callable[[str], str]:
    return lambda attr: f"using the default {_show(_to_json(getattr(defaults, attr)))}"


def _unknown_key(where: str, key: object, keys: Mapping[str, _Key]) -> str:
    # Fold case, "_" and "-" so snake_case and kebab-case spellings find their key.
    folded = {_fold(known): known for known in keys}
    if isinstance(key, str):
        import difflib  # only for a mistyped key: ~25 ms of every cold start otherwise

        close = difflib.get_close_matches(_fold(key), folded, n=1)
        if close:
            return f'{where}: unknown key; did you mean "{folded[close[0]]}"?'
    return f"{where}: unknown key; known keys are {', '.join(keys)}"


def _fold(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _path(parent: str, key: object) -> str:
    """``parent.key`` as JavaScript would write it; ``parent["odd key"]`` otherwise."""
    if isinstance(key, str) and _JS_IDENTIFIER.fullmatch(key):
        return f"{parent}.{key}"
    return f"{parent}[{_show(key)}]"


def _attr(key: str) -> str:
    """The dataclass attribute for a JSON key: ``maxBytes`` -> ``max_bytes``."""
    return re.sub(r"[A-Z]", lambda match: "_" + match.group().lower(), key)


def _show(value: object) -> str:
    """A value as the site owner wrote it in JavaScript, cut short if long."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON: a loader bug, still reportable
        text = repr(value)
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 1] + "…"


def _fields_to_json(value: object, keys: Mapping[str, _Key]) -> dict[str, object]:
    return {key: _to_json(getattr(value, _attr(key))) for key in keys}


def _to_json(value: object) -> object:
    if isinstance(value, tuple):
        return [_to_json(item) for item in value]
    keys = _KEYS_BY_TYPE.get(type(value))
    return value if keys is None else _fields_to_json(value, keys)


def _simple(expected: str, check: _Check) -> _Key:
    return _Key(expected, lambda value, _where, _errors: check(value))


def _boolean(value: object) -> object:
    return value if isinstance(value, bool) else _INVALID


def _non_blank(value: object) -> object:
    return value if isinstance(value, str) and value.strip() else _INVALID


def _number_between(low: float, high: float) -> _Check:
    def check(value: object) -> object:
        # NaN compares False with everything and infinities fall outside: the range rejects both.
        if isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high:
            return float(value)
        return _INVALID

    return check


def _whole_between(low: int, high: int) -> _Check:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _INVALID
        if isinstance(value, float) and not value.is_integer():  # also NaN and infinities
            return _INVALID
        return int(value) if low <= value <= high else _INVALID

    return check


def _address(value: object) -> object:
    """A same-site path ("/api/chat") or an absolute http(s) URL."""
    # Browsers read "//host" and "/\\host" as another origin, so neither passes as a path.
    if not isinstance(value, str) or not value.isprintable() or " " in value or "\\" in value:
        return _INVALID
    if value.startswith("/"):
        return _INVALID if value.startswith("//") else value
    try:
        parts = urlsplit(value)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return _INVALID
    return value if parts.scheme.lower() in ("http", "https") and parts.hostname else _INVALID


def _nullable(check: _Check) -> _Check:
    return lambda value: None if value is None else check(value)


def _site_path(value: object) -> object:
    return value if isinstance(value, str) and value.startswith("/") else _INVALID


def _language(value: object) -> object:
    if isinstance(value, str) and _LANGUAGE.fullmatch(value):
        return value
    return _INVALID


def _storage_prefix(value: object) -> object:
    return value if isinstance(value, str) and _STORAGE_PREFIX.fullmatch(value) else _INVALID


def _shortcut(value: object) -> object:
    return value if isinstance(value, str) and _SHORTCUT.fullmatch(value) else _INVALID


def _ask_param(value: object) -> object:
    return value if isinstance(value, str) and _ASK_PARAM.fullmatch(value) else _INVALID


def _one_of(choices: object) -> _Check:
    """A check that accepts exactly the strings of the ``Literal`` type ``choices``."""
    allowed = get_args(choices)
    return lambda value: value if isinstance(value, str) and value in allowed else _INVALID


def _parse_embeddings(value: object, where: str, errors: list[str]) -> object:
    """null, or an object with an endpoint and a model (neither has a default) and
    perhaps the query side; any problem in it turns hybrid retrieval off."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return _INVALID
    off = "hybrid retrieval is off"
    values = _parse_keys(value, where, _EMBEDDINGS_KEYS, errors, lambda _: off)
    missing = [key for key in _EMBEDDINGS_REQUIRED if key not in value]
    if missing:
        errors.append(f"{where}.{missing[0]}: required; {off}")
    if missing or len(values) != len(value.keys() & _EMBEDDINGS_KEYS):
        return None
    return EmbeddingsConfig(**values)


def _parse_role(value: object, where: str, errors: list[str]) -> object:
    """null, or a side's prefix, inputType and model (each optional); a bad one turns
    hybrid retrieval off, since vectors asked for the wrong way rank at random."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return _INVALID
    before = len(errors)
    values = _parse_keys(value, where, _ROLE_KEYS, errors, lambda _: "hybrid retrieval is off")
    return Role(**values) if len(errors) == before else _REPORTED


def _prefix(value: object) -> object:
    return value if isinstance(value, str) and len(value) <= PREFIX_MAX else _INVALID


def _whole_number(bounds: tuple[int, int]) -> _Key:
    return _simple(f"a whole number from {bounds[0]} to {bounds[1]}", _whole_between(*bounds))


_ADDRESS: Final = 'a path starting with "/" or an http(s) URL'
_TRUE_OR_FALSE: Final = _simple("true or false", _boolean)
_NON_BLANK: Final = _simple("a non-blank string", _non_blank)

_HISTORY_KEYS: Final = {
    "enabled": _TRUE_OR_FALSE,
    "max": _whole_number(HISTORY_MAX_RANGE),
    "maxBytes": _whole_number(HISTORY_MAX_BYTES_RANGE),
    "saveOnUnload": _TRUE_OR_FALSE,
    "consent": _simple('"assumed" or "ask"', _one_of(Consent)),
}
_EVENTS_KEYS: Final = {"text": _TRUE_OR_FALSE}
_FEEDBACK_KEYS: Final = {
    "send": _simple('"all", "negative" or "none"', _one_of(FeedbackSend)),
}
_SCOPE_KEYS: Final = {
    "id": _NON_BLANK,
    "label": _NON_BLANK,
    "prefix": _simple('null or a path starting with "/"', _nullable(_site_path)),
}
_ROLE_KEYS: Final = {
    "prefix": _simple(f"a string of at most {PREFIX_MAX} characters", _prefix),
    "inputType": _simple("null or a non-blank string", _nullable(_non_blank)),
    "model": _simple("null or a non-blank string", _nullable(_non_blank)),
}
_EMBEDDINGS_KEYS: Final = {
    "endpoint": _simple(_ADDRESS, _address),
    "model": _NON_BLANK,
    "query": _Key("null or {prefix, inputType, model}", _parse_role),
}
_EMBEDDINGS_REQUIRED: Final = ("endpoint", "model")
_CONFIG_KEYS: Final = {
    "chat": _TRUE_OR_FALSE,
    "endpoint": _simple(_ADDRESS, _address),
    "model": _NON_BLANK,
    "gate": _simple("a number from 0 to 1", _number_between(0, 1)),
    "scopes": _Key(f"a list of at most {MAX_SCOPES} scopes", _parse_scopes),
    "history": _Key("an object", _section(HistoryConfig(), _HISTORY_KEYS)),
    "feedbackEndpoint": _simple(f"null or {_ADDRESS}", _nullable(_address)),
    "feedback": _Key("an object", _section(FeedbackConfig(), _FEEDBACK_KEYS)),
    "language": _simple('"auto" or a language tag such as "en" or "pt-BR"', _language),
    "storagePrefix": _simple(
        f'1 to {STORAGE_PREFIX_MAX_LENGTH} characters from A-Z, a-z, 0-9, ".", "_" and "-"',
        _storage_prefix,
    ),
    "idleTimeout": _simple(
        f"a number of seconds from {IDLE_TIMEOUT_RANGE[0]} to {IDLE_TIMEOUT_RANGE[1]}",
        _number_between(*IDLE_TIMEOUT_RANGE),
    ),
    "shortcut": _simple('null or one key, such as "/"', _nullable(_shortcut)),
    "preload": _simple('"intent", "idle" or "none"', _one_of(Preload)),
    "embeddings": _Key(
        'null or {endpoint: "/v1/embeddings", model: "…", query: {…}}', _parse_embeddings
    ),
    "events": _Key("an object", _section(EventsConfig(), _EVENTS_KEYS)),
    "askParam": _simple(
        'null or a query parameter name of 1 to 40 characters from A-Z, a-z, 0-9, "_" and "-"',
        _nullable(_ask_param),
    ),
    "server": _simple(f"null or {_ADDRESS}", _nullable(_address)),
}
_KEYS_BY_TYPE: Final[Mapping[type, Mapping[str, _Key]]] = {
    Config: _CONFIG_KEYS,
    HistoryConfig: _HISTORY_KEYS,
    FeedbackConfig: _FEEDBACK_KEYS,
    Scope: _SCOPE_KEYS,
    EmbeddingsConfig: _EMBEDDINGS_KEYS,
    Role: _ROLE_KEYS,
    EventsConfig: _EVENTS_KEYS,
}
