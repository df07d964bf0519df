"""The significance tests against values worked out by hand."""

from __future__ import annotations

import pytest

from annotate.kinds.pairwise.evaluation.stats import cohens_d, mann_whitney_u, summary, welch_t_test, win_rate_test
from annotate.kinds.pairwise.evaluation.wiki_f1 import normalize, unigram_f1, wiki_f1

A = [1, 2, 3, 4, 5]
B = [3, 4, 5, 6, 7]


def test_it_runs_welchs_t_test_with_cohens_d() -> None:
    # means 3 and 5, variances 2.5: t = -2 / sqrt(0.5 + 0.5) = -2, df = 1 / (2 * 0.25 / 4) = 8
    result = welch_t_test(A, B)
    assert result["t"] == pytest.approx(-2.0)
    assert result["df"] == pytest.approx(8.0)
    assert result["p"] == pytest.approx(0.08052, abs=1e-4)
    assert result["cohens_d"] == pytest.approx(-2 / 2.5**0.5)


def test_it_uses_unequal_variances() -> None:
    result = welch_t_test([1, 2, 3, 4, 5], [5, 5, 5, 6, 6, 6, 7, 7, 7, 8])
    assert result["df"] < 5 + 10 - 2  # the Welch–Satterthwaite df, not the pooled one


def test_it_returns_none_where_a_test_is_undefined() -> None:
    assert welch_t_test([3], [4, 5])["p"] is None
    assert welch_t_test([3, 3], [3, 3])["p"] is None
    assert cohens_d([3, 3], [3, 3]) is None
    assert mann_whitney_u([], [1])["p"] is None
    assert win_rate_test(0, 0, ties=3) == {"wins": 0, "losses": 0, "ties": 3, "win_rate": None, "p": None}
    assert summary([]) == {"n": 0, "mean": None, "sd": None}


def test_it_runs_mann_whitney_with_the_rank_biserial_correlation() -> None:
    # U_a = 3 pairs a > b + 3 ties * 0.5 = 4.5 of 25; r = 2 * 4.5 / 25 - 1
    result = mann_whitney_u(A, B)
    assert result["u"] == pytest.approx(4.5)
    assert result["rank_biserial"] == pytest.approx(-0.64)
    assert 0.05 < result["p"] < 0.2
    assert mann_whitney_u(B, A)["rank_biserial"] == pytest.approx(0.64)


def test_it_tests_a_win_rate_against_a_coin() -> None:
    # P(X >= 8 | n=10) = 56 / 1024, two-sided doubles it
    result = win_rate_test(8, 2, ties=5)
    assert result["win_rate"] == pytest.approx(0.8)
    assert result["p"] == pytest.approx(112 / 1024)
    assert win_rate_test(50, 50)["p"] == pytest.approx(1.0)


def test_it_summarises_ratings() -> None:
    assert summary(A) == {"n": 5, "mean": 3.0, "sd": pytest.approx(2.5**0.5)}


def test_it_normalises_as_parlai_does() -> None:
    assert normalize("The cat, a dog! An apple; theatre.") == "cat dog apple theatre"


def test_it_computes_unigram_f1() -> None:
    # guess {cat, sat}; reference {cat, sat, on, mat}: P = 1, R = 0.5
    assert unigram_f1("the cat sat", "A cat sat on the mat.") == pytest.approx(2 / 3)
    assert unigram_f1("nothing shared", "A cat sat.") == 0.0
    assert unigram_f1("", "A cat sat.") == 0.0


def test_it_uses_the_first_ten_article_sentences() -> None:
    sentences = [f"sentence{n}." for n in range(12)]
    assert wiki_f1(["sentence11"], sentences) == 0.0
    assert wiki_f1(["sentence9"], sentences) == pytest.approx(2 * 1 * 0.1 / 1.1)
    assert wiki_f1(["cat", "nothing"], ["A cat."]) == pytest.approx(0.5)
    assert wiki_f1([], sentences) is None
    assert wiki_f1(["cat"], []) is None
