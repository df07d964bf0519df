"""TF-IDF and neural scores combined. Each is standardised within the call (z-scores over the
candidates) because their scales differ (cosines in [0, 1] against unbounded logits); then
weight * neural + (1 - weight) * tfidf."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retrieval.rankers import Candidate, SentenceRanker


class HybridRanker:
    name = "hybrid"

    def __init__(self, *, tfidf: SentenceRanker, neural: SentenceRanker, weight: float = 0.5) -> None:
        self.tfidf, self.neural, self.weight = tfidf, neural, weight

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        lexical = _standardised(self.tfidf.score(context, candidates, topic=topic))
        neural = _standardised(self.neural.score(context, candidates, topic=topic))
        return (self.weight * neural + (1.0 - self.weight) * lexical).astype(np.float32)


def _standardised(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    spread = scores.std()
    return (scores - scores.mean()) / spread if spread > 0 else np.zeros_like(scores)
