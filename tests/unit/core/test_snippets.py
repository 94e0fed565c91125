"""Snippets: the window of a section's text shown around the question's words."""

from __future__ import annotations

import pytest

from docs_panel.core.snippets import snippet

FILLER = "Some words before. " * 20


@pytest.mark.parametrize(
    ("text", "weights", "shown"),
    [
        (FILLER + "Copying a tree with copytree.", {"copi": 1.0}, "Copying a tree"),
        (FILLER + "Writing text files.", {"write": 1.0}, "Writing text files."),
        (FILLER + "Call os.path.splitext(p).", {"splitext": 1.0}, "os.path.splitext(p)."),
        (FILLER + "Sleeping here.", {"sleep": 1.0, "zzz": 2.0}, "Sleeping here."),
    ],
)
def test_the_window_holds_words_whose_stems_differ_from_their_spelling(
    text: str, weights: dict[str, float], shown: str
) -> None:
    """A word found through its stem ("copying" for ``copi``) places the window."""
    assert shown in snippet(text, weights, length=60)


def test_the_window_goes_where_the_most_weight_is() -> None:
    """Of two places that match, the one with more of the question's weight is shown."""
    text = "alpha " + FILLER * 2 + "beta gamma " + FILLER
    assert "beta gamma" in snippet(text, {"alpha": 1.0, "beta": 1.0, "gamma": 1.0}, length=60)


def test_a_text_without_matches_shows_its_start() -> None:
    """No matched word: the snippet is the text's beginning, cut at a word."""
    shown = snippet(FILLER, {"absent": 1.0}, length=40)
    assert shown.startswith("Some words") and shown.endswith("…")
