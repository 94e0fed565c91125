"""The runtime a wheel carries (``runtime.zip``), for the command and the plugins."""

from __future__ import annotations

from importlib import resources

from docs_panel.build.runtime.runtime_archive import Runtime, read_runtime
from docs_panel.portable.errors import ConfigError

RUNTIME = "runtime.zip"


def packaged_runtime() -> Runtime:
    """The runtime this installation carries."""
    path = resources.files("docs_panel") / RUNTIME
    if not path.is_file():
        raise ConfigError(
            f"this docs-panel has no {RUNTIME}: a wheel is built after `python build.py "
            "runtimes`; in a checkout, use `python build.py` instead"
        )
    return read_runtime(path.read_bytes())
