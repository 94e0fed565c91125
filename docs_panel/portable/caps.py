"""Every cap on what a reader sends, in characters or turns: the shell's text boxes,
the worker's clipping and the server install's refusals all read them here, so a
question the panel accepts is never one the server refuses.

Each cap holds for the text as sent: redacted first (a mask can be longer than the
secret it hides), then cut. This module decides no behaviour; it is written in the
Python MicroPython has, since the shell imports it too::

    >>> QUESTION_CHARS, HISTORY_TURNS, HISTORY_ANSWER_CHARS
    (4000, 3, 1200)
"""

QUESTION_CHARS = 4000
"""A question, typed, asked by the page API or by a deep link (``?ask=``)."""
QUOTE_CHARS = 500
"""A passage quoted from the page, whitespace collapsed."""
INSTRUCTION_CHARS = 1000
"""The reader's standing instruction (settings)."""
SENTENCE_CHARS = 1000
"""What a down vote says was wrong."""
PAGE_URL_CHARS = 2048
"""The page's URL, as a question or a vote report names it."""
HISTORY_TURNS = 3
"""Earlier questions and answers of the conversation sent with a follow-up."""
HISTORY_ANSWER_CHARS = 1200
"""Characters of each earlier answer sent along (its start carries its point)."""
SHORT_CHARS = 100
"""A scope id or a language tag."""
