"""Reordering the wizard's knowledge panel with the configured sentence ranker, off the chat path.

The wizard already has the TF-IDF panel; this is the second, optional step. With a broker
(production) a lexical ranker's panel is ranked by the Celery task that retrieved it
(panel_rank_lexical), and an encoding ranker's on the `rerank` queue (GPU nodes); in the embedded
mode it runs in this process on one dedicated thread, never on the event loop nor on the thread
pool the chat's own work uses. Whatever goes wrong, the caller gets None and keeps the TF-IDF order."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from celery.exceptions import TimeoutError as CeleryTimeout
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from groundwork import metrics
from retrieval.rankers import Candidate, SentenceRanker, encodes
from retrieval.rankers.config import ranker_config
from retrieval.rankers.load import live_ranker, ranker_picked, ranker_version

log = logging.getLogger(__name__)

# Reranks waiting or running in this process beyond which new ones are refused at once: when
# reranking falls behind (a slow CPU, a burst of turns), queueing more only delivers stale panels.
MAX_PENDING = 4
DEFAULT_TIMEOUT_S = 10.0

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rerank")
_pending = threading.BoundedSemaphore(MAX_PENDING)
# Broker round trips (send, poll) are short but blocking: a small pool of their own.
_executor_for_io = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rerank-io")


def _fresh_after_fork() -> None:
    """A forked process (a test server, a prefork worker) inherits these pools but not their
    threads: reranks submitted to them would never run. Start over with new pools."""
    global _executor, _pending, _executor_for_io
    _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rerank")
    _pending = threading.BoundedSemaphore(MAX_PENDING)
    _executor_for_io = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rerank-io")


os.register_at_fork(after_in_child=_fresh_after_fork)


def passages_rank(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str = "",
    ranker: SentenceRanker | None = None, language: str = "en",
) -> list[dict[str, Any]]:
    """Score every sentence of `passages` against `context` (the dialogue turns, oldest first) and
    `topic` (the dialogue's chosen topic, "" when none), in the knowledge source's `language` (the
    TF-IDF ranker's words: retrieval/words.py).

    Returns copies of the passages with every key kept and "scores" added: one float per sentence,
    aligned with "sentences", which are never reordered inside a passage (so a (passage, sentence)
    index the wizard checks stays valid). Passages come best first by their best sentence; equal
    ones keep their input order. Raises whatever the ranker raises."""
    _check(passages)
    ranker = ranker or live_ranker(language=language)
    candidates = _candidates(passages)
    with metrics.RERANK_SECONDS.time():
        flat = ranker.score(list(context), candidates, topic=topic) if candidates else []
    ranked: list[dict[str, Any]] = []
    offset = 0
    for passage in passages:
        size = len(passage["sentences"])
        ranked.append({**passage, "scores": [round(float(s), 6) for s in flat[offset : offset + size]]})
        offset += size
    order = sorted(range(len(ranked)), key=lambda i: (-max(ranked[i]["scores"], default=float("-inf")), i))
    return [ranked[i] for i in order]


def _candidates(passages: Sequence[Mapping[str, Any]]) -> list[Candidate]:
    return [Candidate(str(p["title"]), str(s)) for p in passages for s in p["sentences"]]


def panel_rank(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, after_seq: int,
    ranker: SentenceRanker | None = None, language: str = "en",
) -> dict[str, Any]:
    """The knowledge.reranked frame of a panel: passages_rank's passages, and "ranked_by", the
    model version that ranked them (kept with the stored panel)."""
    ranker = ranker_picked(ranker or live_ranker(language=language), _candidates(passages))
    ranked = passages_rank(context=context, passages=passages, topic=topic, ranker=ranker, language=language)
    return {"type": "knowledge.reranked", "after_seq": after_seq, "passages": ranked, "ranked_by": ranker_version(ranker)}


def panel_rank_lexical(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, after_seq: int, language: str = "en",
) -> dict[str, Any] | None:
    """panel_rank, when the ranker picked for this panel runs no encoder (a few milliseconds of a
    CPU: the retrieval task ranks the panel itself, rather than queue a task for it); None when it
    does (the `rerank` queue's work)."""
    ranker = ranker_picked(live_ranker(language=language), _candidates(passages))
    if encodes(ranker):
        return None
    return panel_rank(context=context, passages=passages, topic=topic, after_seq=after_seq, ranker=ranker, language=language)


async def arerank_panel(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, after_seq: int,
    timeout_s: float | None = None, language: str = "en",
) -> dict[str, Any] | None:
    """panel_rank on this process's rerank thread (the embedded mode), within `timeout_s`; None
    (logged) when it fails, times out or too many reranks are pending."""
    _check(passages)
    timeout_s = rerank_timeout_s() if timeout_s is None else timeout_s
    started = time.perf_counter()
    try:
        future = _submit_call(
            panel_rank, context=list(context), passages=list(passages), topic=topic, after_seq=after_seq, language=language
        )
        return await asyncio.wait_for(asyncio.wrap_future(future), timeout_s)
    except Exception as error:  # noqa: BLE001 - see rerank_passages
        _log_failure(error, timeout_s, started)
        return None


def rerank_passages(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str = "", timeout_s: float | None = None,
    ranker: SentenceRanker | None = None, language: str = "en",
) -> list[dict[str, Any]] | None:
    """passages_rank within `timeout_s` seconds, or None (logged) when it fails, times out or too
    many reranks are already pending. Blocks the calling thread: call it off the event loop, or use
    arerank_passages from async code. `ranker` (default: the configured live ranker) is only
    honoured in-process; a Celery worker uses its own configuration. `timeout_s` defaults to
    GROUNDWORK_RERANK_TIMEOUT_S."""
    _check(passages)
    timeout_s = rerank_timeout_s() if timeout_s is None else timeout_s
    started = time.perf_counter()
    try:
        if _in_process():
            return _submit(context, passages, topic, ranker, language).result(timeout=timeout_s)
        return _via_celery(context, passages, topic, timeout_s, language)
    except Exception as error:  # noqa: BLE001 - any failure means: keep the TF-IDF order
        _log_failure(error, timeout_s, started)
        return None


async def arerank_passages(
    *, context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str = "", timeout_s: float | None = None,
    ranker: SentenceRanker | None = None, language: str = "en",
) -> list[dict[str, Any]] | None:
    """rerank_passages for the event loop: awaits the rerank thread or polls the Celery result
    without holding any thread while it waits."""
    _check(passages)
    timeout_s = rerank_timeout_s() if timeout_s is None else timeout_s
    started = time.perf_counter()
    try:
        if _in_process():
            return await asyncio.wait_for(asyncio.wrap_future(_submit(context, passages, topic, ranker, language)), timeout_s)
        return await _via_celery_async(context, passages, topic, timeout_s, language)
    except Exception as error:  # noqa: BLE001 - see rerank_passages
        _log_failure(error, timeout_s, started)
        return None


class RerankBusy(RuntimeError):
    pass


def _check(passages: Sequence[Mapping[str, Any]]) -> None:
    for passage in passages:
        if not isinstance(passage.get("title"), str) or not isinstance(passage.get("sentences"), list):
            raise ValueError("each passage needs a 'title' string and a 'sentences' list")


def rerank_timeout_s() -> float:
    """GROUNDWORK_RERANK_TIMEOUT_S; the default when the ranker's settings are bad."""
    try:
        return ranker_config().timeout_s
    except ImproperlyConfigured:  # reported by the rerank itself, which then fails and logs it
        return DEFAULT_TIMEOUT_S


def rerank_on_worker() -> bool:
    """Whether reranks go to Celery's `rerank` queue (see _in_process)."""
    return not _in_process()


def _in_process() -> bool:
    """GROUNDWORK_RERANK_MODE: "process" or "celery"; "auto" (default) reranks in this process when
    Celery tasks run eagerly (the embedded mode) and on the `rerank` queue when there is a broker."""
    try:
        mode = ranker_config().mode
    except ImproperlyConfigured:
        mode = "auto"  # the rerank itself will fail on the bad setting, and log it
    return mode == "process" or (mode == "auto" and bool(settings.CELERY_TASK_ALWAYS_EAGER))


def _submit(
    context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, ranker: SentenceRanker | None, language: str
) -> Future[list[dict[str, Any]]]:
    return _submit_call(
        passages_rank, context=list(context), passages=list(passages), topic=topic, ranker=ranker, language=language
    )


def _submit_call(call: Callable[..., Any], **kwargs: Any) -> Future[Any]:
    if not _pending.acquire(blocking=False):
        raise RerankBusy(f"{MAX_PENDING} reranks already pending in this process")
    try:
        future = _executor.submit(call, **kwargs)
    except BaseException:
        _pending.release()
        raise
    future.add_done_callback(lambda _: _pending.release())
    return future


def _send(
    context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, timeout_s: float, language: str = "en"
) -> Any:
    from retrieval.tasks import rerank

    # A worker that only reaches the task after the caller gave up drops it instead of running it.
    return rerank.apply_async(
        kwargs={"context": list(context), "passages": list(passages), "topic": topic, "language": language},
        expires=timeout_s,
    )


def _via_celery(
    context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, timeout_s: float, language: str
) -> list[dict[str, Any]]:
    result = _send(context, passages, topic, timeout_s, language)
    return result.get(timeout=timeout_s, disable_sync_subtasks=False)


async def _via_celery_async(
    context: Sequence[str], passages: Sequence[Mapping[str, Any]], topic: str, timeout_s: float, language: str
) -> list[dict[str, Any]]:
    loop = asyncio.get_running_loop()
    result = await loop.run_in_executor(_executor_for_io, _send, context, passages, topic, timeout_s, language)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await loop.run_in_executor(_executor_for_io, result.ready):
            return await loop.run_in_executor(_executor_for_io, lambda: result.get(timeout=1.0, disable_sync_subtasks=False))
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no rerank result within {timeout_s} s")


def _log_failure(error: BaseException, timeout_s: float, started: float) -> None:
    waited = time.perf_counter() - started
    if isinstance(error, FutureTimeout | TimeoutError | CeleryTimeout):
        log.warning("rerank timed out after %.1f s (limit %.1f s); the TF-IDF order stays", waited, timeout_s)
    elif isinstance(error, RerankBusy):
        log.warning("rerank skipped: %s; the TF-IDF order stays", error)
    else:
        log.error("rerank failed after %.1f s; the TF-IDF order stays", waited, exc_info=error)
