// The Curiosity room screen (collect/curiosity_room.html): the user's prior-knowledge form, the
// chat with the user's aspects and likes or the assistant's fact bank, and both ratings. Driven by
// the frames of docs/websocket-protocol.md ("Curiosity rooms"); the `state` frame picks the screen.

import { GroundworkSocket } from "./socket.js";
import { h, randomId, setNotice } from "./dom.js";

const $ = (id) => document.getElementById(id);
const root = $("room");
const config = {
  role: root.dataset.role,
  wsPath: root.dataset.wsPath,
  maxChars: Number.parseInt(root.dataset.maxChars, 10) || 1000,
  doneUrl: root.dataset.doneUrl,
};
const isUser = config.role === "user";
const partnerRole = isUser ? "assistant" : "user";
const ROLE_NAME = { user: "User", assistant: "Assistant" };
const STATUS_TEXT = { connecting: "Connecting…", open: "Connected", reconnecting: "Connection lost — reconnecting…", closed: "Disconnected" };

const els = {
  status: $("connection-status"),
  partner: $("partner-status"),
  fatal: $("fatal-error"),
  screens: Array.from(root.querySelectorAll("[data-screen]")),
  prepareTopics: Array.from(root.querySelectorAll(".prepare-topic")),
  prepareSummary: $("prepare-summary"),
  knownForm: $("known-form"),
  entityOptions: $("entity-options"),
  knownError: $("known-error"),
  knownCount: $("known-count"),
  knownSubmit: $("known-submit"),
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
  aspects: $("aspects"),
  switchAspect: $("switch-aspect"),
  aspectError: $("aspect-error"),
  knownList: $("known-list"),
  knownEntities: $("known-entities"),
  summary: $("summary"),
  facts: $("facts"),
  factBank: $("fact-bank"),
  usedCount: $("used-count"),
  ratingForm: $("rating-form"),
  ratingSubmit: $("rating-submit"),
  ratingError: $("rating-error"),
  ratingWait: $("rating-wait"),
};

let state = null;
let sendLocked = false;
let leaving = false;
let rated = false;
let partnerTimer = null;
let bank = { afterSeq: null, facts: [] }; // the assistant's current fact bank
const used = new Set(); // fids the assistant marked with "Use" for the next message
const factText = new Map(); // fid → text, of every bank seen on this page
const bySeq = new Map();
const byClientId = new Map();

const socket = new GroundworkSocket(config.wsPath, { sync: true, onFrame, onStatus });

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
    case "state": return applyState(frame);
    case "message": return showMessage(frame);
    case "ack": return onAck(frame);
    case "facts": return showFacts(frame);
    case "liked": return showLike(frame.seq, frame.liked);
    case "partner": return showPartner(frame.connected, frame.grace_seconds);
    case "error": return onError(frame);
    default: return undefined;
  }
}

