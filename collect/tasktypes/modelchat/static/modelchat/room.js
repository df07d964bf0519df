// The model-chat screen (modelchat/room.html, on chat_base.html and chat.js): the
// evaluator picks a topic, chats, labels each partner message with problems or an explicit
// "None", and answers the campaign's final questions (docs/human-evaluation.md).

import { ChatRoom, pickedRating } from "../js/chat.js";
import { h, setNotice } from "../js/dom.js";
import { format, gettext, gettext_noop } from "../js/i18n.js";
import { Candidates } from "./candidates.js";
import { ReplyProgress } from "./progress.js";

// The built-in problem labels and final question (collect/tasktypes/modelchat/config.py) and the scale words
// (collect/rating_scale.py), for the catalog: a campaign's own wording is shown as the researcher wrote it.
gettext_noop("Contradicts itself or the conversation");
gettext_noop("Repeats itself");
gettext_noop("Off topic or ignores what I said");
gettext_noop("Nonsensical or hard to understand");
gettext_noop("Factually incorrect");
gettext_noop("How much did you enjoy talking to your partner?");
gettext_noop("Not at all");
gettext_noop("A little");
gettext_noop("Somewhat");
gettext_noop("Quite a lot");
gettext_noop("Very much");

const $ = (id) => document.getElementById(id);
const LABEL_FIRST = gettext("Mark your partner's last message first: tick its problems, or “None”.");
const pending = new Map(); // seq → labels we sent and the state does not show yet
let labellingAfterEnd = false; // the chat ended with the last message unlabelled
function problems() {
  return (chat.state && chat.state.problems) || [];
}

function labels() {
  return (chat.state && chat.state.labels) || {};
}

/** The seq of the last partner message when it still needs labels, else 0. */
function lastUnlabelled() {
  if (!problems().length) return 0;
  const partnerSeqs = Array.from(chat.bySeq.entries()).filter(([, li]) => li.dataset.role === "wizard").map(([seq]) => seq);
  const last = Math.max(0, ...partnerSeqs);
  return last && !labels()[String(last)] ? last : 0;
}

// Once the chat has ended with the last message unlabelled, the chat screen stays for that label:
// a plain status (not an error) and the button on to the questions take the composer's place.
function endedBox() {
  let box = $("chat-ended-box");
  if (!box) {
    const button = h("button", { type: "button", id: "continue-button", class: "button button-primary", "data-testid": "continue-button",
      text: gettext("Go to the final questions"), on: { click: () => {
        labellingAfterEnd = false;
        box.hidden = true;
        chat._showScreen("rating");
      } } });
    box = h("div", { id: "chat-ended-box", class: "chat-ended" },
      h("p", { class: "notice", "data-testid": "chat-ended", role: "status",
        text: gettext("The chat has ended. Label your partner's last message, then answer the final questions.") }),
      button);
    chat.els.composer.after(box);
  }
  return box;
}

function showEnded() {
  // The header's turn count and the "ends once your partner has replied" notice are of a chat
  // still going: say it ended, and drop what no longer applies.
  chat.els.turnCounter.textContent = gettext("The chat has ended.");
  setNotice(chat.els.turnLimit, "");
  setNotice(chat.els.composerError, "");
  chat.els.composer.hidden = true;
  endedBox().hidden = false;
  $("continue-button").disabled = Boolean(lastUnlabelled());
}

function renderTopics(s) {
  if (!s.persona) return;
  $("persona-text").textContent = s.persona.text || "";
  if ($("topic-options").childElementCount) return;
  $("topic-options").replaceChildren(
    ...s.persona.topics.map((topic) =>
      h("button", {
        type: "button", class: "button topic-option", "data-testid": "topic-option", dataset: { topic }, text: topic,
        on: { click: () => setNotice($("topic-error"), chat.sendAction({ type: "choose_topic", topic }) ? "" : gettext("Reconnecting — your choice will be sent.")) },
      }),
    ),
  );
}

function labelBox(seq) {
  const box = h("fieldset", { class: "problem-labels", "data-testid": "problem-labels" },
    h("legend", { class: "visually-hidden", text: gettext("Problems in this message") }));
  for (const { key, text } of [...problems().map((p) => ({ key: p.key, text: gettext(p.text) })), { key: "none", text: gettext("None") }]) {
    const input = h("input", { type: "checkbox", value: key, "data-testid": `label-${key}` });
    input.addEventListener("change", () => onLabel(box, seq, input));
    box.append(h("label", {}, input, ` ${text}`));
  }
  return box;
}

