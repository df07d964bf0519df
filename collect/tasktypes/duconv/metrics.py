"""The DuConv competition's automatic metrics, computed as its official eval script does.

Input: `prediction \\t gold` lines of space-separated tokens. Like the script, a line is stripped of
ASCII whitespace at both ends and split on tabs; a line with fewer than two fields (which includes
one whose prediction or gold is empty: the strip removes the tab) is skipped; tokens are the
fields' own split on single spaces (so two spaces make an empty token).

- F1: character level, pooled over the corpus: the characters of each side's tokens joined without
  spaces, multiset overlap; P = hits / predicted chars, R = hits / gold chars, F1 = 2PR / (P + R).
- BLEU-1/2: corpus level; an n-gram is its tokens joined with no separator; clipped counts summed
  over all pairs; brevity penalty exp(1 - r/c) on token totals when c < r; BLEU-2 is the geometric
  mean of the 1- and 2-gram precisions, times the penalty. Fractions (the script prints them
  followed by "%" without scaling).
- DISTINCT-1/2: distinct n-grams / all n-grams over the predictions.

Where the script would divide by zero (nothing to count), the value here is 0.0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

# What Python 2's str.strip() (the script's) removes: ASCII whitespace only, never U+3000.
ASCII_WHITESPACE = " \t\n\r\x0b\x0c"

Pair = tuple[list[str], list[str]]


def parse_pairs(lines: Iterable[str]) -> list[Pair]:
    pairs = []
    for line in lines:
        fields = line.strip(ASCII_WHITESPACE).split("\t")
        if len(fields) < 2:
            continue
        pairs.append((fields[0].strip(ASCII_WHITESPACE).split(" "), fields[1].strip(ASCII_WHITESPACE).split(" ")))
    return pairs


def ngrams(tokens: Sequence[str], n: int) -> Counter[str]:
    return Counter("".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def char_f1(pairs: Sequence[Pair]) -> float:
    hits = pred_chars = gold_chars = 0
    for pred, gold in pairs:
        p, g = "".join(pred), "".join(gold)
        hits += sum((Counter(p) & Counter(g)).values())
        pred_chars += len(p)
        gold_chars += len(g)
    precision, recall = _ratio(hits, pred_chars), _ratio(hits, gold_chars)
    return _ratio(2 * precision * recall, precision + recall)


def precision_n(pairs: Sequence[Pair], n: int) -> float:
    cover = total = 0
    for pred, gold in pairs:
        pred_counts, gold_counts = ngrams(pred, n), ngrams(gold, n)
        cover += sum(min(freq, gold_counts[gram]) for gram, freq in pred_counts.items() if gram in gold_counts)
        total += sum(pred_counts.values())
    return _ratio(cover, total)


def brevity_penalty(pairs: Sequence[Pair]) -> float:
    c = sum(len(pred) for pred, _ in pairs)
    r = sum(len(gold) for _, gold in pairs)
    return math.exp(1 - r / c) if 0 < c < r else 1.0


def bleu(pairs: Sequence[Pair]) -> tuple[float, float]:
    bp = brevity_penalty(pairs)
    p1, p2 = precision_n(pairs, 1), precision_n(pairs, 2)
    bleu1 = bp * math.exp(math.log(p1)) if p1 > 0 else 0.0
    bleu2 = bp * math.exp((math.log(p1) + math.log(p2)) / 2) if p2 > 0 else 0.0
    return bleu1, bleu2


def distinct(pairs: Sequence[Pair], n: int) -> float:
    counts: Counter[str] = Counter()
    for pred, _ in pairs:
        counts.update(ngrams(pred, n))
    return _ratio(len(counts), sum(counts.values()))


def duconv_metrics(lines: Iterable[str]) -> dict[str, float | int]:
    pairs = parse_pairs(lines)
    bleu1, bleu2 = bleu(pairs)
    return {
        "F1": char_f1(pairs),
        "BLEU1": bleu1,
        "BLEU2": bleu2,
        "DISTINCT1": distinct(pairs, 1),
        "DISTINCT2": distinct(pairs, 2),
        "n": len(pairs),
    }