// --- state → screens ---------------------------------------------------------------------------

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
  for (const node of els.prepareTopics) node.textContent = next.topic || "";
  if (next.status === "preparing") renderPrepare(next);
  if (next.status === "chatting") {
    els.topic.textContent = next.topic || "";
    renderTurns(next);
    if (isUser) renderAspects(next);
    else els.summary.textContent = next.summary || "";
  }
  if (next.status === "rating") {
    els.ratingForm.hidden = rated;
    els.ratingWait.hidden = !rated;
    if (!rated) els.ratingSubmit.disabled = false;
  }
  if (next.partner_connected) showPartner(true, 0, { quiet: true });
  else if (!partnerTimer && els.partner.hidden) {
    partnerTimer = setTimeout(() => {
      partnerTimer = null;
      if (state && !state.partner_connected && ["preparing", "chatting"].includes(state.status)) {
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

function renderPrepare(s) {
  if (!isUser) {
    els.prepareSummary.textContent = s.summary || "";
    return;
  }
  const entities = Array.isArray(s.related_entities) ? s.related_entities : [];
  const current = Array.from(els.entityOptions.children, (n) => n.dataset.entity);
  if (current.join("\n") === entities.join("\n")) return;
  els.entityOptions.replaceChildren(
    ...entities.map((entity) =>
      h("label", { class: "entity-option", "data-testid": "entity-option", dataset: { entity } },
        h("input", { type: "checkbox", name: "known", value: entity }),
        h("span", { text: entity })),
    ),
  );
  if (entities.length === 0) els.entityOptions.append(h("p", { class: "muted", text: "There is nothing to mark for this topic." }));
  countKnown();
}

function countKnown() {
  const n = els.entityOptions.querySelectorAll("input:checked").length;
  els.knownCount.textContent = `${n} ticked`;
}

function renderAspects(s) {
  const aspects = Array.isArray(s.aspects) ? s.aspects : [];
  els.aspects.replaceChildren(
    ...aspects.map((aspect, i) =>
      h("li", { class: `aspect${aspect === s.current_aspect ? " aspect-current" : ""}`, "data-testid": "aspect",
        dataset: { current: String(aspect === s.current_aspect) } },
        h("span", { class: "aspect-step", text: i === 0 ? "First" : "Then" }),
        h("span", { class: "aspect-name", text: aspect }),
        aspect === s.current_aspect ? h("span", { class: "aspect-now", text: "now" }) : null),
    ),
  );
  const other = aspects.find((a) => a !== s.current_aspect);
  els.switchAspect.hidden = !(s.can_switch && other);
  if (other) {
    els.switchAspect.textContent = `I'm moving on to ${other}`;
    els.switchAspect.dataset.aspect = other;
  }
  const known = Array.isArray(s.known_entities) ? s.known_entities : [];
  els.knownList.hidden = known.length === 0;
  els.knownEntities.textContent = known.join(", ");
}

function renderTurns(s) {
  const required = s.turns_required || 0;
  const mine = (s.turns && s.turns[config.role]) || 0;
  const theirs = (s.turns && s.turns[partnerRole]) || 0;
  els.turnCounter.textContent = `Your turns: ${mine} of ${required}`;
  els.turnCounter.title = `Your partner: ${theirs} of ${required}`;
}

function bankIsCurrent() {
  return isUser || (state && bank.afterSeq !== null && bank.afterSeq >= state.last_seq);
}

function updateComposer() {
  const chatting = state && state.status === "chatting";
  const canSend = Boolean(chatting && state.your_turn && !sendLocked && socket.isOpen && bankIsCurrent());
  els.send.disabled = !canSend;
  els.end.hidden = !(chatting && state.can_end);
  let hint = "";
  if (chatting) {
    if (!socket.isOpen) hint = "Reconnecting…";
    else if (sendLocked) hint = "Sending…";
    else if (state.your_turn && !bankIsCurrent()) hint = "Loading the facts for this turn…";
    else if (state.your_turn) hint = bySeq.size === 0 ? "You start the conversation" : "Your turn";
    else hint = "Waiting for your partner…";
    if (state.can_end) hint += " · you may end the chat now";
  }
  els.turnHint.textContent = hint;
  els.turnHint.dataset.yourTurn = String(Boolean(chatting && state.your_turn));
}

// --- the assistant's fact bank --------------------------------------------------------------------

function showFacts(frame) {
  if (isUser || !Array.isArray(frame.facts)) return;
  const sameTurn = bank.afterSeq === frame.after_seq;
  bank = { afterSeq: frame.after_seq, facts: frame.facts };
  const shown = new Set(frame.facts.map((f) => f.fid));
  for (const fid of Array.from(used)) if (!sameTurn || !shown.has(fid)) used.delete(fid);
  for (const fact of frame.facts) factText.set(fact.fid, fact.text);
  els.factBank.dataset.afterSeq = String(frame.after_seq);
  els.facts.replaceChildren(
    ...frame.facts.map((fact) => {
      const button = h("button", { type: "button", class: "button use-button", "data-testid": "use-button", "aria-pressed": "false" }, "Use");
      const item = h("li", { class: "fact", "data-testid": "fact", dataset: { fid: String(fact.fid) } },
        h("p", { class: "fact-text", text: fact.text }), button);
      button.addEventListener("click", () => toggleUse(fact.fid, item));
      setUsed(item, used.has(fact.fid));
      return item;
    }),
  );
  if (frame.facts.length === 0) els.facts.append(h("li", { class: "muted", text: "No facts for this turn." }));
  updateUsedCount();
  updateComposer();
}

function setUsed(item, on) {
  item.classList.toggle("fact-used", on);
  const button = item.querySelector(".use-button");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Used ✓" : "Use";
}

function toggleUse(fid, item) {
  if (used.has(fid)) used.delete(fid);
  else used.add(fid);
  setUsed(item, used.has(fid));
  updateUsedCount();
}

function updateUsedCount() {
  if (els.usedCount) els.usedCount.textContent = String(used.size);
}

// --- messages ---------------------------------------------------------------------------------

function messageItem({ role, text, own }) {
  const author = own ? "You" : `Your partner (${ROLE_NAME[role] || role})`;
  const li = h("li", { class: `message ${own ? "message-own" : "message-partner"}`, "data-testid": "message", dataset: { role } },
    h("span", { class: "message-author", text: author }),
    h("p", { class: "message-text", text }),
    h("span", { class: "message-meta" }));
  if (role === "assistant") {
    if (isUser) {
      const like = h("button", { type: "button", class: "like-button", "data-testid": "like-button", "aria-pressed": "false", title: "Like this message" }, "♡ Like");
      like.addEventListener("click", () => sendLike(li));
      li.append(like);
    } else {
      li.append(h("span", { class: "liked-badge", "data-testid": "liked-badge", hidden: true, text: "♥ Liked by the user" }));
    }
  }
  return li;
}

function setMeta(li, text) {
  li.querySelector(".message-meta").textContent = text || "";
}

function usedNote(fids) {
  if (!Array.isArray(fids)) return null;
  if (fids.length === 0) return "No fact used";
  return fids.length === 1 ? "1 fact used" : `${fids.length} facts used`;
}

function confirmMessage(li, seq, note) {
  li.dataset.seq = String(seq);
  li.dataset.state = "sent";
  bySeq.set(seq, li);
  setMeta(li, note !== null && note !== undefined ? note : li.dataset.note || "");
  const after = Array.from(els.messages.children).find((o) => o !== li && (!o.dataset.seq || Number(o.dataset.seq) > seq));
  if (after) els.messages.insertBefore(li, after);
  else els.messages.append(li);
}

function showMessage(frame) {
  if (!Number.isInteger(frame.seq) || typeof frame.text !== "string") return;
  const note = frame.role === "assistant" && !isUser ? usedNote(frame.used_facts) : null;
  let li = bySeq.get(frame.seq);
  if (!li) {
    const own = frame.role === config.role;
    li = own && frame.client_id ? byClientId.get(frame.client_id) : undefined;
    if (!li) {
      li = messageItem({ role: frame.role, text: frame.text, own });
      if (own && frame.client_id) byClientId.set(frame.client_id, li);
    }
    confirmMessage(li, frame.seq, note);
  }
  if (typeof frame.liked === "boolean") showLike(frame.seq, frame.liked);
  els.messages.scrollTop = els.messages.scrollHeight;
  updateComposer();
}

function showLike(seq, liked) {
  const li = bySeq.get(seq);
  if (!li) return;
  li.dataset.liked = String(Boolean(liked));
  const like = li.querySelector(".like-button");
  if (like) {
    like.disabled = false;
    like.setAttribute("aria-pressed", String(Boolean(liked)));
    like.textContent = liked ? "♥ Liked" : "♡ Like";
  }
  const badge = li.querySelector(".liked-badge");
  if (badge) badge.hidden = !liked;
}

function sendLike(li) {
  const seq = Number(li.dataset.seq);
  if (!Number.isInteger(seq)) return;
  const liked = li.dataset.liked !== "true";
  if (socket.send({ type: "like", seq, liked })) li.querySelector(".like-button").disabled = true;
  else setNotice(els.composerError, "Not connected — wait a moment and try again.");
}

function onAck(frame) {
  const li = byClientId.get(frame.client_id);
  if (li && Number.isInteger(frame.seq) && !li.dataset.seq) confirmMessage(li, frame.seq, null);
  if (state && Number.isInteger(frame.seq) && state.last_seq >= frame.seq) sendLocked = false;
  updateComposer();
}

function updateCounter() {
  const n = els.input.value.length;
  els.counter.textContent = `${n} / ${config.maxChars}`;
  els.counter.classList.toggle("near-limit", n > config.maxChars * 0.9);
}

function sendMessage() {
  if (!state || state.status !== "chatting") return;
  const text = els.input.value.trim();
  if (!state.your_turn || sendLocked) return setNotice(els.composerError, "Please wait for your partner's reply before sending.");
  if (!text) return setNotice(els.composerError, "Write a message first.");
  if (text.length > config.maxChars) return setNotice(els.composerError, `Your message is too long (at most ${config.maxChars} characters).`);
  const frame = { type: "message", client_id: randomId(), text };
  let note = null;
  if (!isUser) {
    frame.used_facts = Array.from(used);
    note = usedNote(frame.used_facts);
  }
  setNotice(els.composerError, "");
  const li = messageItem({ role: config.role, text, own: true });
  li.dataset.state = "sending";
  if (note) li.dataset.note = note;
  setMeta(li, "sending…");
  byClientId.set(frame.client_id, li);
  els.messages.append(li);
  els.messages.scrollTop = els.messages.scrollHeight;
  socket.sendMessage(frame);
  sendLocked = true;
  els.input.value = "";
  updateCounter();
  used.clear();
  for (const item of els.facts ? els.facts.querySelectorAll(".fact") : []) setUsed(item, false);
  updateUsedCount();
  updateComposer();
}

function onError(frame) {
  const message = frame.message || "Something went wrong.";
  if (frame.client_id && byClientId.has(frame.client_id)) {
    const li = byClientId.get(frame.client_id);
    if (li.dataset.seq) return;
    socket.forget(frame.client_id);
    byClientId.delete(frame.client_id);
    li.remove();
    if (!els.input.value.trim()) {
      els.input.value = li.querySelector(".message-text").textContent;
      updateCounter();
    }
    sendLocked = false;
  }
  for (const like of els.messages.querySelectorAll(".like-button:disabled")) like.disabled = false;
  if (frame.code === "not_member") return setNotice(els.fatal, message);
  const status = state ? state.status : null;
  if (status === "preparing" && els.knownError) {
    setNotice(els.knownError, message);
    els.knownSubmit.disabled = false;
  } else if (status === "rating") {
    rated = false;
    els.ratingForm.hidden = false;
    els.ratingWait.hidden = true;
    setNotice(els.ratingError, message);
    els.ratingSubmit.disabled = false;
  } else if (status === "chatting" && ["bad_aspect", "already_switched"].includes(frame.code) && els.aspectError) {
    setNotice(els.aspectError, message);
    els.switchAspect.disabled = false;
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
  if (connected) {
    if (els.partner.dataset.tone === "warn") setPartnerNotice(quiet ? "" : "Your partner is back.", quiet ? "" : "ok");
    return;
  }
  const wait = graceSeconds ? ` We will wait up to ${Math.round(graceSeconds)} seconds for them to come back.` : "";
  setPartnerNotice(`Your partner has disconnected.${wait}`, "warn");
}

// --- wiring -----------------------------------------------------------------------------------

if (els.knownForm) {
  els.knownForm.addEventListener("change", countKnown);
  els.knownForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const entities = Array.from(els.entityOptions.querySelectorAll("input:checked"), (i) => i.value);
    setNotice(els.knownError, "");
    if (socket.send({ type: "mark_known", entities })) els.knownSubmit.disabled = true;
    else setNotice(els.knownError, "Not connected — wait a moment and try again.");
  });
}
if (els.switchAspect) {
  els.switchAspect.addEventListener("click", () => {
    setNotice(els.aspectError, "");
    if (socket.send({ type: "switch_aspect", aspect: els.switchAspect.dataset.aspect })) els.switchAspect.disabled = true;
  });
}
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
if (!isUser) {
  // The assistant writes in their own words: no pasting or dropping text into the message box.
  for (const kind of ["paste", "drop"]) {
    els.input.addEventListener(kind, (event) => {
      event.preventDefault();
      setNotice(els.composerError, "Pasting is turned off: please write the message in your own words.");
    });
  }
}
els.end.addEventListener("click", () => {
  if (socket.send({ type: "end" })) els.end.disabled = true;
  else setNotice(els.composerError, "Not connected — wait a moment and try again.");
});
els.ratingForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const pick = (name) => els.ratingForm.querySelector(`input[name=${name}]:checked`);
  const dialog = pick("dialog_rating");
  const partner = pick("partner_rating");
  if (!dialog || !partner) return setNotice(els.ratingError, "Please answer both questions with a number from 1 to 5.");
  setNotice(els.ratingError, "");
  const frame = { type: "rate", dialog_rating: Number(dialog.value), partner_rating: Number(partner.value) };
  if (!socket.send(frame)) return setNotice(els.ratingError, "Not connected — wait a moment and try again.");
  rated = true;
  els.ratingSubmit.disabled = true;
  els.ratingForm.hidden = true;
  els.ratingWait.hidden = false;
  return undefined;
});
els.ratingForm.addEventListener("change", () => setNotice(els.ratingError, ""));

updateCounter();
socket.start();
