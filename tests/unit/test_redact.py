"""Credentials are masked, ordinary technical text is not (widget/core/redact.py).

Most cases are data: tests/fixtures/redact/secrets.txt (input, expected) and
clean.txt (input that must come through unchanged), in markdown-it-py's
fixture style; see the header of each file.
"""

from __future__ import annotations

import doctest
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widget.core import redact as redact_module
from widget.core.redact import KINDS, Redaction, mask, redact, redact_text

FIXTURES = Path(__file__).parent.parent / "fixtures" / "redact"
MASK_IN_TEXT = re.compile(r"\[redacted: ([^\]]+)\]")


def read_cases(path: Path, sections: int) -> list[tuple[str, tuple[str, ...]]]:
    """``title`` then ``sections`` blocks, each closed by a line holding only "."."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[tuple[str, tuple[str, ...]]] = []
    i = 0
    while i < len(lines) - 1:
        if lines[i] == "." or lines[i + 1] != ".":
            i += 1
            continue
        title, blocks, i = lines[i], [], i + 2
        for _ in range(sections):
            end = lines.index(".", i)  # ValueError: a case is not closed
            blocks.append("\n".join(lines[i:end]))
            i = end + 1
        cases.append((title, tuple(blocks)))
    return cases


SECRETS = read_cases(FIXTURES / "secrets.txt", 2)
CLEAN = read_cases(FIXTURES / "clean.txt", 1)
ALL_INPUTS = [(title, blocks[0]) for title, blocks in SECRETS + CLEAN]


def kinds_in(text: str) -> tuple[str, ...]:
    """The kinds of the masks in ``text``, each once, in order of appearance."""
    return tuple(dict.fromkeys(MASK_IN_TEXT.findall(text)))


@pytest.mark.parametrize(
    ("source", "expected"), [blocks for _, blocks in SECRETS], ids=[t for t, _ in SECRETS]
)
def test_secret_is_masked(source: str, expected: str) -> None:
    """Each credential becomes its kind's mask; the text around it is kept byte for byte."""
    assert redact(source) == Redaction(expected, kinds_in(expected))


@pytest.mark.parametrize("source", [blocks[0] for _, blocks in CLEAN], ids=[t for t, _ in CLEAN])
def test_clean_text_is_unchanged(source: str) -> None:
    """Ordinary technical text (ids, hashes, code, placeholders, prose) is not masked."""
    assert redact(source) == Redaction(source, ())


@pytest.mark.parametrize("source", [s for _, s in ALL_INPUTS], ids=[t for t, _ in ALL_INPUTS])
def test_redacting_twice_changes_nothing(source: str) -> None:
    """Redaction is idempotent: a redacted text has nothing left to mask."""
    once = redact_text(source)
    assert redact(once) == Redaction(once, ())


def test_corpus_covers_every_kind() -> None:
    """The corpus is big enough, and every kind redact() reports is exercised at least 3 times."""
    counts = Counter(
        kind for _, (_, expected) in SECRETS for kind in MASK_IN_TEXT.findall(expected)
    )
    assert len(SECRETS) >= 80
    assert len(CLEAN) >= 80
    assert len(KINDS) >= 15
    assert set(counts) == set(KINDS)
    assert {kind: n for kind, n in counts.items() if n < 3} == {}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "context",
    [
        "{}",
        "password={}",
        'api_key: "{}"',
        "--token {}",
        "Authorization: Bearer {}",
        "Authorization: {}",
        "https://user:{}@example.com/",
        "curl -u admin:{} https://example.com",
        "machine example.com login me password {}",
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----",
    ],
)
def test_mask_is_never_taken_for_a_secret(kind: str, context: str) -> None:
    """A mask, wherever it sits, is left alone and not reported again."""
    text = context.format(mask(kind))
    assert redact(text) == Redaction(text, ())


def test_redact_text_is_the_text_of_redact() -> None:
    """redact_text() returns just the masked text."""
    assert redact_text("PGPASSWORD=Fake-Pass-42 psql") == "PGPASSWORD=[redacted: password] psql"


def test_module_examples_hold() -> None:
    """The module docstring's example runs as written."""
    assert doctest.testmod(redact_module).failed == 0


SIZE = 100_000
GITHUB_TOKEN = "ghp_" + "FAKEfake0123456789" * 2


def repeated(piece: str) -> str:
    """``piece`` repeated up to ``SIZE`` characters."""
    return piece * (SIZE // len(piece))


PATHOLOGICAL_UNCHANGED = {
    "identifier runs": repeated("a-b_c."),
    "schemes without a host": repeated("x://y:"),
    "a URL password with no @": "https://u:" + "p" * SIZE,
    "BEGIN lines with no key": repeated("-----BEGIN RSA PRIVATE KEY-----\n"),
    "a BEGIN line then words": "-----BEGIN PRIVATE KEY-----" + repeated(" abc"),
    "keys naming credentials": repeated("password = "),
    "a colon value that never ends": "token: " + "a" * SIZE,
    "flags after flags": repeated("--password "),
    "quotes that never close": repeated("'password': '"),
    "escapes in a string": 'password="' + "\\" * SIZE,
    "colons and equals": repeated(":="),
    "open masks": repeated("[redacted: "),
    "prose about secrets": repeated("the password for the token is not a secret key "),
}


@pytest.mark.parametrize("text", PATHOLOGICAL_UNCHANGED.values(), ids=list(PATHOLOGICAL_UNCHANGED))
def test_pathological_input_without_secrets(text: str) -> None:
    """100 KB built to make a regex backtrack comes back unchanged, fast (no catastrophic case)."""
    started = time.perf_counter()
    result = redact(text)
    # generous: linear scans take well under a second here; a quadratic one takes minutes
    assert time.perf_counter() - started < 10
    assert result == Redaction(text, ())


@pytest.mark.parametrize(
    ("piece", "kind"),
    [
        (f"{GITHUB_TOKEN} ", "GitHub token"),
        ("password=Fake-Pass-42 ", "password"),
        ("Authorization: Basic ZmFrZTpmYWtl\n", "Basic auth credentials"),
    ],
)
def test_pathological_input_full_of_secrets(piece: str, kind: str) -> None:
    """100 KB of one secret repeated: every copy is masked, once each."""
    text = repeated(piece)
    started = time.perf_counter()
    result = redact(text)
    assert time.perf_counter() - started < 10
    assert result.kinds == (kind,)
    assert result.text.count(mask(kind)) == text.count(piece)


# Pieces that combine into keys, separators, values, tokens and masks in every order.
FRAGMENTS = [
    *("password", "token", "api_key", "secret", "Authorization", "--password", "-u ", "machine "),
    *(":", "=", " ", "\n", '"', "'", "`", "[", "]", "(", ")", "@", "://", "https", "login "),
    *("hunter2", "Fake-Pass-42", "abc", "Bearer ", "Basic ", "$TOKEN", "<token>", "****", "..."),
    *(GITHUB_TOKEN, "sk-proj-" + "FAKEfake_0123456789-" * 2, "AKIAFAKE0123456789AB"),
    *("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.FAKEsignature_0123456789",),
    *("-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "RkFLRWZha2VGQUtFZmFrZQ=="),
    *(mask("password"), mask("GitHub token"), mask("API key"), mask("authorization token")),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join))
def test_redaction_is_idempotent_on_any_mix(text: str) -> None:
    """Whatever order keys, values, tokens and masks come in, redacting twice changes nothing."""
    once = redact_text(text)
    assert redact(once) == Redaction(once, ())
