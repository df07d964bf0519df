"""One text's hashed term counts, as a HashingVectorizer gives them, without its per-call cost.

A query is one short text (a chat turn, a topic), hashed on the knowledge workers for every message.
HashingVectorizer.transform spends most of that on its machinery rather than on the hashing: input
checks, the output-format wrapper, building a sparse matrix and summing its duplicates (about half
of `query_vector`'s time in py-spy samples of a worker at 1,000 rooms). Here the vectorizer's own
analyzer gives the terms (its lower-casing, tokenizer or token pattern, stop words and n-grams), and
each term is hashed as FeatureHasher hashes it: MurmurHash3 (32 bits, seed 0) of its UTF-8 bytes,
column |h| mod n_features, counts summed per column. The same columns and counts, so queries made
here meet indexes built with the vectorizer (tests/retrieval/test_hashing.py checks them against it)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.utils import murmurhash3_32


class TextHasher:
    """`vectorizer`'s transform of one text, as (column indices ascending, their counts)."""

    def __init__(self, vectorizer: HashingVectorizer) -> None:
        if vectorizer.alternate_sign or vectorizer.norm is not None or vectorizer.binary:
            raise ValueError("TextHasher gives raw counts: alternate_sign=False, norm=None, binary=False only")
        self.analyze = vectorizer.build_analyzer()
        self.n_features = int(vectorizer.n_features)

    def __call__(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        n = self.n_features
        # abs() of a Python int: for h = -2**31 it is 2**31, which is what FeatureHasher computes
        # for that one case (its C abs() would overflow).
        counts = Counter([abs(murmurhash3_32(term, 0)) % n for term in self.analyze(text)])
        columns = sorted(counts)
        return np.array(columns, dtype=np.int32), np.array([counts[c] for c in columns], dtype=np.float32)
