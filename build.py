#!/usr/bin/env python3
"""Index a docs site and bundle the docs-panel next to it; see docs_panel/build/cli.py."""

import sys

from docs_panel.build.cli import main

if __name__ == "__main__":
    sys.exit(main())
