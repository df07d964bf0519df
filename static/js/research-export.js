// An export's page: while the export runs, poll its status and show the progress; once it is
// done (or failed) reload, so the page lists the files with their download links.
const card = document.getElementById("export");
const POLL_MS = 1000;

/** The estimate counts rooms or items; some exports write more records than that (a model chat's
 *  companion judgments, one record per sentence): past it, only the count written is said. */
function countText(state) {
  if (state.status === "done") return `${state.written} item(s) written`;
  if (state.written <= state.expected) return `${state.written} of about ${state.expected} item(s) written`;
  return `${state.written} item(s) written so far`;
}

async function poll() {
  let state;
  try {
    const response = await fetch(card.dataset.statusUrl, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`status ${response.status}`);
    state = await response.json();
  } catch (error) {
    document.getElementById("export-state").textContent = `status unavailable (${error.message}); retrying`;
    setTimeout(poll, POLL_MS * 3);
    return;
  }
  document.getElementById("export-state").textContent = state.status;
  document.getElementById("export-count").textContent = countText(state);
  const bar = document.getElementById("export-progress");
  bar.max = Math.max(state.expected, state.written, 1);
  bar.value = state.written;
  if (state.status === "done" || state.status === "failed") {
    window.location.reload();
    return;
  }
  setTimeout(poll, POLL_MS);
}

if (card && (card.dataset.status === "queued" || card.dataset.status === "running")) {
  setTimeout(poll, POLL_MS);
}
