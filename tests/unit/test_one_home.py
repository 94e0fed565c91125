"""Names that both Python and the panel's JavaScript spell, held together: each test
fails when the two disagree. (Rules build.py writes into embed.js from the core, such
as the storage prefix and the session record's fields, are tested in
build/runtime/test_bundle.py.)"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import get_args

from bench.breakdown import ANSWER_MARKS, GAPS
from bench.engines import PROBE
from docs_panel.build.runtime.js_templates import ALERTS, EMBED_WORDS
from docs_panel.core.config import STORAGE_NAMES, Preload
from docs_panel.core.session import read_session, session_value
from docs_panel.portable.i18n import table
from docs_panel.portable.lifecycle import Lifecycle
from docs_panel.portable.session_fields import EMBED_FIELDS, ID, IN_FLIGHT, LEFT, OPEN

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "docs_panel"


def source(path: str) -> str:
    return (PACKAGE / path).read_text(encoding="utf-8")


def shell_sources() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted((PACKAGE / "shell").glob("*.py"))
    )


def test_the_session_record_has_the_fields_embed_js_reads() -> None:
    """The record a tab leaves on pagehide (the worker's value, marked by the shell's
    Lifecycle) carries every field embed.js reads, and the worker reads it back."""
    life = Lifecycle(clock=lambda: 0.0)
    life.ready()
    life.ask("q")
    life.next_question()
    life.started(True, json.dumps({"question": "q", "sources": [], "status": "stopped"}))
    life.update("so far")
    record = json.loads(life.leaving(json.dumps(session_value("c1")), True, True))
    assert {field: record[field] for field in EMBED_FIELDS} == {ID: "c1", LEFT: True, OPEN: True}
    assert set(record) == {ID, LEFT, OPEN, IN_FLIGHT}
    assert read_session(json.dumps(record)).conversation_id == "c1"


def test_embed_js_reads_the_session_record_only_by_the_cores_names() -> None:
    embed = source("assets/embed.js")
    assert "M.session" in embed
    assert not re.search(r"\bs\.(?:id|left|open|inflight)\b", embed)
    assert not re.search(r"""["'](?:left|inflight)["']""", embed)


def test_storage_names_used_in_embed_js_and_the_shell_are_the_configs() -> None:
    """embed.js builds the keys from the config's names (build.py writes them in); a
    name spelled where a key is looked up must be one of them."""
    embed = source("assets/embed.js")
    used = set(re.findall(r'\bkeys\.([\w]+)|\bkeys\["([^"]+)"\]', embed))
    used_in_embed = {dotted or quoted for dotted, quoted in used}
    shell = shell_sources()
    used_in_shell = set(re.findall(r'\bkeys\["([^"]+)"\]', shell))
    used_in_shell |= set(re.findall(r'\b(?:keeper|self)\.(?:get|remove)\("([^"]+)"\)', shell))
    assert used_in_embed and used_in_shell
    assert used_in_embed | used_in_shell <= set(STORAGE_NAMES)


def placeholders(value: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(value) if field}


def test_embed_js_fills_the_placeholders_its_words_have() -> None:
    """The words build.py writes into embed.js (every language's match English's:
    test_i18n) have exactly the ``{name}``s embed.js replaces."""
    english = table("en")
    wanted = set().union(*(placeholders(english[key]) for key in (*EMBED_WORDS, *ALERTS)))
    filled = set(re.findall(r'\.replace\("\{(\w+)\}"', source("assets/embed.js")))
    assert filled == wanted


def test_embed_js_branches_on_preload_values_the_config_has() -> None:
    branches = set(re.findall(r'preload === "(\w+)"', source("assets/embed.js")))
    assert branches and branches <= set(get_args(Preload)) - {"none"}


def test_the_worker_calls_the_hook_the_loader_defines() -> None:
    """The worker tells the loader a first answer is showing (time to keep a warm copy)."""
    defined = re.findall(r"globalThis\.(\w+) = \(\) =>", source("assets/pyodide-loader.mjs"))
    called = re.findall(r"\bjs\.(docsPanel\w+)\(\)", source("worker/main.py"))
    assert called and set(called) <= set(defined)


def test_storage_write_outcomes_agree() -> None:
    """embed.js's storage.set says "ok", "quota" or "error"; the shell and store.mjs
    compare against those words only."""
    embed = source("assets/embed.js")
    setter = embed[embed.index("set: (area, key, value)") : embed.index("remove: (area, key)")]
    said = set(re.findall(r'"(\w+)"', setter)) - {"QuotaExceededError"}
    assert said == {"ok", "quota", "error"}
    compared = re.findall(r'(?:==|!=)\s*"(\w+)"', source("shell/storage.py"))
    compared += re.findall(r'(?:===|!==)\s*"(\w+)"', source("assets/store.mjs"))
    assert compared and set(compared) <= said


def test_every_mark_the_benchmark_reads_is_left_by_the_panel() -> None:
    """bench/breakdown.py names performance marks the loader, worker and shell leave;
    a renamed mark would silently drop a phase from the figures."""
    sources = [p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.*js"))]
    sources += [p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))]
    text = "\n".join(sources)
    read = {mark for _, after, before in GAPS for mark in (after, before)} | set(ANSWER_MARKS)
    marks = {mark for mark in read if mark.startswith("docs-panel:")}
    composed = {"docs-panel:history-write"}  # "docs-panel:" + stored + "-write" (persistence)
    assert '"docs-panel:" + stored + "-write"' in source("shell/persistence.py")
    missing = {m for m in marks - composed if f'"{m}"' not in text}
    assert marks and missing == set()


def test_the_start_watch_hears_the_loader_and_restarts_it_cold() -> None:
    """The shell listens on the channel the loader broadcasts its signs of progress on
    (main.py), and its cold start's query (client.COLD) is the one the loader looks for."""
    loader = source("assets/pyodide-loader.mjs")
    signs = re.search(r'^const SIGNS = "([^"]+)";', loader, re.MULTILINE)
    heard = re.findall(r'BroadcastChannel\.new\("([^"]+)"\)', source("shell/main.py"))
    assert signs and heard == [signs[1]]
    cold = re.search(r'^COLD = "\?(\w+)"', source("shell/client.py"), re.MULTILINE)
    assert cold and f'searchParams.has("{cold[1]}")' in loader


def test_the_benchmark_answers_the_loaders_timeline_hello() -> None:
    """The loader tells its timeline only to a page that answers its hello on its
    channel: the benchmark's probe must use the loader's channel and words, or every
    engine's breakdown would silently come back empty."""
    loader = source("assets/pyodide-loader.mjs")
    spelled = r'const TIMELINE = \{ channel: "([^"]+)", hello: "([^"]+)", listening: "([^"]+)" \}'
    words = re.search(spelled, loader)
    assert words, "the loader's TIMELINE changed shape"
    channel, hello, listening = words.groups()
    assert f'new BroadcastChannel("{channel}")' in PROBE
    assert f'data === "{hello}" ? timeline.postMessage("{listening}")' in PROBE
