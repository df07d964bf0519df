"""Simulated judges with known strengths, to check a study's plan before people judge: the power of
the win-rate test at a number of judgments (annotate.kinds.pairwise.evaluation.power), and how many judgments a
ranking study needs until it is settled when pairs are drawn uniformly or actively
(annotate.kinds.pairwise.evaluation.active). Used by tests/evaluation/ and bench/active_sampling.py."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from annotate.kinds.pairwise.evaluation.active import estimate, pair_probabilities, pair_weights, settled
from annotate.kinds.pairwise.evaluation.bradley_terry import leaderboard
from annotate.kinds.pairwise.evaluation.stats import win_rate_test

SAMPLERS = ("uniform", "active")


def simulated_power(
    judgments: int, win_rate: float, *, alpha: float = 0.05, tie_rate: float = 0.0, studies: int = 2000, seed: int = 0
) -> float:
    """The share of `studies` simulated studies whose test rejects 0.5: each has `judgments`
    judgments by simulated judges who tie with probability `tie_rate` and otherwise prefer model A
    with probability `win_rate`, tested as the results test them (stats.win_rate_test)."""
    rng = np.random.default_rng(seed)
    ties = rng.binomial(judgments, tie_rate, size=studies)
    wins = rng.binomial(judgments - ties, win_rate)
    outcomes = Counter(zip(wins.tolist(), (judgments - ties - wins).tolist()))  # each distinct outcome tested once
    rejected = 0
    for (won, lost), count in outcomes.items():
        p = win_rate_test(won, lost)["p"]
        rejected += count * (p is not None and p <= alpha)
    return rejected / studies


@dataclass(frozen=True)
class Studies:
    judgments: np.ndarray  # (B,) judgments when each study stopped
    settled: np.ndarray  # (B,) bool: stopped because its ranking settled (else the budget ran out)
    correct: np.ndarray  # (B,) bool: the fitted order at the stop is the true order


def simulate_studies(
    strengths: np.ndarray, *, sampler: str, batch: int = 10, budget: int = 5000, seed: int = 0, bootstrap: bool = True
) -> Studies:
    """Run B ranking studies at once. strengths (B, M): each study's true Bradley–Terry scores in
    points; judges prefer i to j with probability 1 / (1 + 10^((s_j − s_i)/400)), never tie. Each
    step draws `batch` pairs from the state after the previous step (as several annotators are
    served at once), then checks whether the ranking has settled as a job checks it: the asymptotic
    intervals apart (active.settled), and then the bootstrap leaderboard ranking every model apart
    (annotate.kinds.pairwise.study.study_settled; without `bootstrap`, the asymptotic intervals
    alone); a study stops there or at `budget` judgments."""
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}")
    rng = np.random.default_rng(seed)
    b, m = strengths.shape
    beats = 1.0 / (1.0 + 10.0 ** ((strengths[:, None, :] - strengths[:, :, None]) / 400.0))
    iu, ju = np.triu_indices(m, 1)
    wins = np.zeros((b, m, m))
    theta, covariance = estimate(wins)
    running = np.ones(b, dtype=bool)
    stopped_at = np.full(b, budget)
    done = np.zeros(b, dtype=bool)
    correct = np.zeros(b, dtype=bool)
    rows = np.arange(b)[:, None]
    judged = 0
    while judged < budget and running.any():
        if sampler == "active":
            probabilities = pair_probabilities(pair_weights(theta, covariance), np.ones((m, m), dtype=bool))[:, iu, ju]
        else:
            probabilities = np.full((b, len(iu)), 1.0 / len(iu))
        cumulative = probabilities.cumsum(axis=1)
        cumulative[:, -1] = 1.0
        drawn = (rng.random((b, batch))[:, :, None] > cumulative[:, None, :]).sum(axis=2)
        i, j = iu[drawn], ju[drawn]
        won = (rng.random((b, batch)) < beats[rows, i, j]) & running[:, None]
        lost = ~won & running[:, None]
        np.add.at(wins, (np.broadcast_to(rows, i.shape), i, j), won)
        np.add.at(wins, (np.broadcast_to(rows, i.shape), j, i), lost)
        judged += batch
        theta, covariance = estimate(wins, start=theta)
        now = settled(theta, covariance) & running
        if bootstrap:
            now[now] = [_leaderboard_apart(wins[study]) for study in np.flatnonzero(now)]
        stopped_at[now] = judged
        done |= now
        correct[now] = _true_order(theta[now], strengths[now])
        running &= ~now
    correct[running] = _true_order(theta[running], strengths[running])
    return Studies(stopped_at, done, correct)


def _leaderboard_apart(wins: np.ndarray) -> bool:
    """Whether the leaderboard (1,000 bootstrap rounds, as the reports compute it) ranks every model
    apart on these counts (no ties: the judges never tie)."""
    m = len(wins)
    judgments = [(f"m{i}", f"m{j}", "model_a") for i in range(m) for j in range(m) for _ in range(int(wins[i, j]))]
    board = leaderboard(judgments)
    ranks = [row["rank"] for row in board.values()]
    return len(board) == m and None not in ranks and len(set(ranks)) == m


def _true_order(theta: np.ndarray, strengths: np.ndarray) -> np.ndarray:
    return np.all(np.argsort(-theta, axis=1) == np.argsort(-strengths, axis=1), axis=1)
