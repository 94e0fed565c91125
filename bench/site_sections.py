"""How a built site is read: pages, sections, oversized sections, skips, theme text.

For each site folder given, runs the extractor and prints the build summary
(pages, sections, skipped by reason, the lines found on the most pages) and
what issue 43's goals measure: sections over 8 KB of text on pages that have
headings under their top, and sections whose text holds a line of
``--theme-text`` (regular expressions matching a whole line of a generator's
chrome, such as DocBook's "Prev Up Next")::

    python3 bench/site_sections.py /usr/share/doc/postgresql-doc-15/html \\
        --theme-text "Prev( .*)? Next" "Table of Contents" [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from docs_panel.build.site.extract import extract_site

#: Text of more than this many bytes is a section too large for the prompt to hold
#: beside others (the issue's goal: none where the page has headings under it).
LARGE = 8 * 1024


def measure(root: Path, theme_text: list[re.Pattern[str]]) -> dict[str, object]:
    extracted = extract_site(root)
    sections = extracted.sections
    per_page = Counter(section.page for section in sections)
    large = [
        section.address
        for section in sections
        if len(section.text.encode()) > LARGE and per_page[section.page] > 1
    ]
    large_alone = sum(len(s.text.encode()) > LARGE and per_page[s.page] == 1 for s in sections)
    chrome = [
        section.address
        for section in sections
        if any(
            pattern.fullmatch(line.strip())
            for pattern in theme_text
            for line in f"{section.title}\n{section.text}".split("\n")
        )
    ]
    for line in extracted.report.lines():
        print(line)
    print(f"sections over 8 KB on pages split by headings: {len(large)}", large[:10])
    print(f"sections over 8 KB on pages with one section: {large_alone}")
    print(f"sections holding theme text: {len(chrome)}", chrome[:10])
    return {
        "pages": extracted.report.pages,
        "sections": len(sections),
        "skipped": extracted.report.skipped,
        "large_split": len(large),
        "large_alone": large_alone,
        "theme_text_sections": len(chrome),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--theme-text", nargs="*", default=[], help="whole lines of chrome")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = {}
    for root in args.roots:
        print(f"\n== {root}")
        figures[str(root)] = measure(root, [re.compile(text) for text in args.theme_text])
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
