// The wizard's knowledge panel: the passages of the latest `knowledge` frame grouped by article,
// each sentence a radio item, plus "No sentence used". Exactly one can be checked (one radio group).

import { doubledWait } from "../js/backoff.js";
import { h } from "../js/dom.js";
import { gettext } from "../js/i18n.js";

const SOURCE_ORDER = { chosen: 0, partner: 1, self: 2 };
const SOURCE_LABEL = { chosen: gettext("Topic"), partner: gettext("Partner's message"), self: gettext("Your last message") };
const GROUP_NAME = "checked-sentence";
const STALE_GIVE_UP_MS = 10000;
// A panel this late is asked for again (opts.onOverdue: the page sends a `sync`), each further ask
// after twice the wait of the one before, until it comes or the panel gives up waiting: a server
// that is late because it is busy is not sent more work.
const OVERDUE_MS = 2500;

export class KnowledgePanel {
  /** @param {HTMLElement} panel  the <aside> from room.html (holds #no-sentence and #knowledge-articles)
   *  @param {string} [storageKey]  sessionStorage key keeping the ticked sentence across a reload */
  constructor(panel, storageKey = null, { onOverdue = () => {} } = {}) {
    this.storageKey = storageKey;
    this.onOverdue = onOverdue;
    this.overdueTimer = null;
    this.panel = panel;
    this.articles = panel.querySelector("#knowledge-articles");
    this.noSentence = panel.querySelector("#no-sentence");
    this.updating = panel.querySelector("#knowledge-updating");
    this.afterSeq = null;
    this.waitingFor = null; // seq of a partner message whose knowledge has not arrived yet
    this.staleTimer = null;
    this.items = []; // {source, passage, sentence, title, text, input}
    panel.addEventListener("change", () => {
      this.panel.classList.remove("knowledge-missing");
      this._remember();
    });
  }

  /** Keep the tick (with the turn it belongs to) for a reload of this page. */
  _remember() {
    if (!this.storageKey) return;
    const item = this._selectedItem();
    const value = this.noSentence.checked ? "none" : item ? item.input.value : null;
    try {
      if (value === null) sessionStorage.removeItem(this.storageKey);
      else sessionStorage.setItem(this.storageKey, JSON.stringify({ afterSeq: this.afterSeq, value }));
    } catch {
      // storage refused (private mode, quota): the tick just does not survive a reload
    }
  }

