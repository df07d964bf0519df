// The Curiosity room screen (curiosity/room.html, on chat_base.html): the user's
// prior-knowledge form, the user's aspects and likes or the assistant's fact bank beside the chat,
// and both ratings. The socket, transcript, composer and screens are chat.js's.

import { doubledWait } from "../js/backoff.js";
import { ChatRoom, pickedRating } from "../js/chat.js";
import { h, setNotice } from "../js/dom.js";
import { errorText } from "../js/errors.js";
import { factsUsed, format, formatNumber, gettext, ngettext } from "../js/i18n.js";

const $ = (id) => document.getElementById(id);
const root = $("room");
const isUser = root.dataset.role === "user";
// Facts this late are asked for again; each further ask waits twice as long, up to FACTS_OVERDUE_MAX_MS.
const FACTS_OVERDUE_MS = 2500;
const FACTS_OVERDUE_MAX_MS = 30000;

const els = {
  prepareTopics: Array.from(root.querySelectorAll(".prepare-topic")),
  prepareSummary: $("prepare-summary"),
  knownForm: $("known-form"),
  entityOptions: $("entity-options"),
  knownError: $("known-error"),
  knownCount: $("known-count"),
  knownSubmit: $("known-submit"),
  aspects: $("aspects"),
  switchAspect: $("switch-aspect"),
  aspectError: $("aspect-error"),
  knownList: $("known-list"),
  knownEntities: $("known-entities"),
  summary: $("summary"),
  facts: $("facts"),
  factBank: $("fact-bank"),
  usedCount: $("used-count"),
};

let bank = { afterSeq: null, facts: [] }; // the assistant's current fact bank
const used = new Set(); // fids the assistant marked with "Use" for the next message

// --- preparing ----------------------------------------------------------------------------------

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
  if (entities.length === 0) els.entityOptions.append(h("p", { class: "muted", text: gettext("There is nothing to mark for this topic.") }));
  countKnown();
}

function countKnown() {
  const n = els.entityOptions.querySelectorAll("input:checked").length;
  els.knownCount.textContent = format(ngettext("%(count)s ticked", "%(count)s ticked", n), { count: formatNumber(n) });
}

// --- the user's aspects ---------------------------------------------------------------------------

function renderAspects(s) {
  const aspects = Array.isArray(s.aspects) ? s.aspects : [];
  els.aspects.replaceChildren(
    ...aspects.map((aspect, i) =>
      h("li", { class: `aspect${aspect === s.current_aspect ? " aspect-current" : ""}`, "data-testid": "aspect",
        dataset: { current: String(aspect === s.current_aspect) } },
        h("span", { class: "aspect-step", text: i === 0 ? gettext("First") : gettext("Then") }),
        h("span", { class: "aspect-name", text: aspect }),
        aspect === s.current_aspect ? h("span", { class: "aspect-now", text: gettext("now") }) : null),
    ),
  );
  const other = aspects.find((a) => a !== s.current_aspect);
  els.switchAspect.hidden = !(s.can_switch && other);
  if (other) {
    els.switchAspect.textContent = format(gettext("I'm moving on to %(aspect)s"), { aspect: other });
    els.switchAspect.dataset.aspect = other;
  }
  const known = Array.isArray(s.known_entities) ? s.known_entities : [];
  els.knownList.hidden = known.length === 0;
  els.knownEntities.textContent = known.join(gettext(", "));
}

// --- the assistant's fact bank --------------------------------------------------------------------

function bankIsCurrent() {
  return isUser || (chat.state && bank.afterSeq !== null && bank.afterSeq >= chat.state.last_seq);
}

function showFacts(frame) {
  if (isUser || !Array.isArray(frame.facts)) return;
  const sameTurn = bank.afterSeq === frame.after_seq;
  bank = { afterSeq: frame.after_seq, facts: frame.facts };
  const shown = new Set(frame.facts.map((f) => f.fid));
  for (const fid of Array.from(used)) if (!sameTurn || !shown.has(fid)) used.delete(fid);
  els.factBank.dataset.afterSeq = String(frame.after_seq);
  els.facts.replaceChildren(
    ...frame.facts.map((fact) => {
      const button = h("button", { type: "button", class: "button use-button", "data-testid": "use-button", "aria-pressed": "false" }, gettext("Use"));
      const item = h("li", { class: "fact", "data-testid": "fact", dataset: { fid: String(fact.fid) } },
        h("div", { class: "fact-body" },
          factSource(fact),
          // What a fact pointing back ("It is…", "Further south, …") refers to: shown, never part of the fact.
          fact.context ? h("p", { class: "fact-context", "data-testid": "fact-context", text: fact.context }) : null,
          h("p", { class: "fact-text", text: fact.text })),
        button);
      button.addEventListener("click", () => toggleUse(fact.fid, item));
      setUsed(item, used.has(fact.fid));
      return item;
    }),
  );
  if (frame.facts.length === 0) els.facts.append(h("li", { class: "muted", text: gettext("No facts for this turn.") }));
  updateUsedCount();
  chat.updateComposer();
}

// The article and section a fact comes from (the lead has no section).
function factSource(fact) {
  if (!fact.article && !fact.section) return null;
  return h("p", { class: "fact-source", "data-testid": "fact-source" },
    fact.article ? h("span", { class: "fact-article", text: fact.article }) : null,
    fact.section ? h("span", { class: "fact-section", text: fact.section }) : null);
}

