from __future__ import annotations

import time


class RateLimiter:
    """At most `limit` events in any `window` seconds (a sliding window, per connection)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._times: list[float] = []

    def allow(self) -> bool:
        now = time.monotonic()
        self._times = [t for t in self._times if now - t < self.window]
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True
