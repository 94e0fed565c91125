"""A generator plugin's config and tags (docs_panel/build/site/head_tag.py): the keys a site owner
writes in conf.py or mkdocs.yml become the panel's, judged by the panel's own rules."""

from __future__ import annotations

import json
import re

import pytest

from docs_panel.build.site.head_tag import panel_head, site_config
from docs_panel.core.config import parse_config
from docs_panel.portable.errors import ConfigError


def test_snake_case_keys_become_the_panels_at_every_depth() -> None:
    config = site_config(
        {
            "feedback_endpoint": "/api/feedback",
            "history": {"max_bytes": 65536, "save_on_unload": False},
            "scopes": [{"id": "api", "label": "API", "prefix": "/api/"}],
            "storagePrefix": "docs",  # the panel's own spelling stays
        }
    )
    assert config == {
        "feedbackEndpoint": "/api/feedback",
        "history": {"maxBytes": 65536, "saveOnUnload": False},
        "scopes": [{"id": "api", "label": "API", "prefix": "/api/"}],
        "storagePrefix": "docs",
    }
    assert parse_config(config).errors == ()


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(ConfigError) as raised:
        site_config({"gate": 2, "idle_timeot": 5, "history": {"max": 0}})
    message = str(raised.value)
    assert "docsPanel.gate: expected a number from 0 to 1" in message
    assert 'docsPanel.idleTimeot: unknown key; did you mean "idleTimeout"?' in message
    assert "docsPanel.history.max:" in message


def test_the_config_cannot_end_its_script_element() -> None:
    head = panel_head({"scopes": [{"id": "x", "label": "</script><b>", "prefix": "/"}]})
    script = re.search(r"window\.docsPanel = (.*);\n</script>", head)
    assert script is not None and "</script><b>" not in script.group(1)
    assert json.loads(script.group(1))["scopes"][0]["label"] == "</script><b>"


@pytest.mark.parametrize(
    ("base", "src"),
    [
        ("/", "/docs-panel/embed.js"),
        ("", "/docs-panel/embed.js"),
        ("/docs/", "/docs/docs-panel/embed.js"),
        ("en/latest", "/en/latest/docs-panel/embed.js"),
    ],
)
def test_embed_js_is_under_the_sites_path(base: str, src: str) -> None:
    assert f'<script src="{src}" async></script>' in panel_head({}, base)
