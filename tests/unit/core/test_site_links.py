"""``site_links``: the product's rule for an address the panel may link, checked
against how a browser resolves the same string. The oracle is ada (``ada_url``), the
WHATWG URL parser Node.js ships, which passes the standard's own test suite; a real
Chromium resolves the hostile list in tests/browser/test_site_links.py."""

from __future__ import annotations

import pytest
from ada_url import URL
from hypothesis import example, given
from hypothesis import strategies as st

from docs_panel.core.site_links import may_link, site_path

SITE = "https://docs.example"
# Two pages of the site: a site path resolves alike from both, a relative one does not.
PAGES = (f"{SITE}/base/page.html", f"{SITE}/other/deep/x.html?q=1#f")

HOSTILE = [
    "/\t/evil.example/x",
    "/\n/evil.example/x",
    "/\r\n/evil.example/x",
    "\t//evil.example/x",
    " /api.html",
    "\x00/api.html",
    "/api.html\x1f",
    "/\\evil.example/x",
    "\\\\evil.example/x",
    "\\/evil.example",
    "//evil.example/x",
    "///evil.example/x",
    "/%2F/evil.example/x",
    "/%5c/evil.example/x",
    "/%2e%2e/%2e%2e/x",
    "https://evil.example/x",
    "https:/evil.example/x",
    "https:evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt\t:alert(1)",
    "data:text/html,x",
    "api.html",
    "?q=1",
    "#top",
    "",
]
SAFE = ["/api/retry.html#retry-a-job", "/guide/%C3%A9.html", "/a/b/", "/", "/x?y=1#z"]

# Pieces browsers treat specially, and plain path text.
PIECES = st.sampled_from(
    [
        "/", "\\", "\t", "\n", "\r", " ", "\x00", "\x0b", "\x1f", "\x7f", "\u00a0",
        "%2f", "%2F", "%5c", "%2e", "%", ".", "..", ":", "@", "?", "#",
        "evil.example", "docs.example", "https:", "javascript:", "a", "é", "x.html",
    ]
)  # fmt: skip
ADDRESSES = st.lists(PIECES, max_size=10).map("".join)


def resolved(address: str, page: str = PAGES[0]) -> URL:
    return URL(address, page)


def on_this_site_from_any_page(address: str) -> bool:
    """What a browser makes of ``address``: this site, and the same URL from every page
    (a path, not a reference relative to the page)."""
    try:
        urls = [resolved(address, page) for page in PAGES]
    except ValueError:
        return False
    return urls[0].origin == SITE and all(url.href == urls[0].href for url in urls)


@given(ADDRESSES)
@example("/\t/evil.example/x")
@example("/\n/evil.example/x")
def test_an_address_the_panel_links_stays_on_this_site(address: str) -> None:
    if may_link(address):
        assert on_this_site_from_any_page(address), address


@given(ADDRESSES)
@example(" /a\t/b")
@example("/?\\")
@example("/a\\b#c\\d")
def test_the_products_reading_is_the_browsers(address: str) -> None:
    """Where the rule reads a site path, the browser resolves the raw string to the
    same URL as that reading, on this site."""
    read = site_path(address)
    if read is not None:
        assert on_this_site_from_any_page(address), address
        assert resolved(address).href == resolved(read).href, address


# Text with nothing the rule refuses outright (no other control, no "%", no scheme).
PLAIN = st.lists(
    st.sampled_from(["/", "\\", "\t", "\n", "a", "é", ".", "..", "?", "#", "evil.example"]),
    max_size=10,
).map("".join)


@given(PLAIN, st.sampled_from(["", " ", "\t", "\x01 "]), st.sampled_from(["", " ", "\x1f"]))
def test_every_site_path_a_browser_sees_is_read_as_one(
    address: str, before: str, after: str
) -> None:
    """The other way: plain text that reads as a path from the site's root, which a
    browser resolves to this site from every page, is a site path to the rule too. A
    relative address ("../..") is refused, whatever it resolves to: the index writes
    none, so the rule fails closed on them."""
    padded = before + address + after
    seen = padded.strip("".join(map(chr, range(0x21)))).replace("\t", "").replace("\n", "")
    if not seen.startswith(("/", "\\")):
        assert site_path(padded) is None, padded
        return
    assert (site_path(padded) is not None) == on_this_site_from_any_page(padded), padded


@pytest.mark.parametrize("address", HOSTILE)
def test_no_hostile_address_may_be_linked(address: str) -> None:
    assert not may_link(address)


@pytest.mark.parametrize("address", SAFE)
def test_the_sites_own_addresses_may_be_linked(address: str) -> None:
    assert may_link(address)
    assert resolved(address).href == SITE + address
