"""How text becomes hashed unigram+bigram counts, shared by building and querying."""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

DEFAULT_FEATURES = 2**24
# Chinese and Japanese are written without spaces: each ideograph/kana is a token (so bigrams are
# character pairs); every other script is split into runs of word characters.
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN_PATTERN = rf"[{CJK}]|[^\W{CJK}]+"


def stop_words_for(language: str) -> str | None:
    """sklearn has an English stop list only; other languages keep every token."""
    return "english" if language.lower().startswith("en") else None


class Stems:
    """The index's tokenizer: word stems without stop words (retrieval.rankers.terms), so that
    "Who composed the music?" meets a composer's article. A class, not a closure, so that the build's
    worker processes can be handed it."""

    def __init__(self, language: str) -> None:
        from retrieval.rankers.terms import terms_for  # it imports TOKEN_PATTERN from here

        self.language = language
        self._terms = terms_for(language)

    def __call__(self, text: str) -> list[str]:
        return self._terms(text)

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (Stems, (self.language,))


def make_vectorizer(
    *, n_features: int, token_pattern: str, stop_words: str | None, stems_language: str | None = None
) -> HashingVectorizer:
    """Hashed uni+bigram counts. With `stems_language` the terms are that language's stems (an index
    whose meta names "stems"); without it, lower-cased tokens of `token_pattern` (older indexes)."""
    if stems_language is not None:
        return HashingVectorizer(
            ngram_range=(1, 2), n_features=n_features, alternate_sign=False, norm=None, lowercase=False,
            tokenizer=Stems(stems_language), token_pattern=None, dtype=np.float32,
        )
    return HashingVectorizer(
        ngram_range=(1, 2),
        n_features=n_features,
        alternate_sign=False,
        norm=None,
        lowercase=True,
        token_pattern=token_pattern,
        stop_words=stop_words,
        dtype=np.float32,
    )


def sublinear_tf(counts: np.ndarray) -> np.ndarray:
    return (1.0 + np.log(counts)).astype(np.float32, copy=False)


def smoothed_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    # DrQA's log((N - df + 0.5) / (df + 0.5)) is zero or negative for a term in half the documents
    # or more, which loses common-but-relevant terms in small collections; this stays > 0.
    return (np.log((n_docs + 1) / (df + 1)) + 1.0).astype(np.float32)
