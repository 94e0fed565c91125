"""Credentials are masked, ordinary technical text is not (docs_panel/core/redact.py).

Most cases are data: tests/fixtures/redact/secrets.txt (input, expected) and
clean.txt (input that must come through unchanged), in markdown-it-py's
fixture style; see the header of each file.
"""

from __future__ import annotations

import doctest
import json
import re
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st

from docs_panel.core import redact as redact_module
from docs_panel.core.redact import KINDS, Redaction, mask, redact, redact_text
from tests import fixture_files
from tests.fixture_files import fixture_cases

FIXTURES = fixture_files.FIXTURES / "redact"
MASK_IN_TEXT = re.compile(r"\[redacted: ([^\]]+)\]")


def read_cases(path: Path, sections: int) -> list[tuple[str, tuple[str, ...]]]:
    """Each case's title and blocks, the blocks without their final newline."""
    return [
        (title, tuple(block.removesuffix("\n") for block in blocks))
        for _, title, *blocks in fixture_cases(path, sections)
    ]


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


GITLEAKS = json.loads((FIXTURES / "gitleaks_corpus.json").read_text(encoding="utf-8"))
CONTEXTS: dict[str, str] = GITLEAKS["contexts"]


def masked_in(context: str, secret: str) -> str | None:
    """The kind the secret was masked as, if the context came back with it whole under one mask."""
    before, after = context.split("{}")
    result = redact_text(context.format(secret))
    inner = result.removeprefix(before).removesuffix(after)
    m = MASK_IN_TEXT.fullmatch(inner)
    return m[1] if m and len(inner) == len(result) - len(before) - len(after) else None


def misses(context: str, samples: list[dict[str, Any]]) -> list[str]:
    return [f"{s['source']}: {s['secret']}" for s in samples if not masked_in(context, s["secret"])]


@pytest.mark.parametrize("context", ["labelled", "header"])
def test_gitleaks_samples_are_masked_when_labelled(context: str) -> None:
    """At least 99% of gitleaks' and detect-secrets' samples are masked after token= or Bearer."""
    missed = misses(CONTEXTS[context], GITLEAKS["samples"])
    assert len(missed) <= len(GITLEAKS["samples"]) // 100, missed


SELF_IDENTIFYING: dict[str, list[dict[str, Any]]] = {}
for _sample in GITLEAKS["samples"]:
    if _sample["bare"]:
        SELF_IDENTIFYING.setdefault(_sample["source"], []).append(_sample)


@pytest.mark.parametrize("context", ["bare", "prose"])
@pytest.mark.parametrize("source", sorted(SELF_IDENTIFYING))
def test_self_identifying_shape_is_masked_bare(source: str, context: str) -> None:
    """At least 95% of a self-identifying shape's samples are masked alone and in prose."""
    samples = SELF_IDENTIFYING[source]
    missed = misses(CONTEXTS[context], samples)
    assert len(missed) <= len(samples) * 0.05, missed


def test_every_kind_is_exercised() -> None:
    """The fixtures are big enough, and each kind redact() reports shows up in them."""
    in_fixtures = {kind for _, (_, expected) in SECRETS for kind in MASK_IN_TEXT.findall(expected)}
    in_corpus = {masked_in(CONTEXTS["bare"], s["secret"]) for s in GITLEAKS["samples"]}
    assert len(SECRETS) >= 100
    assert len(CLEAN) >= 100
    assert len(GITLEAKS["samples"]) >= 800
    assert set(KINDS) - in_fixtures - in_corpus == set()


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


def test_a_rule_skipped_for_lack_of_its_needles_could_not_have_matched() -> None:
    """Every match of a rule with needles holds one: a text without them skips it safely."""
    texts = [s for _, s in ALL_INPUTS] + [
        context.format(sample["secret"])
        for context in CONTEXTS.values()
        for sample in GITLEAKS["samples"]
    ]
    ruled = [rule for rule in redact_module._RULES if rule.needles]
    assert len(ruled) > 80  # each vendor token is skipped by its prefix
    for rule in ruled:
        for text in texts:
            for m in rule.pattern().finditer(text):
                assert any(needle in m[0].lower() for needle in rule.needles), (rule.kind, m[0])


def test_module_examples_hold() -> None:
    """The module docstring's example runs as written."""
    assert doctest.testmod(redact_module).failed == 0


