"""docs-panel as a site owner installs it: ``pip install docs-panel``.

The wheel carries the runtime bundle prebuilt (``runtime.zip``, made by
``python build.py runtimes``), so indexing a site and bundling the panel need only
Python: the ``docs-panel`` command (:mod:`docs_panel.cli`), the Sphinx extension
(:mod:`docs_panel.sphinx`) and the MkDocs plugin (:mod:`docs_panel.mkdocs`).
"""
