"""Who a client of the server install is: the key its rate-limit bucket is kept under.

:func:`client_key` decides it from the peer address and the ``X-Forwarded-For``
header, as far as configured trusted proxies vouch for it; it never limits anything
(``limits`` does) and never reads the header when the peer is not a trusted proxy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from docs_panel.portable.errors import ConfigError

IPV6_PREFIX: Final = 64
"""IPv6 clients are counted by their /64: one host commonly holds the whole network."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` entries are believed.

    ``networks``: addresses or CIDR networks; ``unix``: a peer on a Unix socket (no
    address) is a trusted proxy too. Empty by default: without a configured proxy the
    header is never read.
    """

    networks: tuple[Network, ...] = ()
    unix: bool = False

    @classmethod
    def parse(cls, specs: Iterable[str]) -> TrustedProxies:
        """From flag values such as ``127.0.0.1``, ``10.0.0.0/8``, ``::1`` or ``unix``.

        >>> TrustedProxies.parse(["10.0.0.0/8", "unix"]).trusts("10.1.2.3")
        True
        """
        networks: list[Network] = []
        unix = False
        for spec in specs:
            if spec.strip() == "unix":
                unix = True
                continue
            try:
                networks.append(ipaddress.ip_network(spec.strip(), strict=False))
            except ValueError:
                raise ConfigError(
                    f"--trusted-proxy: expected an IP address, a network such as "
                    f"10.0.0.0/8, or 'unix'; got {spec!r}"
                ) from None
        return cls(tuple(networks), unix)

    def trusts(self, address: str | None) -> bool:
        if address is None:
            return self.unix
        parsed = _address(address)
        return parsed is not None and any(parsed in network for network in self.networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address from a header entry: bare, ``v4:port`` or ``[v6]:port``; None if garbage.

    IPv4-mapped IPv6 (``::ffff:192.0.2.1``) is the IPv4 address; a zone is dropped.
    """
    text = text.strip()
    if text.startswith("["):
        host, bracket, port = text[1:].partition("]")
        if not bracket or (port and not (port[:1] == ":" and _is_port(port[1:]))):
            return None
        text = host
    elif text.count(":") == 1:
        text, _, port = text.partition(":")
        if not _is_port(port):
            return None
    text = text.partition("%")[0]
    if not text.isascii():
        return None
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped
    return parsed


def _is_port(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5


def _key(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


def client_address(peer: str | None, forwarded_for: Sequence[str], trusted: TrustedProxies) -> str:
    """The rate-limit key of a request's client.

    ``peer``: the address the connection came from (None on a Unix socket);
    ``forwarded_for``: every ``X-Forwarded-For`` header value, in order. Each trusted
    proxy appends the address it was connected from, so the entries are read from the
    right, past the trusted proxies, and the first untrusted one is the client; entries
    left of it are whatever the client wrote and are never read. The header is read
    only when the peer is a trusted proxy; an entry that is not an address where one
    is needed gives the peer. IPv6 clients are keyed by their /64::

        >>> proxies = TrustedProxies.parse(["10.0.0.0/8"])
        >>> client_address("10.0.0.5", ["6.6.6.6, 198.51.100.9, 10.0.0.7"], proxies)
        '198.51.100.9'
        >>> client_address("198.51.100.9", ["6.6.6.6"], proxies)
        '198.51.100.9'
        >>> client_address("10.0.0.5", ["2001:db8:1:2::99"], proxies)
        '2001:db8:1:2::/64'
    """
    peer_key = _peer_key(peer)
    if not trusted.trusts(peer):
        return peer_key
    hops = [hop for value in forwarded_for for hop in value.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return peer_key
        if not any(address in network for network in trusted.networks):
            return _key(address)
    # Every hop is a trusted proxy: the leftmost is the nearest thing to a client.
    first = _address(hops[0]) if hops else None
    return _key(first) if first is not None else peer_key


def _peer_key(peer: str | None) -> str:
    if peer is None:
        return "unix"
    address = _address(peer)
    return _key(address) if address is not None else peer


def client_key(scope: Mapping[str, Any], trusted: TrustedProxies) -> str:
    """:func:`client_address` for an ASGI HTTP scope (its ``client`` and headers)."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    forwarded = [
        value.decode("latin-1")
        for name, value in scope.get("headers", ())
        if name.lower() == b"x-forwarded-for"
    ]
    return client_address(peer, forwarded, trusted)
