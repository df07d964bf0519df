"""The default search backend: the campaign's knowledge source through its first-stage TF-IDF
index (retrieval.services.passages_for_query), each article found as one document of its lead
paragraph's sentences, with a url made from the campaign's `search.url_template`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from collect.tasktypes.woi.search import DOWN, SearchFailed, Source
from retrieval import services as retrieval


def store_search(*, source: Source, query: str, n: int, url_template: str) -> list[dict[str, Any]]:
    try:
        passages = retrieval.passages_for_query(source_id=source.id, source_slug=source.slug, query=query, k=n)
    except retrieval.IndexNotBuilt as error:
        raise SearchFailed(DOWN, str(error)) from None
    return [
        {"content": list(p["sentences"]), "url": document_url(url_template, p["title"], source.language), "title": p["title"]}
        for p in passages
    ]


def document_url(template: str, title: str, language: str) -> str:
    """`template` with {title} as Wikipedia writes it in a link (underscores, percent-encoded)."""
    return template.format(title=quote(title.replace(" ", "_"), safe="()_,'!*-.~:"), language=quote(language or "en"))
