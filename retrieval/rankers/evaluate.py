"""Evaluate a sentence ranker on WOW++ contexts with the paper's metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from retrieval.rankers import SentenceRanker, rank_order
from retrieval.rankers.metrics import graded_ranking_metrics
from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppContext, wowpp_half


def ranker_evaluate(
    ranker: SentenceRanker,
    contexts: Sequence[WowppContext],
    *,
    threshold: float = RELEVANCE_THRESHOLD,
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, float]:
    """{"MRR@1", ..., "NDCG@10", "gNDCG@5", "gNDCG@10", "n"}: contexts without a relevant candidate
    are not scored at all."""

    def rankings() -> Iterator[tuple[list[bool], list[float]]]:
        for context in contexts:
            relevant = context.relevant(threshold)
            if relevant.any():
                order = rank_order(ranker.score(context.turns, context.candidates, topic=context.topic))
                yield [bool(relevant[i]) for i in order], [float(context.confidences[i]) for i in order]
            progress(1)

    return graded_ranking_metrics(rankings())


def learned_cross_fit(
    contexts: Sequence[WowppContext], *, semantic: bool, c: float, threshold: float = RELEVANCE_THRESHOLD,
    device: str = "auto",
) -> dict[str, float]:
    """The learned ranker scored only on contexts it was not trained on: fit on one half of the
    contexts (wowpp_half), rank the other, then the other way round; the metrics pool both halves.
    For a single file; with a separate training file, train_reranker then eval_ranker says the same."""
    from retrieval.rankers.learned import context_features, learned_apply, learned_fit

    features = context_features(contexts, semantic=semantic, device=device)
    halves = [wowpp_half(context.id) for context in contexts]
    rankings: list[tuple[list[bool], list[float]]] = []
    for held_out in ("a", "b"):
        train = [i for i, half in enumerate(halves) if half != held_out]
        model = learned_fit([features[i] for i in train], [contexts[i] for i in train], semantic=semantic, c=c,
                            threshold=threshold)
        for i, half in enumerate(halves):
            relevant = contexts[i].relevant(threshold)
            if half == held_out and relevant.any():
                order = rank_order(learned_apply(model, features[i]))
                rankings.append(([bool(relevant[j]) for j in order], [float(contexts[i].confidences[j]) for j in order]))
    return graded_ranking_metrics(rankings)
