"""Evaluate a sentence ranker on WOW++ contexts with the paper's metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from retrieval.rankers import SentenceRanker, rank_order
from retrieval.rankers.metrics import ranking_metrics
from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppContext


def ranker_evaluate(
    ranker: SentenceRanker,
    contexts: Sequence[WowppContext],
    *,
    threshold: float = RELEVANCE_THRESHOLD,
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, float]:
    """{"MRR@1", ..., "NDCG@10", "n"}: contexts without a relevant candidate are not scored at all."""

    def rankings() -> Iterator[list[bool]]:
        for context in contexts:
            relevant = context.relevant(threshold)
            if relevant.any():
                order = rank_order(ranker.score(context.turns, context.candidates, topic=context.topic))
                yield [bool(relevant[i]) for i in order]
            progress(1)

    return ranking_metrics(rankings())
