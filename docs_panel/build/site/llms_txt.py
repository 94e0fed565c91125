"""``llms.txt`` and ``llms-full.txt`` (the llmstxt.org convention) from the sections the
build indexes, one pair per language of the site (``/llms.txt``, ``/fr/llms.txt``).

``llms.txt``: the site's title as the one H1, a one-line summary as a blockquote, a line
saying who wrote the file, then an H2 per top-level section of the site (its first path
segment, named by that folder's own page when it has one; the pages at the top under
the site's title) with a Markdown link for each page, its title and a one-line
description taken from the page. ``llms-full.txt``: the same title and summary, then
every page's indexed text (the sections as the index holds them, before the index's cap:
no theme text, tab panels under their labels, code as it is), pages in the index's
order. Same sections, same bytes.

It decides the files' content, where each goes and whether a file already there is the
site's own (one without the ``WRITTEN_BY`` line: kept unless the owner says
``overwrite``); it never reads pages (the extractor did) and never writes a file but
through :func:`write_llms_files`, which replaces each one whole::

    files = llms_files(sections, main_language="en")   # {"llms.txt": "...", ...}
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from docs_panel.core.addresses import page_key
from docs_panel.core.docs_index import Section

Mode = Literal["write", "overwrite", "skip"]
MODES: Final[tuple[Mode, ...]] = ("write", "overwrite", "skip")
"""``write``: write, but keep a site's own file; ``overwrite``: write over it too;
``skip``: write none."""
WRITTEN_BY: Final = "Written by docs-panel build from the site's pages."
"""The line that marks a file as ours: a file without it is the site's own."""
DESCRIPTION_CHARS: Final = 160
"""A description is one line, a sentence at most, cut at a word before this."""
SENTENCE_WORDS: Final = 4
"""A line of fewer words ("Author:", "See also", ">>>") is a label, not a description."""
# A sentence ends at a stop and a space, unless the stop ends an abbreviation.
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)\s+")


def page_markdown(sections: Sequence[Section]) -> str:
    """Sections of one page as Markdown, a heading each (the page title as the H1).

    >>> print(page_markdown([Section("/a.html", "A", "A", "Top."),
    ...     Section("/a.html#b", "A", "B", "Under B.")]), end="")
    # A
    <BLANKLINE>
    Top.
    <BLANKLINE>
    ## B
    <BLANKLINE>
    Under B.
    """
    blocks = []
    for section in sections:
        level = "#" * min(6, 1 + heading_depth(section))
        blocks.append(f"{level} {section.title}\n\n{section.text}".rstrip())
    return "\n\n".join(blocks) + "\n"


def heading_depth(section: Section) -> int:
    """0 for a page's top, 1 for its headings, and one more per heading above."""
    return 0 if "#" not in section.address else 1 + len(section.breadcrumb)


@dataclass(frozen=True, slots=True)
class _Page:
    path: str
    title: str
    sections: tuple[Section, ...]


def llms_files(
    sections: Iterable[Section], *, main_language: str, base: str = "/", pages_md: bool = False
) -> dict[str, str]:
    """The files by their path under the site's folder (``llms.txt``, ``fr/llms.txt``).
    ``sections`` are addressed under ``base`` (the site's URL path), as the index's are.
    ``pages_md``: also each page's text as Markdown beside it, at its address plus
    ``.md`` (``guide/setup.html.md``), as llmstxt.org proposes."""
    by_language: dict[str, dict[str, list[Section]]] = {}
    for section in sections:
        language = section.language or main_language
        by_language.setdefault(language, {}).setdefault(section.page, []).append(section)
    root = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    files: dict[str, str] = {}
    for language in sorted(by_language, key=lambda tag: (tag != main_language, tag)):
        pages = [
            _Page(path, found[0].page_title, tuple(found))
            for path, found in by_language[language].items()
        ]
        top = root if language == main_language else _common_folder(pages, root)
        folder = top[len(root) :]
        index, full = _language_files(pages, top)
        files[folder + "llms.txt"] = index
        files[folder + "llms-full.txt"] = full
        if pages_md:
            for page in pages:
                text = f"<!-- {WRITTEN_BY} -->\n\n{page_markdown(page.sections)}"
                files[page.path[len(root) :] + ".md"] = text  # extract.PAGE_TEXT_SUFFIXES
    return files


def _common_folder(pages: Sequence[_Page], root: str) -> str:
    """The deepest folder every page is under (``/fr/``), at least ``root``."""
    folder = posixpath.commonpath([posixpath.dirname(page.path) for page in pages])
    folder = folder.rstrip("/") + "/"
    return folder if folder.startswith(root) else root


