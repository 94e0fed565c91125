"""Token buckets in this process and shared through a real Redis (tests/services.py)."""

import asyncio
import logging
import threading
import time
from collections import Counter

import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.portable.errors import ConfigError
from docs_panel.server.limits import (
    REDIS_RETRY_S,
    Bucket,
    LimitSettings,
    LocalLimiter,
    RedisLimiter,
    open_limiter,
    retry_after,
)
from tests.event_loops import on_own_loop
from tests.services import RedisServer, redis_server

SLOW = 0.001
"""A refill rate so slow (one token in 1000 s) that no token comes back during a test."""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def takes(limiter: LocalLimiter, *clients: str) -> list[float]:
    return on_own_loop(take_each(limiter, *clients))


async def take_each(limiter: LocalLimiter | RedisLimiter, *clients: str) -> list[float]:
    return [await limiter.take(client) for client in clients]


def test_a_client_gets_its_burst_then_waits_for_the_refill() -> None:
    clock = Clock()
    limiter = LocalLimiter(LimitSettings(client=Bucket(rate=0.5, burst=2)), clock=clock)
    assert takes(limiter, "a", "a", "a") == [0.0, 0.0, 2.0]
    clock.now = 1.5
    assert takes(limiter, "a") == [pytest.approx(0.5)]
    clock.now = 2.0
    assert takes(limiter, "a", "a") == [0.0, 2.0]
    assert takes(limiter, "b") == [0.0]  # another client has a bucket of its own


def test_the_global_ceiling_holds_across_clients() -> None:
    clock = Clock()
    settings = LimitSettings(client=Bucket(rate=1, burst=10), total=Bucket(rate=0.25, burst=3))
    limiter = LocalLimiter(settings, clock=clock)
    assert takes(limiter, "a", "b", "c", "d") == [0.0, 0.0, 0.0, 4.0]
    clock.now = 4.0
    assert takes(limiter, "d", "e") == [0.0, 4.0]


def test_a_refusal_spends_nothing() -> None:
    clock = Clock()
    settings = LimitSettings(client=Bucket(rate=SLOW, burst=1), total=Bucket(rate=1, burst=2))
    limiter = LocalLimiter(settings, clock=clock)
    # A client over its own limit never eats into the ceiling…
    assert takes(limiter, "greedy", *["greedy"] * 50, "b") == [0.0, *[1000.0] * 50, 0.0]
    # …and a client refused by the ceiling keeps its own token for later.
    assert takes(limiter, "c") == [1.0]
    clock.now = 1.0
    assert takes(limiter, "c") == [0.0]


def test_the_wait_is_the_longer_of_the_two_buckets() -> None:
    settings = LimitSettings(client=Bucket(rate=0.1, burst=1), total=Bucket(rate=0.5, burst=1))
    limiter = LocalLimiter(settings, clock=Clock())
    assert takes(limiter, "a", "a", "b") == [0.0, 10.0, 2.0]


def test_idle_clients_are_forgotten() -> None:
    clock = Clock()
    limiter = LocalLimiter(LimitSettings(client=Bucket(rate=1, burst=2)), clock=clock)
    takes(limiter, *(f"client-{n}" for n in range(100)))
    assert len(limiter._clients) == 100
    clock.now = 2.0  # every bucket full again
    takes(limiter, "late")
    assert list(limiter._clients) == ["late"]


def test_retry_after_is_whole_seconds_rounded_up() -> None:
    assert [retry_after(w) for w in (0.001, 0.5, 1.0, 1.01, 59.2)] == [1, 1, 1, 2, 60]


