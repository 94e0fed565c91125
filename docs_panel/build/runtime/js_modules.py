"""One of the panel's scripts with the modules it imports written into it.

``pyodide-loader.mjs`` keeps orchestration only; its pure parts live in modules
beside it (``docs_panel/assets/*.mjs``) so Node tests can import them. The bundle
still ships one loader: a second request for each part would come after the
loader's own, on the path of every start, and a separate file would need its
hashed name written into the loader. Each import becomes a block of its own
scope that returns what was imported (top-level names of two modules never
meet), and terser then minifies the whole::

    import { a } from "./x.mjs";       const { a } = (() => {
                                  →      function a() {}  // x.mjs, without `export`
                                         return { a };
                                       })();

Only the shapes our modules use are rewritten: a one-line named import of a
module beside the script, and ``export`` before a ``function``, ``const`` or
``class``. Anything else (an import inside an imported module, an export list,
a default export, an import the rule does not read) is refused with the file's
name, never shipped half-rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path

from docs_panel.portable.errors import ConfigError

_IMPORT = re.compile(r'^import \{ ([\w$]+(?:, [\w$]+)*) \} from "\./([\w-]+\.mjs)";\n', re.M)
_EXPORT = re.compile(r"^export ((?:async )?function\*? ?([\w$]+)|(?:const|class) ([\w$]+))", re.M)
# A static import or an export statement left once the shapes above are rewritten
# (``import.meta`` and ``import(…)`` are expressions, not statements).
_STATIC_IMPORT = re.compile(r"^\s*import\b(?![.(])", re.M)
_EXPORT_LEFT = re.compile(r"^\s*export\b", re.M)


def inlined(source: str, folder: Path, name: str) -> str:
    """``source`` (the script ``name`` in ``folder``) with its imports written in."""
    seen: set[str] = set()

    def module(match: re.Match[str]) -> str:
        imported, path = match.group(1).split(", "), match.group(2)
        if path in seen:
            raise ConfigError(f"{name} imports ./{path} twice: import it in one statement")
        seen.add(path)
        body, exported = _without_exports((folder / path).read_text(encoding="utf-8"), path)
        missing = sorted(set(imported) - exported)
        if missing:
            raise ConfigError(f"{name} imports {', '.join(missing)} from ./{path}, which lacks it")
        names = ", ".join(imported)
        return f"const {{ {names} }} = (() => {{\n{body}\nreturn {{ {names} }};\n}})();\n"

    out = _IMPORT.sub(module, source)
    if _STATIC_IMPORT.search(_IMPORT.sub("", source)):
        raise ConfigError(f"{name}: an import build.py cannot inline (one line, ./name.mjs)")
    return out


def _without_exports(source: str, path: str) -> tuple[str, set[str]]:
    exported: set[str] = set()

    def declared(match: re.Match[str]) -> str:
        exported.add(match.group(2) or match.group(3))
        return match.group(1)

    body = _EXPORT.sub(declared, source)
    if _STATIC_IMPORT.search(body) or _EXPORT_LEFT.search(body):
        raise ConfigError(f"{path}: only `export function|const|class` can be inlined")
    return body, exported
