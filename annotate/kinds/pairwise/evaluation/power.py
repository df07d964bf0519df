"""How many judgments a pairwise study needs: a power analysis of the test the results run between
two models (annotate.kinds.pairwise.evaluation.stats.win_rate_test, as ACUTE-Eval's analysis: a two-sided exact
binomial test of the win rate against 0.5, ties left out).

The smallest difference worth detecting is a win rate (e.g. 0.60 against 0.50) or a Bradley–Terry
gap in points (P = 1 / (1 + 10^(−points/400)): 70 points ≈ 0.60). Given α and the power wanted, the
number of judgments per pair of models is the smallest n from which the exact power stays at or
above the target (the exact test's power saw-tooths with n, so the first n to reach it can fall
below again at n + 1). Ties: with a tie rate t, the decided judgments among n are Binomial(n, 1 − t)
and the power is averaged over them. statsmodels' normal approximation (Cohen's h, one sample)
starts the search and is reported beside it. Checked against simulated judges
(annotate.kinds.pairwise.evaluation.simulation.simulated_power) in tests/evaluation/test_power.py and
bench/active_sampling.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as scipy_stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

MAX_JUDGMENTS = 100_000


def win_rate_from_points(points: float) -> float:
    """Bradley–Terry: the expected win rate of a model `points` above another (400·log10 odds)."""
    return 1.0 / (1.0 + 10.0 ** (-points / 400.0))


def points_from_win_rate(win_rate: float) -> float:
    return 400.0 * math.log10(win_rate / (1.0 - win_rate))


def exact_power(decided: int, win_rate: float, alpha: float) -> float:
    """Power of the two-sided exact binomial test of 0.5 with `decided` judgments, when one model
    wins each with probability `win_rate`. The null is symmetric, so a count's p-value is twice its
    smaller tail (scipy.stats.binomtest's two-sided p-value for p = 0.5, capped at 1)."""
    if decided < 1:
        return 0.0
    k = np.arange(decided + 1)
    tails = np.minimum(scipy_stats.binom.cdf(k, decided, 0.5), scipy_stats.binom.sf(k - 1, decided, 0.5))
    reject = np.minimum(1.0, 2.0 * tails) <= alpha
    return float(scipy_stats.binom.pmf(k[reject], decided, win_rate).sum())


def power_with_ties(judgments: int, win_rate: float, alpha: float, tie_rate: float, powers: np.ndarray | None = None) -> float:
    """Power with `judgments` judgments of which a share `tie_rate` (on average) are ties."""
    powers = _powers(judgments, win_rate, alpha) if powers is None else powers
    if tie_rate == 0:
        return float(powers[judgments])
    decided = scipy_stats.binom.pmf(np.arange(judgments + 1), judgments, 1.0 - tie_rate)
    return float(decided @ powers[: judgments + 1])


def judgments_needed(
    *, win_rate: float | None = None, points: float | None = None, power: float = 0.8, alpha: float = 0.05, tie_rate: float = 0.0
) -> dict[str, Any]:
    """The plan for one pair of models: {win_rate, points, power, alpha, tie_rate, judgments (per
    pair), achieved_power (at that n), normal_approximation (n, ties added), test}. Give the win
    rate or the points (either side of 0.5 / 0); ValueError for values out of range or a study
    over MAX_JUDGMENTS judgments."""
    if (win_rate is None) == (points is None):
        raise ValueError("give the smallest difference worth detecting as a win rate or as Bradley–Terry points, not both")
    if win_rate is None:
        win_rate = win_rate_from_points(float(points))
    if not 0.0 < win_rate < 1.0 or win_rate == 0.5:
        raise ValueError(f"the win rate to detect must be between 0 and 1 and differ from 0.5, not {win_rate}")
    if not 0.0 < alpha < 1.0 or not alpha < power < 1.0:
        raise ValueError(f"α must be between 0 and 1 and the power between α and 1 (α {alpha}, power {power})")
    if not 0.0 <= tie_rate < 1.0:
        raise ValueError(f"the tie rate must be at least 0 and below 1, not {tie_rate}")
    effect = abs(proportion_effectsize(win_rate, 0.5))
    approx = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0) / (1.0 - tie_rate)
    last = math.ceil(1.5 * approx) + 40
    if last > MAX_JUDGMENTS:
        raise ValueError(f"detecting a win rate of {win_rate:.3f} takes more than {MAX_JUDGMENTS:,} judgments per pair")
    powers = _powers(last, win_rate, alpha)
    total = [power_with_ties(n, win_rate, alpha, tie_rate, powers) for n in range(last + 1)]
    below = [n for n in range(last + 1) if total[n] < power]
    needed = below[-1] + 1
    if needed > last - 20:  # the window did not show the power staying up
        raise ValueError(f"no stable number of judgments found up to {last} (win rate {win_rate}, power {power})")
    return {
        "win_rate": win_rate,
        "points": points_from_win_rate(win_rate),
        "power": power,
        "alpha": alpha,
        "tie_rate": tie_rate,
        "judgments": needed,
        "achieved_power": total[needed],
        "normal_approximation": math.ceil(approx),
        "test": "two-sided exact binomial test of the win rate against 0.5, ties left out",
    }


def _powers(last: int, win_rate: float, alpha: float) -> np.ndarray:
    return np.array([exact_power(d, win_rate, alpha) for d in range(last + 1)])
