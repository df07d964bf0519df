"""TextHasher gives, for one text, exactly the columns and counts of the HashingVectorizer it stands
in for: the indexes are built with the vectorizer and queried with the hasher, and the sentence
ranker's cached counts must not depend on which of the two made them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from retrieval.index.hashing import TextHasher
from retrieval.index.vectorizer import DEFAULT_FEATURES, TOKEN_PATTERN, make_vectorizer
from retrieval.rankers.tfidf import TfidfRanker
from retrieval.words import terms_for

SHARED_TEST_SEEN = Path(__file__).resolve().parents[3] / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"

TEXTS = [
    "", "   ", "the and of", "Who composed the music for Star Wars?", "swimming swim swims SWIMMING",
    "blues blues blues jazz blues", "Café au lait, naïve résumé — déjà vu!", "e-mail co-op 3.14 1,000,000 #tag @user",
    "周杰伦是一位著名的歌手和演员", "東京タワーは赤い", "Привет, как дела? Я люблю читать книги.", "🎸 guitar 🎸 rock'n'roll",
    "\n\tline one\nline two\r\n", "a " * 300,
]

VECTORIZERS = {
    "English words": dict(n_features=DEFAULT_FEATURES, token_pattern=None, stop_words=None, tokenizer=terms_for("en")),
    "Chinese words": dict(n_features=DEFAULT_FEATURES, token_pattern=None, stop_words=None, tokenizer=terms_for("zh")),
    "Russian stems": dict(n_features=DEFAULT_FEATURES, token_pattern=None, stop_words=None, tokenizer=terms_for("ru")),
    "token pattern": dict(n_features=DEFAULT_FEATURES, token_pattern=TOKEN_PATTERN, stop_words="english"),
    # Few columns: many terms share one, so the counts are sums over colliding terms.
    "16 columns": dict(n_features=16, token_pattern=None, stop_words=None, tokenizer=terms_for("en")),
}


def assert_same(vectorizer, hasher: TextHasher, text: str) -> None:
    expected = vectorizer.transform([text])
    indices, counts = hasher(text)
    assert indices.dtype == np.int32 and counts.dtype == np.float32
    assert indices.tolist() == expected.indices.tolist(), text
    assert counts.tolist() == expected.data.tolist(), text


@pytest.mark.parametrize("name", VECTORIZERS)
def test_it_gives_the_vectorizers_columns_and_counts(name: str) -> None:
    vectorizer = make_vectorizer(**VECTORIZERS[name])
    hasher = TextHasher(vectorizer)
    for text in TEXTS:
        assert_same(vectorizer, hasher, text)


@given(st.text(max_size=300))
@hsettings(max_examples=300, deadline=None)
def test_it_gives_the_vectorizers_counts_for_any_text(text: str) -> None:
    vectorizer = make_vectorizer(**VECTORIZERS["16 columns"])
    assert_same(vectorizer, TextHasher(vectorizer), text)
    vectorizer = make_vectorizer(**VECTORIZERS["token pattern"])
    assert_same(vectorizer, TextHasher(vectorizer), text)


def test_the_sentence_rankers_counts_are_the_vectorizers() -> None:
    ranker = TfidfRanker()
    texts = ["Blues\nThe blues is a music genre.", "Who sang the blues first?", "", "Blues\nThe blues is a music genre."]
    counts = ranker.counts(texts)
    assert (counts != ranker.vectorizer.transform(texts)).nnz == 0


def test_a_vectorizer_that_signs_or_normalises_is_refused() -> None:
    for options in ({"alternate_sign": True}, {"norm": "l2"}, {"binary": True}):
        vectorizer = make_vectorizer(**VECTORIZERS["English words"]).set_params(**options)
        with pytest.raises(ValueError, match="raw counts"):
            TextHasher(vectorizer)


@pytest.mark.skipif(not SHARED_TEST_SEEN.is_file(), reason="the shared WOW++ test file is not here")
def test_it_gives_the_vectorizers_counts_for_the_wowpp_dialogues_and_sentences() -> None:
    texts: list[str] = []
    for context in list(json.loads(SHARED_TEST_SEEN.read_text()).values())[:40]:
        texts += [context["topic"], *context["turns"], "\n".join(context["turns"][-2:])]
        texts += [sentence["label"] for sentence in context["annotated_sentences"]]
    assert len(texts) > 1000
    vectorizer = make_vectorizer(**VECTORIZERS["English words"])
    hasher = TextHasher(vectorizer)
    for text in texts:
        assert_same(vectorizer, hasher, text)
