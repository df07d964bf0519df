"""Text statistics the conformance reports share (collect/exporters/hf.py): words, distinct-n and
unigram F1, defined once so that every task type's report counts the same way.

Words are lower-cased runs of letters, digits and apostrophes (`\\w+('\\w+)*`, Unicode-aware):
punctuation is no word. A text without a word contributes nothing to a mean.
"""

from __future__ import annotations

import re
from collections import Counter
from statistics import fmean
from typing import Iterable

_WORD = re.compile(r"\w+(?:'\w+)*")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def mean(values: Iterable[float]) -> float | None:
    """The arithmetic mean, or None for no values."""
    values = list(values)
    return fmean(values) if values else None


def distinct_n(texts: Iterable[str], n: int) -> float | None:
    """Distinct-n (Li et al., 2016, "A Diversity-Promoting Objective Function for Neural
    Conversation Models"): distinct n-grams / all n-grams over every text, n-grams never crossing a
    text's end; None when the texts hold no n-gram."""
    seen: set[tuple[str, ...]] = set()
    total = 0
    for text in texts:
        tokens = words(text)
        grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
        seen.update(grams)
        total += len(grams)
    return len(seen) / total if total else None


def unigram_f1(reply: str, reference: str) -> float:
    """Unigram F1 of a reply against a reference (word multisets, as ParlAI's F1 counts them, without
    its article and punctuation removal): 0.0 when they share no word."""
    ours, theirs = Counter(words(reply)), Counter(words(reference))
    common = sum((ours & theirs).values())
    if not common:
        return 0.0
    precision, recall = common / sum(ours.values()), common / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)
