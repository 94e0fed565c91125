"""The panel's words, in the language embed.js chose for this page (MicroPython).

embed.js picks the language before anything else is drawn (its launcher speaks it
too) and hands it over as ``bridge.language``; every string the shell shows comes
from that language's table in ``docs_panel.portable.locales``::

    say("send")                      # "Envoyer" on a French page
    say("asked_in", scope="API")     # placeholders filled in
"""

from pyscript import window

from docs_panel.portable.i18n import direction, text

LANGUAGE = window.__docsPanel.language
DIRECTION = direction(LANGUAGE)


def say(key, **values):
    """The UI string ``key`` in the page's language, its ``{placeholders}`` filled."""
    return text(LANGUAGE, key, **values)
