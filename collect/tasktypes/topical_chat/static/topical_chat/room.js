// The Topical-Chat room (topical_chat/room.html, on chat_base.html): the partner's reading set
// beside the chat (the `reading_set` frame), each part with a "Used" toggle; under the message box
// what the next message draws on and its sentiment; a rating on each message of the partner, sent
// with the reply to it; the conversation's rating (and the last message's, when it is owed) at the
// end. The values sent are the release's words, which the page takes from its template (the
// sentiment options, the rating buttons, the personal-knowledge button's data-key); only their
// labels are translated. The socket, transcript, composer and screens are chat.js's.

import { ChatRoom } from "../js/chat.js";
import { h, setNotice } from "../js/dom.js";
import { format, gettext } from "../js/i18n.js";

const $ = (id) => document.getElementById(id);
const root = $("room");

const els = {
  facts: $("reading-facts"),
  article: $("reading-article"),
  headline: $("article-headline"),
  sections: $("article-sections"),
  marks: $("turn-marks"),
  chosen: $("sources-chosen"),
  personal: $("personal-knowledge"),
  sentiment: $("sentiment"),
  ratingTemplate: $("turn-rating-template"),
  lastTurn: $("last-turn-rating"),
  lastTurnText: $("last-turn-text"),
};
const PERSONAL = els.personal.dataset.key; // "Personal Knowledge", the release's value

const TEXT = {
  needSources: gettext("Mark what your message draws on: press Used on your reading set, or Personal knowledge."),
  needSentiment: gettext("Choose the sentiment of your message."),
  needRating: gettext("Rate your partner's last message first."),
  needConversation: gettext("Rate the conversation."),
  needLastTurn: gettext("Rate your partner's last message too."),
  loading: gettext("Loading your reading set…"),
};
// The texts of this room's refusals; the server's English message where the catalog has none.
const ERRORS = {
  knowledge_source_required: TEXT.needSources,
  bad_knowledge_source: gettext("Mark only parts of your reading set, or Personal knowledge."),
  sentiment_required: TEXT.needSentiment,
  bad_sentiment: gettext("Choose one of the sentiments offered."),
  turn_rating_required: TEXT.needRating,
  bad_turn_rating: gettext("Rate with one of the five ratings offered."),
  bad_rating: gettext("Rate with one of the five ratings offered."),
};

let reading = null; // the last reading_set frame
const chosen = new Set(); // knowledge_source keys marked for the next message
let toRate = null; // { seq, value }: the partner's message this member's next reply rates
let sent = null; // what the last message went out with, restored if the server refuses it

// --- the reading set ------------------------------------------------------------------------------

function useButton(key) {
  const button = h("button", { type: "button", class: "button use-button", "data-testid": "use-button", dataset: { key }, "aria-pressed": "false" },
    gettext("Used"));
  button.addEventListener("click", () => toggle(key));
  return button;
}

function showReadingSet(frame) {
  reading = frame;
  els.facts.replaceChildren(
    ...frame.facts.map((fact) =>
      h("section", { class: "reading-part fact-section", "data-testid": "fact-section", dataset: { key: fact.key } },
        h("header", { class: "reading-part-header" },
          h("h3", {}, h("span", { class: "reading-key", text: fact.key }), " ", h("span", { "data-testid": "entity", text: fact.entity })),
          useButton(fact.key)),
        h("div", { class: `reading-wiki reading-wiki-${fact.wiki_kind}`, "data-testid": "wiki" },
          ...fact.wiki.split("\n").map((line) => h("p", { text: line }))),
        fact.fun_facts.length
          ? h("ul", { class: "fun-facts", "data-testid": "fun-facts" }, ...fact.fun_facts.map((text) => h("li", { "data-testid": "fun-fact", text })))
          : null),
    ),
  );
  els.article.hidden = !frame.article;
  if (frame.article) {
    els.headline.textContent = frame.article.headline;
    els.sections.replaceChildren(
      ...frame.article.sections.map((section) =>
        h("li", { class: "reading-part article-section", "data-testid": "article-section", dataset: { key: section.key } },
          h("span", { class: "reading-key", text: section.key }),
          h("p", { class: "article-text", text: section.text }),
          useButton(section.key))),
    );
  }
  for (const key of Array.from(chosen)) if (!frame.sources.includes(key)) chosen.delete(key);
  renderChosen();
  chat.updateComposer();
}

