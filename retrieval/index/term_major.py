"""A TF-IDF index stored term-major, like DrQA: one row per hashed term present in the collection,
holding the weights of the documents that contain it. A query only reads the rows of its terms."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from retrieval.index.vectorizer import make_vectorizer, sublinear_tf

# terms: sorted hashed ids present; idf: per present term; indptr/indices/data: CSR over those terms
# (indices are document positions); doc_ids: the Article pk at each position.
ARRAYS = ("terms", "idf", "indptr", "indices", "data", "doc_ids")


@dataclass(frozen=True)
class TermMajorIndex:
    meta: dict[str, Any]  # meta.json: n_docs, n_features, token_pattern, stop_words, built_at, ...
    terms: np.ndarray
    idf: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    doc_ids: np.ndarray

    @cached_property
    def vectorizer(self) -> HashingVectorizer:
        return make_vectorizer(
            n_features=self.meta["n_features"],
            token_pattern=self.meta["token_pattern"],
            stop_words=self.meta["stop_words"],
        )

    def search(self, query: str, *, k: int) -> list[tuple[int, float]]:
        """The top-k (Article pk, cosine score) for `query`, best first; only documents sharing a term."""
        rows, weights = self._query_terms(query)
        if k <= 0 or not len(rows):
            return []
        starts, ends = self.indptr[rows], self.indptr[rows + 1]
        docs = np.concatenate([self.indices[s:e] for s, e in zip(starts, ends)])
        contributions = np.concatenate([self.data[s:e] * w for s, e, w in zip(starts, ends, weights)])
        hit_docs, inverse = np.unique(docs, return_inverse=True)
        scores = np.bincount(inverse, weights=contributions)
        best = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        # Equal scores in document order, so that the same query always gives the same list.
        best = best[np.lexsort((hit_docs[best], -scores[best]))]
        return [(int(self.doc_ids[hit_docs[i]]), float(scores[i])) for i in best]

    def _query_terms(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the query's terms present in the index and their L2-normalised tf-idf weights."""
        counts = self.vectorizer.transform([query])
        rows = np.searchsorted(self.terms, counts.indices)
        present = rows < len(self.terms)
        present[present] = self.terms[rows[present]] == counts.indices[present]
        rows = rows[present]
        weights = sublinear_tf(counts.data[present]) * self.idf[rows]
        norm = float(np.linalg.norm(weights))
        return rows, (weights / norm if norm else weights)
