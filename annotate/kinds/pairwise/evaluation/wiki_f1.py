"""Wiki F1 (Wizard of Wikipedia §5.3): unigram F1 of a model's utterance against the first 10
sentences of the topic's article, normalised as ParlAI's F1 metric normalises answers: lowercase,
punctuation removed, the articles a/an/the removed, whitespace collapsed."""

from __future__ import annotations

import re
import string
from collections import Counter
from statistics import fmean
from typing import Sequence

ARTICLE_SENTENCES = 10
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize(text: str) -> str:
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def unigram_f1(guess: str, reference: str) -> float:
    guess_tokens, reference_tokens = normalize(guess).split(), normalize(reference).split()
    common = Counter(guess_tokens) & Counter(reference_tokens)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(guess_tokens), overlap / len(reference_tokens)
    return 2 * precision * recall / (precision + recall)


def wiki_f1(utterances: Sequence[str], article_sentences: Sequence[str]) -> float | None:
    """Mean over the utterances of each one's F1 against the article's first 10 sentences joined;
    None when there is no utterance or no article text to compare with."""
    reference = " ".join(article_sentences[:ARTICLE_SENTENCES])
    if not utterances or not normalize(reference):
        return None
    return fmean(unigram_f1(u, reference) for u in utterances)
