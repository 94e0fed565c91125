"""How an answer cites its sources: ``[n]``, the number of a section in the prompt.

The prompt (``answers``) asks the model for them and the renderer (``render``)
links them; both read them with this one pattern, so answering a question never
has to import the renderer (markdown-it and bleach, the worker's slowest
imports, load only when a model's answer is rendered).

    >>> [m[1] for m in CITATION.finditer("see [1] and [12], not [1234]")]
    ['1', '12']
"""

import re
from typing import Final

CITATION: Final = re.compile(r"\[([0-9]{1,3})\]")
"""A citation in answer text: ``[n]``, n from 1 to 3 digits."""