  /** The tick kept for this turn's panel before a reload, if any. */
  _remembered() {
    if (!this.storageKey) return null;
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.storageKey) || "null");
      return saved && saved.afterSeq === this.afterSeq ? saved.value : null;
    } catch {
      return null;
    }
  }

  /** The message went out: the kept tick is spent. */
  forget() {
    this.reset();
    if (!this.storageKey) return;
    try {
      sessionStorage.removeItem(this.storageKey);
    } catch {
      // nothing kept
    }
  }

  /** The partner just spoke (message `seq`): until its knowledge arrives, what is shown belongs
   *  to the previous turn, and an index checked now could name another sentence on the server.
   *  Sentences are disabled meanwhile ("No sentence used" stays available); if no knowledge comes
   *  (retrieval failed), they are enabled again after a while. */
  markStale(seq) {
    if (this.afterSeq !== null && this.afterSeq >= seq) return;
    this.waitingFor = seq;
    this._setStale(true);
    clearTimeout(this.staleTimer);
    this.staleTimer = setTimeout(() => this._setStale(false), STALE_GIVE_UP_MS);
    this._askWhenOverdue(0);
  }

  /** @param {number} asks  how often this turn's panel was asked for already */
  _askWhenOverdue(asks) {
    clearTimeout(this.overdueTimer);
    this.overdueTimer = setTimeout(() => {
      if (this.waitingFor === null) return;
      this.onOverdue();
      this._askWhenOverdue(asks + 1);
    }, doubledWait(OVERDUE_MS, asks, STALE_GIVE_UP_MS));
  }

  _setStale(stale) {
    if (!stale) {
      this.waitingFor = null;
      clearTimeout(this.staleTimer);
      clearTimeout(this.overdueTimer);
    }
    this.panel.classList.toggle("knowledge-stale", stale);
    this.updating.hidden = !stale;
    for (const item of this.items) {
      if (stale) item.input.checked = false;
      item.input.disabled = stale;
    }
  }

  /** Render a `knowledge` frame. A new turn's knowledge clears the selection; a re-ranked frame for
   *  the same turn keeps it when the same sentence is still there. */
  update(frame, { ranked = false } = {}) {
    const passages = Array.isArray(frame.passages) ? frame.passages : [];
    const sameTurn = this.afterSeq !== null && frame.after_seq === this.afterSeq;
    const previous = sameTurn ? this._selectedItem() : null;
    const keepNone = sameTurn && this.noSentence.checked;
    // Only articles the wizard opened or closed by hand keep their state: a reranked panel opens
    // its own first article, or the best passage could arrive folded away.
    const wasOpen = new Map(
      Array.from(this.articles.querySelectorAll("details[data-toggled]"), (d) => [d.dataset.title, d.open]),
    );

    this.afterSeq = frame.after_seq ?? null;
    this.panel.dataset.afterSeq = this.afterSeq === null ? "" : String(this.afterSeq);
    this.panel.dataset.ranked = ranked ? "true" : "false";
    this.items = [];
    this.articles.replaceChildren();
    this.reset();

    const groups = groupByTitle(passages, ranked);
    if (groups.length === 0) {
      this.articles.append(h("p", { class: "muted", text: gettext("No Wikipedia passages for this turn.") }));
    }
    let openedFirstOther = false;
    for (const group of groups) {
      const isTopic = group.sources.has("chosen");
      let open = isTopic;
      if (!isTopic && !openedFirstOther) {
        open = true;
        openedFirstOther = true;
      }
      if (wasOpen.has(group.title)) open = wasOpen.get(group.title);
      this.articles.append(this._renderGroup(group, open));
    }

    const stillStale = this.waitingFor !== null && (this.afterSeq === null || this.afterSeq < this.waitingFor);
    this._setStale(stillStale);

    if (keepNone) this.noSentence.checked = true;
    else if (previous) {
      const same = this.items.find((it) => it.title === previous.title && it.text === previous.text);
      if (same) same.input.checked = true;
    }
    if (!stillStale && !this.noSentence.checked && !this._selectedItem()) {
      // A reload of this turn's panel: tick again what was ticked (the indexes are the server's,
      // the same in the TF-IDF and the reranked order).
      const value = this._remembered();
      if (value === "none") this.noSentence.checked = true;
      else if (value) {
        const same = this.items.find((it) => it.input.value === value);
        if (same) same.input.checked = true;
      }
    }
  }

  /** What the wizard checked, as the `checked` field of a message frame; null when nothing is. */
  selection() {
    if (this.noSentence.checked) return { no_passages_used: true };
    const item = this._selectedItem();
    if (!item) return null;
    const checked = { source: item.source, passage: item.passage, sentence: item.sentence };
    // Retrieved passages change every turn: tell the server which panel the sentence came from.
    if (item.source !== "chosen") checked.knowledge_seq = this.afterSeq;
    return checked;
  }

  /** The checked sentence's text (null for none / "No sentence used"). */
  selectedText() {
    const item = this._selectedItem();
    return item ? item.text : null;
  }

  reset() {
    this.noSentence.checked = false;
    for (const item of this.items) item.input.checked = false;
    this.panel.classList.remove("knowledge-missing");
  }

  /** Draw attention to the panel when the wizard tried to send without checking anything. */
  flagMissing() {
    this.panel.classList.add("knowledge-missing");
    this.noSentence.focus({ preventScroll: true });
    this.panel.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  _selectedItem() {
    return this.items.find((it) => it.input.checked) || null;
  }

  _renderGroup(group, open) {
    const tags = Array.from(group.sources)
      .sort((a, b) => (SOURCE_ORDER[a] ?? 9) - (SOURCE_ORDER[b] ?? 9))
      .map((s) => h("span", { class: `source-tag source-${s}`, text: SOURCE_LABEL[s] || s }));
    const list = h("ul", { class: "sentences" });
    for (const entry of group.entries) {
      const input = h("input", {
        type: "radio",
        name: GROUP_NAME,
        value: `${entry.source}:${entry.passage}:${entry.sentence}`,
      });
      const item = { ...entry, title: group.title, input };
      this.items.push(item);
      list.append(
        h(
          "li",
          {},
          h(
            "label",
            {
              class: "knowledge-sentence",
              "data-testid": "knowledge-sentence",
              dataset: { source: entry.source, passage: entry.passage, sentence: entry.sentence },
            },
            input,
            h("span", { class: "sentence-text", text: entry.text }),
          ),
        ),
      );
    }
    const details = h(
      "details",
      { class: "article", "data-testid": "knowledge-article", dataset: { title: group.title }, open },
      h("summary", {}, h("span", { class: "article-title", text: group.title }), h("span", { class: "article-tags" }, tags)),
      list,
    );
    details.querySelector("summary").addEventListener("click", () => {
      details.dataset.toggled = "true";
    });
    return details;
  }
}

/** Passages → [{title, sources:Set, entries:[{source, passage, sentence, text}]}], topic first,
 *  then partner, then self; a sentence repeated under the same title is listed once. A reranked
 *  frame (`ranked`) keeps the server's article order and lists each article's sentences by score;
 *  their (source, passage, sentence) indexes stay what the server checks against. */
function groupByTitle(passages, ranked = false) {
  const ordered = passages
    .filter((p) => p && typeof p.title === "string" && Array.isArray(p.sentences))
    .map((p, i) => ({ ...p, i }));
  if (!ranked) ordered.sort((a, b) => (SOURCE_ORDER[a.source] ?? 9) - (SOURCE_ORDER[b.source] ?? 9) || a.i - b.i);
  const groups = new Map();
  for (const p of ordered) {
    let group = groups.get(p.title);
    if (!group) {
      group = { title: p.title, sources: new Set(), entries: [], seen: new Set() };
      groups.set(p.title, group);
    }
    group.sources.add(p.source);
    p.sentences.forEach((text, j) => {
      if (typeof text !== "string" || group.seen.has(text)) return;
      group.seen.add(text);
      const score = ranked && Array.isArray(p.scores) ? Number(p.scores[j]) : 0;
      group.entries.push({ source: p.source, passage: p.passage, sentence: j, text, score });
    });
  }
  const result = Array.from(groups.values()).filter((g) => g.entries.length > 0);
  if (ranked) for (const g of result) g.entries.sort((a, b) => b.score - a.score);
  return result;
}
