"""The ranking metrics of the WOW++ paper, over binary relevance (confidence >= threshold), and NDCG
over graded relevance (the share of annotators who picked each candidate).

Each ranking is the relevance of the candidates in the order a ranker put them, all candidates
included, so the number of relevant ones R is known. Definitions (k = the cut-off):
- MRR@k: 1/rank of the first relevant candidate within the top k, else 0.
- MAP@k: sum over relevant ranks i <= k of precision@i, divided by min(R, k).
- NDCG@k: sum over relevant ranks i <= k of 1/log2(i + 1), divided by the same sum for an ideal
  ranking (min(R, k) relevant candidates first).
- graded NDCG@k (gNDCG@k): the same with each candidate's gain its confidence (0-1, the share of
  annotators who selected it) instead of 1 or 0, against the ideal order by confidence, so that a
  sentence 9 of 10 annotators picked counts more than one 6 of 10 picked, and one 5 of 10 picked
  (below the threshold) still counts a little.
Rankings with no relevant candidate are skipped (no ranker can score on them), as in the paper;
graded NDCG is computed on the same rankings, so every figure has the same n."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

METRICS = ("MRR@1", "MRR@5", "MAP@5", "MAP@10", "NDCG@5", "NDCG@10")
GRADED = ("gNDCG@5", "gNDCG@10")


def reciprocal_rank(relevance: Sequence[bool], k: int) -> float:
    for rank, relevant in enumerate(relevance[:k], start=1):
        if relevant:
            return 1.0 / rank
    return 0.0


def average_precision(relevance: Sequence[bool], k: int) -> float:
    n_relevant = sum(bool(r) for r in relevance)
    if not n_relevant:
        return 0.0
    hits, total = 0, 0.0
    for rank, relevant in enumerate(relevance[:k], start=1):
        if relevant:
            hits += 1
            total += hits / rank
    return total / min(n_relevant, k)


def ndcg(relevance: Sequence[bool], k: int) -> float:
    n_relevant = sum(bool(r) for r in relevance)
    if not n_relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, relevant in enumerate(relevance[:k], start=1) if relevant)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(n_relevant, k) + 1))
    return dcg / ideal


def ranking_metrics(rankings: Iterable[Sequence[bool]]) -> dict[str, float]:
    """The mean of each metric over the rankings that have a relevant candidate, and their count n."""
    sums = dict.fromkeys(METRICS, 0.0)
    n = 0
    for relevance in rankings:
        if not any(relevance):
            continue
        n += 1
        sums["MRR@1"] += reciprocal_rank(relevance, 1)
        sums["MRR@5"] += reciprocal_rank(relevance, 5)
        sums["MAP@5"] += average_precision(relevance, 5)
        sums["MAP@10"] += average_precision(relevance, 10)
        sums["NDCG@5"] += ndcg(relevance, 5)
        sums["NDCG@10"] += ndcg(relevance, 10)
    result: dict[str, float] = {name: (total / n if n else 0.0) for name, total in sums.items()}
    result["n"] = n
    return result


def graded_ndcg(gains: Sequence[float], k: int) -> float:
    """NDCG@k with graded gains (in ranked order): DCG over the top k / DCG of the ideal order."""
    ideal = sum(g / math.log2(rank + 1) for rank, g in enumerate(sorted(gains, reverse=True)[:k], start=1))
    if ideal <= 0:
        return 0.0
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains[:k], start=1)) / ideal


def graded_ranking_metrics(rankings: Iterable[tuple[Sequence[bool], Sequence[float]]]) -> dict[str, float]:
    """ranking_metrics of the binary relevance, plus gNDCG@5 and gNDCG@10 of the gains, over the
    rankings (binary relevance, gains; both in ranked order) that have a relevant candidate."""
    kept = [(relevance, gains) for relevance, gains in rankings if any(relevance)]
    result = ranking_metrics(relevance for relevance, _ in kept)
    for name, k in (("gNDCG@5", 5), ("gNDCG@10", 10)):
        result[name] = sum(graded_ndcg(gains, k) for _, gains in kept) / len(kept) if kept else 0.0
    return result
