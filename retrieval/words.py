"""Terms for the sentence rankers: lower-cased word stems without stop words, so "swimming" in a
turn meets "swim" in a sentence. Snowball stemmers (NLTK, no data files needed) for the languages
they cover; other languages (Chinese among them) keep their tokens as they are."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from nltk.stem.snowball import SnowballStemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from retrieval.index.vectorizer import TOKEN_PATTERN

SNOWBALL = {
    "da": "danish", "de": "german", "en": "english", "es": "spanish", "fi": "finnish", "fr": "french",
    "hu": "hungarian", "it": "italian", "nl": "dutch", "no": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sv": "swedish",
}
_TOKEN = re.compile(TOKEN_PATTERN)


def terms_for(language: str) -> Callable[[str], list[str]]:
    """A tokenizer for sklearn's vectorizers (pass token_pattern=None, stop_words=None: it does both)."""
    code = language.lower()[:2]
    stop_words = ENGLISH_STOP_WORDS if code == "en" else frozenset()
    stem = _stemmer(SNOWBALL[code]) if code in SNOWBALL else _same

    def terms(text: str) -> list[str]:
        return [stem(token) for token in _TOKEN.findall(text.lower()) if token not in stop_words]

    return terms


@lru_cache(maxsize=None)
def _stemmer(name: str) -> Callable[[str], str]:
    # A panel repeats most of its words across calls: remembering stems makes stemming ~free.
    return lru_cache(maxsize=200_000)(SnowballStemmer(name).stem)


def _same(token: str) -> str:
    return token
