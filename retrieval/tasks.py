"""Celery tasks of the retrieval app (routed to the `index` queue by settings.CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from retrieval.index import index_build


@shared_task
def build_index(source_id: int) -> dict[str, object]:
    """Rebuild a source's TF-IDF index; returns its meta (n_docs, n_terms, built_at, ...)."""
    return index_build(source_id=source_id)
