// The live campaign dashboard (research/dashboard.html): reload the figures and charts
// every 5 s from the server-rendered fragment.
import { chartsDraw, chartsRelease } from "./charts.js";

const root = document.getElementById("dashboard");

async function refresh() {
  try {
    const reply = await fetch(root.dataset.url, { credentials: "same-origin" });
    if (!reply.ok) return;
    const html = await reply.text();
    const open = new Set([...root.querySelectorAll("details[open] summary")].map((s) => s.closest("[data-chart]")?.querySelector("figcaption")?.textContent));
    chartsRelease(root);
    root.innerHTML = html;
    // A numbers table the researcher opened stays open across refreshes.
    for (const figure of root.querySelectorAll("[data-chart]")) {
      if (open.has(figure.querySelector("figcaption")?.textContent)) figure.querySelector("details")?.setAttribute("open", "");
    }
    chartsDraw(root);
  } catch {
    // offline for a moment: the next tick tries again
  }
}

setInterval(refresh, 5000);