def _language_files(pages: Sequence[_Page], top: str) -> tuple[str, str]:
    home = next((page for page in pages if page_key(page.path) == page_key(top)), None)
    title = home.title if home else pages[0].title
    summary = _description(home) if home else ""
    head = f"# {title}\n\n> {summary or title}\n\n{WRITTEN_BY}\n"
    groups = _groups(pages, top)
    blocks = [head]
    for folder, grouped in groups.items():
        named = _group_title(folder, grouped, top) if folder else title
        links = "\n".join(_link(page) for page in grouped)
        blocks.append(f"## {named}\n\n{links}\n")
    full = [head] + [
        f"---\n\nSource: {page.path}\n\n{page_markdown(page.sections)}"
        for grouped in groups.values()
        for page in grouped
    ]
    return "\n".join(blocks), "\n".join(full)


def _groups(pages: Sequence[_Page], top: str) -> dict[str, list[_Page]]:
    """The pages by top-level folder ("" for the top's own pages, first), each folder's
    own page first; a folder that holds only its own page (``glossary/index.html``) is
    a page at the top."""
    groups: dict[str, list[_Page]] = {"": []}
    for page in sorted(pages, key=lambda page: page_key(page.path)):
        rest = page.path[len(top) :] if page.path.startswith(top) else page.path.lstrip("/")
        folder = rest.split("/")[0] if "/" in rest else ""
        groups.setdefault(folder, []).append(page)
    for folder, grouped in list(groups.items()):
        if folder and len(grouped) == 1 and page_key(grouped[0].path) == page_key(top + folder):
            groups[""].append(groups.pop(folder)[0])
    groups[""].sort(key=lambda page: page_key(page.path))
    return {folder: grouped for folder, grouped in sorted(groups.items()) if grouped}


def _group_title(folder: str, pages: Sequence[_Page], top: str) -> str:
    """The folder's own page's title (``/guide/index.html``), else its name in words."""
    own = page_key(f"{top}{folder}/")
    for page in pages:
        if page_key(page.path) == own:
            return page.title
    words = folder.replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else folder


def _link(page: _Page) -> str:
    description = _description(page)
    link = f"- [{_escaped(page.title)}]({page.path})"
    return f"{link}: {description}" if description else link


def _description(page: _Page) -> str:
    r"""The first sentence of the page's first line that reads as one (``SENTENCE_WORDS``
    words or more, not a label ending in a colon), cut at a word; "" if none does.

    >>> page = _Page("/a.html", "A", (Section("/a.html", "A", "A",
    ...     "Author:\nSee also\nWelcome! Use it (e.g. Python) here. Then more."),))
    >>> _description(page)
    'Welcome! Use it (e.g. Python) here.'
    """
    for section in page.sections:
        for line in section.text.split("\n"):
            words = line.split()
            if len(words) < SENTENCE_WORDS or line.rstrip().endswith(":"):
                continue
            sentences = _SENTENCE_END.split(" ".join(words))
            taken = 1  # "Welcome!" alone says nothing: as many as make a sentence's words
            while len(" ".join(sentences[:taken]).split()) < SENTENCE_WORDS:
                taken += 1
            sentence = " ".join(sentences[:taken])
            if len(sentence) > DESCRIPTION_CHARS:
                cut = sentence[:DESCRIPTION_CHARS].rsplit(" ", 1)[0]
                sentence = cut.rstrip(",;:") + "…"
            return sentence
    return ""


def _escaped(title: str) -> str:
    return title.replace("[", "\\[").replace("]", "\\]")


@dataclass(frozen=True, slots=True)
class LlmsReport:
    """What :func:`write_llms_files` did, for the build's summary."""

    written: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # the site's own files, left as they were
    mode: Mode = "write"

    def line(self) -> str:
        if self.mode == "skip":
            return "llms.txt: none written (--llms-txt skip)"
        out = []
        listed = [name for name in self.written if not name.endswith(".md")]
        if listed:
            out.append("wrote " + ", ".join(f"/{name}" for name in listed))
        if len(listed) < len(self.written):
            out.append(f"wrote {len(self.written) - len(listed)} pages' .md")
        if self.kept:
            out.append(
                "kept the site's own "
                + ", ".join(f"/{name}" for name in self.kept)
                + " (--llms-txt overwrite replaces them)"
            )
        return "llms.txt: " + "; ".join(out)


def write_llms_files(files: Mapping[str, str], site: Path, mode: Mode = "write") -> LlmsReport:
    """Write ``files`` under ``site``, each replaced whole (a reader never sees half of
    one); a file there without ``WRITTEN_BY`` is the site's own and stays unless
    ``mode`` is ``overwrite``."""
    if mode == "skip":
        return LlmsReport(mode=mode)
    written, kept = [], []
    for name, text in sorted(files.items()):
        target = site / name
        if mode == "write" and target.exists() and not _ours(target):
            kept.append(name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(text.encode("utf-8"))
            os.chmod(staging, 0o644)
            os.replace(staging, target)
        except BaseException:
            Path(staging).unlink(missing_ok=True)
            raise
        written.append(name)
    return LlmsReport(tuple(written), tuple(kept), mode)


def _ours(path: Path) -> bool:
    with path.open("rb") as existing:
        head = existing.read(4096).decode("utf-8", errors="replace")
    return WRITTEN_BY in head
