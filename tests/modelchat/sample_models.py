"""Python models for the tests, registered by dotted path like a researcher's own class."""

from __future__ import annotations

import threading
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
    """Waits `seconds` (or until `release` is set); counts the calls running at once in `running`
    (class-wide)."""

    running = 0
    most = 0
    finished = 0
    lock = threading.Lock()
    release = threading.Event()

    def __init__(self, seconds: float = 0.5) -> None:
        self.seconds = seconds

    def respond(self, context: dict[str, Any]) -> dict[str, Any]:
        with Slow.lock:
            Slow.running += 1
            Slow.most = max(Slow.most, Slow.running)
        try:
            Slow.release.wait(self.seconds)
        finally:
            with Slow.lock:
                Slow.running -= 1
                Slow.finished += 1
        return {"text": "Sorry for the wait."}


class WrongType:
    def respond(self, context: dict[str, Any]) -> list[str]:
        return ["not", "a", "reply"]


class Gated:
    """Answers "Done: <last message>" once `open` is set; `started` lists the messages it began
    answering, in order (class-wide)."""

    open = threading.Event()
    started: list[str] = []

    def respond(self, context: dict[str, Any]) -> str:
        Gated.started.append(context["history"][-1])
        Gated.open.wait(30)
        return "Done: " + context["history"][-1]
