"""The Sphinx extension: ``extensions = ["docs_panel.sphinx"]`` in ``conf.py``.

Every page of an HTML build (``html``, ``dirhtml``, ``singlehtml``) gets the panel's
two script tags; once the build has finished, the site is indexed and the panel
bundled into ``<outdir>/docs-panel/``, as ``docs-panel build`` would. The panel's
config is ``docs_panel = {...}`` in ``conf.py`` (the keys of ``window.docsPanel``, in
either case: ``feedback_endpoint`` or ``feedbackEndpoint``), checked when the config
is read; the site's URL path is that of ``html_baseurl`` (``/`` without one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError as SphinxConfigError
from sphinx.errors import ExtensionError
from sphinx.util import logging

from docs_panel.build.cli import build
from docs_panel.build.site.head_tag import panel_head, site_config
from docs_panel.build.site.page_reading import default_cache
from docs_panel.packaged import packaged_runtime
from docs_panel.portable.errors import WidgetError

_logger = logging.getLogger(__name__)
#: The builders whose output a browser serves; epub and the rest are HTML of another kind.
BUILDERS = frozenset({"html", "dirhtml", "singlehtml"})
_HEAD = "docs_panel_head"  # the tags, kept on the app between events


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("docs_panel", {}, "html", types=frozenset({dict}))
    app.connect("config-inited", _read_config)
    app.connect("html-page-context", _add_tags)
    app.connect("build-finished", _bundle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def _base(config: Config) -> str:
    return urlsplit(str(config.html_baseurl or "")).path or "/"


def _read_config(app: Sphinx, config: Config) -> None:
    try:
        panel = site_config(config.docs_panel)
    except WidgetError as err:
        raise SphinxConfigError(f"conf.py docs_panel: {err}") from err
    setattr(app, _HEAD, panel_head(panel, _base(config)))


def _add_tags(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object
) -> None:
    if app.builder.name in BUILDERS:
        context["metatags"] = context.get("metatags", "") + getattr(app, _HEAD)


def _bundle(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.name not in BUILDERS:
        return
    try:
        report = build(
            Path(app.outdir),
            base=_base(app.config),
            runtime=packaged_runtime(),
            page_cache=default_cache(),
        )
    except WidgetError as err:
        raise ExtensionError(f"docs-panel: {err}") from err
    _logger.info(report.summary())
