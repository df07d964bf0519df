"""groundwork.batching.Batcher: items from many threads reach the send exactly once, in batches."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter

import pytest

from groundwork.batching import Batcher


def wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the batcher did not send in time"
        time.sleep(0.01)


def test_items_from_many_threads_are_sent_once_in_batches() -> None:
    batches: list[list[int]] = []
    batcher = Batcher(batches.append, window_s=0.05, max_items=20, name="test-batcher")

    def add(start: int) -> None:
        for item in range(start, start + 300):
            batcher.add(item)

    threads = [threading.Thread(target=add, args=(1000 * n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # A last item, sent after every earlier one (one sender, in order): whatever of the 1,800
    # would go twice has gone once it arrives.
    batcher.add(-1)
    wait_for(lambda: any(-1 in batch for batch in batches))
    sent = Counter(item for batch in batches for item in batch if item != -1)
    assert sent == Counter(item for n in range(6) for item in range(1000 * n, 1000 * n + 300))
    assert max(map(len, batches)) == 20
    assert len(batches) < 1801 / 10


def test_a_failed_send_does_not_stop_the_next() -> None:
    batches: list[list[str]] = []
    tried: list[list[str]] = []

    def send(batch: list[str]) -> None:
        tried.append(batch)
        if "bad" in batch:
            raise ConnectionError("broker down")
        batches.append(batch)

    batcher = Batcher(send, window_s=0.02, max_items=5, name="test-batcher")
    batcher.add("bad")
    wait_for(lambda: tried)  # its send failed
    batcher.add("good")
    wait_for(lambda: batches)
    assert batches == [["good"]]


def test_a_lone_item_goes_at_once_and_the_next_wait_for_the_window_or_a_full_batch() -> None:
    batches: list[list[int]] = []
    batcher = Batcher(batches.append, window_s=30, max_items=3, name="test-batcher")
    batcher.add(1)
    wait_for(lambda: batches, seconds=5)  # not held for the 30 s window
    batcher.add(2)
    batcher.add(3)
    batcher.add(4)
    wait_for(lambda: len(batches) == 2, seconds=5)  # a full batch goes at once
    # 2 and 3 were held within the window after a send: sent early, they would be a batch of their
    # own, and 4 would wait out the 30 s window alone.
    assert batches == [[1], [2, 3, 4]]


def test_a_lost_service_is_one_log_line_and_a_bug_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    tried: list[list[str]] = []

    def send(batch: list[str]) -> None:
        tried.append(batch)
        raise ConnectionError("broker down") if batch == ["lost"] else KeyError("a bug")

    batcher = Batcher(send, window_s=0.0, max_items=1, name="test-batcher")
    with caplog.at_level(logging.WARNING, logger="groundwork.batching"):
        batcher.add("lost")
        wait_for(lambda: len(caplog.records) == 1)
        batcher.add("bug")
        wait_for(lambda: len(caplog.records) == 2)
    lost, bug = caplog.records
    assert (lost.levelname, lost.exc_info) == ("WARNING", None)
    assert "ConnectionError: broker down" in lost.getMessage()
    assert bug.levelname == "ERROR" and bug.exc_info is not None and bug.exc_info[0] is KeyError
