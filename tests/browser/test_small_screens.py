"""Phones, small windows and other ways of reading: the demo site fits a
360 px screen; the panel is a full-screen sheet on a phone, mirrors right to left,
keeps still for reduced motion and shows where focus is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, FloatRect, Page, expect

from tests.browser.conftest import Site, Watch
from tests.browser.reader import ask_and_wait, open_panel, wait_ready

pytestmark = pytest.mark.browser

# The longest lines of the demo: a wide table, long inline code, long code blocks.
DEMO_PAGES = [
    "index.html",
    "guides/deployment.html",
    "reference/cli.html",
    "reference/python-client.html",
]


@pytest.fixture
def phone(browser: Browser, watch: Watch, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A touch phone, 390 by 760 px unless the test asks for another (width, height)."""
    width, height = getattr(request, "param", (390, 760))
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
    )
    context.set_default_timeout(15_000)
    context.on("page", watch.attach)
    page = context.new_page()
    yield page
    watch.check(page)
    context.close()


@pytest.mark.parametrize("phone", [(360, 740)], indirect=True)  # the narrowest in common use
@pytest.mark.parametrize("path", DEMO_PAGES)
def test_demo_pages_fit_a_360_px_screen(phone: Page, site: Site, path: str) -> None:
    """No demo page scrolls sideways on a phone (it would push the launcher off-screen)."""
    phone.goto(site.url + path)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360


def box(page: Page, role: str, name: str) -> FloatRect:
    found = page.get_by_role(role, name=name).bounding_box()  # type: ignore[arg-type]
    assert found is not None, f"{role} {name!r} is not drawn"
    return found


def test_on_a_phone_the_panel_is_a_full_screen_sheet(phone: Page, site: Site) -> None:
    """The open panel covers the screen, its composer sits at the bottom, header buttons
    are finger-sized, and nothing scrolls sideways."""
    phone.goto(site.url + "guides/retries.html")
    open_panel(phone)
    assert box(phone, "region", "Docs assistant") == {"x": 0, "y": 0, "width": 390, "height": 760}
    question = box(phone, "textbox", "Ask a question")
    assert 760 - 80 < question["y"] + question["height"] <= 760
    close = box(phone, "button", "Close")
    assert close["width"] >= 44 and close["height"] >= 44
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


# Resolves two frames after the page's next wheel event: a scroll it causes has begun.
NEXT_WHEEL = """() => { window.__wheeled = new Promise(done => addEventListener("wheel",
  () => requestAnimationFrame(() => requestAnimationFrame(done)), { once: true })); }"""


def wheel_and_a_frame(page: Page) -> None:
    """Scroll 600 px with the wheel where the mouse is, and wait until it has had a
    frame to move the page."""
    page.evaluate(NEXT_WHEEL)
    page.mouse.wheel(0, 600)
    page.evaluate("window.__wheeled")


def test_the_page_behind_the_sheet_does_not_scroll(phone: Page, site: Site) -> None:
    """While the sheet is open a swipe over it leaves the page where it was; closed, the
    page scrolls again and its own overflow style is back."""
    phone.goto(site.url + "guides/deployment.html")
    overflow = "getComputedStyle(document.documentElement).overflowY"
    open_panel(phone)
    assert phone.evaluate(overflow) == "hidden"
    phone.mouse.move(195, 200)
    wheel_and_a_frame(phone)
    assert phone.evaluate("scrollY") == 0
    phone.get_by_role("button", name="Close").click()
    assert phone.evaluate("document.documentElement.style.overflow") == ""
    wheel_and_a_frame(phone)
    assert phone.evaluate("scrollY") > 0  # the same wait is long enough to see a scroll


