"""Python models for the tests, registered by dotted path like a researcher's own class."""

from __future__ import annotations

import threading
import time
from typing import Any


class Echo:
    def __init__(self, prefix: str = "You said: ") -> None:
        self.prefix = prefix

    def respond(self, context: dict[str, Any]) -> str:
        return self.prefix + context["history"][-1]


class Broken:
    def respond(self, context: dict[str, Any]) -> str:
        raise RuntimeError("CUDA out of memory")


class Slow:
    """Sleeps `seconds`; counts the calls running at once in `running` (class-wide)."""

    running = 0
    most = 0
    lock = threading.Lock()

    def __init__(self, seconds: float = 0.5) -> None:
        self.seconds = seconds

    def respond(self, context: dict[str, Any]) -> dict[str, Any]:
        with Slow.lock:
            Slow.running += 1
            Slow.most = max(Slow.most, Slow.running)
        try:
            time.sleep(self.seconds)
        finally:
            with Slow.lock:
                Slow.running -= 1
        return {"text": "Sorry for the wait."}


class WrongType:
    def respond(self, context: dict[str, Any]) -> list[str]:
        return ["not", "a", "reply"]
