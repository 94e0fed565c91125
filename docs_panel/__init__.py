"""docs-panel as a site owner installs it: ``pip install docs-panel``.

The wheel carries the runtime bundle prebuilt (``runtime.zip``, made by
``python build.py runtimes``), so indexing a site and bundling the panel need only
Python: the ``docs-panel`` command (:mod:`docs_panel.cli`), the Sphinx extension
(:mod:`docs_panel.sphinx`) and the MkDocs plugin (:mod:`docs_panel.mkdocs`).
"""

from __future__ import annotations

from importlib import resources

from builder.runtime.runtime_archive import Runtime, read_runtime
from widget.core.errors import ConfigError

RUNTIME = "runtime.zip"


def packaged_runtime() -> Runtime:
    """The runtime this installation carries."""
    path = resources.files(__name__) / RUNTIME
    if not path.is_file():
        raise ConfigError(
            f"this docs-panel has no {RUNTIME}: a wheel is built after `python build.py "
            "runtimes`; in a checkout, use `python build.py` instead"
        )
    return read_runtime(path.read_bytes())
