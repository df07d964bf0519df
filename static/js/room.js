// The chat room screen (collect/room.html): topic choice, chat (+ the wizard's knowledge panel),
// rating. Everything is driven by the frames of docs/websocket-protocol.md; the server's `state`
// frame decides which screen shows.

import { GroundworkSocket } from "./socket.js";
import { KnowledgePanel } from "./knowledge.js";
import { h, randomId, setNotice } from "./dom.js";

const $ = (id) => document.getElementById(id);
const root = $("room");
const config = {
  role: root.dataset.role,
  wsPath: root.dataset.wsPath,
  maxChars: Number.parseInt(root.dataset.maxChars, 10) || 1000,
  doneUrl: root.dataset.doneUrl,
};
const partnerRole = config.role === "wizard" ? "apprentice" : "wizard";
const ROLE_NAME = { wizard: "Wizard", apprentice: "Apprentice" };
const STATUS_TEXT = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Connection lost — reconnecting…",
  closed: "Disconnected",
};

const els = {
  status: $("connection-status"),
  partner: $("partner-status"),
  fatal: $("fatal-error"),
  screens: Array.from(root.querySelectorAll("[data-screen]")),
  topicChooser: $("topic-chooser"),
  topicWaiting: $("topic-waiting"),
  persona: $("persona-text"),
  topicOptions: $("topic-options"),
  topicError: $("topic-error"),
  topic: $("chat-topic"),
  turnCounter: $("turn-counter"),
  messages: $("messages"),
  composer: $("composer"),
  input: $("message-input"),
  counter: $("char-counter"),
  turnHint: $("turn-hint"),
  send: $("send-button"),
  end: $("end-button"),
  composerError: $("composer-error"),
  ratingForm: $("rating-form"),
  ratingSubmit: $("rating-submit"),
  ratingError: $("rating-error"),
};

const knowledge = config.role === "wizard" ? new KnowledgePanel($("knowledge-panel")) : null;

let state = null;
let sendLocked = false; // a message of ours is on its way and the state has not caught up yet
let leaving = false;
let partnerTimer = null;
const bySeq = new Map(); // seq → <li>
const byClientId = new Map(); // our client_id → <li>

const socket = new GroundworkSocket(config.wsPath, { sync: true, onFrame, onStatus });

// --- socket callbacks -------------------------------------------------------------------------

function onStatus(status, detail) {
  els.status.textContent = STATUS_TEXT[status] || status;
  els.status.dataset.state = status;
  if (status === "closed" && !leaving) {
    const refused = detail && detail.code === 4403;
    setNotice(els.fatal, refused ? "This chat is not yours, so it cannot be opened here." : "The connection to the chat was closed. Reload the page to try again.");
  }
  updateComposer();
}

function onFrame(frame) {
  switch (frame.type) {
    case "state":
      return applyState(frame);
    case "message":
      return showMessage(frame);
    case "ack":
      return onAck(frame);
    case "knowledge":
      if (knowledge) knowledge.update(frame);
      return undefined;
    case "knowledge.reranked":
      // Only the panel it reorders: a late one for an older turn is dropped.
      if (knowledge && frame.after_seq === knowledge.afterSeq) knowledge.update(frame, { ranked: true });
      return undefined;
    case "partner":
      return showPartner(frame.connected, frame.grace_seconds);
    case "error":
      return onError(frame);
    default:
      return undefined; // pong and anything newer than this page
  }
}

// --- state → screens --------------------------------------------------------------------------

