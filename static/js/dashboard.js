// The live campaign dashboard (collect/research/dashboard.html): reload the figures and charts
// every 5 s from the server-rendered fragment.
const root = document.getElementById("dashboard");

async function refresh() {
  try {
    const reply = await fetch(root.dataset.url, { credentials: "same-origin" });
    if (reply.ok) root.innerHTML = await reply.text();
  } catch {
    // offline for a moment: the next tick tries again
  }
}

setInterval(refresh, 5000);
