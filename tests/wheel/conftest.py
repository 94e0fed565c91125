"""One wheel of this checkout, installed offline in a fresh venv, for the whole session."""

from __future__ import annotations

import pytest

from tests.wheel.install import Installed, install


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install(tmp_path_factory.mktemp("wheel"))
