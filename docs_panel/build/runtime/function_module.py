"""An ES module rewritten as a stub module and the body of an async function, so the
runtimes' largest modules travel gzipped whatever the host (``function_module``).

It rewrites only the shapes the pinned bundles have and refuses anything else; it
never decides which modules are rewritten (:mod:`.bundle` does).
"""

from __future__ import annotations

import json
import re

from docs_panel.portable.errors import ConfigError

STATIC_IMPORT = re.compile(r'from\s*"\./([\w.-]+\.js)"')
# What function_module rewrites, and what it refuses (a statement only a module has).
_SOURCE_MAP = re.compile(r"\n//# sourceMappingURL=\S*\s*$")
_EXPORT_LIST = re.compile(r"export\s*\{([\w$]+(?: as [\w$]+)?(?:,[\w$]+(?: as [\w$]+)?)*)\};?")
_EXPORT_DEFAULT = re.compile(r"export default ([\w$]+);")
_EXPORT_FUNCTION = re.compile(r"export ((?:async )?function\*? ?([\w$]+))")
_MODULE_STATEMENT = re.compile(
    r"(?:^|[;{}])\s*(?:import\s*(?:[{*]|\"[^\"]*\"|[\w$]+\s*from\s*\")"
    r"|export\s*(?:[{*]|default\b|const\b|let\b|var\b|class\b|(?:async\s+)?function\b))"
)
DYNAMIC_IMPORT = re.compile(r'import\("\./([\w.-]+\.js)"\)')


def function_module(source: str, body_name: str) -> tuple[bytes, bytes]:
    """An ES module of the page's runtimes as a stub module and the body of an async
    function of ``importMeta`` that runs its code and returns its exports.

    The page imports modules from their URLs, so a host that compresses nothing sends
    them as they are: PyScript's core is 133 KiB against 47 gzipped, MicroPython's
    module 106 against 30. The stub, imported in their place, fetches the body (the
    gzip twin ``body_name``, beside it) through embed.js's ``gunzipped``, runs it and
    exports what it returns::

        stub, body = function_module('const a=1;export{a as b};', "x.body.js.gz")
        # stub: const __module=await new(async()=>{}).constructor("importMeta",
        #       <x.body.js.gz, gunzipped>)({url:import.meta.url});export const{b}=__module;
        # body: "use strict";const a=1;return{b:a};

    Only the shapes these bundles have are rewritten (an export list, ``export
    default name``, exported functions; ``import.meta``; dynamic imports of chunks
    beside it, which resolve from ``importMeta.url``); anything else, such as a static
    import, is refused. ``new Function`` needs only the ``'unsafe-eval'`` the
    runtimes need anyway; a ``blob:`` module would need ``blob:`` in the site's
    ``script-src``.
    """
    exports: dict[str, str] = {}  # exported name -> local name

    def listed(match: re.Match[str]) -> str:
        for item in match.group(1).split(","):
            local, _, exported = item.partition(" as ")
            exports[exported or local] = local
        return ""

    def default(match: re.Match[str]) -> str:
        exports["default"] = match.group(1)
        return ""

    def declared(match: re.Match[str]) -> str:
        exports[match.group(2)] = match.group(2)
        return match.group(1)

    body = _SOURCE_MAP.sub("", source)
    body = _EXPORT_LIST.sub(listed, body)
    body = _EXPORT_DEFAULT.sub(default, body)
    body = _EXPORT_FUNCTION.sub(declared, body)
    if not exports or "__module" in exports or _MODULE_STATEMENT.search(body):
        raise ConfigError(f"{body_name}: the module changed shape; it cannot run as a function")
    body = body.replace("import.meta", "importMeta")
    body = DYNAMIC_IMPORT.sub(r'import(new URL("./\1",importMeta.url).href)', body)
    returned = ",".join(f"{name}:{local}" for name, local in exports.items())
    named = ",".join(name for name in exports if name != "default")
    url = f"new URL({json.dumps(body_name)},import.meta.url).href"
    code = f'await(await globalThis.__docsPanel.gunzipped({url},"text/javascript")).text()'
    stub = f'const __module=await new(async()=>{{}}).constructor("importMeta",{code})'
    stub += "({url:import.meta.url});"
    stub += f"export const{{{named}}}=__module;" if named else ""
    stub += "export default __module.default;" if "default" in exports else ""
    return stub.encode(), f'"use strict";{body}\nreturn{{{returned}}};'.encode()
