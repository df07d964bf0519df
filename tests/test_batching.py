"""groundwork.batching.Batcher: items from many threads reach the send exactly once, in batches."""

from __future__ import annotations

import threading
import time
from collections import Counter

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
    wait_for(lambda: sum(map(len, batches)) >= 1800)
    time.sleep(0.1)  # nothing more comes
    sent = Counter(item for batch in batches for item in batch)
    assert sent == Counter(item for n in range(6) for item in range(1000 * n, 1000 * n + 300))
    assert max(map(len, batches)) == 20
    assert len(batches) < 1800 / 10


def test_a_failed_send_does_not_stop_the_next() -> None:
    batches: list[list[str]] = []

    def send(batch: list[str]) -> None:
        if "bad" in batch:
            raise ConnectionError("broker down")
        batches.append(batch)

    batcher = Batcher(send, window_s=0.02, max_items=5, name="test-batcher")
    batcher.add("bad")
    time.sleep(0.2)
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
    time.sleep(0.2)
    assert batches == [[1]]  # within the window after a send: held
    batcher.add(4)
    wait_for(lambda: len(batches) == 2, seconds=5)  # a full batch goes at once
    assert batches == [[1], [2, 3, 4]]
