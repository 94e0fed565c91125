"""Real services for the server's tests: one Redis and one PostgreSQL for the session,
started from Debian's binaries (tests/services.py) and stopped after."""

from collections.abc import Iterator

import pytest

from tests.services import PostgresServer, RedisServer, postgres_server, redis_server


@pytest.fixture(scope="session")
def redis_service() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def redis_url(redis_service: RedisServer) -> str:
    """The session's Redis, emptied for this test."""
    redis_service.flush()
    return redis_service.url


@pytest.fixture(scope="session")
def postgres_service() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_service: PostgresServer) -> Iterator[str]:
    """A new empty database on the session's PostgreSQL, dropped after the test."""
    with postgres_service.new_database() as url:
        yield url
