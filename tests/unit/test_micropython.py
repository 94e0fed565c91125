"""``docs_panel.portable``, as the bundle ships it to the shell, runs in MicroPython (the
shell's runtime, under Node from the pinned npm package) exactly as in CPython (that the
shell imports nothing else of the package is test_rooms.py's)."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import shutil
import subprocess

import pytest

from docs_panel.build.runtime.paths import MICROPYTHON_DIR, PACKAGE
from docs_panel.build.runtime.python_sources import PORTABLE, shell_files

# One story through the shared modules; each line it prints must match in both runtimes.
SCENARIO = """
import json
from docs_panel.portable.errors import LifecycleError, ProtocolError
from docs_panel.portable.i18n import direction, relative_time, table, text
from docs_panel.portable.lifecycle import Lifecycle
from docs_panel.portable.protocol import arguments, decode_reply, encode_reply
from docs_panel.portable.copy_text import answer_markdown

turn = {"question": "q", "quote": "", "status": "done", "scope": "", "answer": "<p>a</p>",
        "sources": [{"address": "/a.html", "title": "A", "ref": 1}], "results": [], "key": "1",
        "text": "a [1]",
        "feedback": {"vote": "", "reasons": [], "sentence": ""}}
reply = decode_reply("finish", json.loads(encode_reply("finish", {"turn": turn, "session": "{}"})))
print(reply.turn.sources[0].address, reply.turn.sources[0].ref, reply.turn.status)
print(answer_markdown(reply.turn.text, [("A [b]", "https://d.org/a b(1)", 1), ("C", "/c", 0)], "S"))
for bad in [(None, 1), (None, True, 3), ("x", "yes")]:
    try:
        arguments("save", bad)
    except ProtocolError as err:
        print(err)
try:
    wrong = dict(turn, sources=[{"address": "/", "title": "", "ref": True}])
    encode_reply("finish", {"turn": wrong, "session": ""})
except ProtocolError as err:
    print(err)
now = [0.0]
life = Lifecycle(clock=lambda: now[0])
print(life.ask("first"), life.state)
life.ready()
print(life.next_question(), life.state)
print(life.started(True, json.dumps({"question": "first", "sources": []})), life.state)
now[0] = 2.5
print(life.update("Retry "), life.update("it."), life.stop(), life.stop(), life.state)
left = json.loads(life.leaving(json.dumps({"id": "c1", "left": False}), True, True))
print(sorted(left), left["inflight"]["answer"])
print(life.end(True), life.state)
try:
    life.handle("ready")
except LifecycleError as err:
    print(err)
life.stored()
print(life.state, life.under_way)
from docs_panel.portable.lifecycle import FIRST_SIGN_S, QUIET_S, StartWatch
watch = StartWatch(clock=lambda: now[0])
now[0] += FIRST_SIGN_S
print(watch.check())
watch.sign()
now[0] += QUIET_S - 1
print(watch.check())
now[0] += 1
print(watch.check(), watch.check())
try:
    watch.up()
except LifecycleError as err:
    print(err)
language = "zh"
print(direction("ar-EG"), direction("pt_BR"), len(table("ar")), table("xx") is table("en"))
print(text(language, "throttled_in", n=3), text("de", "asked_in", scope="API"))
print(relative_time(then_ms=0, now_ms=3 * 86_400_000))
from docs_panel.portable.errors import PageApiError
from docs_panel.portable.page_api import conversation_id, event_detail, parse_call
for call in [("open", [{"question": "q?", "submit": True, "scope": "api"}]), ("open", []),
             ("close", []), ("ask", ["q?"])]:
    name, options = parse_call(*call)
    print(name, sorted(options.items()))  # MicroPython's dicts keep no insertion order
for name, bad in [("open", ["x"]), ("open", [{"submit": True}]), ("open", [{"as": 1}]),
                  ("ask", []), ("ask", [" "]), ("close", [1]), ("submit", [])]:
    try:
        parse_call(name, bad)
    except PageApiError as err:
        print(err)
print(sorted(event_detail({"sources": 2}, {"question": "q"}, True).items()))
print(event_detail({"sources": 2}, {"question": "q"}, False), conversation_id('{"id": "c1"}'))
print(conversation_id("garbage"), conversation_id(None), conversation_id("[1]"))
"""


def in_cpython() -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(SCENARIO, {})
    return out.getvalue().splitlines()


RUNNER = """
const [runtime, files, script] = JSON.parse(process.argv[1]);
const { loadMicroPython } = await import(runtime);
const lines = [];
const mp = await loadMicroPython({ stdout: (line) => lines.push(line), linebuffer: true });
for (const [path, text] of Object.entries(files)) {
  const parts = ("lib/" + path).split("/");
  for (let depth = 1; depth < parts.length; depth++) {
    try { mp.FS.mkdir("/" + parts.slice(0, depth).join("/")); } catch {}  // already there
  }
  mp.FS.writeFile("/lib/" + path, text);
}
mp.runPython("import sys\\nsys.path.append('/lib')\\n" + script);
console.log(JSON.stringify(lines));
"""


def in_micropython(script: str) -> list[str]:
    """What ``script`` prints in MicroPython, with the portable modules as the shell gets them."""
    shipped = json.loads(gzip.decompress(shell_files()))
    files = {
        path: text for path, text in shipped.items() if not path.startswith("docs_panel/shell/")
    }
    runtime = (MICROPYTHON_DIR / "micropython.mjs").as_uri()
    run = subprocess.run(
        ["node", "--input-type=module", "-e", RUNNER, json.dumps([runtime, files, script])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return list(json.loads(run.stdout.splitlines()[-1]))


def portable_modules() -> list[str]:
    """Every module of ``docs_panel.portable``, by dotted name."""
    paths = sorted(PORTABLE.rglob("*.py"))
    names = [".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts) for p in paths]
    return [name.removesuffix(".__init__") for name in names]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node (npm brings it)")
def test_the_portable_modules_behave_the_same_in_micropython() -> None:
    """protocol.py, lifecycle.py and i18n.py print the same story in MicroPython as in CPython."""
    assert in_micropython(SCENARIO) == in_cpython()


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node (npm brings it)")
def test_every_portable_module_imports_in_micropython() -> None:
    """Each module of the folder the shell gets whole imports in MicroPython: one that
    needs what MicroPython lacks fails here, by name, not in a reader's browser."""
    modules = portable_modules()
    script = f"for name in {modules!r}:\n    __import__(name)\n    print(name)\n"
    assert in_micropython(script) == modules
