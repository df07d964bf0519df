// FaithDial (Dziri et al., 2022): one wizard response at a time, with the conversation before it and
// the knowledge it was grounded on. Tick its BEGIN and VRM labels; where a BEGIN label is unfaithful
// (Hallucination, Partial Hallucination, Uncooperative), rewrite the response so that the knowledge
// supports it. The rewrite box starts with the response itself, to be edited.

import { charCount, h, limitChars, setNotice } from "../js/dom.js";
import { annotationScreen, showDone, showError, showProgress } from "../js/annotate-common.js";
import { format, formatNumber, gettext, gettext_noop } from "../js/i18n.js";

// This kind's refusals (annotate/kinds/faithdial/screen.py), as errors.js words the shared ones: in
// English the server's message (it names the label or the problem), in another language the page's.
const OWN_ERRORS = {
  rewrite_required: gettext_noop("An unfaithful response needs a rewrite that changes it, so that the knowledge supports everything it says."),
  bad_rewrite: gettext_noop("The rewrite cannot be sent as it is: keep it within the length limit, without control characters."),
  unknown_label: gettext_noop("The answer was not accepted. Reload the page and try again."),
};

function refusal(data) {
  const english = OWN_ERRORS[data.code];
  const translated = english ? gettext(english) : "";
  if (translated && translated !== english) return translated;
  return data.detail || gettext("The answer was not accepted.");
}

const { root, client, screens } = annotationScreen();
const form = document.getElementById("answer-form");
const rewrite = document.getElementById("rewrite");
const count = document.getElementById("rewrite-count");
const needed = document.getElementById("rewrite-needed");
const error = document.getElementById("error"); // loading the next item
const answerError = document.getElementById("answer-error");
const progress = document.getElementById("progress");
const submit = document.getElementById("submit");
const MAX = limitChars(rewrite, Number(rewrite.dataset.maxChars));

let item = null;
let shownAt = 0;
let busy = false;

const ticked = (name) => Array.from(form.querySelectorAll(`input[name=${name}]:checked`)).map((box) => box.value);

function update() {
  // The unfaithful BEGIN labels carry data-unfaithful (the server's taxonomy.UNFAITHFUL).
  const unfaithful = form.querySelector("input[name=begin][data-unfaithful]:checked") !== null;
  const unchanged = item && rewrite.value.trim() === item.response.trim();
  needed.hidden = !(unfaithful && (unchanged || !rewrite.value.trim()));
  count.textContent = format(gettext("%(count)s of %(max)s characters"), {
    count: formatNumber(charCount(rewrite.value)),
    max: formatNumber(MAX),
  });
}

function renderHistory(history) {
  const list = document.getElementById("history");
  // The last turn is the seeker's, whom the response answers; the turns alternate before it.
  list.replaceChildren(
    ...history.map((text, n) => {
      const seeker = (history.length - 1 - n) % 2 === 0;
      return h(
        "li",
        { class: `turn ${seeker ? "turn-user" : "turn-assistant"}${n === history.length - 1 ? " turn-last" : ""}`, dataset: { testid: "turn" } },
        h("span", { class: "turn-speaker", text: seeker ? gettext("Seeker") : gettext("Wizard") }),
        h("p", { class: "turn-text", text }),
      );
    }),
  );
}

function render(next) {
  item = next;
  // An imported FaithDial utterance has no topic (the release keeps none): no empty heading then.
  const topic = document.getElementById("topic");
  topic.textContent = item.topic;
  topic.hidden = !item.topic;
  topic.previousElementSibling.hidden = !item.topic;
  document.getElementById("knowledge").textContent = item.knowledge;
  document.getElementById("response").textContent = item.response;
  renderHistory(item.history);
  for (const box of form.querySelectorAll("input[type=checkbox]")) box.checked = false;
  rewrite.value = item.response;
  setNotice(error, "");
  setNotice(answerError, "");
  update();
  screens.loading.hidden = true;
  screens.done.hidden = true;
  screens.item.hidden = false;
  root.dataset.itemId = String(item.id);
  shownAt = performance.now();
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
  const begin = ticked("begin");
  const vrm = ticked("vrm");
  if (!begin.length || !vrm.length) {
    showError(answerError, gettext("Tick at least one BEGIN label and one VRM label."));
    return;
  }
  if (charCount(rewrite.value) > MAX) {
    showError(answerError, format(gettext("The rewrite is longer than %(max)s characters."), { max: formatNumber(MAX) }));
    return;
  }
  busy = true;
  submit.disabled = true;
  const body = { begin, vrm, response: rewrite.value, time_spent_ms: Math.round(performance.now() - shownAt) };
  const { ok, data } = await client.answer(item.id, body);
  busy = false;
  submit.disabled = false;
  if (!ok) return showError(answerError, refusal(data));
  screens.item.hidden = true;
  screens.loading.hidden = false;
  await load();
}

// An answer's error goes once the annotator changes the answer: a label ticked, the rewrite typed in
// (on input, not on the textarea's change, which fires as the pointer goes down on Submit).
form.addEventListener("change", (event) => {
  if (event.target === rewrite) return;
  setNotice(answerError, "");
  update();
});
rewrite.addEventListener("input", () => {
  setNotice(answerError, "");
  update();
});
form.addEventListener("submit", send);
document.getElementById("retry")?.addEventListener("click", load);

load();
