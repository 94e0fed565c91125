"""Whether every page and anchor a held-out question set expects is in its installed site.

Usage: python3 bench/heldout_paths.py [bench/questions_heldout_*.json ...]

Without arguments it checks every held-out set and the German dev sets
(``questions_*_de_dev.json``), which were written the same way.

It reads each set's ``site`` folder and checks that each expected page is a file
there and each ``anchor`` is an ``id`` (or ``name``) on the first expected page; it prints the
heading text found at the anchor so a writer can see the question lands where meant.
A question with ``twin_of`` ("de:3") translates question 3 of the same site's ``_de`` set:
its pages must be that question's page names in its own language folder, and its anchor
the same.
It never indexes, ranks or searches anything: the writer of a held-out set must not
see a ranking.
"""

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: Dev sets written by a helper that does not tune, like the held-out ones.
GERMAN_DEV_SETS = sorted(HERE.glob("questions_*_de_dev.json"))


def _page_name(page: str) -> str:
    """A page's path below its language folder: ``/de-DE/apt.html`` -> ``apt.html``."""
    return page.lstrip("/").partition("/")[2]


def twin_problem(spec_path: Path, case: dict[str, Any]) -> str:
    """What differs between a ``twin_of`` question's pages and anchor and its source's."""
    language, _, index = case["twin_of"].partition(":")
    source_path = spec_path.with_name(f"{spec_path.stem.rpartition('_')[0]}_{language}.json")
    source = json.loads(source_path.read_text(encoding="utf-8"))["questions"][int(index)]
    if [_page_name(p) for p in case["pages"]] != [_page_name(p) for p in source["pages"]]:
        return f"pages {case['pages']} are not {source['pages']}"
    if case.get("anchor") != source.get("anchor"):
        return f"anchor {case.get('anchor')} is not {source.get('anchor')}"
    return ""


def check(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    root = Path(spec["site"])
    bad = 0
    for case in spec["questions"]:
        if "twin_of" in case and (problem := twin_problem(spec_path, case)):
            print(f"NOT A TWIN {spec_path.name} {case['twin_of']}: {problem} ({case['q']})")
            bad += 1
        for n, page in enumerate(case["pages"]):
            file = root / page.lstrip("/")
            if not file.is_file():
                print(f"MISSING {spec_path.name}: {page} ({case['q']})")
                bad += 1
                continue
            anchor = case.get("anchor")
            if not anchor or n:
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            found = re.search(rf'(?:id|name)="{re.escape(anchor)}"(.{{0,600}})', text, re.S)
            if not found:
                print(f"NO ANCHOR {spec_path.name}: {page}#{anchor} ({case['q']})")
                bad += 1
                continue
            heading = html.unescape(re.sub(r"<[^>]+>|\s+", " ", found.group(1)))
            print(f"  {case['q'][:50]:52} -> {page}#{anchor}: {heading.strip()[:60]}")
    print(f"{spec_path.name}: {len(spec['questions'])} questions, {bad} problems")
    return bad


def main() -> None:
    paths = [Path(arg) for arg in sys.argv[1:]] or [
        *sorted(HERE.glob("questions_heldout_*.json")),
        *GERMAN_DEV_SETS,
    ]
    sys.exit(1 if sum(check(path) for path in paths) else 0)


if __name__ == "__main__":
    main()
