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


def test_graded_ndcg_weighs_each_candidate_by_its_confidence() -> None:
    from retrieval.rankers.metrics import graded_ndcg

    # Ranked gains 0.6, 0.9, 0.0: the ideal order is 0.9, 0.6.
    dcg = 0.6 / math.log2(2) + 0.9 / math.log2(3)
    ideal = 0.9 / math.log2(2) + 0.6 / math.log2(3)
    assert graded_ndcg([0.6, 0.9, 0.0], 5) == pytest.approx(dcg / ideal)
    assert graded_ndcg([0.9, 0.6, 0.0], 5) == pytest.approx(1.0)
    assert graded_ndcg([0.0, 0.0], 5) == 0.0
    # Binary NDCG cannot tell these two rankings apart; graded NDCG can.
    better, worse = [1.0, 0.6, 0.5], [0.6, 1.0, 0.5]
    assert ndcg([g >= 0.6 for g in better], 5) == ndcg([g >= 0.6 for g in worse], 5) == 1.0
    assert graded_ndcg(better, 5) == 1.0 > graded_ndcg(worse, 5)


def test_graded_ranking_metrics_use_the_rankings_the_binary_ones_use() -> None:
    from retrieval.rankers.metrics import graded_ranking_metrics

    metrics = graded_ranking_metrics([
        ([True, False], [0.7, 0.2]),
        ([False, True], [0.3, 0.8]),
        ([False, False], [0.5, 0.1]),  # nothing relevant: skipped by both, though its gains are not zero
    ])
    assert metrics["n"] == 2 and metrics["MRR@1"] == pytest.approx(0.5)
    first = 1.0
    second = (0.3 + 0.8 / math.log2(3)) / (0.8 + 0.3 / math.log2(3))
    assert metrics["gNDCG@5"] == pytest.approx((first + second) / 2)
    assert metrics["gNDCG@10"] == pytest.approx((first + second) / 2)
