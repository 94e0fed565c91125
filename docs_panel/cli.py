"""``docs-panel build SITE``: ``python build.py``'s build, with the wheel's runtime."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from docs_panel.build.cli import main as build_main
from docs_panel.packaged import packaged_runtime


def main(argv: Sequence[str] | None = None) -> int:
    return build_main(argv, prog="docs-panel", runtime=packaged_runtime)


if __name__ == "__main__":
    sys.exit(main())