@pytest.mark.parametrize(
    ("rate", "burst", "message"),
    [
        (0, 1, "rate: expected a number above 0, got 0"),
        (1, 0.5, "burst: expected at least 1, got 0.5"),
        (float("nan"), 1, "rate: expected a number above 0"),
        (True, 1, "rate: expected a number, got True"),
        (1, "10", "burst: expected a number, got '10'"),
    ],
)
def test_a_bucket_refuses_unusable_numbers(rate: object, burst: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Bucket(rate=rate, burst=burst)  # type: ignore[arg-type]


def test_open_limiter_picks_the_store_from_the_settings(redis_url: str) -> None:
    assert isinstance(open_limiter(LimitSettings()), LocalLimiter)
    limiter = open_limiter(LimitSettings(redis=redis_url))
    assert isinstance(limiter, RedisLimiter)
    on_own_loop(limiter.close())
    with pytest.raises(ConfigError, match="--redis: expected a redis://"):
        open_limiter(LimitSettings(redis="http://127.0.0.1:6379"))
    with pytest.raises(ConfigError, match="--redis: "):
        open_limiter(LimitSettings(redis="redis://127.0.0.1:port/0"))


# -- shared through Redis ------------------------------------------------------------


def run_instances(url: str, settings: LimitSettings, plans: list[list[str]]) -> Counter[str]:
    """Each plan on a limiter of its own, in a thread with its own event loop (as two
    server processes would be), all released at once; the takes allowed per client."""
    allowed: Counter[str] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(len(plans))
    errors: list[BaseException] = []

    async def instance(plan: list[str]) -> None:
        limiter = RedisLimiter(LimitSettings(settings.client, settings.total, redis=url))
        try:
            await limiter.take("warm-up")  # connect and load the script before the race
            start.wait()
            waits = await asyncio.gather(*(limiter.take(client) for client in plan))
        finally:
            await limiter.close()
        with lock:
            allowed.update(client for client, wait in zip(plan, waits, strict=True) if wait == 0)

    def thread(plan: list[str]) -> None:
        try:
            on_own_loop(instance(plan))
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=thread, args=(plan,)) for plan in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    del allowed["warm-up"]
    return allowed


def test_two_instances_on_one_redis_hold_each_clients_limit(redis_url: str) -> None:
    settings = LimitSettings(client=Bucket(rate=SLOW, burst=5), total=Bucket(rate=1, burst=1000))
    plan = [f"client-{n % 4}" for n in range(80)]
    allowed = run_instances(redis_url, settings, [plan, plan])
    assert allowed == {f"client-{n}": 5 for n in range(4)}


def test_two_instances_on_one_redis_hold_the_global_ceiling(redis_url: str) -> None:
    # 2 warm-ups + 12 questions fit; 160 are asked.
    settings = LimitSettings(client=Bucket(rate=SLOW, burst=5), total=Bucket(rate=SLOW, burst=14))
    plan = [f"client-{n % 8}" for n in range(80)]
    allowed = run_instances(redis_url, settings, [plan, plan])
    assert sum(allowed.values()) == 12
    assert max(allowed.values()) <= 5


def test_limits_under_other_prefixes_keep_buckets_of_their_own(redis_url: str) -> None:
    one = Bucket(rate=SLOW, burst=1)

    async def scenario() -> list[float]:
        questions = RedisLimiter(LimitSettings(one, one, redis=redis_url))
        votes = RedisLimiter(LimitSettings(one, one, redis=redis_url, prefix="docs-panel:votes"))
        try:
            return [*await take_each(questions, "a", "a"), *await take_each(votes, "a", "a")]
        finally:
            await questions.close()
            await votes.close()

    first, refused, other, refused_too = on_own_loop(scenario())
    assert first == other == 0.0 and refused > 990 and refused_too > 990


def test_redis_says_how_long_to_wait(redis_url: str) -> None:
    settings = LimitSettings(
        client=Bucket(rate=SLOW, burst=1), total=Bucket(rate=0.002, burst=2), redis=redis_url
    )

    async def scenario() -> list[float]:
        limiter = RedisLimiter(settings)
        try:
            return await take_each(limiter, "a", "a", "b", "c")
        finally:
            await limiter.close()

    first, client_wait, second, global_wait = on_own_loop(scenario())
    assert first == second == 0.0
    assert 990 < client_wait <= 1000  # one token at 0.001/s, less the test's own time
    assert 490 < global_wait <= 500
    assert retry_after(client_wait) in range(991, 1001)


def test_on_redis_waiting_the_time_named_is_enough(redis_url: str) -> None:
    settings = LimitSettings(
        client=Bucket(rate=5, burst=1), total=Bucket(rate=1000, burst=1000), redis=redis_url
    )

    async def scenario() -> list[float]:
        limiter = RedisLimiter(settings)
        try:
            waits = await take_each(limiter, "a", "a")
            await asyncio.sleep(waits[1])  # what a reader told "Retry-After" does
            return [*waits, await limiter.take("a")]
        finally:
            await limiter.close()

    allowed, wait, after = on_own_loop(scenario())
    assert allowed == 0.0 and 0 < wait <= 0.2 and after == 0.0


def test_redis_buckets_expire_once_they_would_be_full(redis_url: str) -> None:
    settings = LimitSettings(
        client=Bucket(rate=1, burst=3), total=Bucket(rate=10, burst=100), redis=redis_url
    )

    async def scenario() -> None:
        limiter = RedisLimiter(settings)
        await limiter.take("a")
        await limiter.close()

    started = time.monotonic()
    on_own_loop(scenario())
    with redis.Redis.from_url(redis_url) as client:
        ttls = client.pttl("docs-panel:limits:client:a"), client.pttl("docs-panel:limits:global")
    elapsed_ms = (time.monotonic() - started) * 1000  # a loaded machine takes its time
    # One token spent at 1/s: full again in 1 s, at 10/s in 0.1 s; each key lives a
    # second past that, less the time gone since the take.
    assert 2000 - elapsed_ms <= ttls[0] <= 2000
    assert 1100 - elapsed_ms <= ttls[1] <= 1100


