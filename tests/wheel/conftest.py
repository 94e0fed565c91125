"""One wheel of this checkout, installed offline in a fresh venv, for the whole session;
and the same wheel with its server extra alone, in a venv of its own."""

from __future__ import annotations

import pytest

from tests.wheel.install import Installed, install, install_server


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def installed_server(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install_server(tmp_path_factory.mktemp("server"), installed.wheel)
