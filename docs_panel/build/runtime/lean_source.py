"""Python sources made smaller for shipping as text: the MicroPython shell's modules,
which MicroPython compiles in the browser (the worker's get bytecode: ``lean_code``).

Comments go, and so do docstrings and other lone string statements (``...`` takes
their place, so a body that was only a docstring stays a body); every line stays
where it was, so a traceback's line numbers still point into the repository's file::

    >>> print(lean_source("def f():\\n    '''Say hi.\\n\\n    Twice.'''\\n    return 1  # one\\n"))
    def f():
        ...
    <BLANKLINE>
    <BLANKLINE>
        return 1
    <BLANKLINE>
"""

from __future__ import annotations

import io
import tokenize

_NOT_CODE = {tokenize.NL, tokenize.COMMENT, tokenize.ENCODING}
_STATEMENT_EDGE = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def lean_source(source: str) -> str:
    """``source`` without comments and lone strings, line for line."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    code = [t for t in tokens if t.type not in _NOT_CODE]
    edits = [(t.start, t.end, "") for t in tokens if t.type == tokenize.COMMENT]
    for i, token in enumerate(code):
        before = code[i - 1].type if i else tokenize.NEWLINE
        after = code[i + 1].type if i + 1 < len(code) else tokenize.ENDMARKER
        if token.type == tokenize.STRING and before in _STATEMENT_EDGE and after in _STATEMENT_EDGE:
            edits.append((token.start, token.end, "..."))
    lines = source.splitlines(keepends=True)
    for (first, start), (last, end), text in sorted(edits, reverse=True):
        lines[first - 1] = lines[first - 1][:start] + text + lines[last - 1][end:]
        lines[first:last] = ["\n"] * (last - first)
    return "".join(line.rstrip() + "\n" if line.endswith("\n") else line for line in lines)