def test_redis_takes_buckets_of_any_size(redis_url: str) -> None:
    """A wait of 30,000 years and a key that lives as long are still exact."""
    settings = LimitSettings(
        client=Bucket(rate=1e-12, burst=1), total=Bucket(rate=1e6, burst=1e9), redis=redis_url
    )

    async def scenario() -> list[float]:
        limiter = RedisLimiter(settings)
        try:
            return await take_each(limiter, "a", "a")
        finally:
            await limiter.close()

    allowed, wait = on_own_loop(scenario())
    assert allowed == 0.0 and wait == pytest.approx(1e12, rel=1e-6)
    with redis.Redis.from_url(redis_url) as client:
        assert client.pttl("docs-panel:limits:client:a") > 10**15


def test_without_redis_an_instance_limits_on_its_own(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(url: str) -> list[float]:
        limiter = RedisLimiter(
            LimitSettings(
                client=Bucket(rate=SLOW, burst=2), total=Bucket(rate=SLOW, burst=3), redis=url
            ),
            clock=Clock(),
        )
        try:
            return await take_each(limiter, "a", "a", "a", "b", "c")
        finally:
            await limiter.close()

    with redis_server() as server, caplog.at_level(logging.WARNING, "docs_panel.server.limits"):
        server.stop()  # Redis is down before the first question
        assert on_own_loop(scenario(server.url)) == [0.0, 0.0, 1000.0, 0.0, 1000.0]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert "Redis failed (ConnectionError: " in errors[0].message
    assert "limiting in this process alone" in errors[0].message


def test_redis_is_used_again_after_the_retry_interval(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()

    async def scenario(server: RedisServer) -> None:
        limiter = RedisLimiter(
            LimitSettings(
                client=Bucket(rate=SLOW, burst=1),
                total=Bucket(rate=SLOW, burst=50),
                redis=server.url,
            ),
            clock=clock,
        )
        try:
            assert await take_each(limiter, "a", "a") == [0.0, 1000.0]  # this process's bucket
            server.start()
            clock.now = REDIS_RETRY_S - 0.1
            assert (await limiter.take("a")) > 990  # Redis (a full bucket) not asked yet
            clock.now = REDIS_RETRY_S
            assert await take_each(limiter, "a") == [0.0]  # Redis's bucket, still full
            assert (await limiter.take("a")) > 990  # and now spent, on Redis
        finally:
            await limiter.close()

    with redis_server() as server, caplog.at_level(logging.WARNING, "docs_panel.server.limits"):
        server.stop()
        on_own_loop(scenario(server))
    assert "Redis answers again" in caplog.records[-1].message


STEPS = st.lists(
    st.tuples(st.floats(0, 5, allow_nan=False), st.sampled_from(["a", "b", "c"])),
    max_size=60,
)


@given(steps=STEPS, client_rate=st.floats(0.1, 3), total_rate=st.floats(0.1, 5))
def test_no_window_lets_through_more_than_its_buckets_allow(
    steps: list[tuple[float, str]], client_rate: float, total_rate: float
) -> None:
    """For any interval [t0, t1]: at most burst + rate x (t1 - t0) takes are allowed,
    per client and in all; and a refused take is allowed once its wait has passed."""
    client, total = Bucket(client_rate, 2), Bucket(total_rate, 4)
    clock = Clock()
    limiter = LocalLimiter(LimitSettings(client=client, total=total), clock=clock)
    allowed: list[tuple[float, str]] = []
    for gap, who in steps:
        clock.now += gap
        wait = takes(limiter, who)[0]
        if wait == 0:
            allowed.append((clock.now, who))
            continue
        probe = LocalLimiter(LimitSettings(client=client, total=total), clock=clock)
        probe._clients, probe._global = dict(limiter._clients), limiter._global
        clock.now += wait
        assert takes(probe, who) == [0.0]
        clock.now -= wait
    for i, (start, _) in enumerate(allowed):
        for end, _ in allowed[i:]:
            window = [who for t, who in allowed if start <= t <= end]
            assert len(window) <= total.burst + total.rate * (end - start) + 1e-9
            for who in "abc":
                mine = window.count(who)
                assert mine <= client.burst + client.rate * (end - start) + 1e-9
