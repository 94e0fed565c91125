"""The two script tags a page carries for the panel, and a site owner's config for them.

A generator plugin (``docs_panel.sphinx``, ``docs_panel.mkdocs``) takes the config in
its own file, where Python and YAML write ``feedback_endpoint`` as readily as
``feedbackEndpoint``: keys are turned to the panel's camelCase, then judged by the
panel's own rules (:func:`docs_panel.core.config.parse_config`); a bad value stops the
build with every problem named, instead of a ``console.error`` on each page later::

    >>> site_config({"idle_timeout": 60, "history": {"max_bytes": 65536}})
    {'idleTimeout': 60, 'history': {'maxBytes': 65536}}
    >>> site_config({"gate": 2})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    docs_panel.portable.errors.ConfigError: docs-panel config: docsPanel.gate: expected a number ...
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from docs_panel.core.config import parse_config
from docs_panel.portable.errors import ConfigError

PANEL_FOLDER = "docs-panel"
_SNAKE = re.compile(r"_([a-z0-9])")


def site_config(options: Mapping[str, object]) -> dict[str, object]:
    """``options`` with camelCase keys, checked as the panel checks ``window.docsPanel``."""
    config = _camel(dict(options))
    errors = parse_config(config).errors
    if errors:
        raise ConfigError("docs-panel config: " + "; ".join(errors))
    assert isinstance(config, dict)
    return config


def panel_head(config: Mapping[str, object], base: str = "/") -> str:
    """``window.docsPanel`` set to ``config``, and embed.js from the site's panel folder."""
    # "</" would end the script element early.
    config_js = json.dumps(config).replace("</", "<\\/")
    src = "/" + "/".join(part for part in (base.strip("/"), PANEL_FOLDER) if part)
    return (
        f"<script>\n  window.docsPanel = {config_js};\n</script>\n"
        f'<script src="{src}/embed.js" async></script>'
    )


def _camel(value: object) -> object:
    if isinstance(value, dict):
        return {
            _SNAKE.sub(lambda m: m.group(1).upper(), k) if isinstance(k, str) else k: _camel(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_camel(item) for item in value]
    return value
