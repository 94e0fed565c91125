"""build.py as a site owner runs it: output where asked, clear errors, nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_panel.build.cli import main
from docs_panel.core.docs_index import load_index

PAGE = (
    "<html><head><title>T</title></head><body><main>"
    "<h1 id='t'>Title</h1><p>Text about widgets.</p></main></body></html>"
)


def site_with_pages(root: Path) -> Path:
    (root / "guide").mkdir(parents=True)
    (root / "index.html").write_text(PAGE)
    (root / "guide" / "start.md").write_text("# Start\n\n## Install\n\nRun the installer.\n")
    return root


def test_builds_next_to_the_site_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--site DIR` writes DIR/docs-panel/ with embed.js and reports what it indexed."""
    site = site_with_pages(tmp_path / "site")
    assert main(["--site", str(site)]) == 0
    assert (site / "docs-panel" / "embed.js").is_file()
    assert "3 sections from 2 pages" in capsys.readouterr().out


def test_rebuild_does_not_index_its_own_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Building twice gives the same bytes: the bundle inside the site is never indexed."""
    site = site_with_pages(tmp_path / "site")
    main(["--site", str(site)])
    first = {p.name: p.read_bytes() for p in (site / "docs-panel").iterdir() if p.is_file()}
    main(["--site", str(site)])
    again = {p.name: p.read_bytes() for p in (site / "docs-panel").iterdir() if p.is_file()}
    assert again == first


def test_out_and_base(tmp_path: Path) -> None:
    """`--out` picks the folder and `--base` puts every address under the site's path."""
    site = site_with_pages(tmp_path / "site")
    out = tmp_path / "public" / "docs-panel"
    assert main(["--site", str(site), "--out", str(out), "--base", "/docs/"]) == 0
    index = load_index(json.loads(next(out.glob("index.*.json")).read_text()))
    assert index.lookup("/docs/guide/start.html#install") is not None
    assert index.lookup("/guide/start.html#install") is None
    assert not (site / "docs-panel").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda root: None, "no"),  # an empty folder: no pages
        (lambda root: (root / "a.html").write_bytes(b"\xff\xfe<h1>bad"), "a.html"),
    ],
    ids=["no-pages", "undecodable-file"],
)
def test_bad_input_exits_1_and_keeps_the_old_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: object, message: str
) -> None:
    """Bad input: one clear line on stderr, status 1, the previous output untouched."""
    site = tmp_path / "site"
    site.mkdir()
    out = tmp_path / "out"
    good = site_with_pages(tmp_path / "good")
    assert main(["--site", str(good), "--out", str(out)]) == 0
    before = sorted(p.name for p in out.iterdir())
    setup(site)  # type: ignore[operator]
    capsys.readouterr()
    assert main(["--site", str(site), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("build.py: error: ") and message in err.lower() and err.count("\n") == 1
    assert sorted(p.name for p in out.iterdir()) == before


def test_missing_site_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --site that is not a folder is named in the error."""
    assert main(["--site", str(tmp_path / "nope")]) == 1
    assert "nope" in capsys.readouterr().err
