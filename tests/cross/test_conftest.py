"""The cross suite's engine choice: a name in DOCS_PANEL_ENGINES that is no engine
stops the run with one clear line, rather than opening another engine under it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def collect(engines: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"DOCS_PANEL_ENGINES": engines, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*command, str(ROOT / "tests" / "cross" / "test_warm_start.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_unknown_engine_name_stops_the_run() -> None:
    refused = collect("chromium,chrome")
    assert refused.returncode != 0
    assert "DOCS_PANEL_ENGINES: unknown engine chrome" in refused.stdout + refused.stderr
    assert collect("chromium,webkit").returncode == 0
