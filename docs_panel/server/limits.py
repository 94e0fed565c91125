"""Rate limits for the server install: token buckets per client and one global ceiling.

A question takes one token from its client's bucket and one from the global bucket,
both or neither: a client over its own limit spends nothing of the ceiling, and a
refusal spends nothing at all. :meth:`Limiter.take` answers 0.0 when the question
may go on, else the seconds until it may (the server's 429 ``Retry-After``, through
:func:`retry_after`)::

    >>> def settled(step):  # a local take never waits: it ends at its first step
    ...     try:
    ...         step.send(None)
    ...     except StopIteration as end:
    ...         return end.value
    >>> clock = iter([0.0, 0.0, 0.0, 2.5]).__next__  # the time of each take
    >>> limiter = LocalLimiter(LimitSettings(client=Bucket(rate=0.5, burst=2)), clock=clock)
    >>> [settled(limiter.take("203.0.113.7")) for _ in range(4)]
    [0.0, 0.0, 2.0, 0.0]
    >>> retry_after(0.2)
    1

The buckets live in this process (:class:`LocalLimiter`) unless ``redis`` is set:
then every instance shares them through one Lua script on that Redis
(:class:`RedisLimiter`), which reads and writes both buckets in one atomic step on
Redis's own clock, so two instances never overspend and their clocks need not agree.

When Redis cannot be reached, a :class:`RedisLimiter` keeps limiting with buckets of
its own process (logging one error when Redis goes, one line when it is back): each
instance still holds the per-client and global limits, so N instances let through at
most N times the ceiling, and the docs keep answering. Failing open would leave the
site's model key unguarded for the whole outage; failing closed would turn a Redis
outage into an outage of the panel.

Who a client is, the key a bucket is kept under, is decided in ``client_key``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from docs_panel.portable.errors import ConfigError

log = logging.getLogger(__name__)

TOKEN_SLACK: Final = 1e-9
"""A bucket this short of a whole token has one: waiting the exact time a refusal named
refills it to 0.9999999999999999 in floating point, and must be enough."""
REDIS_TIMEOUT_S: Final = 1.0
"""How long one Redis round trip may take before this instance limits on its own."""
REDIS_RETRY_S: Final = 5.0
"""After Redis failed, how long this instance limits on its own before trying it again
(so an outage costs one timeout per interval, not one per question)."""
KEY_PREFIX: Final = "docs-panel:limits"


@dataclass(frozen=True, slots=True)
class Bucket:
    """A token bucket: ``burst`` tokens at most, refilled at ``rate`` tokens a second."""

    rate: float
    burst: float

    def __post_init__(self) -> None:
        for name in ("rate", "burst"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"rate limit {name}: expected a number, got {value!r}")
            if not math.isfinite(value) or value <= 0:
                raise ConfigError(f"rate limit {name}: expected a number above 0, got {value!r}")
        if self.burst < 1:
            raise ConfigError(f"rate limit burst: expected at least 1, got {self.burst!r}")


@dataclass(frozen=True, slots=True)
class LimitSettings:
    """What the server's flags say about limits.

    Defaults: a reader may ask 10 questions at once, then one every 6 s; the whole
    site (every instance together) 100 at once, then 10 a second. ``redis``: a
    ``redis://``, ``rediss://`` or ``unix://`` URL shared by every instance, or None for this
    process alone. ``prefix`` names the keys, so one Redis can serve several limits.
    """

    client: Bucket = Bucket(rate=1 / 6, burst=10)
    total: Bucket = Bucket(rate=10, burst=100)
    redis: str | None = None
    prefix: str = KEY_PREFIX


class Limiter(Protocol):
    async def take(self, client: str) -> float:
        """0.0 when ``client`` may go on (a token is spent), else the seconds to wait."""
        ...

    async def close(self) -> None: ...


def retry_after(wait_s: float) -> int:
    """The ``Retry-After`` header's whole seconds for a wait: rounded up, at least 1."""
    return max(1, math.ceil(wait_s))


def open_limiter(settings: LimitSettings) -> Limiter:
    """The limiter the settings ask for; raises ConfigError on a Redis URL it cannot use."""
    if settings.redis is None:
        return LocalLimiter(settings)
    return RedisLimiter(settings)


@dataclass(slots=True)
class _Level:
    tokens: float
    at: float


def _refilled(level: _Level | None, bucket: Bucket, now: float) -> float:
    if level is None:
        return bucket.burst
    return min(bucket.burst, level.tokens + max(0.0, now - level.at) * bucket.rate)


def _enough(tokens: float) -> bool:
    return tokens >= 1 - TOKEN_SLACK


def _wait(tokens: float, bucket: Bucket) -> float:
    return 0.0 if _enough(tokens) else (1 - tokens) / bucket.rate


