// Draws every chart on the page (templates/annotate/_chart.html) with the vendored Chart.js
// (static/vendor/chartjs, loaded before this module as window.Chart). Each figure carries its
// numbers as JSON and as a table; counts get whole-number ticks.
const TEXT = {
  interval: "interval",
  estimate: "estimate",
};

const ROW_HEIGHT = 34;

function colours() {
  const style = getComputedStyle(document.documentElement);
  const value = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  return {
    accent: value("--accent", "#2456c9"),
    strong: value("--accent-strong", "#1b44a3"),
    text: value("--text", "#1d2330"),
    muted: value("--muted", "#5d6677"),
    grid: value("--border", "#dde1e8"),
  };
}

function format(spec, value) {
  return spec.digits ? Number(value).toFixed(spec.digits) : String(value);
}

function valueAxis(spec, title, c) {
  const axis = {
    title: { display: Boolean(title), text: title, color: c.text, font: { weight: "600" } },
    grid: { color: c.grid },
    ticks: { color: c.muted },
  };
  if (spec.kind !== "interval") axis.beginAtZero = true;
  if (spec.counts) axis.ticks.precision = 0;
  return axis;
}

function categoryAxis(title, c) {
  return {
    title: { display: Boolean(title), text: title, color: c.text, font: { weight: "600" } },
    grid: { display: false },
    ticks: { color: c.text, autoSkip: false },
  };
}

function config(spec) {
  const c = colours();
  const horizontal = spec.kind !== "column";
  const scales = horizontal
    ? { x: valueAxis(spec, spec.xLabel, c), y: categoryAxis("", c) }
    : { x: categoryAxis(spec.xLabel, c), y: valueAxis(spec, spec.yLabel, c) };
  const datasets = [];
  if (spec.kind === "interval") {
    datasets.push({
      label: TEXT.interval,
      data: spec.lows.map((low, n) => [low, spec.highs[n]]),
      backgroundColor: c.accent,
      barThickness: 4,
      order: 2,
    });
    datasets.push({
      type: "line",
      label: TEXT.estimate,
      data: spec.values.map((value, n) => ({ x: value, y: spec.labels[n] })),
      showLine: false,
      pointRadius: 6,
      pointHoverRadius: 8,
      pointBackgroundColor: c.strong,
      pointBorderColor: c.strong,
      order: 1,
    });
  } else {
    datasets.push({ label: spec.kind === "column" ? spec.yLabel : spec.xLabel, data: spec.values, backgroundColor: c.accent, hoverBackgroundColor: c.strong });
  }
  return {
    type: "bar",
    data: { labels: spec.labels, datasets },
    options: {
      indexAxis: horizontal ? "y" : "x",
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales,
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (item) => {
              if (spec.kind !== "interval") return `${item.dataset.label}: ${format(spec, item.raw)}`;
              const n = item.dataIndex;
              return `${format(spec, spec.values[n])} (${format(spec, spec.lows[n])} – ${format(spec, spec.highs[n])})`;
            },
          },
        },
      },
    },
  };
}

function draw(figure) {
  const canvas = figure.querySelector("canvas");
  const data = figure.querySelector('script[type="application/json"]');
  if (!canvas || !data || window.Chart.getChart(canvas)) return;
  const spec = JSON.parse(data.textContent);
  const box = canvas.parentElement;
  // Horizontal charts grow with their rows, so long label lists stay readable.
  if (spec.kind !== "column") box.style.height = `${Math.max(spec.labels.length * ROW_HEIGHT + 70, 140)}px`;
  new window.Chart(canvas, config(spec));
}

export function chartsRelease(root) {
  for (const canvas of root.querySelectorAll("[data-chart] canvas")) window.Chart?.getChart(canvas)?.destroy();
}

export function chartsDraw(root = document) {
  if (!window.Chart) return; // the library failed to load: the tables still hold every number
  window.Chart.defaults.font.size = 14;
  window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  for (const figure of root.querySelectorAll("[data-chart]")) draw(figure);
}

chartsDraw();
