"""Build steps that run in Node, their results cached by a hash of what goes in.

A step takes seconds (Pyodide under Node, binaryen), and a build runs it with the
same inputs again and again, so its result file is kept in ``~/.cache/docs-panel``
(or ``$XDG_CACHE_HOME``) under that hash; the newest few of a kind are kept::

    key = digest(driver.read_bytes(), wasm)
    wasm = cached("wasm", key, ".wasm", lambda out: run_node([driver, src, out], "prune"))
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from docs_panel.portable.errors import ConfigError

ENTRIES_KEPT = 8


def digest(*parts: bytes) -> str:
    """A hash of ``parts`` that tells their boundaries apart."""
    key = hashlib.sha256()
    for part in parts:
        key.update(hashlib.sha256(part).digest())
    return key.hexdigest()[:24]


def cached(kind: str, key: str, suffix: str, make: Callable[[Path], None]) -> Path:
    """The cache entry ``kind``-``key``; ``make`` writes it to the path it is given
    when it is missing. Never a half-written entry."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    target = Path(base) / "docs-panel" / f"{kind}-{key}{suffix}"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        made = Path(scratch) / target.name
        make(made)
        if not made.is_file():
            raise ConfigError(f"the build step for {target.name} wrote nothing")
        partial = target.with_suffix(".partial")
        shutil.copyfile(made, partial)
        partial.replace(target)
    entries = sorted(target.parent.glob(f"{kind}-*{suffix}"), key=lambda p: p.stat().st_mtime)
    for old in entries[:-ENTRIES_KEPT]:
        old.unlink(missing_ok=True)
    return target


def run_node(args: Sequence[str | Path], purpose: str) -> None:
    """Run Node with ``args``; a failure is a ConfigError that says ``purpose``."""
    node = shutil.which("node")
    if node is None:
        raise ConfigError(f"build.py needs Node.js (`node`) to {purpose}")
    run = subprocess.run([node, *map(str, args)], capture_output=True, text=True)
    if run.returncode != 0:
        raise ConfigError(f"{purpose} in Node failed:\n{run.stderr}")
    if run.stderr:  # a warning: say so, the build still works
        print(run.stderr, file=sys.stderr)
