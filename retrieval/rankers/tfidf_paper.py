"""`tfidf-paper`: the TF-IDF baseline of the WOW++ paper (Eric et al., 2021, Table 3), kept plain so
that its figures can be set beside the paper's: the last turn alone against each candidate
sentence alone (no title, no topic, no earlier turns), standard TF-IDF (lower-cased word unigrams,
smoothed IDF over the context's candidates, l2-normalised), cosine similarity.

The `tfidf` ranker is Groundwork's own tuned variant (stems, bigrams, the topic and two turns against
title + sentence); docs/retrieval.md gives both on the same files."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from retrieval.rankers import Candidate


class TfidfPaperRanker:
    name = "tfidf-paper"
    encodes = False

    def score(self, context: Sequence[str], candidates: Sequence[Candidate], *, topic: str = "") -> np.ndarray:
        scores = np.zeros(len(candidates), dtype=np.float32)
        if not candidates or not context:
            return scores
        vectorizer = TfidfVectorizer()
        try:
            sentences = vectorizer.fit_transform([c.text for c in candidates])
        except ValueError:  # no word in any candidate: nothing to match
            return scores
        query = vectorizer.transform([context[-1]])
        return (sentences @ query.T).toarray().ravel().astype(np.float32)
