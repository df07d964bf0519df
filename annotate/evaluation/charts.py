"""Geometry for interval charts (templates/annotate/_interval_chart.html): one row per model, a dot
at the estimate and a line across its interval, e.g. the leaderboard with bootstrap intervals or a
mean rating ± 1.96 standard errors. Same approach as collect.charts: numbers in, shapes out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from collect.charts import PlotArea, nice_step


@dataclass(frozen=True)
class IntervalRow:
    label: str
    value: float
    x: float
    lo_x: float
    hi_x: float
    y: float
    text: str


@dataclass
class IntervalChart(PlotArea):
    title: str
    width: int
    height: int
    x_label: str
    left: float
    top: float
    plot_width: float
    plot_height: float
    rows: list[IntervalRow] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)


def _step(span: float) -> float:
    return nice_step(span / 4 if span > 0 else 1.0)


def interval_chart(
    title: str, rows: list[tuple[str, float, float, float]], *, x_label: str, digits: int = 0, width: int = 640, row: int = 24
) -> IntervalChart:
    """rows: (label, value, lo, hi); the axis spans all intervals, rounded out to tick steps."""
    finite = [v for _, value, lo, hi in rows for v in (value, lo, hi) if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    step = _step(high - low)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    if high <= low:
        low, high = low - step, high + step
    chart = IntervalChart(title, width, 0, x_label, left=150, top=8, plot_width=width - 150 - 70, plot_height=row * len(rows))
    chart.height = int(chart.top + chart.plot_height + 40)

    def x(value: float) -> float:
        value = min(max(value, low), high) if math.isfinite(value) else (high if value > 0 else low)
        return chart.left + chart.plot_width * (value - low) / (high - low)

    for n, (label, value, lo, hi) in enumerate(rows):
        chart.rows.append(IntervalRow(label, value, x(value), x(lo), x(hi), chart.top + n * row + row / 2, f"{value:.{digits}f}"))
    ticks = int(round((high - low) / step))
    chart.ticks = [(x(low + k * step), f"{low + k * step:g}") for k in range(ticks + 1)]
    return chart