function applyState(next) {
  state = next;
  if (socket.unacked.size === 0) sendLocked = false;

  if (next.status === "complete" || next.status === "incomplete") {
    leaving = true;
    showScreen("ended");
    socket.stop();
    location.assign(next.done_url || config.doneUrl);
    return;
  }
  showScreen(next.status);

  if (next.status === "choosing_topic") renderTopicChoice(next);
  if (next.status === "chatting") {
    els.topic.textContent = next.topic || "";
    renderTurns(next);
  }
  if (next.status === "rating" && els.ratingSubmit) els.ratingSubmit.disabled = false;

  if (next.partner_connected) showPartner(true, 0, { quiet: true });
  else if (!partnerTimer && els.partner.hidden) {
    // Right after pairing the partner may still be loading the page: only say so if it lasts.
    partnerTimer = setTimeout(() => {
      partnerTimer = null;
      if (state && !state.partner_connected && isLive()) {
        setPartnerNotice("Your partner is not connected at the moment. Please wait for them.", "warn");
      }
    }, 4000);
  }
  els.end.disabled = false;
  updateComposer();
}

function showScreen(name) {
  for (const screen of els.screens) screen.hidden = screen.dataset.screen !== name;
  root.dataset.status = name;
}

function isLive() {
  return state && (state.status === "choosing_topic" || state.status === "chatting");
}

function renderTopicChoice(s) {
  const chooser = Boolean(s.persona);
  els.topicChooser.hidden = !chooser;
  els.topicWaiting.hidden = chooser;
  if (!chooser) return;
  els.persona.textContent = s.persona.text || "";
  const topics = Array.isArray(s.persona.topics) ? s.persona.topics : [];
  const current = Array.from(els.topicOptions.children, (b) => b.dataset.topic);
  if (current.join("\n") !== topics.join("\n")) {
    els.topicOptions.replaceChildren(
      ...topics.map((topic) =>
        h("button", {
          type: "button",
          class: "button topic-option",
          "data-testid": "topic-option",
          dataset: { topic },
          text: topic,
          on: { click: () => chooseTopic(topic) },
        }),
      ),
    );
  }
  for (const button of els.topicOptions.children) button.disabled = false;
}

function chooseTopic(topic) {
  setNotice(els.topicError, "");
  if (!socket.send({ type: "choose_topic", topic })) {
    setNotice(els.topicError, "Not connected — wait a moment and try again.");
    return;
  }
  for (const button of els.topicOptions.children) button.disabled = true;
}

function renderTurns(s) {
  const required = s.turns_required || 0;
  const mine = (s.turns && s.turns[config.role]) || 0;
  const theirs = (s.turns && s.turns[partnerRole]) || 0;
  els.turnCounter.textContent = `Your turns: ${mine} of ${required}`;
  els.turnCounter.title = `Your partner: ${theirs} of ${required}`;
  els.turnCounter.dataset.turns = String(mine);
  els.turnCounter.dataset.required = String(required);
}

function updateComposer() {
  const chatting = state && state.status === "chatting";
  const canSend = Boolean(chatting && state.your_turn && !sendLocked && socket.isOpen);
  els.send.disabled = !canSend;
  els.end.hidden = !(chatting && state.can_end);
  if (!chatting) {
    els.turnHint.textContent = "";
  } else if (!socket.isOpen) {
    els.turnHint.textContent = "Reconnecting…";
  } else if (sendLocked) {
    els.turnHint.textContent = "Sending…";
  } else if (state.your_turn) {
    els.turnHint.textContent = bySeq.size === 0 ? "You start the conversation" : "Your turn";
  } else {
    els.turnHint.textContent = "Waiting for your partner…";
  }
  els.turnHint.dataset.yourTurn = String(Boolean(chatting && state.your_turn));
  if (chatting && state.can_end) {
    els.turnHint.textContent += " · you may end the chat now";
  }
}

// --- messages ---------------------------------------------------------------------------------

function messageItem({ role, text, own }) {
  const author = own ? "You" : `Your partner (${ROLE_NAME[role] || role})`;
  return h(
    "li",
    { class: `message ${own ? "message-own" : "message-partner"}`, "data-testid": "message", dataset: { role } },
    h("span", { class: "message-author", text: author }),
    h("p", { class: "message-text", text }),
    h("span", { class: "message-meta" }),
  );
}

