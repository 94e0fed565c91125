"""The MkDocs plugin: ``plugins: [docs-panel]`` in ``mkdocs.yml``.

Every page gets the panel's two script tags; after the build, the site is indexed and
the panel bundled into ``<site_dir>/docs-panel/``, as ``docs-panel build`` would. The
panel's config goes under the plugin's ``config`` (the keys of ``window.docsPanel``,
in either case), checked when MkDocs reads its config; the site's URL path is that of
``site_url`` (``/`` without one)::

    plugins:
      - search
      - docs-panel:
          config: {chat: false, scopes: [{id: api, label: API, prefix: /api/}]}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config import base
from mkdocs.config import config_options as options
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger

from docs_panel.build.cli import build
from docs_panel.build.site.head_tag import panel_head, site_config
from docs_panel.build.site.page_reading import default_cache
from docs_panel.packaged import packaged_runtime
from docs_panel.portable.errors import WidgetError

_logger = get_plugin_logger(__name__)


class DocsPanelConfig(base.Config):
    config = options.Type(dict, default={})


class DocsPanelPlugin(BasePlugin[DocsPanelConfig]):
    head = ""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        try:
            panel = site_config(self.config.config)
        except WidgetError as err:
            raise PluginError(f"mkdocs.yml docs-panel: {err}") from err
        self.head = panel_head(panel, _base(config))
        return config

    def on_post_page(self, output: str, /, *, page: Any, config: MkDocsConfig) -> str:
        return output.replace("</head>", self.head + "</head>", 1)

    def on_post_template(
        self, output_content: str, /, *, template_name: str, config: MkDocsConfig
    ) -> str:
        """The theme's own pages (404.html) get the panel too; sitemap.xml does not."""
        if not template_name.endswith(".html"):
            return output_content
        return output_content.replace("</head>", self.head + "</head>", 1)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        try:
            report = build(
                Path(config.site_dir),
                base=_base(config),
                runtime=packaged_runtime(),
                page_cache=default_cache(),
            )
        except WidgetError as err:
            raise PluginError(f"docs-panel: {err}") from err
        _logger.info(report.summary())


def _base(config: MkDocsConfig) -> str:
    return urlsplit(config.site_url or "").path or "/"
