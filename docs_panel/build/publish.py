"""Write the output folder so that a failed build never leaves half a bundle.

Files go to a fresh sibling folder first; only when all are written does it
replace the old output (the old one is kept until the swap succeeded)::

    publish({"embed.js": b"..."}, Path("site/docs-panel"))

The previous build's files that the new one does not have stay for one more
build (``PREVIOUS`` lists them): a page opened before a deploy still names
them, and a panel open in it still fetches parts of its index as readers ask.
Their names carry content hashes, so they never clash with the new build's.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from docs_panel.portable.errors import ConfigError

MARKER = ".docs-panel-bundle"
PREVIOUS = ".docs-panel-previous"
#: The one name that stays and changes (it names all others): never carried over.
ENTRY = ("embed.js", "embed.js.gz")


def publish(files: Mapping[str, bytes], out: Path) -> None:
    """Replace ``out`` with exactly ``files``; refuse to replace a folder we did not make."""
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        raise ConfigError(
            f"{out} exists and was not written by build.py; choose another --out or empty it"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        for name, data in sorted(files.items()):
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        carried = _previous_build(out, files)
        for name in carried:
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out / name, staging / name)
        (staging / PREVIOUS).write_text("".join(f"{name}\n" for name in carried))
        (staging / MARKER).write_text("written by docs-panel build.py; replaced on each build\n")
        old = out.parent / f".{out.name}.old"
        if old.exists():
            shutil.rmtree(old)
        if out.exists():
            out.rename(old)
        staging.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _previous_build(out: Path, files: Mapping[str, bytes]) -> list[str]:
    """The files of the build in ``out`` (not those it carried) that ``files`` lacks."""
    if not (out / MARKER).exists():
        return []
    older = set((out / PREVIOUS).read_text().split()) if (out / PREVIOUS).exists() else set()
    names = (p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    skip = {MARKER, PREVIOUS, *ENTRY, *older, *files}
    return sorted(name for name in names if name not in skip)
