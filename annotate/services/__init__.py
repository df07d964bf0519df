"""Services write. Each raises AnnotationError for a request it refuses, before storing anything."""

from __future__ import annotations


class AnnotationError(Exception):
    """A refused request: `code` is machine-readable, `message` is for the person, `status` the HTTP
    status the API answers with."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
