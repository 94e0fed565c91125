"""The German dev sets: two sites of 20 reader questions each, every expected page and
anchor present in the installed Debian package, and each set read by bench/retrieval.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.heldout_paths import GERMAN_DEV_SETS, check
from bench.retrieval import SITES


def test_there_are_two_german_dev_sets_of_twenty_questions() -> None:
    specs = {path.name: json.loads(path.read_text("utf-8")) for path in GERMAN_DEV_SETS}
    assert sorted(specs) == [
        "questions_developers_reference_de_dev.json",
        "questions_maint_guide_de_dev.json",
    ]
    for spec in specs.values():
        assert spec["heldout"] is False
        assert spec["about"].startswith("DEV set")
        assert len(spec["questions"]) == 20
        assert {case["language"] for case in spec["questions"]} == {"de"}


@pytest.mark.parametrize("path", GERMAN_DEV_SETS, ids=lambda path: path.stem)
def test_every_expected_page_and_anchor_is_in_the_installed_site(path: Path) -> None:
    site = Path(json.loads(path.read_text("utf-8"))["site"])
    if not site.is_dir():
        pytest.skip(f"{site} is not installed (bench/heldout_sites.md names its package)")
    assert check(path) == 0


@pytest.mark.parametrize("path", GERMAN_DEV_SETS, ids=lambda path: path.stem)
def test_retrieval_asks_each_set_as_a_dev_set(path: Path) -> None:
    assert [name for name, site in SITES.items() if path.name in site.sets] == [
        path.stem.removeprefix("questions_").removesuffix("_de_dev").replace("_", "-")
    ]
