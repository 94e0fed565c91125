"""Settings for the whole suite.

Hypothesis checks behaviour, not speed (speed is what bench/ measures): a busy
machine must not fail a property test for being slow, so no per-example deadline
and no too-slow health check.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("docs-panel", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("docs-panel")
