"""Significance tests between two models, as plain JSON-ready dicts.

Ratings (e.g. engagingness 1–5): Welch's t-test (no equal-variance assumption) with Cohen's d, and
the Mann–Whitney U test (ordinal ratings need no normality) with the rank-biserial correlation.
Pairwise judgments: the win rate of one model over the other and a two-sided exact binomial test
against 50%, ties left out of the test (they carry no preference).
"""

from __future__ import annotations

import math
from statistics import fmean, stdev
from typing import Any, Sequence

from scipy import stats as scipy_stats


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def cohens_d(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(mean a − mean b) / pooled standard deviation; None when it is undefined."""
    if len(a) < 2 or len(b) < 2:
        return None
    pooled = ((len(a) - 1) * stdev(a) ** 2 + (len(b) - 1) * stdev(b) ** 2) / (len(a) + len(b) - 2)
    if pooled == 0:
        return None
    return (fmean(a) - fmean(b)) / math.sqrt(pooled)


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    result: dict[str, Any] = {"test": "welch_t", "n_a": len(a), "n_b": len(b), "t": None, "df": None, "p": None}
    result["cohens_d"] = cohens_d(a, b)
    if len(a) < 2 or len(b) < 2:
        return result
    if stdev(a) == 0 and stdev(b) == 0:
        return result  # no variance: the statistic is undefined, not significant
    test = scipy_stats.ttest_ind(a, b, equal_var=False)
    result.update(t=_finite(test.statistic), df=_finite(test.df), p=_finite(test.pvalue))
    return result


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Two-sided; rank-biserial r = 2·U_a/(n_a·n_b) − 1 (positive when a tends to be higher)."""
    result: dict[str, Any] = {"test": "mann_whitney_u", "n_a": len(a), "n_b": len(b), "u": None, "p": None, "rank_biserial": None}
    if not a or not b:
        return result
    test = scipy_stats.mannwhitneyu(a, b, alternative="two-sided")
    u = float(test.statistic)
    result.update(u=u, p=_finite(test.pvalue), rank_biserial=2 * u / (len(a) * len(b)) - 1)
    return result


def win_rate_test(wins: int, losses: int, ties: int = 0) -> dict[str, Any]:
    """Win rate of a over b among decided judgments, with a two-sided binomial test against 0.5."""
    decided = wins + losses
    result: dict[str, Any] = {"wins": wins, "losses": losses, "ties": ties, "win_rate": None, "p": None}
    if decided:
        result["win_rate"] = wins / decided
        result["p"] = float(scipy_stats.binomtest(wins, decided, 0.5, alternative="two-sided").pvalue)
    return result


def summary(values: Sequence[float]) -> dict[str, Any]:
    """n, mean and sample standard deviation (None where undefined)."""
    return {
        "n": len(values),
        "mean": fmean(values) if values else None,
        "sd": stdev(values) if len(values) >= 2 else None,
    }
