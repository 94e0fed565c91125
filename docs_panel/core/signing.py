"""Signed citation lists: what a server install vouches an answer cited.

The server signs (HMAC-SHA256) the index version, the cited section addresses and
the time; the panel stores the token with the turn and sends it back with a
follow-up, which the server then primes with those sections (looked up again in
its current index). Nothing here does I/O; the secrets come from the caller::

    >>> keys = parse_keys("k2:" + "b" * 32 + ",k1:" + "a" * 32)
    >>> token = sign(keys, "v7", ("/api/jobs.html#retry",), now_s=1_000)
    >>> token.split(".")[0]
    'k2'
    >>> verify(keys, token, now_s=2_000).addresses
    ('/api/jobs.html#retry',)
    >>> verify(keys, token, now_s=1_000 + MAX_AGE_S + 1)
    Traceback (most recent call last):
    ...
    docs_panel.portable.errors.SignatureError: expired: the citation list was signed too long ago

A token is ``key id . payload . signature`` in unpadded base64url, the payload
compact JSON ``{"v": index version, "a": [addresses], "t": seconds}``. Two keys may
be configured at once (rotation): the first signs, any verifies.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from docs_panel.portable.errors import ConfigError, SignatureError

MAX_AGE_S: Final = 30 * 24 * 3600
"""A signed list older than this is refused: a month-old conversation starts unprimed."""
CLOCK_SKEW_S: Final = 300
"""A token from up to five minutes in the future is taken (instances' clocks differ)."""
MAX_TOKEN_CHARS: Final = 4_000
MAX_ADDRESSES: Final = 16
MIN_SECRET_CHARS: Final = 32
MAX_KEYS: Final = 2
"""The key signing now and the one before it, during a rotation."""
KEY_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,16}")


@dataclass(frozen=True, slots=True)
class SigningKeys:
    """The key id that signs, and every key id's secret (the signer's included)."""

    current: str
    secrets: Mapping[str, bytes]


@dataclass(frozen=True, slots=True)
class SignedCitations:
    """A verified token's content."""

    index_version: str
    addresses: tuple[str, ...]
    signed_at: int


def parse_keys(value: str) -> SigningKeys:
    """``"id:secret,id:secret"`` (the signing key first) as keys; a bad value raises
    :class:`ConfigError` saying what is expected, so a server never starts unsigned."""
    pairs = [part.strip() for part in value.split(",") if part.strip()]
    if not 1 <= len(pairs) <= MAX_KEYS:
        raise ConfigError(
            f"signing keys: expected 1 or {MAX_KEYS} comma-separated id:secret pairs, "
            f"got {len(pairs)}"
        )
    secrets: dict[str, bytes] = {}
    for pair in pairs:
        key_id, colon, secret = pair.partition(":")
        if not (colon and KEY_ID.fullmatch(key_id)):
            raise ConfigError(
                "signing keys: each key is id:secret, the id 1 to 16 of A-Z a-z 0-9 _ -"
            )
        if len(secret) < MIN_SECRET_CHARS:
            raise ConfigError(
                f"signing keys: key {key_id!r} is shorter than {MIN_SECRET_CHARS} characters; "
                "make one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`"
            )
        if key_id in secrets:
            raise ConfigError(f"signing keys: key id {key_id!r} is given twice")
        secrets[key_id] = secret.encode()
    return SigningKeys(current=pairs[0].partition(":")[0], secrets=secrets)


def sign(keys: SigningKeys, index_version: str, addresses: Sequence[str], *, now_s: int) -> str:
    """The token vouching that an answer from ``index_version`` cited ``addresses``."""
    payload = json.dumps(
        {"v": index_version, "a": list(addresses[:MAX_ADDRESSES]), "t": now_s},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    head = f"{keys.current}.{_b64(payload.encode())}"
    return f"{head}.{_b64(_mac(keys.secrets[keys.current], head))}"


def verify(
    keys: SigningKeys, token: str, *, now_s: int, max_age_s: int = MAX_AGE_S
) -> SignedCitations:
    """The token's content, or :class:`SignatureError` whose ``reason`` says why not:
    ``malformed``, ``unknown-key``, ``forged`` (the bytes do not match), ``expired``."""
    if len(token) > MAX_TOKEN_CHARS or token.count(".") != 2:
        raise SignatureError("malformed", "the citation list is not a signed token")
    key_id, payload, signature = token.split(".")
    secret = keys.secrets.get(key_id)
    if secret is None:
        raise SignatureError("unknown-key", "the citation list was signed by an unknown key")
    try:
        given = _unb64(signature)
        body = json.loads(_unb64(payload))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise SignatureError("forged", "the citation list does not match its signature") from None
    if not hmac.compare_digest(given, _mac(secret, f"{key_id}.{payload}")):
        raise SignatureError("forged", "the citation list does not match its signature")
    content = _content(body)
    if not -CLOCK_SKEW_S <= now_s - content.signed_at <= max_age_s:
        raise SignatureError("expired", "the citation list was signed too long ago")
    return content


def _content(body: object) -> SignedCitations:
    """The payload's fields; a signed payload of another shape is refused all the same."""
    if isinstance(body, dict):
        version, addresses, signed_at = body.get("v"), body.get("a"), body.get("t")
        if (
            isinstance(version, str)
            and isinstance(addresses, list)
            and all(isinstance(a, str) for a in addresses)
            and type(signed_at) is int
        ):
            return SignedCitations(version, tuple(addresses[:MAX_ADDRESSES]), signed_at)
    raise SignatureError("malformed", "the signed citation list has an unknown shape")


def _mac(secret: bytes, head: str) -> bytes:
    return hmac.new(secret, head.encode(), hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]*")


def _unb64(text: str) -> bytes:
    """Strict: only the base64url alphabet, so one token has exactly one spelling."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:  # stray low bits in the last character
        raise ValueError("not canonical base64url")
    return data
