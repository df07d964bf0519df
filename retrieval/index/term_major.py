"""A TF-IDF index stored term-major, like DrQA: one row per hashed term present in the collection,
holding the weights of the documents that contain it. A query only reads the rows of its terms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from retrieval.index.hashing import TextHasher
from retrieval.index.vectorizer import make_vectorizer, sublinear_tf
from retrieval.titles import TitleIndex
from retrieval.words import terms_for

# terms: sorted hashed ids present; idf: per present term; indptr/indices/data: CSR over those terms
# (indices are document positions); doc_ids: the Article pk at each position.
ARRAYS = ("terms", "idf", "indptr", "indices", "data", "doc_ids")
# Above one posting per DENSE_RATIO documents, scoring into a dense per-document array is cheaper
# than sorting the postings.
DENSE_RATIO = 16


@dataclass(frozen=True)
class TermMajorIndex:
    meta: dict[str, Any]  # meta.json: n_docs, n_features, token_pattern, stop_words, built_at, ...
    terms: np.ndarray
    idf: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    doc_ids: np.ndarray
    titles: TitleIndex | None = None  # the articles' titles (retrieval/titles.py); None in a build made without them

    @cached_property
    def vectorizer(self) -> HashingVectorizer:
        return make_vectorizer(
            n_features=self.meta["n_features"],
            token_pattern=self.meta["token_pattern"],
            stop_words=self.meta["stop_words"],
            # An index without "words" was built with the token pattern, whatever its language.
            tokenizer=terms_for(self.meta["words"]) if self.meta.get("words") else None,
        )

    @cached_property
    def hasher(self) -> TextHasher:
        return TextHasher(self.vectorizer)

    def search(self, query: str, *, k: int) -> list[tuple[int, float]]:
        """The top-k (Article pk, cosine score) for `query`, best first; only documents sharing a term."""
        rows, weights = self.query_vector(query)
        return self._search_rows(rows, weights, k)

    def search_blend(self, queries: list[tuple[str, float]], *, k: int) -> list[tuple[int, float]]:
        """The top-k (Article pk, score) for a weighted sum of cosine scores, sum(w * cos(query, doc))
        over (query, w): each query is normalised on its own, so a long turn cannot drown a short
        topic. Cosine is linear in the query vector, so this is one search with the summed vectors."""
        return self.search_vectors([(*self.query_vector(query), weight) for query, weight in queries], k=k)

    def search_vectors(self, parts: Sequence[tuple[np.ndarray, np.ndarray, float]], *, k: int) -> list[tuple[int, float]]:
        """search_blend for query vectors made beforehand by query_vector: (rows, weights, w)."""
        parts = [part for part in parts if part[2] > 0 and len(part[0])]
        if not parts:
            return []
        rows = np.concatenate([r for r, _, _ in parts])
        weights = np.concatenate([v * w for _, v, w in parts])
        rows, inverse = np.unique(rows, return_inverse=True)
        return self._search_rows(rows, np.bincount(inverse, weights=weights), k)

    def term_ids(self, text: str) -> np.ndarray:
        """The hashed ids of the text's terms (for query_vector's `without`)."""
        return self.hasher(text)[0]

    def query_vector(self, query: str, *, without: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the query's terms present in the index, less the term ids in `without`, and their
        L2-normalised tf-idf weights."""
        term_ids, counts = self.hasher(query)
        rows = np.searchsorted(self.terms, term_ids)
        present = rows < len(self.terms)
        present[present] = self.terms[rows[present]] == term_ids[present]
        if without is not None and len(without):
            present &= ~np.isin(term_ids, without)
        rows = rows[present]
        weights = sublinear_tf(counts[present]) * self.idf[rows]
        norm = float(np.linalg.norm(weights))
        return rows, (weights / norm if norm else weights)

    def _search_rows(self, rows: np.ndarray, weights: np.ndarray, k: int) -> list[tuple[int, float]]:
        if k <= 0 or not len(rows):
            return []
        starts, ends = self.indptr[rows], self.indptr[rows + 1]
        postings = int((ends - starts).sum())
        if postings * DENSE_RATIO >= self.n_docs:
            hit_docs, scores = self._scores_dense(starts, ends, weights, k)
        else:
            hit_docs, scores = self._scores_sparse(starts, ends, weights)
        best = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        # Equal scores in document order, so that the same query always gives the same list.
        best = best[np.lexsort((hit_docs[best], -scores[best]))]
        return [(int(self.doc_ids[hit_docs[i]]), float(scores[i])) for i in best]

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    def _scores_sparse(self, starts: np.ndarray, ends: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Few postings: merge them by sorting (cost grows with the postings, not the collection)."""
        docs = np.concatenate([self.indices[s:e] for s, e in zip(starts, ends)])
        contributions = np.concatenate([self.data[s:e] * w for s, e, w in zip(starts, ends, weights)])
        hit_docs, inverse = np.unique(docs, return_inverse=True)
        return hit_docs, np.bincount(inverse, weights=contributions)

    def _scores_dense(
        self, starts: np.ndarray, ends: np.ndarray, weights: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Many postings (common terms in a big collection): add each term's row into one score per
        document, as DrQA's sparse query row times the term-major matrix does, without sorting.
        Then only documents that can be in the top k are kept (listing every touched document
        would cost more than the scoring itself)."""
        scores = np.zeros(self.n_docs, dtype=np.float32)
        for s, e, w in zip(starts, ends, weights):
            # A document appears once per row, so the fancy-indexed += never drops a duplicate.
            scores[self.indices[s:e]] += self.data[s:e] * np.float32(w)
        hit_docs = np.flatnonzero(scores >= self._floor(scores, starts, ends, k))
        return hit_docs, scores[hit_docs].astype(np.float64)

    def _floor(self, scores: np.ndarray, starts: np.ndarray, ends: np.ndarray, k: int) -> np.float32:
        """A score at most the k-th best: the k-th best among the documents of the query's shortest
        rows (k real documents reach it, so the true top k all do). Above zero, so untouched
        documents never count."""
        seed: list[np.ndarray] = []
        seen = 0
        for row in np.argsort(ends - starts, kind="stable"):
            seed.append(self.indices[starts[row] : ends[row]])
            seen += int(ends[row] - starts[row])
            if seen >= 4 * k:
                break
        sample = scores[np.unique(np.concatenate(seed))]
        smallest = np.float32(np.finfo(np.float32).tiny)
        if len(sample) < k:
            return smallest
        return max(np.partition(sample, len(sample) - k)[len(sample) - k], smallest)
