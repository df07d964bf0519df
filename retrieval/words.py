"""Words of a text for the TF-IDF models, chosen by the knowledge source's language:

- Chinese ("zh", "zh-hans", …) is written without spaces: it is segmented into words (jieba, MIT),
  so "导演" is one term and not the characters 导 and 演; DuConv's release is segmented the same way.
- Languages with a Snowball stemmer (NLTK, no data files needed) are lower-cased and stemmed, so
  "swimming" in a turn meets "swim" in a sentence; English also drops its stop words.
- Others keep their lower-cased tokens (Japanese: one per kana or ideograph, as TOKEN_PATTERN has it).

`terms_for(language)` is a tokenizer for sklearn's vectorizers (pass token_pattern=None,
stop_words=None: it does both). It pickles, so index builds can vectorise in worker processes."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from nltk.stem.snowball import SnowballStemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

SNOWBALL = {
    "da": "danish", "de": "german", "en": "english", "es": "spanish", "fi": "finnish", "fr": "french",
    "hu": "hungarian", "it": "italian", "nl": "dutch", "no": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sv": "swedish",
}
SEGMENTED = frozenset({"zh"})
# Japanese is written without spaces: each ideograph/kana is a token (so bigrams are character
# pairs); every other script is split into runs of word characters. Chinese is segmented into
# words instead; an index records which in its meta ("words").
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN_PATTERN = rf"[{CJK}]|[^\W{CJK}]+"
_TOKEN = re.compile(TOKEN_PATTERN)
_WORD_CHAR = re.compile(r"\w")


def language_code(language: str) -> str:
    return language.lower()[:2]


def is_segmented(language: str) -> bool:
    """Whether this language's words are found by segmentation (no spaces between them)."""
    return language_code(language) in SEGMENTED


class Terms:
    def __init__(self, language: str) -> None:
        self.code = language_code(language)

    def __call__(self, text: str) -> list[str]:
        if self.code in SEGMENTED:
            return chinese_words(text.lower())
        stop_words = ENGLISH_STOP_WORDS if self.code == "en" else frozenset()
        stem = _stemmer(SNOWBALL[self.code]) if self.code in SNOWBALL else _same
        return [stem(token) for token in _TOKEN.findall(text.lower()) if token not in stop_words]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Terms) and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)


def terms_for(language: str) -> Callable[[str], list[str]]:
    return Terms(language)


# Words of chat that say nothing about what a turn asks ("yes, I agree", "wow, that's cool"): a
# turn with nothing else than these and stop words is asked with its room's topic
# (retrieval.services.passages_for_turn). English only: another language's turns keep every term.
CHAT_WORDS = {
    "en": frozenset(
        "yes yeah yep yup ok okay alright agree agreed sure really cool nice great awesome amazing "
        "interesting fascinating wonderful good bad fun funny love like likes liked think thought know "
        "knew wow oh ah um hmm lol haha thanks thank hi hello hey right true indeed definitely "
        "absolutely totally exactly guess hope mean pretty lot lots stuff thing things tell talk "
        "talking heard hear sound sounds seem seems enjoy enjoyed glad happy fan favorite favourite "
        "believe probably maybe actually want wanted learn learned say said did does didn doesn don "
        "just wish kind sort bit".split()
    ),
}


def content_terms(text: str, language: str) -> set[str]:
    """The terms of `text` (terms_for) other than its language's chat words and, in an alphabet,
    single letters (the "s" of "that's")."""
    code = language_code(language)
    terms = set(terms_for(language)(text)) - _chat_terms(code)
    return {t for t in terms if len(t) > 1} if code in SNOWBALL else terms


@lru_cache(maxsize=None)
def _chat_terms(code: str) -> frozenset[str]:
    words = CHAT_WORDS.get(code, frozenset())
    return frozenset(term for word in words for term in terms_for(code)(word))


def chinese_words(text: str) -> list[str]:
    """jieba's words of `text`, without the whitespace and punctuation it also yields as tokens."""
    return [word for word in jieba_tokenizer().cut(text) if _WORD_CHAR.search(word)]


@lru_cache(maxsize=1)
def jieba_tokenizer() -> Any:
    """jieba's tokenizer, its dictionary loaded once per process on first use (~1 s)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


@lru_cache(maxsize=None)
def _stemmer(name: str) -> Callable[[str], str]:
    # A panel repeats most of its words across calls: remembering stems makes stemming ~free.
    return lru_cache(maxsize=200_000)(SnowballStemmer(name).stem)


def _same(token: str) -> str:
    return token
