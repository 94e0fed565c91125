"""bench/heldout_paths.py: each English twin expects its source question's pages and anchor,
and each translated set's every question has exactly one twin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.heldout_paths import HERE, twin_problem

TWIN_SETS = sorted(
    path
    for path in HERE.glob("questions_heldout_*_en.json")
    if any("twin_of" in case for case in json.loads(path.read_text("utf-8"))["questions"])
)


def test_the_translated_sites_have_twin_sets() -> None:
    assert [path.name for path in TWIN_SETS] == [
        "questions_heldout_aptitude_en.json",
        "questions_heldout_debian_handbook_en.json",
    ]


@pytest.mark.parametrize("path", TWIN_SETS, ids=lambda path: path.stem)
def test_every_twin_expects_its_source_pages_and_anchor(path: Path) -> None:
    spec = json.loads(path.read_text("utf-8"))
    assert {case["language"] for case in spec["questions"]} == {"en"}
    assert [(case["twin_of"], twin_problem(path, case)) for case in spec["questions"]] == [
        (case["twin_of"], "") for case in spec["questions"]
    ]


@pytest.mark.parametrize("path", TWIN_SETS, ids=lambda path: path.stem)
def test_every_translated_question_has_one_twin(path: Path) -> None:
    site = path.stem.rpartition("_")[0]
    twins = [case["twin_of"] for case in json.loads(path.read_text("utf-8"))["questions"]]
    sources = [
        f"{source.stem.rpartition('_')[2]}:{n}"
        for source in sorted(HERE.glob(f"{site}_*.json"))
        if source != path
        for n in range(len(json.loads(source.read_text("utf-8"))["questions"]))
    ]
    assert twins == sources
