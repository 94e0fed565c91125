"""docs/contract.md cannot drift silently from the code: every config key the config
accepts is in its table with the error's wording of what it accepts and its default;
every word of the UI (every key of the locale tables, whose languages share keys:
test_i18n) is in its table with the English text; so are the storage keys and the
session record's fields, and every class of the exception tree."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from docs_panel.core.analyzers import analyzer
from docs_panel.core.config import (
    _KEYS_BY_TYPE,
    DEFAULTS,
    STORAGE_NAMES,
    Config,
    EmbeddingsConfig,
    EventsConfig,
    FeedbackConfig,
    HistoryConfig,
    Scope,
    config_to_json,
)
from docs_panel.core.embedding_roles import Role
from docs_panel.portable import errors
from docs_panel.portable.i18n import table
from docs_panel.portable.session_fields import ID, IN_FLIGHT, LEFT, OPEN

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract.md"
TEXT = CONTRACT.read_text(encoding="utf-8")
# Objects whose every field has a default: the contract lists their fields.
SECTIONS = {"history": HistoryConfig, "feedback": FeedbackConfig, "events": EventsConfig}
# Values made of fields, some required: the contract lists the value and its fields.
RECORDS = {"scopes": ("scopes[]", Scope), "embeddings": ("embeddings", EmbeddingsConfig)}
# Objects inside a record, every field with a default: the contract lists their fields.
INNER = {"embeddings.query": Role}
REQUIRED = object()


def accepted_keys() -> Iterator[tuple[str, str, object]]:
    """(key path, what it accepts, default or REQUIRED) for every key the config reads."""
    defaults = config_to_json(DEFAULTS)
    for key, spec in _KEYS_BY_TYPE[Config].items():
        if key in SECTIONS:
            section = defaults[key]
            assert isinstance(section, Mapping)
            for name, inner in _KEYS_BY_TYPE[SECTIONS[key]].items():
                yield f"{key}.{name}", inner.expected, section[name]
            continue
        yield key, spec.expected, defaults[key]
        if key in RECORDS:
            path, kind = RECORDS[key]
            field_defaults = {f.name: f.default for f in fields(kind)}
            for name, inner in _KEYS_BY_TYPE[kind].items():
                default = field_defaults[name]
                yield f"{path}.{name}", inner.expected, REQUIRED if default is MISSING else default
                inner_kind = INNER.get(f"{path}.{name}")
                if inner_kind is not None:
                    inner_defaults = {f.name: f.default for f in fields(inner_kind)}
                    for inner_name, spec in _KEYS_BY_TYPE[inner_kind].items():
                        attribute = re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), inner_name)
                        yield (
                            f"{path}.{name}.{inner_name}",
                            spec.expected,
                            inner_defaults[attribute],
                        )


def row(first_cell: str) -> list[str]:
    """The cells of the table row whose first cell is ``first_cell``."""
    found = [line for line in TEXT.splitlines() if line.startswith(f"| {first_cell} |")]
    assert len(found) == 1, f"{first_cell}: {len(found)} rows in docs/contract.md"
    return [cell.strip() for cell in found[0].strip("|").split("|")]


def shown(value: object) -> str:
    """A default as the contract writes it: JSON, whole numbers without a fraction."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{json.dumps(value)}`"


KEYS = list(accepted_keys())


@pytest.mark.parametrize(("path", "expected", "default"), KEYS, ids=[k[0] for k in KEYS])
def test_every_config_key_is_in_the_contract(path: str, expected: str, default: object) -> None:
    cells = row(f"`{path}`")
    assert cells[1] == expected
    assert cells[2] == ("(required)" if default is REQUIRED else shown(default))


def test_the_contract_lists_no_config_key_the_code_does_not_accept() -> None:
    table_rows = re.findall(r"^\| `([\w.\[\]]+)` \| .* \| .* \| .* \|$", TEXT, re.M)
    config_rows = [key for key in table_rows if not key.startswith("docs-panel.")]
    config_rows = [key for key in config_rows if key not in (ID, LEFT, OPEN, IN_FLIGHT)]
    assert sorted(config_rows) == sorted(path for path, _, _ in KEYS)


ENGLISH = table("en")


@pytest.mark.parametrize("key", sorted(ENGLISH))
def test_every_ui_word_is_in_the_contract(key: str) -> None:
    cells = row_with_key(key)
    assert cells[-1] == ENGLISH[key]


def row_with_key(key: str) -> list[str]:
    found = [line for line in TEXT.splitlines() if f"| `{key}` |" in line]
    assert len(found) == 1, f"{key}: {len(found)} rows in docs/contract.md"
    return [cell.strip() for cell in found[0].strip("|").split("|")]


@pytest.mark.parametrize("name", STORAGE_NAMES)
def test_every_storage_key_is_in_the_contract(name: str) -> None:
    assert row(f"`{DEFAULTS.storage_key(name)}`")


@pytest.mark.parametrize("field", [ID, LEFT, OPEN, IN_FLIGHT])
def test_every_session_field_is_in_the_contract(field: str) -> None:
    assert row(f"`{field}`")


def exception_tree() -> str:
    """The contract's bullet on the exception tree (§8)."""
    (bullet,) = re.findall(r"^- One exception tree.*?(?=^- |^#)", TEXT, re.M | re.S)
    return bullet


def test_the_exception_tree_in_the_contract_is_errors_py() -> None:
    """Every class of docs_panel/portable/errors.py is named, and no other."""
    classes = {name for name, _ in inspect.getmembers(errors, inspect.isclass)}
    assert set(re.findall(r"`(\w+Error)`", exception_tree())) == classes


def test_nothing_points_outside_the_repository() -> None:
    """The contract lives in the repository: no file refers to the shared DESIGN.md."""
    root = CONTRACT.parent.parent
    # Sources only: a build's output (site_demo/_build, dist, ...) is what they make.
    skipped = {"node_modules", "_build", "dist", "build", "out", "__pycache__"}
    parts = {p: p.relative_to(root).parts for p in root.rglob("*")}
    files = [
        p
        for p, rel in parts.items()
        if not skipped & set(rel)
        and not any(part.startswith(".") or part.endswith(".egg-info") for part in rel)
    ]
    ours = [p for p in files if p.suffix in (".py", ".js", ".mjs", ".md", "") and p.is_file()]
    ours = [p for p in ours if p != Path(__file__).resolve()]
    stale = [
        str(p.relative_to(root))
        for p in ours
        if re.search(r"DESIGN\b|shared/", p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert stale == []


def test_the_languages_the_contract_stems_are_stemmed() -> None:
    """Each language the contract says is stemmed has a Snowball analyzer (English its
    own), and Chinese, Japanese and Korean are read as character pairs."""
    prose = " ".join(TEXT.split())
    said = re.search(r"in ((?:\w\w, )+\w\w and \w\w) \(and the other languages Snowball", prose)
    assert said, "the contract no longer lists the languages it stems"
    languages = re.findall(r"\b\w\w\b", said[1].replace(" and ", ", "))
    assert analyzer(languages[0]).name == "english"
    assert all(analyzer(code).name.startswith("snowball-") for code in languages[1:])
    assert {analyzer(code).name for code in ("zh", "ja", "ko")} == {"cjk-bigram"}
