"""Celery tasks of the retrieval app. settings.CELERY_TASK_ROUTES sends `retrieval.tasks.*` to the
`index` queue; `retrieval.tasks.rerank` belongs on the `rerank` queue (GPU workers in production)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from retrieval.index import index_build
from retrieval.index.vectors import VectorsBusy, vectors_after_index, vectors_build
from retrieval.rerank import passages_rank

log = logging.getLogger(__name__)


@shared_task
def build_index(source_id: int, memory_mb: int | None = None) -> dict[str, object]:
    """Rebuild a source's TF-IDF index; returns its meta (n_docs, n_terms, built_at, ...). Then the
    source's sentence vectors follow (GROUNDWORK_SENTENCE_VECTORS)."""
    meta = index_build(source_id=source_id, **({"memory_mb": memory_mb} if memory_mb else {}))
    vectors_after_index(source_id)
    return meta


@shared_task(bind=True)
def build_vectors(self, source_id: int) -> dict[str, object]:
    """Encode the source's sentences not encoded yet and publish its vectors (retrieval/index/vectors.py);
    the task's state shows the progress (PROGRESS, {"done": n, "total": n}). A second build of the
    same source while one runs returns {"busy": true} at once."""
    def progress(done: int, total: int) -> None:
        if not self.request.called_directly and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    try:
        return vectors_build(source_id=source_id, progress=progress)
    except VectorsBusy as error:
        log.info("%s", error)
        return {"busy": True, "detail": str(error)}


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
