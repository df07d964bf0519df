"""The small API that collect/ and annotate/ call. Everything here is synchronous; callers on the
event loop wrap it in database_sync_to_async so retrieval never blocks other rooms.

CONTRACT (implemented by the retrieval work):
- passages_for_query(source_id=, query=, k=7) -> list[Passage]: top-k articles by TF-IDF for the
  query, each as {"title": str, "sentences": [str, ...]} (the lead paragraph split into sentences).
  Returns [] for an empty query. Raises IndexNotBuilt when the source has no index on disk.
- topic_passage(source_id=, title=, max_sentences=10) -> list[str]: the lead sentences of the
  article with exactly that title, else of the best TF-IDF match for the title; [] if none.
"""

from __future__ import annotations

from typing import TypedDict


class Passage(TypedDict):
    title: str
    sentences: list[str]


class IndexNotBuilt(RuntimeError):
    pass