function setUsed(item, on) {
  item.classList.toggle("fact-used", on);
  const button = item.querySelector(".use-button");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? gettext("Used ✓") : gettext("Use");
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

function usedNote(fids) {
  if (!Array.isArray(fids)) return null;
  return factsUsed(fids.length);
}

// --- likes --------------------------------------------------------------------------------------

function decorateMessage(li, { role }) {
  if (role !== "assistant") return;
  if (isUser) {
    const like = h("button", { type: "button", class: "like-button", "data-testid": "like-button", "aria-pressed": "false", title: gettext("Like this message") }, gettext("♡ Like"));
    like.addEventListener("click", () => sendLike(li));
    li.append(like);
  } else {
    li.append(h("span", { class: "liked-badge", "data-testid": "liked-badge", hidden: true, text: gettext("♥ Liked by the user") }));
  }
}

function showLike(seq, liked) {
  const li = chat.bySeq.get(seq);
  if (!li) return;
  li.dataset.liked = String(Boolean(liked));
  const like = li.querySelector(".like-button");
  if (like) {
    like.disabled = false;
    like.setAttribute("aria-pressed", String(Boolean(liked)));
    like.textContent = liked ? gettext("♥ Liked") : gettext("♡ Like");
  }
  const badge = li.querySelector(".liked-badge");
  if (badge) badge.hidden = !liked;
}

function sendLike(li) {
  const seq = Number(li.dataset.seq);
  if (!Number.isInteger(seq)) return;
  const liked = li.dataset.liked !== "true";
  // Resent until acknowledged; the `liked` frame that follows enables the button again.
  chat.sendAction({ type: "like", seq, liked });
  li.querySelector(".like-button").disabled = true;
}

// --- the chat -----------------------------------------------------------------------------------

const chat = new ChatRoom({
  roleNames: { user: gettext("User"), assistant: gettext("Assistant") },
  liveStatuses: ["preparing", "chatting"],
  frames: {
    facts: showFacts,
    liked: (frame) => showLike(frame.seq, frame.liked),
  },
  onState(s) {
    for (const node of els.prepareTopics) node.textContent = s.topic || "";
    if (s.status === "preparing") renderPrepare(s);
    if (s.status === "chatting") {
      if (isUser) renderAspects(s);
      else els.summary.textContent = s.summary || "";
    }
  },
  messageNote: (frame) => (frame.role === "assistant" && !isUser ? usedNote(frame.used_facts) : null),
  decorateMessage,
  onMessage(frame) {
    if (typeof frame.liked === "boolean") showLike(frame.seq, frame.liked);
  },
  sendBlocker: () => (bankIsCurrent() ? null : gettext("Loading the facts for this turn…")),
  prepareSend(frame) {
    if (isUser) return {};
    frame.used_facts = Array.from(used);
    return { note: usedNote(frame.used_facts) };
  },
  afterSend() {
    used.clear();
    for (const item of els.facts ? els.facts.querySelectorAll(".fact") : []) setUsed(item, false);
    updateUsedCount();
  },
  ratingFrame(form) {
    const dialog = pickedRating(form, "dialog_rating");
    const partner = pickedRating(form, "partner_rating");
    if (dialog === null || partner === null) return gettext("Please answer both questions with a number from 1 to 5.");
    return { type: "rate", dialog_rating: dialog, partner_rating: partner };
  },
  onError(frame, status) {
    const message = errorText(frame);
    for (const like of chat.els.messages.querySelectorAll(".like-button:disabled")) like.disabled = false;
    if (status === "preparing" && els.knownError) {
      setNotice(els.knownError, message);
      els.knownSubmit.disabled = false;
      return true;
    }
    if (status === "chatting" && ["bad_aspect", "already_switched"].includes(frame.code) && els.aspectError) {
      setNotice(els.aspectError, message);
      els.switchAspect.disabled = false;
      return true;
    }
    return false;
  },
});

// --- wiring -------------------------------------------------------------------------------------

if (els.knownForm) {
  els.knownForm.addEventListener("change", countKnown);
  els.knownForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const entities = Array.from(els.entityOptions.querySelectorAll("input:checked"), (i) => i.value);
    setNotice(els.knownError, "");
    chat.sendAction({ type: "mark_known", entities });
    els.knownSubmit.disabled = true;
  });
}
if (els.switchAspect) {
  els.switchAspect.addEventListener("click", () => {
    setNotice(els.aspectError, "");
    chat.sendAction({ type: "switch_aspect", aspect: els.switchAspect.dataset.aspect });
    els.switchAspect.disabled = true;
  });
}
if (!isUser) {
  // The assistant writes in their own words: no pasting or dropping text into the message box.
  for (const kind of ["paste", "drop"]) {
    chat.els.input.addEventListener(kind, (event) => {
      event.preventDefault();
      setNotice(chat.els.composerError, gettext("Pasting is turned off: please write the message in your own words."));
    });
  }
}

if (!isUser) {
  // The facts for this turn are late: their retrieval or their delivery may have been lost with a
  // server process or connection. A sync has the server redo or resend them.
  let behindSince = null;
  let asks = 0;
  setInterval(() => {
    if (!chat.isChatting || bankIsCurrent()) {
      behindSince = null;
      asks = 0;
      return;
    }
    behindSince ??= performance.now();
    if (performance.now() - behindSince >= doubledWait(FACTS_OVERDUE_MS, asks, FACTS_OVERDUE_MAX_MS)) {
      behindSince = performance.now();
      asks += 1;
      chat.socket.resync();
    }
  }, 500);
}

chat.start();
