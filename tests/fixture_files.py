"""Where the suite's fixture files live, and the one reader of each fixture-file format.

It decides how a fixture file is found and parsed; it never judges what a fixture
holds (each test does) and never writes one.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
GENERATORS = FIXTURES / "generators"
