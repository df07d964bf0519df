"""The TF-IDF sentence ranker: cosine between the last turns and each "title + sentence", with the
same hashed uni+bigram vectoriser as the article index and an IDF computed over the candidates.

Why IDF over the candidates: a panel is ~30-60 sentences about a handful of topics, so a term that
is everywhere in it (the topic's name) says little about which sentence fits the turn. DrQA's
log((N - df + 0.5) / (df + 0.5)) would be zero or negative for terms in half the candidates; the
smoothed IDF keeps them positive. Measured on WOW++ (README): last two turns beat the last one or
the whole dialogue, and prefixing the article title helps."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from retrieval.index.vectorizer import TOKEN_PATTERN, make_vectorizer, smoothed_idf, stop_words_for, sublinear_tf
from retrieval.rankers import Candidate

N_FEATURES = 2**20  # per-call vectors only: collisions among ~1,000 terms are negligible


class TfidfRanker:
    name = "tfidf"

    def __init__(self, *, turns: int = 2, language: str = "en") -> None:
        self.turns = turns
        self.vectorizer = make_vectorizer(
            n_features=N_FEATURES, token_pattern=TOKEN_PATTERN, stop_words=stop_words_for(language)
        )

    def score(self, context: Sequence[str], candidates: Sequence[Candidate]) -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        query = "\n".join(context[-self.turns:]) if self.turns > 0 else ""
        counts = self.vectorizer.transform([f"{c.title}\n{c.text}" for c in candidates] + [query])
        sentences, query_row = counts[:-1], counts[-1]
        df = np.bincount(sentences.indices, minlength=N_FEATURES)
        sentences = _weighted(sentences, df, len(candidates))
        query_row = _weighted(query_row, df, len(candidates))
        return (sentences @ query_row.T).toarray().ravel().astype(np.float32)


def _weighted(counts: sp.csr_matrix, df: np.ndarray, n_docs: int) -> sp.csr_matrix:
    weighted = counts.copy()
    # A query term absent from every candidate has df 0: it cannot match, whatever its weight.
    weighted.data = sublinear_tf(weighted.data) * smoothed_idf(df[weighted.indices], n_docs)
    return normalize(weighted, norm="l2", copy=False) if weighted.nnz else weighted