function setMeta(li, text) {
  li.querySelector(".message-meta").textContent = text;
}

function checkedNote(frame) {
  if (!("checked_sentence" in frame) || frame.role !== "wizard") return null;
  const sentence = frame.checked_sentence;
  // The server names "no sentence used" as null or as the WoW dataset's "no_passages_used" marker.
  if (!sentence || sentence === "no_passages_used") return "No sentence used";
  return `Knowledge used: “${sentence}”`;
}

function confirmMessage(li, seq, note) {
  li.dataset.seq = String(seq);
  li.dataset.state = "sent";
  bySeq.set(seq, li);
  if (note !== null && note !== undefined) setMeta(li, note);
  else if (li.dataset.note) setMeta(li, li.dataset.note);
  else setMeta(li, "");
  placeBySeq(li, seq);
}

/** Keep the list in seq order, with messages still sending at the end. */
function placeBySeq(li, seq) {
  const after = Array.from(els.messages.children).find(
    (other) => other !== li && (!other.dataset.seq || Number(other.dataset.seq) > seq),
  );
  if (after) els.messages.insertBefore(li, after);
  else els.messages.append(li);
}

function showMessage(frame) {
  if (!Number.isInteger(frame.seq) || typeof frame.text !== "string") return;
  const note = checkedNote(frame);
  const existing = bySeq.get(frame.seq);
  if (existing) {
    if (note) setMeta(existing, note);
    return;
  }
  const own = frame.role === config.role;
  let li = own && frame.client_id ? byClientId.get(frame.client_id) : undefined;
  if (!li) {
    li = messageItem({ role: frame.role, text: frame.text, own });
    if (own && frame.client_id) byClientId.set(frame.client_id, li);
  }
  confirmMessage(li, frame.seq, note);
  if (knowledge && !own) knowledge.markStale(frame.seq);
  scrollToBottom();
  updateComposer();
}

function onAck(frame) {
  const li = byClientId.get(frame.client_id);
  if (li && Number.isInteger(frame.seq) && !li.dataset.seq) confirmMessage(li, frame.seq, null);
  if (state && Number.isInteger(frame.seq) && state.last_seq >= frame.seq) sendLocked = false;
  updateComposer();
}

function scrollToBottom() {
  els.messages.scrollTop = els.messages.scrollHeight;
}

// --- sending ----------------------------------------------------------------------------------

function updateCounter() {
  const n = els.input.value.length;
  els.counter.textContent = `${n} / ${config.maxChars}`;
  els.counter.classList.toggle("near-limit", n > config.maxChars * 0.9);
}

function sendMessage() {
  if (!state || state.status !== "chatting") return;
  const text = els.input.value.trim();
  if (!state.your_turn || sendLocked) {
    setNotice(els.composerError, "Please wait for your partner's reply before sending.");
    return;
  }
  if (!text) {
    setNotice(els.composerError, "Write a message first.");
    return;
  }
  if (text.length > config.maxChars) {
    setNotice(els.composerError, `Your message is too long (at most ${config.maxChars} characters).`);
    return;
  }
  const frame = { type: "message", client_id: randomId(), text };
  let note = null;
  if (knowledge) {
    const checked = knowledge.selection();
    if (!checked) {
      setNotice(
        els.composerError,
        "Before sending, tick the Wikipedia sentence your message uses in the knowledge panel — or tick “No sentence used”.",
      );
      knowledge.flagMissing();
      return;
    }
    frame.checked = checked;
    const sentence = knowledge.selectedText();
    note = sentence ? `Knowledge used: “${sentence}”` : "No sentence used";
  }
  setNotice(els.composerError, "");
  const li = messageItem({ role: config.role, text, own: true });
  li.dataset.state = "sending";
  li.dataset.clientId = frame.client_id;
  if (note) li.dataset.note = note;
  setMeta(li, "sending…");
  byClientId.set(frame.client_id, li);
  els.messages.append(li);
  scrollToBottom();

  socket.sendMessage(frame);
  sendLocked = true;
  els.input.value = "";
  updateCounter();
  if (knowledge) knowledge.reset();
  updateComposer();
}

