"""Settings for the whole suite, and what the browser and cross-engine suites share:
one demo build and server with its fake endpoints, and one Chromium (Playwright's sync
API runs one instance per process).

Hypothesis checks behaviour, not speed (speed is what bench/ measures): a busy
machine must not fail a property test for being slow, so no per-example deadline
and no too-slow health check.
"""

import threading
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import Browser, sync_playwright

from docs_panel.build.cli import build_demo
from docs_panel.build.serve import make_server
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, Site
from tests.browser.endpoint import FakeEndpoint
from tests.browser.feedback_endpoint import FakeFeedback

settings.register_profile("docs-panel", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("docs-panel")


@pytest.fixture(scope="session")
def fake_endpoint() -> FakeEndpoint:
    return FakeEndpoint()


@pytest.fixture
def endpoint(fake_endpoint: FakeEndpoint) -> Iterator[FakeEndpoint]:
    """The answer endpoint at /api/chat, with nothing queued and no requests yet."""
    fake_endpoint.reset()
    yield fake_endpoint
    fake_endpoint.reset()


@pytest.fixture(scope="session")
def fake_feedback() -> FakeFeedback:
    return FakeFeedback()


@pytest.fixture
def feedback(fake_feedback: FakeFeedback) -> Iterator[FakeFeedback]:
    """The feedback receiver at /api/feedback, with no reports yet."""
    fake_feedback.reset()
    yield fake_feedback
    fake_feedback.reset()


@pytest.fixture(scope="session")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    fake_endpoint: FakeEndpoint,
    fake_feedback: FakeFeedback,
) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("demo") / "site"
    build_demo(root)  # the demo pages answer with search results; chat tests add their own
    server = make_server(root, port=0, chat=fake_endpoint, feedback=fake_feedback)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Site(root=root, url=f"http://127.0.0.1:{server.server_port}/")
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
