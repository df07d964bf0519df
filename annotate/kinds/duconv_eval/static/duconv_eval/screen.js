// DuConv human evaluation screen (annotate/kinds/duconv_eval/templates/duconv_eval/screen.html): the agent's goal and
// knowledge, the conversation, and the competition's two scales with their rubric; one answer
// {"scores": {"coherence", "goal_completion"}} per dialogue through the annotation API.

import { h, setNotice } from "../js/dom.js";
import { annotationScreen, showDone, showError, showProgress } from "../js/annotate-common.js";
import { gettext } from "../js/i18n.js";

const { root, client, screens } = annotationScreen();
const error = document.getElementById("error");
const progress = document.getElementById("progress");
const form = document.getElementById("scores-form");
const submit = document.getElementById("submit");

let item = null;
let shownAt = 0;

function render(next) {
  item = next;
  const [, a, b] = item.goal[0];
  document.getElementById("goal-path").textContent = `${gettext("START")} → ${a} → ${b}`;
  document.getElementById("goal-relations").replaceChildren(...item.goal.slice(1).map((t) => h("li", { text: t.join(" — ") })));
  document.getElementById("dialogue").replaceChildren(
    ...item.messages.map((m) =>
      h("li", { class: `act-message sender-${m.sender}`, dataset: { testid: "dialogue-message", index: String(m.index) } },
        h("span", { class: "turn-speaker", text: `${m.index + 1} · ${m.sender === "agent" ? gettext("Agent") : gettext("User")}` }),
        h("p", { class: "turn-text", text: m.text }))),
  );
  document.getElementById("knowledge-count").textContent = String(item.knowledge.length);
  document.getElementById("knowledge").replaceChildren(...item.knowledge.map((t) => h("li", { text: t.join(" — ") })));
  form.reset();
  setNotice(error, "");
  screens.loading.hidden = true;
  screens.done.hidden = true;
  screens.item.hidden = false;
  root.dataset.itemId = String(item.id);
  shownAt = performance.now();
}

async function load() {
  const { ok, data } = await client.next();
  if (!ok) return showError(error, data.detail || gettext("Could not load the next dialogue."));
  showProgress(progress, data.progress);
  if (data.item) render(data.item);
  else showDone(screens, data.status, data.finish_url);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!item) return;
  const picked = (name) => form.querySelector(`input[name="${name}"]:checked`);
  const coherence = picked("coherence");
  const goal = picked("goal_completion");
  if (!coherence || !goal) return showError(error, gettext("Choose a score on both scales."));
  submit.disabled = true;
  const scores = { coherence: Number(coherence.value), goal_completion: Number(goal.value) };
  const { ok, data } = await client.answer(item.id, { scores, time_spent_ms: Math.round(performance.now() - shownAt) });
  submit.disabled = false;
  if (!ok) return showError(error, data.detail || gettext("The answer was not accepted."));
  screens.item.hidden = true;
  screens.loading.hidden = false;
  await load();
});
document.getElementById("retry")?.addEventListener("click", load);

load();
