"""The site owner's report on readers' votes: one static HTML page with inline SVG
plots, readable offline and without a server (no script, no CDN, no web font).

Its input is any iterable of vote reports, the dicts a feedback endpoint receives
(``docs_panel.core.feedback.report``; docs/votes.md): ``build.py report votes.jsonl``
reads them from a JSON-lines file, and a server's database can hand over its rows
the same way::

    html = report_page(reports, source="votes.jsonl")

A vote changed or taken back arrives again under the same ``id``: the latest report
of an id counts (a taken-back vote, ``vote: null``, removes it). What is drawn:
votes per day (UTC), the pages most cited by "Not helpful" answers, the reasons
ticked, and the questions answered with search results because the retrieval gate
stayed closed (``gate.top_score`` under ``gate.threshold``). Every figure also
stands in a table, for screen readers and for copying.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import cast

from docs_panel.core.feedback import REASONS
from docs_panel.portable.i18n import table
from docs_panel.server.report_shape import ReportError, validate_report

TOP: int = 10  # rows in the "most" charts
_WORDS = table("en")
HELPFUL, NOT_HELPFUL = "#2f5bd3", "#b3261e"


@dataclass
class Summary:
    """What the page shows, counted from the latest report of each vote id."""

    votes: int = 0
    per_day: dict[str, Counter[str]] = field(default_factory=dict)  # day -> up/down
    down_pages: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    gate_closed: Counter[str] = field(default_factory=Counter)  # question -> votes


def _checked(report: object, where: str) -> Mapping[str, object]:
    """``report`` if it has the shape a feedback endpoint takes (``report_shape``'s one
    allow-list), else ``ReportError`` naming where and which field."""
    try:
        validate_report(report)
    except ReportError as err:
        raise ReportError(f"{where}: {err}") from None
    assert isinstance(report, Mapping)
    return report


def _pages(report: Mapping[str, object]) -> list[str]:
    sources = cast(list[dict[str, str]], report["sources"])
    return list(dict.fromkeys(s["address"].partition("#")[0] for s in sources))


def _gate_closed(report: Mapping[str, object]) -> bool:
    gate = cast(dict[str, float] | None, report["gate"])
    return gate is not None and gate["top_score"] < gate["threshold"]


def summarize(reports: Iterable[object]) -> Summary:
    """Count the latest report of each vote id; ``ReportError`` names a malformed one."""
    latest: dict[str, tuple[int, int, Mapping[str, object]]] = {}
    for number, value in enumerate(reports, start=1):
        report = _checked(value, f"report {number}")
        vote_id, at = cast(str, report["id"]), cast(int, report["voted_at"])
        if vote_id not in latest or (at, number) >= latest[vote_id][:2]:
            latest[vote_id] = (at, number, report)
    summary = Summary()
    for at, _, report in sorted(latest.values(), key=lambda kept: kept[:2]):
        vote = cast(str | None, report["vote"])
        if vote is None:  # taken back
            continue
        summary.votes += 1
        day = time.strftime("%Y-%m-%d", time.gmtime(at / 1000))
        summary.per_day.setdefault(day, Counter())[vote] += 1
        if vote == "down":
            summary.down_pages.update(_pages(report))
            summary.reasons.update(cast(list[str], report["reasons"]) or ["(none given)"])
        if _gate_closed(report):
            summary.gate_closed[" ".join(cast(str, report["question"]).split())] += 1
    return summary


def read_jsonl(path: Path) -> Iterator[Mapping[str, object]]:
    """The reports of a JSON-lines file (blank lines skipped); errors name the line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise ReportError(f"{path}: cannot read it ({err})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as err:
            raise ReportError(f"{path}:{number}: not JSON ({err})") from None
        if not isinstance(value, dict):
            raise ReportError(f"{path}:{number}: expected one JSON object per line")
        yield value


# --- Drawing ---------------------------------------------------------------------------


def _day_bars(per_day: dict[str, Counter[str]]) -> str:
    """Stacked bars per day: Helpful below, Not helpful above."""
    days = sorted(per_day)
    if not days:
        return ""
    height, gap, left = 200, 6, 36
    bar = max(6, min(40, 600 // len(days) - gap))
    every = math.ceil(44 / (bar + gap))  # a "12-31" label is about 40 px wide
    most = max(sum(c.values()) for c in per_day.values())
    scale = (height - 30) / most
    width = left + len(days) * (bar + gap) + 10
    parts = [f'<line x1="{left}" y1="{height - 20}" x2="{width}" y2="{height - 20}" class="axis"/>']
    parts.append(f'<text x="{left - 6}" y="{height - 20}" class="tick" text-anchor="end">0</text>')
    parts.append(f'<text x="{left - 6}" y="14" class="tick" text-anchor="end">{most}</text>')
    for n, day in enumerate(days):
        x = left + n * (bar + gap) + gap
        up, down = per_day[day]["up"], per_day[day]["down"]
        y_up = height - 20 - up * scale
        y_down = y_up - down * scale
        tip = f"{day}: {up} {_WORDS['helpful']}, {down} {_WORDS['not_helpful']}"
        parts.append(
            f"<g><title>{escape(tip)}</title>"
            f'<rect x="{x}" y="{y_up:.1f}" width="{bar}" height="{up * scale:.1f}"'
            f' fill="{HELPFUL}"/>'
            f'<rect x="{x}" y="{y_down:.1f}" width="{bar}" height="{down * scale:.1f}"'
            f' fill="{NOT_HELPFUL}"/></g>'
        )
        if n % every == 0:
            middle = x + bar / 2
            parts.append(
                f'<text x="{middle:.1f}" y="{height - 5}" class="tick" text-anchor="middle">'
                f"{day[5:]}</text>"
            )
    label = "Votes per day: Helpful in blue, Not helpful in red"
    return (
        f'<svg role="img" aria-label="{label}" viewBox="0 0 {width} {height}"'
        f' width="{width}" height="{height}">{"".join(parts)}</svg>'
    )


def _hbars(counts: list[tuple[str, int]], color: str, label: str) -> str:
    """Horizontal bars, one per (label, count), longest first."""
    if not counts:
        return ""
    row, width, text_w = 24, 640, 300
    most = max(count for _, count in counts)
    parts = []
    for n, (name, count) in enumerate(counts):
        y = n * row
        length = (width - text_w - 50) * count / most
        shown = name if len(name) <= 46 else name[:45] + "…"
        parts.append(
            f"<g><title>{escape(name)}: {count}</title>"
            f'<text x="{text_w - 8}" y="{y + 16}" text-anchor="end" class="label">'
            f"{escape(shown)}</text>"
            f'<rect x="{text_w}" y="{y + 4}" width="{length:.1f}" height="{row - 8}"'
            f' fill="{color}"/>'
            f'<text x="{text_w + length + 6:.1f}" y="{y + 16}" class="tick">{count}</text></g>'
        )
    height = len(counts) * row
    return (
        f'<svg role="img" aria-label="{escape(label)}" viewBox="0 0 {width} {height}"'
        f' width="{width}" height="{height}">{"".join(parts)}</svg>'
    )


def _table(head: tuple[str, ...], rows: Iterable[tuple[object, ...]]) -> str:
    cells = "".join(f"<th scope=col>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _section(title: str, chart: str, data: str, empty: str) -> str:
    inner = (
        f"{chart}<details><summary>Data</summary>{data}</details>" if chart else f"<p>{empty}</p>"
    )
    return f"<section><h2>{escape(title)}</h2>{inner}</section>"


def _reason_label(reason: str) -> str:
    return _WORDS[f"reason_{reason}"] if reason in REASONS else reason


_STYLE = """
body { margin: 2rem auto; max-width: 760px; padding: 0 1rem; color: #1d2330;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.lead { color: #5b6478; margin-top: 0; }
.figures { display: flex; gap: 1.5rem; } .figures b { display: block; font-size: 1.6rem; }
svg { display: block; max-width: 100%; height: auto; margin: .5rem 0; }
svg .tick, svg .label { font: 12px system-ui, sans-serif; fill: #1d2330; }
svg .axis { stroke: #5b6478; }
table { border-collapse: collapse; margin: .5rem 0; font-size: 14px; }
th, td { border: 1px solid #dde1ea; padding: 3px 8px; text-align: start; }
summary { cursor: pointer; color: #2f5bd3; }
.key span { display: inline-block; width: .8em; height: .8em; margin-inline: .8em .3em; }
"""


def report_page(reports: Iterable[Mapping[str, object]], *, source: str = "") -> str:
    """The whole HTML page for ``reports`` (see the module doc)."""
    summary = summarize(reports)
    up = sum(c["up"] for c in summary.per_day.values())
    down = summary.votes - up
    days = sorted(summary.per_day)
    span = f"{days[0]} to {days[-1]}" if days else "no votes yet"
    pages = summary.down_pages.most_common(TOP)
    reasons = [(_reason_label(r), n) for r, n in summary.reasons.most_common()]
    closed = summary.gate_closed.most_common(TOP)
    key = (
        f'<p class="key"><span style="background:{HELPFUL}"></span>{_WORDS["helpful"]}'
        f'<span style="background:{NOT_HELPFUL}"></span>{_WORDS["not_helpful"]}</p>'
    )
    sections = [
        _section(
            "Votes per day (UTC)",
            key + _day_bars(summary.per_day) if days else "",
            _table(
                ("Day", _WORDS["helpful"], _WORDS["not_helpful"]),
                ((d, summary.per_day[d]["up"], summary.per_day[d]["down"]) for d in days),
            ),
            "No votes yet.",
        ),
        _section(
            'Pages most cited in "Not helpful" answers',
            _hbars(pages, NOT_HELPFUL, 'Pages most cited in "Not helpful" answers'),
            _table(("Page", "Not helpful answers citing it"), pages),
            'No "Not helpful" answer cited a page.',
        ),
        _section(
            'Reasons given with "Not helpful"',
            _hbars(reasons, NOT_HELPFUL, 'Reasons given with "Not helpful"'),
            _table(("Reason", "Votes"), reasons),
            'No "Not helpful" votes.',
        ),
        _section(
            "Questions answered with search results (the gate stayed closed)",
            _hbars(closed, HELPFUL, "Questions answered with search results"),
            _table(("Question (redacted)", "Votes"), closed),
            "None: every voted question cleared the gate.",
        ),
    ]
    figures = "".join(
        f"<p><b>{value}</b>{escape(name)}</p>"
        for name, value in (
            ("votes", summary.votes),
            (_WORDS["helpful"], up),
            (_WORDS["not_helpful"], down),
            ("answered from search results", sum(summary.gate_closed.values())),
        )
    )
    origin = f" from {escape(source)}" if source else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>docs-panel: readers' votes</title><style>{_STYLE}</style></head><body>"
        f"<h1>Readers' votes</h1><p class=lead>{escape(span)}{origin}; the latest vote of each"
        " answer counts.</p>"
        f'<div class="figures">{figures}</div>{"".join(sections)}</body></html>\n'
    )


SQLITE_MAGIC = b"SQLite format 3\x00"  # the first bytes of every SQLite database file


def read_votes(source: str) -> tuple[list[Mapping[str, object]], str]:
    """The reports in ``source`` and its name for the page: a JSON-lines file, the
    SQLite file a server install keeps, or its ``postgresql://`` database."""
    if source.startswith(("postgresql://", "postgres://")):
        return _stored(source), source.rpartition("/")[2] or "PostgreSQL"
    path = Path(source)
    try:
        with path.open("rb") as file:
            is_sqlite = file.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError as err:
        raise ReportError(f"{path}: cannot read it ({err})") from None
    return (_stored(source) if is_sqlite else list(read_jsonl(path))), path.name


def _stored(database: str) -> list[Mapping[str, object]]:
    """Every vote id's current report in a server install's store."""
    from docs_panel.server.votes.store import open_votes  # the server extra, only for a database

    async def read() -> list[dict[str, object]]:
        store = await open_votes(database, default_path=Path(database))
        try:
            return await store.reports()
        finally:
            await store.close()

    # In a thread of its own: the caller's may already run an event loop.
    with ThreadPoolExecutor(1) as pool:
        return list(pool.submit(asyncio.run, read()).result())


def write_report(source: str, out: Path) -> Summary:
    """``build.py report``: the page for ``source`` (``read_votes``), written whole or
    not at all."""
    reports, name = read_votes(source)
    page = report_page(reports, source=name)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(page, encoding="utf-8")
    partial.replace(out)
    return summarize(reports)
