"""The TF-IDF sentence ranker: cosine between a query (the dialogue's topic and last turns) and
each "title + sentence", over hashed stemmed uni+bigrams, with an IDF computed over the candidates.

Why IDF over the candidates: a panel is ~30-60 sentences about a handful of topics, so a term that
is everywhere in it says little about which sentence fits the turn. DrQA's
log((N - df + 0.5) / (df + 0.5)) would be zero or negative for terms in half the candidates; the
smoothed IDF keeps them positive. Why the topic in the query: the wizard talks about the chosen
topic, and WoW's own context starts with it; given twice it pulls the topic's article forward
without drowning the turns. Measured on WOW++ test-seen (README): stems and the topic raise
MRR@1 from 0.714 to 0.757; the last two turns beat the last one or the whole dialogue."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer

from retrieval.index.hashing import TextHasher
from retrieval.index.vectorizer import smoothed_idf, sublinear_tf
from retrieval.rankers import Candidate
from retrieval.words import terms_for

N_FEATURES = 2**20  # per-call vectors only: collisions among ~1,000 terms are negligible
TURNS = 2
TOPIC_WEIGHT = 2
# Texts whose hashed term counts are kept per process (~1 KB each). A room's panels come back to
# the same articles' sentences and the same turns at every turn: tokenising, stemming and hashing
# them was half of a learned panel's CPU time.
COUNTS_KEPT = 50_000
_counts: OrderedDict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = OrderedDict()
_counts_lock = threading.Lock()


class TfidfRanker:
    name = "tfidf"
    encodes = False

    def __init__(self, *, turns: int = TURNS, topic_weight: int = TOPIC_WEIGHT, language: str = "en") -> None:
        self.turns, self.topic_weight, self.language = turns, topic_weight, language
        self.vectorizer = HashingVectorizer(
            ngram_range=(1, 2), n_features=N_FEATURES, alternate_sign=False, norm=None,
            tokenizer=terms_for(language), token_pattern=None, lowercase=False, dtype=np.float32,
        )
        self.hasher = TextHasher(self.vectorizer)

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        return self.similarities([self.query(context, topic)], candidates)[0]

    def query(self, context: Sequence[str], topic: str = "") -> str:
        turns = list(context[-self.turns:]) if self.turns > 0 else []
        return "\n".join(([topic] * self.topic_weight if topic else []) + turns)

    def similarities(self, queries: Sequence[str], candidates: Sequence[Candidate]) -> np.ndarray:
        """Cosines, one row per query, one column per candidate, with one IDF over the candidates
        (so several queries against one panel are comparable)."""
        counts = _used_columns(self.counts([f"{c.title}\n{c.text}" for c in candidates] + list(queries)))
        sentences, query_rows = counts[: len(candidates)], counts[len(candidates):]
        df = np.bincount(sentences.indices, minlength=counts.shape[1])
        sentences = _weighted(sentences, df, len(candidates))
        query_rows = _weighted(query_rows, df, len(candidates))
        return (query_rows @ sentences.T).toarray().astype(np.float32)


    def counts(self, texts: Sequence[str]) -> sp.csr_matrix:
        """The hashed term counts of `texts`, one row each (HashingVectorizer.transform's), the
        texts seen lately taken from the process's cache."""
        with _counts_lock:
            rows = {text: _counts.get((self.language, text)) for text in texts}
        for text, row in rows.items():
            if row is None:
                rows[text] = self.hasher(text)
        with _counts_lock:
            for text, row in rows.items():
                _counts[(self.language, text)] = row  # type: ignore[assignment]
                _counts.move_to_end((self.language, text))
            while len(_counts) > COUNTS_KEPT:
                _counts.popitem(last=False)
        ordered = [rows[text] for text in texts]
        indptr = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum([len(indices) for indices, _ in ordered], out=indptr[1:])
        return sp.csr_matrix(
            (np.concatenate([d for _, d in ordered]) if ordered else np.zeros(0, np.float32),
             np.concatenate([i for i, _ in ordered]) if ordered else np.zeros(0, np.int32), indptr),
            shape=(len(texts), N_FEATURES),
        )


def _used_columns(counts: sp.csr_matrix) -> sp.csr_matrix:
    """The same rows over only the terms they use, renumbered in order. The hashed columns mean
    nothing beyond one call, and the document frequencies and the product's transpose below would
    otherwise cost time in proportion to all N_FEATURES columns on every call."""
    used, renumbered = np.unique(counts.indices, return_inverse=True)
    return sp.csr_matrix((counts.data, renumbered.reshape(-1), counts.indptr), shape=(counts.shape[0], len(used)))


def _weighted(counts: sp.csr_matrix, df: np.ndarray, n_docs: int) -> sp.csr_matrix:
    weighted = counts.copy()
    # A query term absent from every candidate has df 0: it cannot match, whatever its weight.
    weighted.data = sublinear_tf(weighted.data) * smoothed_idf(df[weighted.indices], n_docs)
    # Unit rows (an empty row stays empty), without sklearn's input checks: they cost more than this.
    rows = np.repeat(np.arange(weighted.shape[0]), np.diff(weighted.indptr))
    norms = np.sqrt(np.bincount(rows, weights=np.square(weighted.data, dtype=np.float64), minlength=weighted.shape[0]))
    if weighted.nnz:
        weighted.data /= norms[rows].astype(np.float32)
    return weighted
