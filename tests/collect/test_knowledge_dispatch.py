"""collect.services.knowledge's dispatch: a batch of stored messages' retrievals queued as one
task, sent again on a connection of its own where kombu's pooled producer lost its channel."""

from __future__ import annotations

from typing import Any

import pytest

from collect.services import knowledge
from collect.tasks import messages_knowledge


def test_a_batch_that_meets_a_closed_channel_is_published_again_on_a_new_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def apply_async(**options: Any) -> None:
        calls.append(options)
        if len(calls) == 1:  # what kombu's Redis channel raises once a broker restart closed it
            raise AttributeError("'NoneType' object has no attribute 'client'")

    monkeypatch.setattr(messages_knowledge, "apply_async", apply_async)
    knowledge._send_batch([7, 8])
    assert [call["args"] for call in calls] == [([7, 8],), ([7, 8],)]
    assert "connection" not in calls[0]
    assert calls[1]["connection"] is not None  # its own, not the pool's


def test_a_second_failure_is_raised_for_the_batcher_to_log(monkeypatch: pytest.MonkeyPatch) -> None:
    def apply_async(**options: Any) -> None:
        raise AttributeError("'NoneType' object has no attribute 'client'")

    monkeypatch.setattr(messages_knowledge, "apply_async", apply_async)
    with pytest.raises(AttributeError):
        knowledge._send_batch([7])