function toggle(key) {
  if (chosen.has(key)) chosen.delete(key);
  else chosen.add(key);
  renderChosen();
}

function sourceLabel(key) {
  if (key === PERSONAL) return els.personal.textContent.trim();
  const fact = reading && reading.facts.find((f) => f.key === key);
  return fact ? `${key} (${fact.entity})` : key;
}

function renderChosen() {
  for (const button of root.querySelectorAll("[data-key]")) {
    if (button.tagName !== "BUTTON") continue;
    const on = chosen.has(button.dataset.key);
    button.setAttribute("aria-pressed", String(on));
    button.closest(".reading-part")?.classList.toggle("fact-used", on);
  }
  const keys = ordered(Array.from(chosen));
  els.chosen.textContent = keys.length ? keys.map(sourceLabel).join(gettext(", ")) : els.chosen.dataset.empty;
  els.chosen.dataset.keys = keys.join("|");
}

// The release's order of a message's knowledge_source: sorted as strings ("AS1" < "FS1" < "Personal Knowledge").
function ordered(keys) {
  return keys.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function sentimentLabel(value) {
  const option = Array.from(els.sentiment.options).find((o) => o.value === value);
  return option ? option.textContent.trim() : value;
}

function ratingLabel(value) {
  const option = els.ratingTemplate.content.querySelector(`[data-value="${CSS.escape(value)}"]`);
  return option ? option.textContent.trim() : value;
}

function marksNote(sources, sentiment) {
  if (!Array.isArray(sources)) return null;
  return format(gettext("Draws on %(sources)s · %(sentiment)s"), {
    sources: ordered(sources).map(sourceLabel).join(gettext(", ")),
    sentiment: sentimentLabel(sentiment),
  });
}

function ratedNote(value) {
  return format(gettext("You rated it: %(rating)s"), { rating: ratingLabel(value) });
}

// --- rating the partner's messages ----------------------------------------------------------------

function decorateMessage(li, { own }) {
  if (own) return;
  const widget = els.ratingTemplate.content.firstElementChild.cloneNode(true);
  widget.disabled = true;
  for (const option of widget.querySelectorAll(".turn-rating-option")) {
    option.addEventListener("click", () => pick(li, option.dataset.value));
  }
  li.append(widget);
}

function pick(li, value) {
  const seq = Number(li.dataset.seq);
  if (!toRate || toRate.seq !== seq) return;
  toRate.value = value;
  for (const option of li.querySelectorAll(".turn-rating-option")) {
    option.setAttribute("aria-pressed", String(option.dataset.value === value));
  }
  li.dataset.rating = value;
  setNotice(chat.els.composerError, "");
}

function onMessage(frame, li, { own }) {
  if (own) return;
  const widget = li.querySelector(".turn-rating");
  if (typeof frame.turn_rating === "string") {
    // Rated before (with the reply to it): the rating stays on the message, no longer open.
    if (widget) widget.remove();
    li.dataset.rating = frame.turn_rating;
    if (toRate && toRate.seq === frame.seq) toRate = null;
    return;
  }
  // The partner's newest message is the one to rate; an older one was rated with the reply.
  if (!toRate || frame.seq > toRate.seq) {
    if (toRate) closeRating(toRate.seq);
    toRate = { seq: frame.seq, value: null };
    if (widget) widget.disabled = false;
  }
}

function closeRating(seq, value = null) {
  const li = chat.bySeq.get(seq);
  if (!li) return;
  const widget = li.querySelector(".turn-rating");
  if (widget) widget.remove();
  if (value) setMeta(li, ratedNote(value));
}

function setMeta(li, text) {
  li.querySelector(".message-meta").textContent = text;
}

// --- the chat -------------------------------------------------------------------------------------

const chat = new ChatRoom({
  roleNames: { agent_1: gettext("Partner 1"), agent_2: gettext("Partner 2") },
  frames: { reading_set: showReadingSet },
  onState(s) {
    if (s.status === "rating") showLastTurn(s.turn_to_rate);
  },
  messageNote(frame) {
    if (frame.role === root.dataset.role) return marksNote(frame.knowledge_source, frame.sentiment);
    return typeof frame.turn_rating === "string" ? ratedNote(frame.turn_rating) : null;
  },
  decorateMessage,
  onMessage,
  sendBlocker: () => (reading ? null : TEXT.loading),
  prepareSend(frame) {
    if (chosen.size === 0) return { error: TEXT.needSources };
    if (!els.sentiment.value) return { error: TEXT.needSentiment };
    if (toRate && !toRate.value) return { error: TEXT.needRating };
    frame.knowledge_source = ordered(Array.from(chosen));
    frame.sentiment = els.sentiment.value;
    if (toRate) frame.turn_rating = toRate.value;
    sent = { clientId: frame.client_id, keys: Array.from(chosen), sentiment: frame.sentiment, toRate: toRate && { ...toRate } };
    return { note: marksNote(frame.knowledge_source, frame.sentiment) };
  },
  afterSend() {
    if (toRate) closeRating(toRate.seq, toRate.value);
    toRate = null;
    chosen.clear();
    els.sentiment.value = "";
    renderChosen();
  },
  ratingFrame(form) {
    const conversation = form.querySelector('input[name="conversation_rating"]:checked');
    const turn = form.querySelector('input[name="turn_rating"]:checked');
    if (!els.lastTurn.hidden && !turn) return TEXT.needLastTurn;
    if (!conversation) return TEXT.needConversation;
    const frame = { type: "rate", conversation_rating: conversation.value };
    if (!els.lastTurn.hidden) frame.turn_rating = turn.value;
    return frame;
  },
  onError(frame, status) {
    const text = ERRORS[frame.code] || null;
    if (status === "chatting" && sent && frame.client_id === sent.clientId) restoreMarks();
    if (!text) return false;
    if (status === "rating") {
      chat.rated = false;
      chat.els.ratingForm.hidden = false;
      chat.els.ratingWait.hidden = true;
      chat.els.ratingSubmit.disabled = false;
      setNotice(chat.els.ratingError, text);
      return true;
    }
    setNotice(chat.els.composerError, text);
    return true;
  },
});

function restoreMarks() {
  // The message was refused and its text given back: so are its marks and the rating it carried.
  for (const key of sent.keys) chosen.add(key);
  els.sentiment.value = sent.sentiment;
  renderChosen();
  if (sent.toRate) {
    const li = chat.bySeq.get(sent.toRate.seq);
    toRate = { seq: sent.toRate.seq, value: null };
    if (li && !li.querySelector(".turn-rating")) {
      decorateMessage(li, { own: false });
      li.querySelector(".turn-rating").disabled = false;
      setMeta(li, "");
    }
    if (li && sent.toRate.value) pick(li, sent.toRate.value);
  }
  sent = null;
}

function showLastTurn(seq) {
  els.lastTurn.hidden = !seq;
  if (!seq) return;
  const li = chat.bySeq.get(seq);
  els.lastTurnText.textContent = li ? li.querySelector(".message-text").textContent : "";
}

// --- wiring ---------------------------------------------------------------------------------------

chat.els.composer.insertBefore(els.marks, chat.els.input.nextSibling);
els.marks.hidden = false;
els.personal.addEventListener("click", () => toggle(PERSONAL));
els.sentiment.addEventListener("change", () => setNotice(chat.els.composerError, ""));

chat.start();
