"""The Bradley–Terry leaderboard: a hand-checked example, ties, intervals and ranks, and recovery of
known strengths from simulated judgments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotate.kinds.pairwise.evaluation.bradley_terry import leaderboard


def cycle_free(a: str = "A", b: str = "B", c: str = "C") -> list[tuple[str, str, str]]:
    # Strengths 4 : 2 : 1 reproduce these counts exactly (A–B 2:1, B–C 2:1, A–C 4:1), so they are
    # the maximum-likelihood estimate: expected wins of A = 3·4/6 + 5·4/5 = 6 = observed.
    return (
        [(a, b, "model_a")] * 2 + [(a, b, "model_b")]
        + [(b, c, "model_a")] * 2 + [(c, b, "model_a")]
        + [(a, c, "model_a")] * 4 + [(c, a, "model_a")]
    )


def test_it_fits_a_hand_checked_example() -> None:
    board = leaderboard(cycle_free(), rounds=0, prior=0)
    step = 400 * math.log10(2)  # 120.41 points per doubling of the odds
    assert board["A"]["score"] == pytest.approx(1000 + step, abs=1e-4)
    assert board["B"]["score"] == pytest.approx(1000, abs=1e-4)
    assert board["C"]["score"] == pytest.approx(1000 - step, abs=1e-4)
    assert [board[m]["battles"] for m in "ABC"] == [8, 6, 8]
    assert list(board) == ["A", "B", "C"]


def test_it_counts_a_tie_as_half_a_win_each_way() -> None:
    # 2 wins, 1 loss, 1 tie = 2.5 : 1.5, odds 5/3
    judgments = [("A", "B", "model_a")] * 2 + [("A", "B", "model_b"), ("B", "A", "tie")]
    board = leaderboard(judgments, rounds=0, prior=0)
    assert board["A"]["score"] - board["B"]["score"] == pytest.approx(400 * math.log10(5 / 3), abs=1e-4)
    assert board["A"]["score"] + board["B"]["score"] == pytest.approx(2000)


def test_the_default_prior_barely_moves_real_data() -> None:
    exact = leaderboard(cycle_free(), rounds=0, prior=0)
    smoothed = leaderboard(cycle_free(), rounds=0)
    for model in "ABC":
        assert smoothed[model]["score"] == pytest.approx(exact[model]["score"], abs=1.0)


def test_it_needs_a_prior_when_a_model_never_lost() -> None:
    with pytest.raises(ValueError, match="never won or never lost"):
        leaderboard([("A", "B", "model_a")] * 3, rounds=0, prior=0)
    board = leaderboard([("A", "B", "model_a")] * 3, rounds=0)
    assert board["A"]["score"] > board["B"]["score"]


def test_overlapping_intervals_share_a_rank() -> None:
    board = leaderboard(cycle_free(), rounds=300, seed=3, min_battles=6)
    assert all(row["lo"] <= row["score"] <= row["hi"] for row in board.values())
    assert {row["rank"] for row in board.values()} == {1}  # 22 judgments separate nobody


def simulated(strengths: dict[str, float], n: int, seed: int) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    names = list(strengths)
    out = []
    for _ in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        p_a = 1 / (1 + 10 ** ((strengths[names[b]] - strengths[names[a]]) / 400))
        out.append((names[a], names[b], "model_a" if rng.random() < p_a else "model_b"))
    return out


def test_it_recovers_known_strengths_and_separates_distant_models() -> None:
    strengths = {"weak": 800.0, "fair": 950.0, "good": 1050.0, "best": 1200.0}
    board = leaderboard(simulated(strengths, 6000, seed=7), rounds=400, seed=1)
    for name, true in strengths.items():
        assert board[name]["score"] == pytest.approx(true, abs=25)
        assert board[name]["lo"] < board[name]["hi"]
    assert list(board) == ["best", "good", "fair", "weak"]
    assert [board[m]["rank"] for m in ("best", "good", "fair", "weak")] == [1, 2, 3, 4]
    assert sum(row["battles"] for row in board.values()) == 2 * 6000


def test_close_models_are_not_separated() -> None:
    strengths = {"x": 1000.0, "y": 1002.0, "far": 700.0}
    board = leaderboard(simulated(strengths, 600, seed=11), rounds=400, seed=2)
    assert board["x"]["rank"] == board["y"]["rank"] == 1
    assert board["far"]["rank"] == 3


def test_the_bootstrap_is_repeatable_by_seed() -> None:
    judgments = simulated({"p": 1000.0, "q": 1100.0}, 200, seed=5)
    assert leaderboard(judgments, rounds=100, seed=4) == leaderboard(judgments, rounds=100, seed=4)


def test_one_judgment_gives_no_interval_and_no_separate_ranks() -> None:
    # The case seen in the field: one judgment showed "1461–1461" and ranks 1 and 2 beside p = 1.0.
    board = leaderboard([("kb-retrieval", "no-knowledge", "model_a")], rounds=1000, seed=0)
    assert board["kb-retrieval"]["score"] > board["no-knowledge"]["score"]
    for row in board.values():
        assert row["lo"] is None and row["hi"] is None and row["rank"] is None
        assert row["battles"] == 1


def test_a_model_gets_an_interval_and_a_rank_at_the_minimum_number_of_battles() -> None:
    # A–B 9 judgments, B–C 1: A has 9 battles, B 10, C 1; with min_battles=10 only B is ranked.
    judgments = [("A", "B", "model_a")] * 5 + [("A", "B", "model_b")] * 4 + [("B", "C", "model_a")]
    board = leaderboard(judgments, rounds=200, seed=1, min_battles=10)
    assert [board[m]["battles"] for m in "ABC"] == [9, 10, 1]
    assert board["B"]["rank"] == 1 and board["B"]["lo"] < board["B"]["hi"]
    assert board["A"]["rank"] is None and board["A"]["lo"] is None
    assert board["C"]["rank"] is None
    assert list(board)[0] == "B"  # ranked models first, the provisional ones after
    board = leaderboard(judgments, rounds=200, seed=1, min_battles=9)
    assert board["A"]["rank"] == board["B"]["rank"] == 1  # 5–4 separates nobody


def test_without_bootstrap_rounds_nobody_is_ranked() -> None:
    board = leaderboard(cycle_free(), rounds=0, min_battles=1)
    assert all(row["rank"] is None and row["lo"] is None for row in board.values())
    assert list(board) == ["A", "B", "C"]  # still in score order


def test_a_rank_counts_the_ranked_models_wholly_above() -> None:
    strengths = {"top": 1300.0, "mid": 1000.0, "low": 700.0}
    judgments = simulated(strengths, 3000, seed=3) + [("rare", "low", "model_a")] * 2
    board = leaderboard(judgments, rounds=300, seed=2)
    assert [board[m]["rank"] for m in ("top", "mid", "low")] == [1, 2, 3]
    assert board["rare"]["rank"] is None and board["rare"]["battles"] == 2
    for name in ("top", "mid", "low"):
        above = [m for m in ("top", "mid", "low") if board[m]["lo"] > board[name]["hi"]]
        assert board[name]["rank"] == 1 + len(above)
