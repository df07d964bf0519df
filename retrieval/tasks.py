"""Celery tasks of the retrieval app. settings.CELERY_TASK_ROUTES sends `retrieval.tasks.*` to the
`index` queue; `retrieval.tasks.rerank` belongs on the `rerank` queue (GPU workers in production)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from retrieval.index import index_build
from retrieval.rerank import passages_rank


@shared_task
def build_index(source_id: int, memory_mb: int | None = None) -> dict[str, object]:
    """Rebuild a source's TF-IDF index; returns its meta (n_docs, n_terms, built_at, ...)."""
    return index_build(source_id=source_id, **({"memory_mb": memory_mb} if memory_mb else {}))


@shared_task
def rerank(context: list[str], passages: list[dict[str, Any]], topic: str = "", language: str = "en") -> list[dict[str, Any]]:
    """The passages with per-sentence "scores", best first (see retrieval.rerank.passages_rank).
    Failures propagate: the caller waiting on the result keeps the TF-IDF order."""
    return passages_rank(context=context, passages=passages, topic=topic, language=language)


@shared_task(ignore_result=True)
def ranker_retrain() -> dict[str, Any]:
    """Celery beat: retrain the learned ranker when enough new examples arrived (retrieval/training)."""
    from retrieval.training.services import ranker_retrain as retrain

    return retrain()