class LocalLimiter:
    """Buckets in this process. A client's bucket is forgotten once it would be full
    again, so memory stays bounded by the clients of the last few minutes (and a
    refused question stores nothing)."""

    def __init__(
        self, settings: LimitSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._client = settings.client
        self._total = settings.total
        self._clock = clock
        self._clients: dict[str, _Level] = {}
        self._global: _Level | None = None
        self._swept_at = -math.inf

    async def take(self, client: str) -> float:
        now = self._clock()
        self._sweep(now)
        mine = _refilled(self._clients.get(client), self._client, now)
        shared = _refilled(self._global, self._total, now)
        if _enough(mine) and _enough(shared):
            self._clients[client] = _Level(mine - 1, now)
            self._global = _Level(shared - 1, now)
            return 0.0
        return max(_wait(mine, self._client), _wait(shared, self._total))

    def _sweep(self, now: float) -> None:
        refill_s = self._client.burst / self._client.rate
        if now - self._swept_at < refill_s:
            return
        self._swept_at = now
        full = [k for k, level in self._clients.items() if now - level.at >= refill_s]
        for key in full:
            del self._clients[key]

    async def close(self) -> None:
        self._clients.clear()


# KEYS: the client's bucket, the global one.
# ARGV: client rate, burst, global rate, burst, TOKEN_SLACK.
# Each bucket is a hash {tokens, at} on Redis's clock, expiring once it would be full.
# Returns a string: Redis truncates a Lua number it returns to an integer.
TAKE_SCRIPT: Final = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) + tonumber(now_parts[2]) / 1000000
local function level(key, rate, burst)
  local stored = redis.call('HMGET', key, 'tokens', 'at')
  local tokens, at = tonumber(stored[1]), tonumber(stored[2])
  if tokens == nil or at == nil then return burst end
  return math.min(burst, tokens + math.max(0, now - at) * rate)
end
local function spend(key, tokens, rate, burst)
  redis.call('HSET', key, 'tokens', string.format('%.17g', tokens - 1),
             'at', string.format('%.6f', now))
  redis.call('PEXPIRE', key, math.ceil((burst - tokens + 1) / rate * 1000) + 1000)
end
local slack = tonumber(ARGV[5])
local function enough(tokens)
  return tokens >= 1 - slack
end
local function wait(tokens, rate)
  if enough(tokens) then return 0 end
  return (1 - tokens) / rate
end
local client_rate, client_burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local total_rate, total_burst = tonumber(ARGV[3]), tonumber(ARGV[4])
local mine = level(KEYS[1], client_rate, client_burst)
local shared = level(KEYS[2], total_rate, total_burst)
if enough(mine) and enough(shared) then
  spend(KEYS[1], mine, client_rate, client_burst)
  spend(KEYS[2], shared, total_rate, total_burst)
  return '0'
end
return string.format('%.17g', math.max(wait(mine, client_rate), wait(shared, total_rate)))
"""


_REDIS_SCHEMES: Final = ("redis://", "rediss://", "unix://")


class RedisLimiter:
    """Buckets on a Redis every instance shares; this process's own while it is down."""

    def __init__(
        self, settings: LimitSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if settings.redis is None or not settings.redis.startswith(_REDIS_SCHEMES):
            raise ConfigError(
                f"--redis: expected a redis://, rediss:// or unix:// URL, got {settings.redis!r}"
            )
        try:
            self._redis = aioredis.Redis.from_url(
                settings.redis,
                socket_timeout=REDIS_TIMEOUT_S,
                socket_connect_timeout=REDIS_TIMEOUT_S,
                retry_on_timeout=False,
            )
        except ValueError as err:
            raise ConfigError(f"--redis: {err}") from None
        self._script = self._redis.register_script(TAKE_SCRIPT)
        self._args = (
            settings.client.rate,
            settings.client.burst,
            settings.total.rate,
            settings.total.burst,
            TOKEN_SLACK,
        )
        self._prefix = settings.prefix
        self._fallback = LocalLimiter(settings, clock=clock)
        self._clock = clock
        self._down_since: float | None = None

    async def take(self, client: str) -> float:
        now = self._clock()
        if self._down_since is not None and now - self._down_since < REDIS_RETRY_S:
            return await self._fallback.take(client)
        keys = (f"{self._prefix}:client:{client}", f"{self._prefix}:global")
        try:
            answer = await self._script(keys=keys, args=self._args)
        except (RedisError, OSError) as err:  # OSError: TimeoutError included
            if self._down_since is None:
                log.error(
                    "rate limits: Redis failed (%s: %s); limiting in this process alone "
                    "until it answers",
                    type(err).__name__,
                    err,
                )
            self._down_since = now
            return await self._fallback.take(client)
        if self._down_since is not None:
            log.warning("rate limits: Redis answers again; limits are shared again")
            self._down_since = None
        return float(answer)

    async def close(self) -> None:
        await self._redis.aclose()
        await self._fallback.close()
