"""The reader's language: the table of UI words the panel speaks, which way it
reads, and how old a conversation is. Values in, values out; the browser spells
what it knows better (``Intl.RelativeTimeFormat`` gets ``relative_time``'s pair).

Which language a page gets is embed.js's to decide (its launcher is drawn before
any Python runs): the configured ``language``, else the page's ``<html lang>``,
else the browser's languages, the first with a table here; English otherwise.
build.py hands it ``LANGUAGES``, ``RIGHT_TO_LEFT`` and the few words it shows.

Each language is a module of ``docs_panel.portable.locales`` holding ``STRINGS``, a plain
dict keyed like the English one; only the chosen one is imported, so the shell
(MicroPython, which compiles what it imports on the main thread) pays for one::

    >>> direction("pt"), text("pt", "throttled_in", n=3)
    ('ltr', 'Muitas perguntas no momento. Tente novamente em 3 s.')
    >>> direction("ar")
    'rtl'

Relative times, for the history list's rows:

    >>> relative_time(then_ms=0, now_ms=3 * 3_600_000)
    (-3, 'hour')
    >>> relative_time(then_ms=0, now_ms=20_000)
    (0, 'second')

Both runtimes import this module, so it keeps to the Python MicroPython has: no
dataclasses, no ``typing`` at run time, no ``re``.
"""

LANGUAGES = ("en", "fr", "de", "es", "pt", "ja", "zh", "ko", "ar")
"""The languages with a table, English first (the fallback and the reference)."""
RIGHT_TO_LEFT = ("ar",)


def _primary(tag: object) -> str:
    """``"pt-BR"`` → ``"pt"``; ``""`` for what is no language tag at all."""
    primary = tag.replace("_", "-").split("-")[0].lower() if isinstance(tag, str) else ""
    return primary if 2 <= len(primary) <= 3 and primary.isalpha() else ""


def direction(language: str) -> str:
    """``"rtl"`` for a language written right to left, else ``"ltr"``: the panel's ``dir``."""
    return "rtl" if _primary(language) in RIGHT_TO_LEFT else "ltr"


def table(language: str) -> dict[str, str]:
    """Every UI string of ``language`` (one of ``LANGUAGES``; else English), by key."""
    name = language if language in LANGUAGES else "en"
    module = __import__("docs_panel.portable.locales." + name, None, None, ["STRINGS"])
    strings: dict[str, str] = module.STRINGS
    return strings


def text(language: str, key: str, **values: object) -> str:
    """One string of ``language`` with its ``{placeholders}`` filled in."""
    return table(language)[key].format(**values)


# (unit, milliseconds in it, below how many of it the next unit takes over)
_UNITS = (
    ("second", 1_000, 60),
    ("minute", 60_000, 60),
    ("hour", 3_600_000, 24),
    ("day", 86_400_000, 7),
    ("week", 604_800_000, 5),
    ("month", 2_629_800_000, 12),
    ("year", 31_557_600_000, None),
)
_JUST_NOW_MS = 45_000


def relative_time(*, then_ms: int, now_ms: int) -> tuple[int, str]:
    """The largest whole unit for ``then - now`` (negative for the past).

    Under 45 seconds is ``(0, "second")``, which ``numeric: "auto"`` says as "now".
    """
    delta = then_ms - now_ms
    if abs(delta) < _JUST_NOW_MS:
        return 0, "second"
    for unit, size, limit in _UNITS:
        count = round(delta / size)
        if limit is None or abs(count) < limit:
            return count, unit
    raise AssertionError("unreachable: the last unit has no limit")
