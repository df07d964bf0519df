from __future__ import annotations


class ProtocolError(Exception):
    """A refused frame or action. `code` is machine-readable, `message` is for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
