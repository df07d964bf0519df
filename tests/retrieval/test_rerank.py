"""Live reranking of the wizard's panel: scores added, passages reordered, and any failure or
timeout leaves the caller with None (keep the TF-IDF order), logged, never an exception."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from retrieval.rankers import Candidate
from retrieval.rerank import MAX_PENDING
from retrieval.services import arerank_passages, passages_rank, rerank_passages
from retrieval.tasks import rerank

CONTEXT = ["Have you been to a jazz club?", "No, but I love improvised music like jazz."]
PASSAGES = [
    {"source": "partner", "passage": 0, "title": "Tea", "sentences": ["Tea is a drink.", "It is brewed with hot water."]},
    {"source": "partner", "passage": 1, "title": "Jazz", "sentences": ["Jazz began in New Orleans.", "Jazz is known for improvised solos."]},
]


@pytest.fixture(autouse=True)
def in_process(settings) -> None:
    """The embedded mode's path (the worker path is in test_rerank_worker.py)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True


class BrokenRanker:
    name = "broken"

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        raise RuntimeError("CUDA out of memory")


class SlowRanker:
    """Scores only once released (or after `seconds`); counts the calls that reached it and the
    ones it finished."""

    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.release = threading.Event()
        self.started = 0
        self.finished = 0

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        self.started += 1
        self.release.wait(self.seconds)
        self.finished += 1
        return np.arange(len(candidates), dtype=np.float32)


def wait_for_idle_reranks() -> None:
    """Every pending rerank of this process has finished (the next test starts with none)."""
    from retrieval import rerank as module

    held = [module._pending.acquire(timeout=30) for _ in range(MAX_PENDING)]
    for taken in held:
        if taken:
            module._pending.release()
    assert all(held), "a rerank never finished"


def test_it_reorders_passages_by_their_best_sentence_and_keeps_every_key() -> None:
    ranked = rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=10)

    assert [p["title"] for p in ranked] == ["Jazz", "Tea"]
    jazz = ranked[0]
    assert (jazz["source"], jazz["passage"], jazz["sentences"]) == ("partner", 1, PASSAGES[1]["sentences"])
    assert len(jazz["scores"]) == 2 and jazz["scores"][1] > jazz["scores"][0]
    assert "scores" not in PASSAGES[0]  # the caller's dicts are not touched


def test_it_keeps_the_input_order_of_equal_passages() -> None:
    ranked = passages_rank(context=["quantum chromodynamics"], passages=PASSAGES)

    assert [p["title"] for p in ranked] == ["Tea", "Jazz"]


def test_a_failing_ranker_leaves_the_order_to_the_caller_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="retrieval.rerank"):
        assert rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=5, ranker=BrokenRanker()) is None

    assert "rerank failed" in caplog.text and "CUDA out of memory" in caplog.text


def test_a_slow_ranker_times_out_without_holding_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    slow = SlowRanker(seconds=60)
    with caplog.at_level(logging.WARNING, logger="retrieval.rerank"):
        result = rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=0.2, ranker=slow)
    unfinished = slow.finished == 0  # the caller came back while the ranker was still scoring
    slow.release.set()
    wait_for_idle_reranks()

    assert result is None and unfinished
    assert "rerank timed out" in caplog.text


def test_a_backlog_of_reranks_is_refused_at_once(caplog: pytest.LogCaptureFixture) -> None:
    slow = SlowRanker(seconds=60)
    try:
        for _ in range(MAX_PENDING):
            rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=0.01, ranker=slow)
        with caplog.at_level(logging.WARNING, logger="retrieval.rerank"):
            assert rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=60, ranker=slow) is None
        # Refused without waiting: not timed out, not queued, and the ranker still holds the others.
        assert "already pending" in caplog.text and "already pending" in caplog.records[-1].getMessage()
        assert "timed out" not in caplog.records[-1].getMessage()
        assert slow.finished == 0
    finally:
        slow.release.set()
        wait_for_idle_reranks()
    assert slow.started <= MAX_PENDING


async def test_the_async_version_does_not_block_the_event_loop() -> None:
    import asyncio

    slow = SlowRanker(seconds=30)
    ticks = 0

    async def tick() -> None:
        """Runs only while the loop is free; releases the ranker after a few turns of it."""
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1
            if ticks == 5:
                slow.release.set()

    ticker = asyncio.create_task(tick())
    result = await arerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=60, ranker=slow)
    ticker.cancel()

    assert [p["title"] for p in result] == ["Jazz", "Tea"]  # SlowRanker scores later candidates higher
    assert ticks >= 5  # the loop ran while the ranker waited (a blocked loop leaves it waiting its 30 s)


async def test_the_async_version_returns_none_on_failure() -> None:
    assert await arerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=1, ranker=BrokenRanker()) is None


def test_a_broken_checkpoint_is_a_logged_failure(tmp_path: Path, settings, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "reranker.json").write_text("{}")  # no weights beside it
    settings.RERANKER_CHECKPOINT = str(tmp_path)

    with caplog.at_level(logging.ERROR, logger="retrieval.rerank"):
        assert rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=30) is None
    assert "rerank failed" in caplog.text


def test_malformed_passages_are_the_callers_error() -> None:
    with pytest.raises(ValueError, match="'title' string and a 'sentences' list"):
        rerank_passages(context=CONTEXT, passages=[{"title": "Tea"}], timeout_s=1)


def test_the_celery_task_returns_the_ranked_passages() -> None:
    ranked = rerank.apply(kwargs={"context": CONTEXT, "passages": PASSAGES}).get()

    assert [p["title"] for p in ranked] == ["Jazz", "Tea"]
    assert rerank.name == "retrieval.tasks.rerank"


def test_a_bad_ranker_setting_is_a_logged_failure_not_a_crash(settings, tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    settings.RANKER, settings.RERANKER_CHECKPOINT = "neural", ""  # a neural ranker needs a checkpoint

    with caplog.at_level(logging.ERROR, logger="retrieval.rerank"):
        assert rerank_passages(context=CONTEXT, passages=PASSAGES) is None
    assert "GROUNDWORK_RANKER=neural needs GROUNDWORK_RERANKER_CHECKPOINT" in caplog.text


def test_the_mode_setting_keeps_reranks_in_process_even_with_a_broker(settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # as with CELERY_BROKER_URL set
    settings.RERANK_MODE = "process"

    ranked = rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=10)

    assert [p["title"] for p in ranked] == ["Jazz", "Tea"]