function onError(frame) {
  const message = frame.message || "Something went wrong.";
  if (frame.client_id && byClientId.has(frame.client_id)) {
    const li = byClientId.get(frame.client_id);
    if (li.dataset.seq) return; // a stale resend of a message that was stored after all
    // Refused: take the bubble back and give the text back so it can be fixed and resent.
    socket.forget(frame.client_id);
    byClientId.delete(frame.client_id);
    li.remove();
    if (!els.input.value.trim()) {
      els.input.value = li.querySelector(".message-text").textContent;
      updateCounter();
    }
    sendLocked = false;
  }
  if (frame.code === "not_member") {
    setNotice(els.fatal, message);
    return;
  }
  const status = state ? state.status : null;
  if (status === "choosing_topic") {
    setNotice(els.topicError, message);
    for (const button of els.topicOptions.children) button.disabled = false;
  } else if (status === "rating" && els.ratingError) {
    setNotice(els.ratingError, message);
    els.ratingSubmit.disabled = false;
  } else if (status === "chatting") {
    setNotice(els.composerError, message);
    els.end.disabled = false;
  } else {
    setNotice(els.fatal, message);
  }
  updateComposer();
}

// --- partner presence -------------------------------------------------------------------------

function setPartnerNotice(text, tone) {
  els.partner.className = `notice partner-status${tone ? ` notice-${tone}` : ""}`;
  els.partner.dataset.tone = text ? tone : "";
  setNotice(els.partner, text);
}

function showPartner(connected, graceSeconds, { quiet = false } = {}) {
  clearTimeout(partnerTimer);
  partnerTimer = null;
  els.partner.dataset.connected = String(Boolean(connected));
  if (connected) {
    if (quiet) {
      if (els.partner.dataset.tone === "warn") setPartnerNotice("", "");
      return;
    }
    if (els.partner.dataset.tone === "warn") {
      setPartnerNotice("Your partner is back.", "ok");
      partnerTimer = setTimeout(() => {
        partnerTimer = null;
        if (els.partner.dataset.tone === "ok") setPartnerNotice("", "");
      }, 5000);
    }
    return;
  }
  const wait = graceSeconds ? ` We will wait up to ${Math.round(graceSeconds)} seconds for them to come back.` : "";
  setPartnerNotice(`Your partner has disconnected.${wait}`, "warn");
}

// --- wiring -----------------------------------------------------------------------------------

els.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  sendMessage();
});
els.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    sendMessage();
  }
});
els.input.addEventListener("input", () => {
  updateCounter();
  if (els.input.value.trim()) setNotice(els.composerError, "");
});
if (knowledge) {
  // Ticking a sentence answers the "tick a sentence first" message.
  knowledge.panel.addEventListener("change", () => setNotice(els.composerError, ""));
}
els.end.addEventListener("click", () => {
  if (socket.send({ type: "end" })) els.end.disabled = true;
  else setNotice(els.composerError, "Not connected — wait a moment and try again.");
});
if (els.ratingForm) {
  els.ratingForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const picked = els.ratingForm.querySelector("input[name=rating]:checked");
    if (!picked) {
      setNotice(els.ratingError, "Please pick a number from 1 to 5.");
      return;
    }
    setNotice(els.ratingError, "");
    if (socket.send({ type: "rate", rating: Number.parseInt(picked.value, 10) })) els.ratingSubmit.disabled = true;
    else setNotice(els.ratingError, "Not connected — wait a moment and try again.");
  });
  els.ratingForm.addEventListener("change", () => setNotice(els.ratingError, ""));
}

updateCounter();
socket.start();
