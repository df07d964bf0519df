from __future__ import annotations

import math

import pytest

from retrieval.rankers.metrics import average_precision, ndcg, ranking_metrics, reciprocal_rank

# Relevance of the candidates in ranked order: relevant at ranks 2 and 4, five candidates.
RANKING = [False, True, False, True, False]


def test_reciprocal_rank_is_one_over_the_first_relevant_rank_within_k() -> None:
    assert reciprocal_rank(RANKING, 5) == 0.5
    assert reciprocal_rank(RANKING, 1) == 0.0
    assert reciprocal_rank([True, False], 1) == 1.0


def test_average_precision_divides_by_the_relevant_ones_that_fit_in_k() -> None:
    # precision@2 = 1/2, precision@4 = 2/4; R = 2
    assert average_precision(RANKING, 5) == pytest.approx((1 / 2 + 2 / 4) / 2)
    # only rank 2 is within k = 3: (1/2) / min(R=2, k=3)
    assert average_precision(RANKING, 3) == pytest.approx(0.25)
    # R = 3 but k = 2: divide by 2
    assert average_precision([True, True, True], 2) == pytest.approx(1.0)


def test_ndcg_compares_with_the_ideal_order() -> None:
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg(RANKING, 5) == pytest.approx(dcg / ideal)
    assert ndcg([True, True, False], 10) == pytest.approx(1.0)


def test_ranking_metrics_average_and_skip_rankings_without_a_relevant_candidate() -> None:
    metrics = ranking_metrics([[True, False], [False, True], [False, False]])

    assert metrics["n"] == 2
    assert metrics["MRR@1"] == pytest.approx(0.5)
    assert metrics["MRR@5"] == pytest.approx((1 + 0.5) / 2)
    assert metrics["MAP@5"] == pytest.approx((1 + 0.5) / 2)
    assert metrics["NDCG@5"] == pytest.approx((1 + 1 / math.log2(3)) / 2)


def test_ranking_metrics_of_nothing_are_zero() -> None:
    assert ranking_metrics([]) == {"MRR@1": 0.0, "MRR@5": 0.0, "MAP@5": 0.0, "MAP@10": 0.0, "NDCG@5": 0.0,
                                   "NDCG@10": 0.0, "n": 0}
