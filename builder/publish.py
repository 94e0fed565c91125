"""Write the output folder so that a failed build never leaves half a bundle.

Files go to a fresh sibling folder first; only when all are written does it
replace the old output (the old one is kept until the swap succeeded)::

    publish({"embed.js": b"..."}, Path("site/docs-panel"))
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from widget.core.errors import ConfigError

MARKER = ".docs-panel-bundle"


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
