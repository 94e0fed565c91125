"""embed.js and the Pyodide loader as templates: the panel's JavaScript with its modules
inlined and minified, a placeholder standing for the manifest each site fills in, and
the words embed.js shows before the shell exists.

It never decides what a manifest holds (:mod:`.bundle` does).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

from docs_panel.build.runtime.js_modules import inlined
from docs_panel.build.runtime.node_cache import cached, digest, run_node
from docs_panel.build.runtime.paths import NODE_MODULES, PACKAGE, ROOT
from docs_panel.build.runtime.twins import json_bytes
from docs_panel.portable.errors import ConfigError
from docs_panel.portable.i18n import table

MANIFEST_MARK = "__DOCS_PANEL_MANIFEST__"
LOADER_MARK = "__DOCS_PANEL_LOADER__"
# What embed.js shows before the shell exists, from each language's table, in order;
# and its alerts, fetched only when one is shown (see ``alerts``).
EMBED_WORDS = ("launcher", "launcher_title", "key_ctrl", "ask_about_this")
ALERTS = ("csp_blocked", "start_failed")
# The panel's own JavaScript goes out minified, by terser from npm (pinned).
MINIFY_JS = ROOT / "docs_panel" / "build" / "runtime" / "minify_js.mjs"
TERSER = NODE_MODULES / "terser" / "package.json"


def alerts(language: str) -> list[str]:
    """embed.js's alerts in ``language``, as ``ALERTS`` orders them."""
    return [table(language)[key] for key in ALERTS]


def template(asset: str, mark: str, *, module: bool = False) -> str:
    """``docs_panel/assets/<asset>`` with the modules it imports inlined
    (:mod:`docs_panel.build.runtime.js_modules`), minified, ``mark`` standing for its manifest."""
    assets = PACKAGE / "assets"
    source = inlined((assets / asset).read_text(encoding="utf-8"), assets, asset)
    template = _minified(source.encode("utf-8"), module=module).decode()
    if mark not in template:
        raise ConfigError(f"docs_panel/assets/{asset} lost its {mark} placeholder")
    return template


def filled(template: str, mark: str, values: Mapping[str, object]) -> bytes:
    """``template`` with ``values`` as a JSON object in place of ``mark`` (its ``M``)."""
    return template.replace(mark, json_bytes(values).decode("utf-8")).encode("utf-8")


def _minified(source: bytes, *, module: bool) -> bytes:
    """Our JS minified (terser, in Node; cached): comments, spaces and long local names
    are for this repository's readers, and every page pays for embed.js, every start
    for the loader (embed.js: 5,079 → 4,531 bytes gzipped)."""
    kind = "module" if module else "script"
    key = digest(MINIFY_JS.read_bytes(), TERSER.read_bytes(), kind.encode(), source)

    def make(out: Path) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            plain = Path(scratch) / "plain.js"
            plain.write_bytes(source)
            run_node([MINIFY_JS, plain, out, kind], "minify the panel's JavaScript")

    return cached("js", key, ".js", make).read_bytes()
