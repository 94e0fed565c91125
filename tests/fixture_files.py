"""Where the suite's fixture files live, and the one reader of each fixture-file format.

Two formats are read here and nowhere else:

- **Cases** (``*.txt``, markdown-it-py's fixture format): a title line, a line
  holding only ".", then each of the case's blocks closed by a line holding only
  "."; lines between cases (comments, blank lines) are not read::

      >>> import tempfile
      >>> text = "# a comment\\n\\nA title\\n.\\nin\\n.\\nout\\n.\\n"
      >>> with tempfile.NamedTemporaryFile("w", suffix=".txt") as file:
      ...     _ = file.write(text) and file.flush()
      ...     fixture_cases(Path(file.name))
      [(3, 'A title', 'in\\n', 'out\\n')]
      >>> with tempfile.NamedTemporaryFile("w", suffix=".txt") as file:
      ...     _ = file.write("A title\\n.\\nin\\n") and file.flush()
      ...     fixture_cases(Path(file.name))
      Traceback (most recent call last):
      ValueError: ...:2: case 'A title' is not closed by a '.' line

  Each case is ``(line, title, *blocks)``: the 0-based line of its first "." and
  each block with its final newline, as ``markdown_it.utils.read_fixture_file``
  gives it (``sections=2``), so one reader serves files of one, two or more blocks.
- **A generator fixture's expectations** (``tests/fixtures/generators/NAME/``):
  ``expected.json`` (what a reader reads on each page) and ``sections.json`` (the
  sections each page splits into), read by :func:`generator_expected`.

It decides how a fixture file is found and parsed; it never judges what a fixture
holds (each test does) and never writes one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
GENERATORS = FIXTURES / "generators"

Expectations = Literal["expected.json", "sections.json"]


def fixture_cases(path: Path, sections: int = 2) -> list[tuple[Any, ...]]:
    """Every case of a cases file, each ``(line, title, *blocks)`` with ``sections`` blocks.

    A case left open at the end of the file is an error that names the file and line.
    """
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cases: list[tuple[Any, ...]] = []
    case: list[Any] = []
    last = 0
    for number, line in enumerate(lines):
        if line.rstrip() != ".":
            continue
        if not case:
            case = [number, lines[number - 1].strip()]
        else:
            case.append("".join(lines[last + 1 : number]))
            if len(case) == 2 + sections:
                cases.append(tuple(case))
                case = []
        last = number
    if case:
        raise ValueError(f"{path}:{case[0] + 1}: case {case[1]!r} is not closed by a '.' line")
    return cases


def generator_sites(expectations: Expectations = "expected.json") -> list[str]:
    """The generator fixtures that hold ``expectations``, by name."""
    return sorted(path.name for path in GENERATORS.iterdir() if (path / expectations).exists())


def generator_expected(name: str, expectations: Expectations = "expected.json") -> Any:
    """A generator fixture's ``expected.json`` (or ``sections.json``), parsed."""
    return json.loads((GENERATORS / name / expectations).read_text(encoding="utf-8"))