def test_the_sheet_follows_the_visual_viewport(phone: Page, site: Site) -> None:
    """The shell sets --dp-viewport-top/-height from visualViewport as it changes (the
    keyboard shrinks it); the sheet fits that part, composer at its bottom."""
    phone.goto(site.url)
    open_panel(phone)
    panel = phone.get_by_role("region", name="Docs assistant")
    height = "p => p.style.getPropertyValue('--dp-viewport-height')"
    assert panel.evaluate(height) == "760px"
    phone.set_viewport_size({"width": 390, "height": 500})
    expect(panel).to_have_js_property("offsetHeight", 500)
    assert panel.evaluate(height) == "500px"
    phone.set_viewport_size({"width": 390, "height": 760})
    # The shell's resize handler must have run before the override, or it overwrites it.
    expect(panel).to_have_js_property("offsetHeight", 760)
    panel.evaluate(
        "p => { p.style.setProperty('--dp-viewport-top', '30px');"
        " p.style.setProperty('--dp-viewport-height', '400px'); }"
    )
    assert box(phone, "region", "Docs assistant") == {"x": 0, "y": 30, "width": 390, "height": 400}
    question = box(phone, "textbox", "Ask a question")
    assert 430 - 80 < question["y"] + question["height"] <= 430


ZOOMED = [
    ("button", "Conversation history"),
    ("button", "Settings"),
    ("button", "New chat"),
    ("button", "Close"),
    ("textbox", "Ask a question"),
    ("button", "Send"),
]


def test_at_200_percent_zoom_no_control_is_lost(page: Page, site: Site) -> None:
    """A 1280x800 window at 200% zoom lays out as 640x400: header and composer stay on
    screen with an answer, and with settings and history open; the votes scroll into view."""
    page.set_viewport_size({"width": 640, "height": 400})
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "retry a failed job")
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("button", name="Conversation history").click()
    expect(page.get_by_role("list", name="Conversations")).to_be_visible()
    for role, name in [*ZOOMED, ("textbox", "Instruction for answers")]:
        found = box(page, role, name)
        assert found["x"] >= 0 and found["x"] + found["width"] <= 640, (name, found)
        assert found["y"] >= 0 and found["y"] + found["height"] <= 400, (name, found)
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("button", name="Conversation history").click()
    helpful = page.get_by_role("button", name="Helpful", exact=True)
    helpful.scroll_into_view_if_needed()
    expect(helpful).to_be_in_viewport()


def test_reduced_motion_stops_the_loading_bar(page: Page, site: Site) -> None:
    """prefers-reduced-motion: the loading bar does not slide."""
    page.emulate_media(reduced_motion="reduce")
    page.goto(site.url)
    open_panel(page)
    progress = page.get_by_role("progressbar", name="Loading the assistant")
    animation = progress.evaluate("e => getComputedStyle(e, '::before').animationName")
    assert animation == "none"
    wait_ready(page)


def test_the_launchers_focus_ring_shows_on_a_white_page(page: Page, site: Site) -> None:
    """Tabbing to the launcher draws a ring at 3:1 against the white page (with a white
    halo against the button), and a ring in forced-colors mode."""
    page.goto(site.url)
    page.locator("body").evaluate("b => b.style.background = '#fff'")
    launcher = page.get_by_role("button", name="Ask the docs")
    launcher.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    expect(launcher).to_be_focused()
    ring = launcher.evaluate(
        "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineWidth,"
        " s.outlineColor, s.boxShadow]; }"
    )
    assert ring[:2] == ["solid", "3px"]
    assert contrast(ring[2], "rgb(255, 255, 255)") >= 3, ring
    assert ring[3].startswith("rgb(255, 255, 255) 0px 0px 0px 3px"), ring
    page.emulate_media(forced_colors="active")
    assert launcher.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"


def luminance(rgb: str) -> float:
    def channel(value: str) -> float:
        c = int(value) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_focus_ring_is_visible(page: Page, site: Site, scheme: str) -> None:
    """Tabbing onto a header button draws a 3 px ring at 3:1 against the panel, and a
    ring in forced-colors mode too."""
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(site.url)
    open_panel(page)
    page.keyboard.press("Shift+Tab")  # from the composer back to the header's last button
    close = page.get_by_role("button", name="Close")
    expect(close).to_be_focused()
    ring = close.evaluate(
        "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineWidth,"
        " s.outlineColor, getComputedStyle(e.closest('.panel')).backgroundColor]; }"
    )
    assert ring[:2] == ["solid", "3px"]
    assert contrast(ring[2], ring[3]) >= 3, ring
    page.emulate_media(forced_colors="active")
    assert close.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    wait_ready(page)
