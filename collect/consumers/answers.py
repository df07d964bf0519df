"""A room socket's memory of the answers it gave: a page resends a frame until it is acknowledged,
and a copy of a frame this socket has already applied, answered and broadcast is only answered
again (no database work, no broadcast: the copy means the server was slow, and more work would
make it slower). A copy on another socket (a reconnect) is not found here and takes the full path,
which repairs whatever a dead process may have lost."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

# A page has a few frames unacknowledged at a time: the last 64 cover every copy it can still send.
ANSWERS_KEPT = 64


class AnswerMemory:
    """client_id → the ack frame it was answered with, the newest `kept` only."""

    def __init__(self, kept: int = ANSWERS_KEPT) -> None:
        self.kept = kept
        self._answers: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def answer_for(self, client_id: str | None) -> dict[str, Any] | None:
        """The ack this socket sent for `client_id`, or None (never answered, forgotten, or no id)."""
        return self._answers.get(client_id) if client_id is not None else None

    def remember(self, client_id: str | None, ack: dict[str, Any] | None) -> None:
        """Kept once the frame's whole handling is done: a copy of a frame whose broadcast raised
        must take the full path again. Frames without a client_id or ack are not kept."""
        if client_id is None or ack is None:
            return
        self._answers[client_id] = ack
        self._answers.move_to_end(client_id)
        if len(self._answers) > self.kept:
            self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)