function onLabel(box, seq, changed) {
  const inputs = Array.from(box.querySelectorAll("input"));
  // "None" and the problems exclude each other.
  if (changed.checked) for (const input of inputs) if ((input.value === "none") !== (changed.value === "none")) input.checked = false;
  const picked = inputs.filter((input) => input.checked).map((input) => input.value);
  if (!picked.length) return;
  // Resent until acknowledged (and applied once), like every state-changing frame.
  chat.sendAction({ type: "label", seq, problems: picked });
  pending.set(String(seq), picked.slice().sort().join(","));
}

function syncLabels() {
  for (const [seq, li] of chat.bySeq) {
    const given = labels()[String(seq)];
    if (!given) continue;
    const sent = pending.get(String(seq));
    if (sent !== undefined) {
      // A state from before our latest ticks must not undo them: wait for the one that has them.
      if (sent !== given.slice().sort().join(",")) continue;
      pending.delete(String(seq));
    }
    for (const input of li.querySelectorAll(".problem-labels input")) input.checked = given.includes(input.value);
    li.classList.add("message-labelled");
  }
}

function renderQuestions(s) {
  const box = $("questions");
  if (box.childElementCount || !Array.isArray(s.questions)) return;
  // The heading counts the campaign's questions: often there is just the one.
  $("questions-heading").textContent = s.questions.length === 1 ? gettext("One last question") : gettext("A few last questions");
  box.replaceChildren(
    ...s.questions.map((q) => {
      const choices = [];
      const anchors = q.anchors || {};
      for (let value = q.min; value <= q.max; value += 1) {
        const words = anchors[String(value)];
        choices.push(h("label", { class: "rating-choice", "data-testid": `answer-${q.key}-${value}` },
          h("input", { type: "radio", name: q.key, value: String(value) }),
          h("span", { class: "rating-number", text: String(value) }),
          ...(words ? [h("span", { class: "rating-label", "data-testid": "rating-anchor", text: gettext(words) })] : [])));
      }
      return h("fieldset", { class: "rating" }, h("legend", { text: gettext(q.text) }), h("div", { class: "rating-options" }, ...choices));
    }),
  );
}

const chat = new ChatRoom({
  roleNames: { wizard: "partner", apprentice: "you" },
  onState(s) {
    candidates.onState(s);
    if (candidates.showing) progress.done();
    else progress.onState(s);
    if (s.status === "choosing_topic") renderTopics(s);
    if (s.status === "rating") renderQuestions(s);
    syncLabels();
    if (s.status === "rating" && lastUnlabelled()) labellingAfterEnd = true;
    if (s.status === "rating" && labellingAfterEnd) {
      // The chat ended (End chat, or the turn limit) before the last message was labelled: label
      // it on the chat screen, then go on to the questions.
      chat._showScreen("chatting");
      showEnded();
    }
  },
  decorateMessage(li, { own }) {
    if (!own) li.querySelector(".message-author").textContent = gettext("Your partner");
  },
  frames: {
    typing: (frame) => progress.typing(frame),
    busy: (frame) => progress.busy(frame),
    stream: (frame) => {
      if (frame.candidate === undefined) return progress.stream(frame);
      progress.done(); // several replies: each in its own card
      return candidates.stream(frame);
    },
  },
  onMessage(frame, li, { own, fresh }) {
    progress.onMessage(frame, own);
    if (!own) candidates.hide();
    if (!own && fresh && problems().length) li.append(labelBox(frame.seq));
    syncLabels();
  },
  sendBlocker() {
    return lastUnlabelled() ? LABEL_FIRST : null;
  },
  ratingFrame(form) {
    const answers = {};
    for (const q of chat.state.questions) {
      const value = pickedRating(form, q.key);
      if (value === null) return format(gettext("Please answer: %(question)s"), { question: gettext(q.text) });
      answers[q.key] = value;
    }
    return { type: "rate", answers };
  },
});
const progress = new ReplyProgress(chat);
const candidates = new Candidates(chat);
chat.start();
