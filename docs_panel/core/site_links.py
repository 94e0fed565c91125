"""Which addresses the panel may write as a link: a path on this site, read the way a
browser reads an ``href``.

Every section address the panel draws (an answer's sources and citations, search
results, a restored or imported conversation, a server's sources) passes through
:func:`may_link`. A browser parses an ``href`` by the WHATWG URL standard: it strips
leading and trailing C0 controls and spaces, removes tabs and newlines anywhere, and
reads a backslash in the path as a slash, so ``"/\\t/evil.example/x"`` and ``"/\\\\evil.example"``
lead to another site. :func:`site_path` applies those steps and keeps the result
only when it is a path on the page's own site; :func:`may_link` takes an address only
when that reading is the address itself, and when no server could read it otherwise
(no other control character, no percent-encoded slash, backslash or dot)::

    >>> site_path(" /api/retry.html#x"), site_path("/\\t/evil.example/x")
    ('/api/retry.html#x', None)
    >>> may_link("/api/retry.html#x"), may_link(" /api/retry.html#x"), may_link("/a%2F/b")
    (True, False, False)

It never decides whether a page exists (the index does) nor how a link is drawn.
Pure Python, run in CPython and in the worker's Pyodide.
"""

from __future__ import annotations

import re
from typing import Final

_C0_OR_SPACE: Final = "".join(map(chr, range(0x21)))
"""What the URL parser strips from both ends of an address."""
_TAB_OR_NEWLINE: Final = re.compile("[\t\n\r]")
"""What the URL parser removes wherever it is."""
_PATH_END: Final = re.compile("[?#]")
"""Where an address's path ends and its query or fragment begins."""
_CONTROL: Final = re.compile("[\x00-\x1f\x7f]")
_ENCODED_SEPARATOR: Final = re.compile("%(2f|5c|2e)", re.IGNORECASE)
"""A slash, backslash or dot that a server decoding the path would read as one."""


def site_path(address: str) -> str | None:
    """``address`` as a browser reads it, when that is a path on the page's own site
    (one leading slash, no other control character, no encoded separator); else None."""
    read = _TAB_OR_NEWLINE.sub("", address.strip(_C0_OR_SPACE))
    # A backslash is a slash in the path only; the query and fragment keep it as it is.
    end = _PATH_END.search(read)
    cut = end.start() if end else len(read)
    read = read[:cut].replace("\\", "/") + read[cut:]
    if not read.startswith("/") or read.startswith("//"):
        return None
    if _CONTROL.search(read) or _ENCODED_SEPARATOR.search(read):
        return None
    return read


def may_link(address: str) -> bool:
    """Whether ``address`` may be an ``href`` as written: a path on this site that a
    browser reads exactly as it is spelled."""
    return site_path(address) == address
