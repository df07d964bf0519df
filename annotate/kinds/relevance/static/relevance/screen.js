// Relevance voting (WOW++): the dialogue context ending on the user's turn, and the candidate
// sentences grouped by article. Select every sentence that could be used in the next response, or
// "None of these". Keys: ↓/j ↑/k move, Space/x select, n none, Enter submit.

import { h, setNotice } from "../js/dom.js";
import { annotationScreen, showDone, showError, showProgress, typing } from "../js/annotate-common.js";
import { format, formatNumber, gettext } from "../js/i18n.js";

const { root, client, screens } = annotationScreen();
const form = document.getElementById("answer-form");
const articles = document.getElementById("articles");
const none = document.getElementById("none");
const count = document.getElementById("selected-count");
const error = document.getElementById("error"); // loading the next item
const answerError = document.getElementById("answer-error"); // this item's answer, by the Submit button
const progress = document.getElementById("progress");
const submit = document.getElementById("submit");

let item = null;
let shownAt = 0;
let busy = false;

function boxes() {
  return Array.from(articles.querySelectorAll("input[type=checkbox]"));
}

function updateCount() {
  const selected = boxes().filter((b) => b.checked).length;
  count.textContent = none.checked ? gettext("None of these") : format(gettext("%(count)s selected"), { count: formatNumber(selected) });
  for (const box of boxes()) box.closest(".candidate").classList.toggle("is-selected", box.checked);
}

function renderTurns(turns) {
  const list = document.getElementById("turns");
  list.replaceChildren(
    ...turns.map((turn, n) =>
      h(
        "li",
        { class: `turn turn-${turn.speaker}${n === turns.length - 1 ? " turn-last" : ""}`, dataset: { testid: "turn" } },
        h("span", { class: "turn-speaker", text: turn.speaker === "user" ? gettext("User") : gettext("Assistant") }),
        h("p", { class: "turn-text", text: turn.text }),
      ),
    ),
  );
  list.lastElementChild?.scrollIntoView({ block: "nearest" });
}

function renderArticles(groups) {
  let number = 0;
  articles.replaceChildren(
    ...groups.map((group) =>
      h(
        "fieldset",
        { class: "candidate-article" },
        h("legend", { text: group.title }),
        ...group.sentences.map((sentence) => {
          number += 1;
          return h(
            "label",
            { class: "candidate", dataset: { testid: "candidate", id: String(sentence.id) } },
            h("input", { type: "checkbox", value: String(sentence.id) }),
            h("span", { class: "candidate-number", text: String(number) }),
            h("span", { class: "candidate-text", text: sentence.text }),
          );
        }),
      ),
    ),
  );
}

function render(next) {
  item = next;
  document.getElementById("topic").textContent = item.topic;
  renderTurns(item.turns);
  renderArticles(item.articles);
  none.checked = false;
  updateCount();
  setNotice(error, "");
  setNotice(answerError, "");
  screens.loading.hidden = true;
  screens.done.hidden = true;
  screens.item.hidden = false;
  root.dataset.itemId = String(item.id);
  shownAt = performance.now();
  boxes()[0]?.focus();
}

async function load() {
  const { ok, data } = await client.next();
  if (!ok) return showError(error, data.detail || gettext("Could not load the next item."));
  showProgress(progress, data.progress);
  if (data.item) render(data.item);
  else showDone(screens, data.status, data.finish_url);
}

async function send(event) {
  event?.preventDefault();
  if (!item || busy) return;
  const selected = boxes().filter((b) => b.checked).map((b) => Number(b.value));
  if (!selected.length && !none.checked) {
    showError(answerError, gettext("Select every sentence that could be used in the next response, or tick “None of these”."));
    return;
  }
  busy = true;
  submit.disabled = true;
  const body = { selected, time_spent_ms: Math.round(performance.now() - shownAt) };
  const { ok, data } = await client.answer(item.id, body);
  busy = false;
  submit.disabled = false;
  if (!ok) return showError(answerError, data.detail || gettext("The answer was not accepted."));
  screens.item.hidden = true;
  screens.loading.hidden = false;
  await load();
}

function move(step) {
  const all = boxes();
  const at = all.indexOf(document.activeElement);
  const next = all[Math.min(all.length - 1, Math.max(0, at + step))];
  next?.focus();
  next?.closest(".candidate").scrollIntoView({ block: "nearest" });
}

articles.addEventListener("change", (event) => {
  if (event.target.checked) none.checked = false;
  setNotice(answerError, "");
  updateCount();
});
none.addEventListener("change", () => {
  if (none.checked) for (const box of boxes()) box.checked = false;
  setNotice(answerError, "");
  updateCount();
});
form.addEventListener("submit", send);
document.getElementById("retry")?.addEventListener("click", load);

document.addEventListener("keydown", (event) => {
  if (screens.item.hidden || typing(event)) return;
  const key = event.key;
  if (key === "ArrowDown" || key === "j") move(1);
  else if (key === "ArrowUp" || key === "k") move(-1);
  else if (key === "x" && document.activeElement?.type === "checkbox" && document.activeElement !== none) {
    document.activeElement.click();
  } else if (key === "n") none.click();
  else if (key === "Enter") send(event);
  else return;
  event.preventDefault();
});

load();
