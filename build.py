#!/usr/bin/env python3
"""Index a docs site and bundle the docs-panel next to it; see builder/cli.py."""

import sys

from builder.cli import main

if __name__ == "__main__":
    sys.exit(main())