ADVERSARIAL = json.loads((FIXTURES / "adversarial.json").read_text(encoding="utf-8"))


def built(head: str, piece: str) -> str:
    """``head``, then ``piece`` repeated up to the adversarial size."""
    return head + piece * ((ADVERSARIAL["size"] - len(head)) // len(piece))


@pytest.mark.parametrize(
    ("head", "piece"), ADVERSARIAL["unchanged"].values(), ids=list(ADVERSARIAL["unchanged"])
)
def test_adversarial_input_without_secrets(head: str, piece: str) -> None:
    """100 KB built to make a pattern backtrack comes back unchanged (its time: the bench)."""
    text = built(head, piece)
    assert redact(text) == Redaction(text, ())


@pytest.mark.parametrize(
    ("head", "piece", "kind"), ADVERSARIAL["masked"].values(), ids=list(ADVERSARIAL["masked"])
)
def test_adversarial_input_full_of_secrets(head: str, piece: str, kind: str) -> None:
    """100 KB of one secret repeated is masked once a copy (once in all when the head holds it)."""
    text = built(head, piece)
    result = redact(text)
    assert result.kinds == (kind,)
    assert result.text.count(mask(kind)) == (1 if head else text.count(piece))


GITHUB_TOKEN = "ghp_" + "FAKEfake0123456789" * 2

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


# Token prefixes and boundaries of every shape family, to be repeated into long runs.
SHAPE_PIECES = [
    *("ghp_", "github_pat_", "glpat-", "GR1348941", "sk-ant-", "sk-", "xoxb-", "xoxe.", "hvs."),
    *("s.", "dop_v1_", "AKIA", "eyJ", "ey", "ZXlK", "SG.", "SK", "hf_", "api_org_", "pat.", "a"),
    *(".atlasv1.", "-us1", "_mmk", "123456789:", "0", "F", "-", "_", ".", "/", "+", "=", "~", "|"),
    *("https://hooks.slack.com/services/", "hooks.slack.com/", "://u:", "@", "\\", " ", "\t"),
]
RUNS = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(FRAGMENTS + SHAPE_PIECES),
    st.integers(min_value=1, max_value=600),
)
MASK = re.compile(r"\[redacted: [^\[\]\n]+\]")


def kept_around_masks(source: str, result: str) -> bool:
    """Each stretch of ``result`` between masks is in ``source``, in order: nothing else changed."""
    pieces = MASK.split(result)
    if not (source.startswith(pieces[0]) and source.endswith(pieces[-1])):
        return False
    at = 0
    for piece in pieces:
        found = source.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


# The deadline is only a safety net against a hang; the time per call is what
# hypothesis is told to maximise (target), so it hunts for a backtracking input,
# and it reports the slowest it found with --hypothesis-show-statistics.
@settings(max_examples=150, deadline=timedelta(seconds=20))
@given(st.lists(RUNS, min_size=1, max_size=8).map("".join))
def test_adversarial_runs_are_masked_whole_and_once(text: str) -> None:
    """Long runs of keys, prefixes and separators: masks replace whole spans, twice is once."""
    started = time.thread_time()  # CPU time: other jobs on the machine blur wall time
    once = redact_text(text)
    elapsed_ms = (time.thread_time() - started) * 1000
    target(elapsed_ms / max(1.0, len(text) / 4096), label="ms per 4 KB")
    assert kept_around_masks(text, once)
    assert redact(once) == Redaction(once, ())


def cpu_time(text: str) -> float:
    """The least CPU time of three redactions of ``text`` (the least is the least noisy)."""
    times = []
    for _ in range(3):
        started = time.thread_time()
        redact_text(text)
        times.append(time.thread_time() - started)
    return min(times)


SCALE = 4
# Linear time makes 4x the runs cost ~4x (3.5-4.1 measured); quadratic, 16x.
MAX_RATIO = 8.0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(FRAGMENTS + SHAPE_PIECES), st.integers(200, 600)),
        min_size=1,
        max_size=4,
    )
)
def test_redaction_time_grows_linearly_with_the_runs(runs: list[tuple[str, int]]) -> None:
    """The same runs made four times longer cost under twice the linear share of time."""
    short = cpu_time("".join(piece * times for piece, times in runs))
    long = cpu_time("".join(piece * times * SCALE for piece, times in runs))
    assert long < MAX_RATIO * max(short, 1e-4), (short, long)
