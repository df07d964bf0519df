"""The charts of the annotation reports, the results page and the research dashboard, as data:
a title, labels, values and axis names, which templates/annotate/_chart.html writes out once for
the browser (json_script, drawn by static/js/charts.js with the vendored Chart.js) and once as a
table of the same numbers for screen readers and for copying."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["column", "row", "interval"]


@dataclass
class Chart:
    title: str
    kind: Kind
    labels: list[str]
    values: list[float]
    x_label: str = ""
    y_label: str = ""
    counts: bool = True  # whole-number ticks
    digits: int = 0  # decimals shown for a value in the table and the tooltip
    lows: list[float] = field(default_factory=list)  # interval charts only
    highs: list[float] = field(default_factory=list)

    @property
    def testid(self) -> str:
        return "interval-chart" if self.kind == "interval" else "chart"

    @property
    def value_label(self) -> str:
        """What a value is: the value axis's name."""
        return self.y_label if self.kind == "column" else self.x_label

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        """(label, value, interval) as the table shows them."""
        out = []
        for n, (label, value) in enumerate(zip(self.labels, self.values)):
            interval = f"{self.lows[n]:.{self.digits}f} – {self.highs[n]:.{self.digits}f}" if self.kind == "interval" else ""
            out.append((label, _text(value, self.digits), interval))
        return out

    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "kind": self.kind, "title": self.title, "labels": self.labels, "values": self.values,
            "xLabel": self.x_label, "yLabel": self.y_label, "counts": self.counts, "digits": self.digits,
        }
        if self.kind == "interval":
            spec["lows"], spec["highs"] = self.lows, self.highs
        return spec


def _text(value: float, digits: int) -> str:
    return f"{value:.{digits}f}" if digits else f"{value:g}"


def _digits(values: list[float]) -> int:
    """Enough decimals for the values given (at most 3): 0 for whole numbers."""
    for digits in range(4):
        if all(abs(round(v, digits) - v) < 1e-9 for v in values):
            return digits
    return 3


def column_chart(title: str, data: list[tuple[str, float]], *, x_label: str, y_label: str, counts: bool = True) -> Chart:
    """Vertical bars, one per (label, value), e.g. the WOW++ histogram of relevant sentences per turn."""
    values = [float(v) for _, v in data]
    return Chart(title, "column", [str(k) for k, _ in data], values, x_label=x_label, y_label=y_label, counts=counts, digits=_digits(values))


def row_chart(title: str, data: list[tuple[str, float]], *, x_label: str, counts: bool = True) -> Chart:
    """Horizontal bars with long labels on the left, e.g. how often each dialog act was given."""
    values = [float(v) for _, v in data]
    return Chart(title, "row", [str(k) for k, _ in data], values, x_label=x_label, counts=counts, digits=_digits(values))


def interval_chart(title: str, rows: list[tuple[str, float, float, float]], *, x_label: str, digits: int = 0) -> Chart:
    """One row per (label, value, lo, hi): a dot at the estimate and a line across its interval, e.g.
    the leaderboard with bootstrap intervals or a mean rating ± 1.96 standard errors. An infinite
    bound is drawn at the estimate."""

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
