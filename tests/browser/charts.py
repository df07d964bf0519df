"""What Chart.js drew on a page (static/js/charts.js): each chart's title, value-axis ticks and font size."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

_DRAWN = """() => [...document.querySelectorAll('[data-chart]')].map((figure) => {
  const chart = window.Chart && window.Chart.getChart(figure.querySelector('canvas'));
  if (!chart) return null;
  const axis = chart.options.indexAxis === 'y' ? chart.scales.x : chart.scales.y;
  return {title: figure.querySelector('figcaption').textContent, ticks: axis.ticks.map((t) => t.value),
          font: chart.options.font.size, width: chart.width};
})"""


def charts_drawn(page: Page, *, count: int) -> list[dict[str, Any]]:
    """Waits until `count` charts are drawn, then describes them."""
    page.wait_for_function(f"() => ({_DRAWN})().filter(Boolean).length === {count}", timeout=30_000)
    return page.evaluate(_DRAWN)
