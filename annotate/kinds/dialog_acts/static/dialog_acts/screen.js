// Dialog-act labeling (Curiosity): one dialogue at a time. Pick a message (click, ↓/j ↑/k) and give it
// zero or more of the 16 acts from the palette (click, or the key shown on each act); Enter submits.
// "Report dialog" sends the dialogue back with a reason instead of labels. Submitting with messages
// that have no act warns first and shows the first of them; submitting again sends them without acts.

import { charCount, h, limitChars, setNotice } from "../js/dom.js";
import { annotationScreen, showDone, showError, showProgress, typing } from "../js/annotate-common.js";
import { format, formatNumber, gettext } from "../js/i18n.js";

const SENDERS = { user: gettext("User"), assistant: gettext("Assistant") };
const senderName = (sender) => SENDERS[sender] || sender;

const { root, client, screens } = annotationScreen();
const list = document.getElementById("act-messages");
const palette = document.getElementById("act-palette");
const error = document.getElementById("error"); // loading the next dialogue
const answerError = document.getElementById("answer-error"); // this dialogue's answer, by Submit
const reportError = document.getElementById("report-error");
const progress = document.getElementById("progress");
const submit = document.getElementById("submit");
const reportForm = document.getElementById("report-form");
const reportReason = document.getElementById("report-reason");
const MAX_REPORT = limitChars(reportReason, Number(reportReason.dataset.maxChars));

const keys = new Map(); // key -> act
const actLabels = new Map(); // act -> its label in the palette ("request aspect", in the job's language)
for (const button of palette.querySelectorAll("[data-act]")) {
  keys.set(button.dataset.key, button.dataset.act);
  actLabels.set(button.dataset.act, button.dataset.label || button.dataset.act);
}

let item = null;
let labels = []; // one Set of acts per message
let current = 0;
let shownAt = 0;
let busy = false;
let warnedFor = null; // the unlabeled messages the annotator was warned about ("1,4"), if any

function renderTags(index) {
  const node = list.querySelector(`[data-index="${index}"] .act-tags`);
  const acts = item.acts.filter((act) => labels[index].has(act));
  node.replaceChildren(
    ...(acts.length
      ? acts.map((act) => h("span", { class: "act-tag", dataset: { act }, text: actLabels.get(act) || act }))
      : [h("span", { class: "muted", text: gettext("no acts") })]),
  );
}

function select(index) {
  current = Math.min(item.messages.length - 1, Math.max(0, index));
  for (const node of list.children) {
    const on = Number(node.dataset.index) === current;
    node.classList.toggle("is-current", on);
    node.setAttribute("aria-current", on ? "true" : "false");
  }
  const node = list.querySelector(`[data-index="${current}"]`);
  node.scrollIntoView({ block: "nearest" });
  for (const button of palette.querySelectorAll("[data-act]")) {
    button.setAttribute("aria-pressed", labels[current].has(button.dataset.act) ? "true" : "false");
  }
  document.getElementById("palette-target").textContent = format(gettext("message %(number)s (%(sender)s)"), {
    number: current + 1,
    sender: senderName(item.messages[current].sender),
  });
}

function toggle(act) {
  const acts = labels[current];
  if (acts.has(act)) acts.delete(act);
  else acts.add(act);
  renderTags(current);
  select(current);
  setNotice(answerError, "");
  warnedFor = null;
}

function render(next) {
  item = next;
  labels = item.messages.map(() => new Set());
  document.getElementById("topic").textContent = item.topic;
  document.getElementById("aspects").replaceChildren(...item.aspects.map((a) => h("span", { class: "aspect", text: a })));
  list.replaceChildren(
    ...item.messages.map((message) =>
      h(
        "li",
        {
          class: `act-message sender-${message.sender}`,
          dataset: { testid: "act-message", index: String(message.index) },
          on: { click: () => select(message.index) },
        },
        h("span", { class: "turn-speaker", text: `${message.index + 1} · ${senderName(message.sender)}` }),
        h("p", { class: "turn-text", text: message.text }),
        h("div", { class: "act-tags", dataset: { testid: "act-tags" } }),
      ),
    ),
  );
  item.messages.forEach((_, index) => renderTags(index));
  reportForm.hidden = true;
  warnedFor = null;
  for (const node of [error, answerError, reportError]) setNotice(node, "");
  screens.loading.hidden = true;
  screens.done.hidden = true;
  screens.item.hidden = false;
  root.dataset.itemId = String(item.id);
  shownAt = performance.now();
  select(0);
}

async function load() {
  const { ok, data } = await client.next();
  if (!ok) return showError(error, data.detail || gettext("Could not load the next dialogue."));
  showProgress(progress, data.progress);
  if (data.item) render(data.item);
  else showDone(screens, data.status, data.finish_url);
}

/** Before labels are sent: messages without any act get one warning (and the first is shown). */
function unlabeledWarning() {
  const unlabeled = labels.flatMap((set, index) => (set.size === 0 ? [index] : []));
  const key = unlabeled.join(",");
  if (!unlabeled.length || warnedFor === key) return false;
  warnedFor = key;
  const numbers = unlabeled.map((i) => i + 1);
  const text =
    numbers.length === 1
      ? format(gettext("Message %(number)s has no act yet. Label it, or submit again to send it without acts."), { number: numbers[0] })
      : format(gettext("Messages %(numbers)s and %(last)s have no act yet. Label them, or submit again to send them without acts."), {
          numbers: numbers.slice(0, -1).join(gettext(", ")),
          last: numbers.at(-1),
        });
  showError(answerError, text);
  select(unlabeled[0]);
  return true;
}

async function send(extra) {
  if (!item || busy) return;
  if (!extra.report_reason && unlabeledWarning()) return;
  busy = true;
  submit.disabled = true;
  const acts = labels.map((set) => item.acts.filter((act) => set.has(act)));
  const body = { acts, time_spent_ms: Math.round(performance.now() - shownAt), ...extra };
  const { ok, data } = await client.answer(item.id, body);
  busy = false;
  submit.disabled = false;
  if (!ok) return showError(extra.report_reason ? reportError : answerError, data.detail || gettext("The answer was not accepted."));
  screens.item.hidden = true;
  screens.loading.hidden = false;
  await load();
}

palette.addEventListener("click", (event) => {
  const button = event.target.closest("[data-act]");
  if (button && item) toggle(button.dataset.act);
});
submit.addEventListener("click", () => send({}));
document.getElementById("report-button").addEventListener("click", () => {
  reportForm.hidden = false;
  reportReason.focus();
});
document.getElementById("report-cancel").addEventListener("click", () => {
  reportForm.hidden = true;
  setNotice(reportError, "");
});
reportReason.addEventListener("input", () => setNotice(reportError, ""));
reportForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const reason = reportReason.value.trim();
  if (!reason) return showError(reportError, gettext("Say briefly what is wrong with this dialogue."));
  if (charCount(reason) > MAX_REPORT) {
    return showError(reportError, format(gettext("Your reason is too long (at most %(max)s characters)."), { max: formatNumber(MAX_REPORT) }));
  }
  reportReason.value = "";
  send({ report_reason: reason });
});
document.getElementById("retry")?.addEventListener("click", load);

document.addEventListener("keydown", (event) => {
  if (screens.item.hidden || !reportForm.hidden || typing(event)) return;
  const key = event.key;
  if (key === "ArrowDown" || key === "j") select(current + 1);
  else if (key === "ArrowUp" || key === "k") select(current - 1);
  else if (key === "Enter") send({});
  else if (keys.has(key.toLowerCase())) toggle(keys.get(key.toLowerCase()));
  else return;
  event.preventDefault();
});

load();
