"""``docs-panel build SITE`` (docs_panel/cli.py): build.py's options with the site as an
argument and the runtime the installation carries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import docs_panel.packaged
from docs_panel.build.cli import main
from docs_panel.build.runtime.runtime_cache import cached_runtime
from docs_panel.portable.errors import ConfigError

SPHINX = Path(__file__).parent.parent / "fixtures" / "sites" / "sphinx"


def test_the_site_may_be_given_as_an_argument(tmp_path: Path) -> None:
    shutil.copytree(SPHINX, tmp_path / "site")
    status = main(["build", str(tmp_path / "site"), "--out", str(tmp_path / "out")])
    assert status == 0
    assert (tmp_path / "out" / "embed.js").is_file()


def test_the_site_is_given_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["build", str(tmp_path), "--site", str(tmp_path)], prog="docs-panel")
    assert raised.value.code == 2
    assert "give the site once: SITE or --site SITE" in capsys.readouterr().err


def test_the_installed_command_builds_only_sites(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("serve", "runtimes"):
        with pytest.raises(SystemExit):
            main([command], prog="docs-panel", runtime=cached_runtime)
        assert f"invalid choice: '{command}'" in capsys.readouterr().err


def test_an_installation_without_its_runtime_says_how_to_make_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(docs_panel.packaged, "RUNTIME", "no-such-runtime.zip")
    with pytest.raises(ConfigError, match=r"no no-such-runtime\.zip: .*python build\.py runtimes"):
        docs_panel.packaged.packaged_runtime()
