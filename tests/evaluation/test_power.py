"""The power analysis of a pairwise study: the exact test's power against scipy's own binomial test,
the judgments needed against statsmodels' normal approximation, and against simulated judges with a
known win rate (the empirical power at the computed n is within 0.03 of the prediction)."""

from __future__ import annotations

import pytest
from scipy.stats import binom, binomtest

from annotate.kinds.pairwise.evaluation.power import exact_power, judgments_needed, points_from_win_rate, win_rate_from_points
from annotate.kinds.pairwise.evaluation.simulation import simulated_power

TOLERANCE = 0.03  # 2,000 simulated studies: the simulated power's standard error is about 0.009


@pytest.mark.parametrize("n", [1, 5, 6, 17, 40, 101])
def test_the_exact_power_rejects_where_scipys_binomial_test_does(n: int) -> None:
    rejected = [k for k in range(n + 1) if binomtest(k, n, 0.5).pvalue <= 0.05]
    assert exact_power(n, 0.63, 0.05) == pytest.approx(sum(binom.pmf(rejected, n, 0.63)), abs=1e-12)


def test_points_and_win_rates_are_one_scale() -> None:
    assert win_rate_from_points(0) == 0.5
    assert win_rate_from_points(100) == pytest.approx(0.64, abs=0.001)  # "a 100-point gap is 64% expected wins"
    assert points_from_win_rate(win_rate_from_points(70)) == pytest.approx(70)


@pytest.mark.parametrize(
    "goal",
    [
        {"win_rate": 0.60},
        {"win_rate": 0.40},
        {"points": 100, "power": 0.9, "alpha": 0.01},
        {"win_rate": 0.60, "tie_rate": 0.25},
    ],
)
def test_simulated_judges_reach_the_planned_power(goal: dict[str, float]) -> None:
    plan = judgments_needed(**goal)
    n, target = plan["judgments"], plan["power"]
    assert plan["achieved_power"] >= target
    assert plan["judgments"] >= plan["normal_approximation"] * 0.95  # the normal approximation is close, a little low
    simulated = simulated_power(n, plan["win_rate"], alpha=plan["alpha"], tie_rate=plan["tie_rate"], seed=n)
    assert simulated == pytest.approx(plan["achieved_power"], abs=TOLERANCE)
    # Far fewer judgments fall well short: the n is needed, not padded.
    assert simulated_power(n // 2, plan["win_rate"], alpha=plan["alpha"], tie_rate=plan["tie_rate"], seed=1) < target - 0.15


def test_ties_cost_judgments() -> None:
    plain, tied = judgments_needed(win_rate=0.6), judgments_needed(win_rate=0.6, tie_rate=0.2)
    assert tied["judgments"] == pytest.approx(plain["judgments"] / 0.8, rel=0.06)


@pytest.mark.parametrize(
    ("goal", "message"),
    [
        ({"win_rate": 0.5}, "differ from 0.5"),
        ({"win_rate": 1.2}, "between 0 and 1"),
        ({"win_rate": 0.6, "points": 70}, "not both"),
        ({}, "as a win rate or as Bradley–Terry points"),
        ({"win_rate": 0.6, "power": 0.01}, "power between α and 1"),
        ({"win_rate": 0.6, "tie_rate": 1.0}, "tie rate"),
        ({"win_rate": 0.501}, "more than 100,000 judgments"),
    ],
)
def test_it_refuses_a_goal_it_cannot_plan(goal: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        judgments_needed(**goal)
