"""Build a source's TF-IDF index from its articles ("title + lead" per article), in chunks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import numpy as np
import scipy.sparse as sp
from django.conf import settings
from sklearn.preprocessing import normalize

from retrieval.index.store import index_publish
from retrieval.index.vectorizer import (
    DEFAULT_FEATURES,
    TOKEN_PATTERN,
    make_vectorizer,
    smoothed_idf,
    stop_words_for,
    sublinear_tf,
)
from retrieval.models import Article, KnowledgeSource


def index_build(
    *,
    source_id: int,
    n_features: int = DEFAULT_FEATURES,
    chunk_size: int = 2000,
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, object]:
    """Build and publish the index of one source under settings.INDEX_DIR; returns its meta.
    `progress` is called with the number of articles in each chunk as it is vectorised."""
    source = KnowledgeSource.objects.get(pk=source_id)
    stop_words = stop_words_for(source.language)
    vectorizer = make_vectorizer(n_features=n_features, token_pattern=TOKEN_PATTERN, stop_words=stop_words)
    chunks: list[sp.csr_matrix] = []
    doc_ids: list[int] = []
    for chunk in _article_chunks(source_id, chunk_size):
        chunks.append(vectorizer.transform([f"{title}\n{lead}" for _, title, lead in chunk]))
        doc_ids.extend(pk for pk, _, _ in chunk)
        progress(len(chunk))
    counts = sp.vstack(chunks, format="csr") if chunks else sp.csr_matrix((0, n_features), dtype=np.float32)
    arrays = _term_major(counts)
    arrays["doc_ids"] = np.asarray(doc_ids, dtype=np.int64)
    meta: dict[str, object] = {
        "source": source.slug,
        "n_docs": len(doc_ids),
        "n_features": n_features,
        "n_terms": len(arrays["terms"]),
        "nnz": len(arrays["data"]),
        "token_pattern": TOKEN_PATTERN,
        "stop_words": stop_words,
        "built_at": datetime.now(UTC).isoformat(),
    }
    index_publish(index_dir=settings.INDEX_DIR, slug=source.slug, arrays=arrays, meta=meta)
    return meta


def _article_chunks(source_id: int, size: int) -> Iterator[list[tuple[int, str, str]]]:
    rows = Article.objects.filter(source_id=source_id).order_by("pk").values_list("pk", "title", "lead")
    chunk: list[tuple[int, str, str]] = []
    for row in rows.iterator(chunk_size=size):
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _term_major(counts: sp.csr_matrix) -> dict[str, np.ndarray]:
    """Weight raw counts (documents x hashed terms) and transpose to one row per present term."""
    n_docs = counts.shape[0]
    terms, df = np.unique(counts.indices, return_counts=True)
    idf = smoothed_idf(df, n_docs)
    # Columns renumbered to present terms only: a row per possible hash would cost 2**24 indptr slots.
    columns = np.searchsorted(terms, counts.indices).astype(np.int32)
    weights = sublinear_tf(counts.data) * idf[columns]
    docs = sp.csr_matrix((weights, columns, counts.indptr), shape=(n_docs, len(terms)))
    if docs.nnz:  # sklearn refuses an empty matrix (a source without articles)
        docs = normalize(docs, norm="l2", copy=False)
    by_term = docs.T.tocsr()
    by_term.sort_indices()
    return {
        "terms": terms.astype(np.int64),
        "idf": idf,
        "indptr": by_term.indptr.astype(np.int64),
        "indices": by_term.indices.astype(np.int32),
        "data": by_term.data.astype(np.float32),
    }
