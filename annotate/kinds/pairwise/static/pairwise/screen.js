// Pairwise judgments (ACUTE-Eval): two whole conversations side by side, the judged speaker of each
// highlighted; pick one (click, or the keys 1 / 2) and say briefly why, then submit.

import { charCount, h, limitChars, setNotice } from "../js/dom.js";
import { annotationScreen, showDone, showError, showProgress, typing } from "../js/annotate-common.js";
import { format, formatNumber, gettext } from "../js/i18n.js";

const { root, client, screens } = annotationScreen();
const form = document.getElementById("pair-form");
const reason = document.getElementById("reason");
const MAX_REASON = limitChars(reason, Number(reason.dataset.maxChars));
// The server's bounds (annotate.kinds.pairwise.pairs), said beside the box so a short "ok" is no surprise.
const MIN_REASON = Number(reason.dataset.minChars);
document.getElementById("reason-hint").textContent = format(
  gettext("At least %(min)s characters (at most %(max)s)."),
  { min: formatNumber(MIN_REASON), max: formatNumber(MAX_REASON) },
);
const error = document.getElementById("error");
const progress = document.getElementById("progress");
const submit = document.getElementById("submit");

let item = null;
let shownAt = 0;
let busy = false;

function renderConversation(conversation) {
  const node = document.getElementById(`conversation-${conversation.side}`);
  node.querySelector(".pair-topic").textContent = conversation.topic || "—";
  node.querySelector(".pair-turns").replaceChildren(
    ...conversation.turns.map((turn) =>
      h(
        "li",
        { class: `pair-turn${turn.of_interest ? " is-judged" : ""}`, dataset: { testid: turn.of_interest ? "judged-turn" : "partner-turn" } },
        h("span", { class: "turn-speaker", text: turn.speaker }),
        h("p", { class: "turn-text", text: turn.text }),
      ),
    ),
  );
  document.querySelector(`[data-testid=option-${conversation.side}]`).textContent = conversation.option;
}

function render(next) {
  item = next;
  document.getElementById("question").textContent = item.question;
  document.getElementById("reason-prompt").textContent = item.reason_prompt;
  item.conversations.forEach(renderConversation);
  for (const input of form.elements.choice) input.checked = false;
  reason.value = "";
  setNotice(error, "");
  screens.loading.hidden = true;
  screens.done.hidden = true;
  screens.item.hidden = false;
  root.dataset.itemId = String(item.id);
  shownAt = performance.now();
  window.scrollTo(0, 0);
}

async function load() {
  const { ok, data } = await client.next();
  if (!ok) return showError(error, data.detail || gettext("Could not load the next pair."));
  showProgress(progress, data.progress);
  if (data.item) render(data.item);
  else showDone(screens, data.status, data.finish_url);
}

function choose(side) {
  form.querySelector(`input[value=${side}]`).checked = true;
  setNotice(error, "");
}

async function send() {
  if (!item || busy) return;
  const choice = form.elements.choice.value;
  const text = reason.value.trim();
  if (!choice) return showError(error, gettext("Choose one of the two speakers."));
  // Characters as the server counts them (code points): two emoji are two, not four UTF-16 units.
  if (charCount(text) < MIN_REASON) {
    reason.focus();
    return showError(error, format(gettext("Say briefly why you chose that speaker: at least %(min)s characters."), { min: formatNumber(MIN_REASON) }));
  }
  if (charCount(text) > MAX_REASON) {
    reason.focus();
    return showError(error, format(gettext("Your reason is too long (at most %(max)s characters)."), { max: formatNumber(MAX_REASON) }));
  }
  busy = true;
  submit.disabled = true;
  const { ok, data } = await client.answer(item.id, { choice, reason: text, time_spent_ms: Math.round(performance.now() - shownAt) });
  busy = false;
  submit.disabled = false;
  if (!ok) return showError(error, data.detail || gettext("The answer was not accepted."));
  screens.item.hidden = true;
  screens.loading.hidden = false;
  await load();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
document.getElementById("retry")?.addEventListener("click", load);
document.addEventListener("keydown", (event) => {
  if (screens.item.hidden || typing(event)) return;
  if (event.key === "1") choose("left");
  else if (event.key === "2") choose("right");
  else return;
  event.preventDefault();
  reason.focus();
});

load();
