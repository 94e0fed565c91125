"""The field names of this tab's session record: the JSON object in sessionStorage
under ``<prefix>.conversation`` (see :mod:`docs_panel.core.session`).

Three runtimes spell them, so they live here once: the worker reads and writes
the record (:mod:`docs_panel.core.session`); the shell marks it on ``pagehide``
(:meth:`docs_panel.portable.lifecycle.Lifecycle.leaving`); and ``embed.js`` reads it
before any Python runs, to see a tab to restore (build.py writes ``EMBED_FIELDS``
into it). Written in the Python MicroPython runs: the shell imports it.
"""

ID = "id"
"""The conversation this tab is in (a string), or null before its first answer."""
LEFT = "left"
"""True once the page that wrote the record has left (``pagehide``): a reload or a
same-tab navigation adopts the record; a tab that only got a copy of it does not."""
OPEN = "open"
"""Whether the panel was open when the page left: the next page opens it at once."""
IN_FLIGHT = "inflight"
"""The answer that was streaming when the page left, as a stopped turn's record."""

EMBED_FIELDS = (ID, LEFT, OPEN)
"""What embed.js reads, in the order it unpacks them."""
