// DuConv room (collect/tasktypes/duconv/templates/duconv/room.html), built on chat.js. The agent sees the goal path
// START → A → B and the knowledge triples grouped by entity (from the `goal` frame) and ticks the
// triples each message uses (sent as `knowledge_used`); the user only chats and rates at the end.
// A triple whose value the conversation has mentioned is highlighted (`fact-mentioned`), matched
// as the server matches topic mentions, so that Chinese (no spaces between words, full-width
// punctuation, names with any middle dot) matches as well as English.

import { ChatRoom, pickedRating } from "../js/chat.js";
import { h } from "../js/dom.js";
import { factsUsed, gettext } from "../js/i18n.js";

const TEXT = {
  blockerA: gettext("topic A has not come up yet"),
  blockerB: gettext("topic B has not come up yet"),
  blockerUser: gettext("your partner ends the chat once their goal is reached"),
};

const $ = (id) => document.getElementById(id);
const root = $("room");
const isAgent = root.dataset.role === "agent";
// The marks for the next message survive a reload, like the draft (chat.js; this tab only).
const marksKey = `groundwork:duconv-marks:${root.dataset.roomId}:${root.dataset.role}`;

const els = {
  path: $("goal-path"),
  relations: $("goal-relations"),
  entities: $("entities"),
  usedCount: $("used-count"),
};

const used = new Set(restoreMarks()); // triple ids ticked for the next message
let mentioned = { a: false, b: false };
const said = new Map(); // seq → the message's text, squeezed

// retrieval/graph/services.py squeeze(): NFKC, lower case, no whitespace or punctuation.
export function squeeze(text) {
  return String(text).normalize("NFKC").toLowerCase().replace(/[\s\p{P}]/gu, "");
}

function restoreMarks() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(marksKey) || "[]");
    return Array.isArray(saved) ? saved.filter(Number.isInteger) : [];
  } catch {
    return []; // storage refused or unreadable: nothing kept
  }
}

function saveMarks() {
  try {
    if (used.size) sessionStorage.setItem(marksKey, JSON.stringify(Array.from(used)));
    else sessionStorage.removeItem(marksKey);
  } catch {
    // storage refused (private mode, quota): the marks just do not survive a reload
  }
}

function showGoal(frame) {
  if (!isAgent) return;
  const [, a, b] = frame.path;
  els.path.replaceChildren(
    h("li", { class: "goal-step", text: gettext("START") }),
    h("li", { class: "goal-step", "data-testid": "topic-a", dataset: { topic: "a" }, text: `A: ${a}` }),
    h("li", { class: "goal-step", "data-testid": "topic-b", dataset: { topic: "b" }, text: `B: ${b}` }),
  );
  els.relations.replaceChildren(...frame.relations.map((t) => h("li", { text: t.join(" — ") })));
  els.entities.replaceChildren(
    ...frame.entities.map((group) =>
      h("section", { class: "entity-group", "data-testid": "entity-group", dataset: { entity: group.entity } },
        h("h3", { text: group.entity }),
        h("ol", { class: "facts" },
          ...group.triples.map((t) => {
            const button = h("button", { type: "button", class: "button use-button", "data-testid": "use-button", "aria-pressed": "false" }, gettext("Use"));
            const item = h("li", { class: "fact triple", "data-testid": "triple", dataset: { id: String(t.id), value: t.value } },
              h("p", { class: "fact-text" }, h("strong", { text: t.property }), ` ${t.value}`), button);
            button.addEventListener("click", () => toggle(t.id, item));
            mark(item, used.has(t.id));
            return item;
          }))),
    ),
  );
  // Marks kept from before a reload name triples of this goal only; others are dropped.
  const shown = new Set(frame.entities.flatMap((group) => group.triples.map((t) => t.id)));
  for (const id of Array.from(used)) if (!shown.has(id)) used.delete(id);
  saveMarks();
  els.usedCount.textContent = String(used.size);
  showMentioned();
  showMentionedTriples();
}

function showMentionedTriples() {
  if (!isAgent || !els.entities) return;
  const texts = Array.from(said.values());
  for (const item of els.entities.querySelectorAll(".triple")) {
    const value = squeeze(item.dataset.value || "");
    const hit = value !== "" && texts.some((text) => text.includes(value));
    item.classList.toggle("fact-mentioned", hit);
    item.dataset.mentioned = String(hit);
  }
}

function mark(item, on) {
  item.classList.toggle("fact-used", on);
  const button = item.querySelector(".use-button");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? gettext("Used ✓") : gettext("Use");
}

function toggle(id, item) {
  if (used.has(id)) used.delete(id);
  else used.add(id);
  mark(item, used.has(id));
  saveMarks();
  els.usedCount.textContent = String(used.size);
}

function showMentioned() {
  if (!isAgent || !els.path) return;
  for (const step of els.path.querySelectorAll("[data-topic]")) {
    step.classList.toggle("goal-reached", Boolean(mentioned[step.dataset.topic]));
  }
}

const chat = new ChatRoom({
  roleNames: { agent: gettext("Agent"), user: gettext("User") },
  frames: { goal: showGoal },
  onState(state) {
    if (state.mentioned) {
      mentioned = state.mentioned;
      showMentioned();
    }
  },
  onMessage(frame) {
    if (!isAgent || typeof frame.text !== "string" || frame.seq == null) return;
    said.set(frame.seq, squeeze(frame.text));
    showMentionedTriples();
  },
  messageNote(frame) {
    if (!isAgent || !Array.isArray(frame.knowledge_used)) return null;
    const n = frame.knowledge_used.length;
    return factsUsed(n);
  },
  prepareSend(frame) {
    if (!isAgent) return {};
    frame.knowledge_used = Array.from(used).sort((x, y) => x - y);
    const n = frame.knowledge_used.length;
    return { note: factsUsed(n) };
  },
  endBlocker(state) {
    if (!isAgent) return TEXT.blockerUser;
    if (state.mentioned && !state.mentioned.a) return TEXT.blockerA;
    if (state.mentioned && !state.mentioned.b) return TEXT.blockerB;
    return null;
  },
  afterSend() {
    used.clear();
    saveMarks();
    if (els.entities) for (const item of els.entities.querySelectorAll(".triple")) mark(item, false);
    if (els.usedCount) els.usedCount.textContent = "0";
  },
  ratingFrame(form) {
    const rating = pickedRating(form, "rating");
    return rating === null ? gettext("Please choose a number from 1 to 5.") : { type: "rate", rating };
  },
});

chat.start();
