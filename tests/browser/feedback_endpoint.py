"""A fake feedback receiver for browser tests: the site owner's ``feedbackEndpoint``.

The test server hands it each ``POST /api/feedback`` body; it records every
report it gets (failed attempts too) and replies 204, or what a test queued::

    feedback.fail(500)            # the next report is refused (the panel retries once)
    feedback.reports[-1]["vote"]  # what the panel sent
"""

from __future__ import annotations

import json
import threading


class FakeFeedback:
    def __init__(self) -> None:
        self.reports: list[dict[str, object]] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()

    def reset(self) -> None:
        with self.lock:
            self.reports.clear()
            self.statuses.clear()

    def fail(self, *statuses: int) -> None:
        """Reply with these statuses to the next reports, in order."""
        with self.lock:
            self.statuses.extend(statuses)

    def __call__(self, body: bytes) -> int:
        with self.lock:
            self.reports.append(json.loads(body))
            return self.statuses.pop(0) if self.statuses else 204
