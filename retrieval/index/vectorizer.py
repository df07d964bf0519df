"""How text becomes hashed unigram+bigram counts, shared by building and querying."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from retrieval.words import CJK, TOKEN_PATTERN

__all__ = [
    "BM25_B", "BM25_K1", "CJK", "DEFAULT_FEATURES", "TOKEN_PATTERN", "make_vectorizer", "saturated_tf", "smoothed_idf",
    "stop_words_for", "sublinear_tf",
]

DEFAULT_FEATURES = 2**24
# A document's term weights: BM25's saturating term frequency with length normalisation, then
# idf, then L2 (cosine). Chosen on one half of the WOW++ contexts and checked on the other
# (bench/first_stage_variants.py, docs/retrieval.md): k1 = 3 saturates later than BM25's usual 1.2
# because a lead paragraph is short and a repeated term there is a real sign of its subject.
BM25_K1 = 3.0
BM25_B = 0.75


def stop_words_for(language: str) -> str | None:
    """sklearn has an English stop list only; other languages keep every token."""
    return "english" if language.lower().startswith("en") else None


def make_vectorizer(
    *, n_features: int, token_pattern: str | None, stop_words: str | None, tokenizer: Callable[[str], list[str]] | None = None
) -> HashingVectorizer:
    """`tokenizer` (retrieval.words.terms_for: the language's words or stems, without its stop words)
    replaces the token pattern and the stop words; without it (indexes built before their meta named
    "words"), lower-cased tokens of `token_pattern`."""
    return HashingVectorizer(
        tokenizer=tokenizer,
        ngram_range=(1, 2),
        n_features=n_features,
        alternate_sign=False,
        norm=None,
        lowercase=True,
        token_pattern=None if tokenizer else token_pattern,
        stop_words=None if tokenizer else stop_words,
        dtype=np.float32,
    )


def sublinear_tf(counts: np.ndarray) -> np.ndarray:
    """A query's term frequency (and a document's in indexes built before saturated_tf)."""
    return (1.0 + np.log(counts)).astype(np.float32, copy=False)


def saturated_tf(counts: np.ndarray, relative_lengths: np.ndarray) -> np.ndarray:
    """BM25's term frequency of a document's terms: tf (k1 + 1) / (tf + k1 (1 - b + b L)), where
    L is the document's length (its term count) over the collection's mean length: it tends to
    k1 + 1 however often the term repeats, and a long document needs more repeats to get there."""
    counts = counts.astype(np.float64, copy=False)
    return (counts * (BM25_K1 + 1) / (counts + BM25_K1 * (1 - BM25_B + BM25_B * relative_lengths))).astype(np.float32)


def smoothed_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    # DrQA's log((N - df + 0.5) / (df + 0.5)) is zero or negative for a term in half the documents
    # or more, which loses common-but-relevant terms in small collections; this stays > 0.
    return (np.log((n_docs + 1) / (df + 1)) + 1.0).astype(np.float32)
