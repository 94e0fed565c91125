"""Tests for docs_panel.core.config: every key's good, wrong-type and out-of-range values.

The case table lives in tests/fixtures/config_cases.json: each case gives the page's
``raw`` object, the exact ``errors`` expected (one per problem), and the resulting
``config`` as the keys that differ from the defaults, in config_to_json form.
The file uses Python's JSON extensions ``NaN`` and ``Infinity`` for the number cases.
"""

from __future__ import annotations

import dataclasses
import json
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.core.config import (
    DEFAULTS,
    HISTORY_MAX_BYTES_RANGE,
    HISTORY_MAX_RANGE,
    MAX_SCOPES,
    Config,
    EmbeddingsConfig,
    FeedbackConfig,
    HistoryConfig,
    ParsedConfig,
    Scope,
    config_to_json,
    parse_config,
)
from tests.fixture_files import FIXTURES

CASES = json.loads((FIXTURES / "config_cases.json").read_text())


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` applied, nested objects merged key by key."""
    merged = dict(base)
    for key, value in changes.items():
        nested = isinstance(value, dict) and isinstance(base[key], dict)
        merged[key] = _merged(base[key], value) if nested else value
    return merged


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_fixture_case(case: dict[str, Any]) -> None:
    """A raw config yields exactly the listed errors, the listed values, defaults elsewhere."""
    parsed = parse_config(case["raw"])
    assert list(parsed.errors) == case["errors"]
    assert config_to_json(parsed.config) == _merged(config_to_json(DEFAULTS), case["config"])
    assert type(parsed.config.gate) is float
    assert type(parsed.config.history.max) is int
    assert type(parsed.config.history.max_bytes) is int


def test_defaults_match_the_design() -> None:
    """The defaults are the documented ones (contract §2)."""
    assert config_to_json(DEFAULTS) == {
        "chat": True,
        "endpoint": "/api/chat",
        "model": "docs-assistant",
        "gate": 0.25,
        "scopes": [],
        "history": {
            "enabled": True,
            "max": 20,
            "maxBytes": 1048576,
            "saveOnUnload": True,
            "consent": "assumed",
        },
        "feedbackEndpoint": None,
        "feedback": {"send": "all"},
        "language": "auto",
        "storagePrefix": "docs-panel",
        "idleTimeout": 30.0,
        "shortcut": "/",
        "preload": "intent",
        "embeddings": None,
        "events": {"text": False},
        "askParam": "ask",
        "server": None,
    }


def test_storage_key_uses_the_prefix() -> None:
    """Storage keys are the configured prefix, a dot, and the name."""
    assert DEFAULTS.storage_key("history") == "docs-panel.history"
    custom = parse_config({"storagePrefix": "acme.docs"}).config
    assert custom.storage_key("composer.draft") == "acme.docs.composer.draft"


def test_values_are_frozen_and_slotted() -> None:
    """Config values cannot be changed in place and carry no per-instance dict."""
    for value in (DEFAULTS, DEFAULTS.history, DEFAULTS.feedback, Scope("a", "A")):
        assert not hasattr(value, "__dict__")
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, dataclasses.fields(value)[0].name, None)


def test_non_json_value_is_reported_not_raised() -> None:
    """A value JSON cannot hold (a loader bug) is still reported by its repr, never raised."""
    circular: list[object] = []
    circular.append(circular)
    parsed = parse_config({"model": circular, "gate": {1, 2}})
    assert parsed.config == DEFAULTS
    assert parsed.errors == (
        "docsPanel.model: expected a non-blank string, got [[...]];"
        ' using the default "docs-assistant"',
        "docsPanel.gate: expected a number from 0 to 1, got {1, 2}; using the default 0.25",
    )


# -- properties over generated configs ---------------------------------------------------------

_SEGMENT = st.text("abcdefghijklmnopqrstuvwxyzABC0123456789-._~%", min_size=1, max_size=12)
_PATH = st.lists(_SEGMENT, max_size=4).map(lambda parts: "/" + "/".join(parts))
_URL = st.builds(
    lambda scheme, host, path: f"{scheme}://{host}{path}",
    st.sampled_from(["http", "https", "HTTPS"]),
    st.from_regex(r"[a-z0-9]{1,12}(\.[a-z]{2,6}){0,2}(:[0-9]{2,5})?", fullmatch=True),
    _PATH,
)
_ADDRESS = st.one_of(_PATH, _URL)
_NON_BLANK = st.text(min_size=1, max_size=20).filter(str.strip)
_SCOPE = st.builds(Scope, _NON_BLANK, _NON_BLANK, st.none() | _PATH)
_CONFIGS = st.builds(
    Config,
    chat=st.booleans(),
    endpoint=_ADDRESS,
    model=_NON_BLANK,
    gate=st.floats(0, 1),
    scopes=st.lists(_SCOPE, max_size=MAX_SCOPES, unique_by=lambda scope: scope.id).map(tuple),
    history=st.builds(
        HistoryConfig,
        enabled=st.booleans(),
        max=st.integers(*HISTORY_MAX_RANGE),
        max_bytes=st.integers(*HISTORY_MAX_BYTES_RANGE),
        save_on_unload=st.booleans(),
    ),
    feedback_endpoint=st.none() | _ADDRESS,
    feedback=st.builds(FeedbackConfig, st.sampled_from(["all", "negative", "none"])),
    language=st.just("auto") | st.from_regex(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}", fullmatch=True),
    storage_prefix=st.text(string.ascii_letters + string.digits + "._-", min_size=1, max_size=40),
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(_CONFIGS)
def test_round_trip(config: Config) -> None:
    """A valid config survives config_to_json -> JSON text -> parse_config unchanged, error-free."""
    sent = json.loads(json.dumps(config_to_json(config), allow_nan=False))
    assert parse_config(sent) == ParsedConfig(config, ())


@given(
    _CONFIGS,
    st.sampled_from(sorted(config_to_json(DEFAULTS))),
    st.none() | st.booleans() | st.text(),
)
def test_one_bad_key_gives_one_error(config: Config, key: str, junk: object) -> None:
    """Any key replaced by a wrong value gives exactly one error naming it; the rest is kept."""
    # A one-item list holding a scalar is the wrong type for every key, and a bad entry for scopes.
    raw = config_to_json(config) | {key: [junk]}
    parsed = parse_config(raw)
    assert len(parsed.errors) == 1
    assert parsed.errors[0].split(":")[0] in (f"docsPanel.{key}", f"docsPanel.{key}[0]")
    assert config_to_json(parsed.config) == config_to_json(config) | {
        key: config_to_json(DEFAULTS)[key]
    }


@given(_CONFIGS, st.text(min_size=1).filter(lambda key: key not in config_to_json(DEFAULTS)))
def test_unknown_key_gives_one_error(config: Config, key: str) -> None:
    """An extra key is one "unknown key" error and changes nothing else."""
    parsed = parse_config(config_to_json(config) | {key: 1})
    assert len(parsed.errors) == 1
    assert "unknown key" in parsed.errors[0]
    assert parsed.config == config


@given(_JSON | st.dictionaries(st.sampled_from(sorted(config_to_json(DEFAULTS))), _JSON))
def test_never_raises(raw: object) -> None:
    """Whatever JSON the page holds, parsing gives a valid config and docsPanel-prefixed errors."""
    parsed = parse_config(raw)
    assert parse_config(config_to_json(parsed.config)) == ParsedConfig(parsed.config, ())
    assert all(error.startswith("docsPanel") for error in parsed.errors)


@pytest.mark.parametrize(
    ("raw", "expected", "errors"),
    [
        (None, None, []),
        ({"endpoint": "/v1/embeddings", "model": "m"}, EmbeddingsConfig("/v1/embeddings", "m"), []),
        ({"endpoint": "/v1/embeddings"}, None, ["docsPanel.embeddings.model: required"]),
        ({"endpoint": "ftp://x", "model": "m"}, None, ["docsPanel.embeddings.endpoint: expected"]),
        (3, None, ["docsPanel.embeddings: expected null or {endpoint"]),
    ],
)
def test_embeddings_need_an_endpoint_and_a_model(
    raw: object, expected: EmbeddingsConfig | None, errors: list[str]
) -> None:
    """Hybrid retrieval is on only with both; anything else is lexical, with one message."""
    parsed = parse_config({"embeddings": raw})
    assert parsed.config.embeddings == expected
    assert [e[: len(want)] for e, want in zip(parsed.errors, errors, strict=True)] == errors
    assert parse_config(config_to_json(parsed.config)).config == parsed.config
