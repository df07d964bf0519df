"""Interval charts: one row per model, a dot at the estimate and a line across its interval, e.g.
the leaderboard with bootstrap intervals or a mean rating ± 1.96 standard errors. Drawn like every
other chart (collect.charts)."""

from __future__ import annotations

import math

from collect.charts import Chart


def interval_chart(title: str, rows: list[tuple[str, float, float, float]], *, x_label: str, digits: int = 0) -> Chart:
    """rows: (label, value, lo, hi); an infinite bound is drawn at the estimate."""

    def finite(bound: float, value: float) -> float:
        return bound if math.isfinite(bound) else value

    return Chart(
        title,
        "interval",
        [label for label, *_ in rows],
        [value for _, value, _, _ in rows],
        x_label=x_label,
        counts=False,
        digits=digits,
        lows=[finite(lo, value) for _, value, lo, _ in rows],
        highs=[finite(hi, value) for _, value, _, hi in rows],
    )
