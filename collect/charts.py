"""Geometry for the inline SVG bar charts of the annotation reports and the research pages
(templates/annotate/_chart.html draws them). No chart library, nothing fetched: numbers in, rectangles and labels out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: float
    label_x: float
    label_y: float

    @property
    def end_x(self) -> float:
        return self.x + self.width


class PlotArea:
    """The right and bottom edges of a chart's plot area, from its left, top and size."""

    left: float
    top: float
    plot_width: float
    plot_height: float

    @property
    def bottom(self) -> float:
        return self.top + self.plot_height

    @property
    def right(self) -> float:
        return self.left + self.plot_width


def nice_step(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × a power of ten that is at least `value` (> 0): axis steps and tops."""
    magnitude = 10 ** math.floor(math.log10(value))
    return next(step * magnitude for step in (1, 2, 2.5, 5, 10) if value <= step * magnitude)


@dataclass
class Chart(PlotArea):
    title: str
    width: int
    height: int
    horizontal: bool
    bars: list[Bar] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)  # (position, text) on the value axis
    x_label: str = ""
    y_label: str = ""
    left: float = 0.0
    top: float = 0.0
    plot_width: float = 0.0
    plot_height: float = 0.0


def _nice_max(value: float) -> float:
    return nice_step(value) if value > 0 else 1.0


def _tick_text(value: float) -> str:
    return f"{value:g}"


def column_chart(title: str, data: list[tuple[str, float]], *, x_label: str, y_label: str, width: int = 640, height: int = 260) -> Chart:
    """Vertical bars, one per (label, value), e.g. the WOW++ histogram of relevant sentences per turn."""
    chart = Chart(title, width, height, False, x_label=x_label, y_label=y_label, left=52, top=16)
    chart.plot_width, chart.plot_height = width - chart.left - 12, height - chart.top - 52
    top = _nice_max(max((v for _, v in data), default=0))
    slot = chart.plot_width / max(len(data), 1)
    for n, (label, value) in enumerate(data):
        h = chart.plot_height * value / top
        x = chart.left + n * slot + slot * 0.1
        chart.bars.append(Bar(x, chart.top + chart.plot_height - h, slot * 0.8, h, label, value, x + slot * 0.4, chart.top + chart.plot_height + 16))
    chart.ticks = [(chart.top + chart.plot_height * (1 - f), _tick_text(top * f)) for f in (0, 0.25, 0.5, 0.75, 1)]
    return chart


def row_chart(title: str, data: list[tuple[str, float]], *, x_label: str, width: int = 640, row: int = 20) -> Chart:
    """Horizontal bars with long labels on the left, e.g. how often each dialog act was given."""
    chart = Chart(title, width, 0, True, x_label=x_label, left=150, top=8)
    chart.plot_width, chart.plot_height = width - chart.left - 40, row * len(data)
    chart.height = int(chart.top + chart.plot_height + 40)
    top = _nice_max(max((v for _, v in data), default=0))
    for n, (label, value) in enumerate(data):
        w = chart.plot_width * value / top
        y = chart.top + n * row + row * 0.15
        chart.bars.append(Bar(chart.left, y, w, row * 0.7, label, value, chart.left - 6, y + row * 0.5))
    chart.ticks = [(chart.left + chart.plot_width * f, _tick_text(top * f)) for f in (0, 0.25, 0.5, 0.75, 1)]
    return chart
