"""Who a client is: the peer, or the first untrusted hop of X-Forwarded-For."""

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.portable.errors import ConfigError
from docs_panel.server.client_key import TrustedProxies, client_address, client_key

PROXIES = TrustedProxies.parse(["10.0.0.0/8", "::1"])
NONE = TrustedProxies()


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "key"),
    [
        # No proxy configured: the header is never read.
        ("198.51.100.9", ["203.0.113.1"], NONE, "198.51.100.9"),
        ("10.0.0.5", ["203.0.113.1"], NONE, "10.0.0.5"),
        # An untrusted peer's header is whatever it wrote.
        ("198.51.100.9", ["203.0.113.1"], PROXIES, "198.51.100.9"),
        # Behind a trusted proxy: the hop it appended.
        ("10.0.0.5", ["203.0.113.1"], PROXIES, "203.0.113.1"),
        ("10.0.0.5", [], PROXIES, "10.0.0.5"),
        # A chain of trusted proxies; what the client wrote on the left is never read.
        ("10.0.0.5", ["6.6.6.6, 203.0.113.1, 10.1.1.1, 10.2.2.2"], PROXIES, "203.0.113.1"),
        ("10.0.0.5", ["6.6.6.6", "203.0.113.1, 10.1.1.1", "10.2.2.2"], PROXIES, "203.0.113.1"),
        ("10.0.0.5", ["garbage, 203.0.113.1"], PROXIES, "203.0.113.1"),
        # Garbage where the client should be: the peer.
        ("10.0.0.5", ["203.0.113.1, unknown"], PROXIES, "10.0.0.5"),
        ("10.0.0.5", [""], PROXIES, "10.0.0.5"),
        ("10.0.0.5", ["203.0.113.1,"], PROXIES, "10.0.0.5"),
        ("10.0.0.5", ["1.2.3.4:http"], PROXIES, "10.0.0.5"),
        # Every hop trusted: the leftmost.
        ("10.0.0.5", ["10.9.9.9, 10.1.1.1"], PROXIES, "10.9.9.9"),
        # Ports, brackets, IPv4-mapped IPv6, zones; IPv6 by /64.
        ("10.0.0.5", ["203.0.113.1:52100"], PROXIES, "203.0.113.1"),
        ("10.0.0.5", ["[2001:db8:1:2::7]:443"], PROXIES, "2001:db8:1:2::/64"),
        ("10.0.0.5", ["2001:db8:1:2:aaaa::1"], PROXIES, "2001:db8:1:2::/64"),
        ("10.0.0.5", ["::ffff:203.0.113.1"], PROXIES, "203.0.113.1"),
        ("::1", ["fe80::1%eth0"], PROXIES, "fe80::/64"),
        ("::ffff:10.0.0.5", ["203.0.113.1"], PROXIES, "203.0.113.1"),
        ("2001:db8:1:2::99", [], NONE, "2001:db8:1:2::/64"),
        # A peer that is no address (a test client's name) is its own key.
        ("testclient", ["203.0.113.1"], PROXIES, "testclient"),
    ],
)
def test_client_address(peer: str, forwarded: list[str], trusted: TrustedProxies, key: str) -> None:
    assert client_address(peer, forwarded, trusted) == key


def test_a_unix_socket_peer_is_trusted_only_when_configured() -> None:
    assert client_address(None, ["203.0.113.1"], NONE) == "unix"
    unix = TrustedProxies.parse(["unix"])
    assert client_address(None, ["203.0.113.1"], unix) == "203.0.113.1"


def test_client_key_reads_an_asgi_scope() -> None:
    scope = {
        "type": "http",
        "client": ("10.0.0.5", 41000),
        "headers": [
            (b"host", b"docs.example.org"),
            (b"x-forwarded-for", b"6.6.6.6, 203.0.113.1"),
            (b"X-Forwarded-For", b"10.3.3.3"),
        ],
    }
    assert client_key(scope, PROXIES) == "203.0.113.1"
    assert client_key({**scope, "client": None}, PROXIES) == "unix"
    assert client_key({**scope, "client": ("203.0.113.50", 1)}, PROXIES) == "203.0.113.50"


@pytest.mark.parametrize("spec", ["10.0.0.0/33", "example.org", "", "10.0.0.1/8/8"])
def test_trusted_proxies_refuse_what_is_not_a_network(spec: str) -> None:
    with pytest.raises(ConfigError, match="--trusted-proxy: expected an IP address"):
        TrustedProxies.parse([spec])


CLIENTS = st.ip_addresses(v=4).filter(lambda a: a not in PROXIES.networks[0])
ANY_TEXT = st.text(st.characters(codec="latin-1"), max_size=40)


@given(spoofed=st.lists(ANY_TEXT, max_size=4), client=CLIENTS, proxies=st.integers(0, 3))
def test_a_client_cannot_choose_its_key(
    spoofed: list[str], client: ipaddress.IPv4Address, proxies: int
) -> None:
    """Whatever a client writes in the header, the trusted proxies' hops decide."""
    chain = [*spoofed, str(client), *(f"10.0.0.{n}" for n in range(proxies))]
    assert client_address("10.0.0.5", [", ".join(chain)], PROXIES) == str(client)


@given(
    peer=st.one_of(st.ip_addresses().map(str), ANY_TEXT),
    headers=st.lists(ANY_TEXT, max_size=3),
)
def test_garbage_never_raises_and_gives_a_hop_or_the_peer(peer: str, headers: list[str]) -> None:
    key = client_address(peer, headers, PROXIES)
    hops = [client_address(hop.strip(), [], NONE) for h in headers for hop in h.split(",")]
    assert key == client_address(peer, [], PROXIES) or key in hops
    assert client_address(peer, headers, NONE) == client_address(peer, [], NONE)
