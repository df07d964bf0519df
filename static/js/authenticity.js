// The authenticity record of one turn (docs/authenticity.md; checked by the server in
// collect/authenticity/record.py): how the message in the composer came to be. Nothing of what
// was typed is kept, only counts and times.
//
// What counts as what:
//  - typing: an input event inserting one character (a key), an input method's composition
//    (Chinese, Japanese… counted at compositionend), a deletion (no characters);
//  - inserted: one input event inserting several characters that is not a paste or a drop
//    (autocorrect's replacement, a word suggestion, voice input): never counted as a paste;
//  - paste: the clipboard's paste and a drop, with where the page found that text shown: its side
//    pane (the knowledge), the partner's messages, or neither ("outside").
// The turn starts when the previous message went out (or the page loaded) and ends at the send.
//
// Where the campaign keeps insertion timelines for this role (its policy's "timeline": "on", which
// the pages announce), the record also holds the turn's edits: what was inserted and removed where,
// and when (collect/authenticity/timeline.py describes the format and checks it).

import { charCount } from "./dom.js";

export const RECORD_VERSION = 1;
// Input events closer than this are one burst of typing: the time between them is typing time.
const TYPING_GAP_MS = 2000;
const MAX_PASSAGES = 20;

// What made an edit of the timeline, from the input event's inputType (W3C Input Events).
function editKind(type, composing) {
  if (composing || type === "insertCompositionText") return "ime";
  if (type === "insertFromPaste") return "paste";
  if (type === "insertFromDrop") return "drop";
  if (type === "historyUndo" || type === "historyRedo") return "undo";
  if (type.startsWith("delete")) return "delete";
  return "insert"; // a single character is made a "key" below
}

const normalized = (text) => text.replace(/\s+/g, " ").trim().toLowerCase();

export class TurnRecorder {
  /** `input`: the composer's textarea; `root`: the room element (its <aside>s are the knowledge
   * panes); `messages`: the transcript list; `storageKey`: where a draft's record survives a reload. */
  constructor({ input, root, messages, storageKey = null, timeline = false, now = () => performance.now() }) {
    this.input = input;
    this.keepsTimeline = timeline;
    this.root = root;
    this.messages = messages;
    this.storageKey = storageKey;
    this.now = now;
    this.composingSince = null;
    this.hiddenSince = null;
    this.panelVisible = false;
    this.panelSince = null;
    this.pendingPaste = null; // a paste or drop seen, counted once its text went in
    this.reset();
  }

  reset() {
    this.turnStart = this.now();
    this.firstActivity = null;
    this.lastInput = null;
    this.counts = { typing_ms: 0, typed_chars: 0, inserted_chars: 0, hidden_ms: 0, panel_ms: 0, compositions: 0 };
    this.paste = {};
    this.passages = [];
    this.timeline = [];
    this.lastValue = this.input.value;
    if (this.hiddenSince !== null) this.hiddenSince = this.now();
    if (this.panelSince !== null) this.panelSince = this.now();
  }

  /** The record of the turn so far, as the message frame's `authenticity`. */
  record() {
    const now = this.now();
    const hidden = this.hiddenSince !== null ? now - this.hiddenSince : 0;
    const panel = this.panelSince !== null ? now - this.panelSince : 0;
    return {
      v: RECORD_VERSION,
      compose_ms: Math.round(this.firstActivity === null ? 0 : now - this.firstActivity),
      typing_ms: Math.round(this.counts.typing_ms),
      typed_chars: this.counts.typed_chars,
      inserted_chars: this.counts.inserted_chars,
      paste: structuredClone(this.paste),
      hidden_ms: Math.round(this.counts.hidden_ms + hidden),
      panel_ms: Math.round(this.counts.panel_ms + panel),
      passages: this.passages.slice(0, MAX_PASSAGES),
      compositions: this.counts.compositions,
      ...(this.keepsTimeline ? { timeline: structuredClone(this.timeline), timeline_cut: 0 } : {}),
    };
  }

  /** Carry on from `record` (a refused message given back to the composer): what was done for
   * it still counts for the rewritten one. */
  resume(record) {
    if (!record) return;
    this.firstActivity = this.now() - record.compose_ms;
    for (const key of Object.keys(this.counts)) {
      if (key !== "hidden_ms" && key !== "panel_ms") this.counts[key] += record[key] || 0;
    }
    this.counts.hidden_ms += record.hidden_ms || 0;
    this.counts.panel_ms += record.panel_ms || 0;
    for (const [source, entry] of Object.entries(record.paste || {})) this._pasted(source, entry.chars, entry.count);
    for (const title of record.passages || []) this._opened(title);
    if (this.keepsTimeline && Array.isArray(record.timeline)) {
      // The given-back text's edits come first; the turn's clock goes on from the last of them.
      this.timeline = structuredClone(record.timeline).concat(this.timeline);
      const last = this.timeline.length ? this.timeline[this.timeline.length - 1][0] : 0;
      this.turnStart = Math.min(this.turnStart, this.now() - last);
    }
    this.lastValue = this.input.value;
  }

  /** Where `text` (pasted or dropped) was shown on this page: "knowledge", "partner" or "outside". */
  sourceOf(text) {
    const wanted = normalized(text);
    if (!wanted) return "outside";
    if (this._panes().some((pane) => normalized(pane.innerText || pane.textContent || "").includes(wanted))) return "knowledge";
    const partner = this.messages.querySelectorAll(".message-partner .message-text");
    if (Array.from(partner).some((p) => normalized(p.textContent).includes(wanted))) return "partner";
    return "outside";
  }

  /** The text of every sentence the panes show (for the page's own copy check). */
  paneText() {
    return this._panes().map((pane) => pane.innerText || pane.textContent || "").join("\n");
  }

  /** Listen to the composer, the page's visibility and the panes. `allowPaste(source)` says
   * whether a paste from that source goes in; `onRefused(source)` is told when one did not. */
  attach({ allowPaste = () => true, onRefused = () => {} } = {}) {
    const input = this.input;
    input.addEventListener("input", (event) => this._onInput(event));
    input.addEventListener("compositionstart", () => {
      this._activity();
      this.composingSince = this.now();
    });
    input.addEventListener("compositionend", (event) => {
      this.counts.compositions += 1;
      this.counts.typed_chars += charCount(event.data || "");
      this.composingSince = null;
      this._activity();
      this._save();
    });
    for (const kind of ["paste", "drop"]) {
      input.addEventListener(kind, (event) => {
        const data = kind === "paste" ? event.clipboardData : event.dataTransfer;
        const text = data ? data.getData("text/plain") : "";
        if (!text) return;
        const source = this.sourceOf(text);
        if (!allowPaste(source)) {
          event.preventDefault();
          onRefused(source);
          return;
        }
        // Counted by the input event that follows, if the text goes in: a page may refuse it.
        this.pendingPaste = { source, chars: charCount(text) };
      });
    }
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) this.hiddenSince = this.now();
      else if (this.hiddenSince !== null) {
        this.counts.hidden_ms += this.now() - this.hiddenSince;
        this.hiddenSince = null;
      }
      this._panelChanged(this.panelVisible);
    });
    const panes = this._panes();
    if (panes.length && "IntersectionObserver" in window) {
      const onScreen = new Set();
      const observer = new IntersectionObserver((entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) onScreen.add(entry.target);
          else onScreen.delete(entry.target);
        }
        this._panelChanged(onScreen.size > 0);
      });
      for (const pane of panes) observer.observe(pane);
    }
    for (const pane of panes) {
      // `toggle` does not bubble: caught on the way down.
      pane.addEventListener(
        "toggle",
        (event) => {
          const details = event.target;
          if (details.tagName === "DETAILS" && details.open) this._opened(passageTitle(details));
        },
        true,
      );
    }
    return this;
  }

  _panes() {
    return Array.from(this.root.querySelectorAll("aside"));
  }

  _panelChanged(visible) {
    const now = this.now();
    if (this.panelSince !== null) this.counts.panel_ms += now - this.panelSince;
    this.panelVisible = visible;
    this.panelSince = visible && !document.hidden ? now : null;
  }

  _activity() {
    const now = this.now();
    if (this.firstActivity === null) this.firstActivity = now;
    if (this.lastInput !== null && now - this.lastInput < TYPING_GAP_MS) this.counts.typing_ms += now - this.lastInput;
    this.lastInput = now;
  }

  _onInput(event) {
    const type = event.inputType || "";
    if (this.keepsTimeline) this._edit(type);
    if (type === "insertFromPaste" || type === "insertFromDrop") {
      if (this.pendingPaste) {
        this._activity();
        this._pasted(this.pendingPaste.source, this.pendingPaste.chars, 1);
        this.pendingPaste = null;
        this._save();
      }
      return;
    }
    if (type === "historyUndo" || type === "historyRedo") return;
    this._activity();
    if (type === "insertCompositionText" || this.composingSince !== null) return; // counted at compositionend
    if (type.startsWith("insert")) {
      const n = type === "insertLineBreak" || type === "insertParagraph" ? 1 : charCount(event.data || "");
      if (n === 1) this.counts.typed_chars += 1;
      else this.counts.inserted_chars += n;
    }
    this._save();
  }

  /** One edit of the timeline: the difference between the box's text before and after this
   * input event (so autocorrect's replacements and selections typed over are exact). */
  _edit(type) {
    const before = this.lastValue;
    const after = this.input.value;
    this.lastValue = after;
    if (before === after) return;
    let start = 0;
    const shorter = Math.min(before.length, after.length);
    while (start < shorter && before[start] === after[start]) start += 1;
    let end = 0;
    while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
    // Never split a surrogate pair (an emoji): positions are counted in characters.
    if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start -= 1;
    if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end -= 1;
    const at = charCount(before.slice(0, start));
    const removed = charCount(before.slice(start, before.length - end));
    const text = after.slice(start, after.length - end);
    const t = Math.max(0, Math.round(this.now() - this.turnStart));
    let kind = editKind(type, this.composingSince !== null);
    if (kind === "insert" && removed === 0 && charCount(text) === 1) kind = "key";
    const last = this.timeline[this.timeline.length - 1];
    if (kind === "key" && last && last[1] === "key" && last[3] === 0 && at === last[2] + charCount(last[4])) {
      const gap = t - (last[0] + last[5].reduce((a, b) => a + b, 0));
      if (gap < TYPING_GAP_MS) {
        last[4] += text;
        last[5].push(gap);
        return;
      }
    }
    this.timeline.push([t, kind, at, removed, text, []]);
  }

  _pasted(source, chars, count) {
    const entry = this.paste[source] || { count: 0, chars: 0 };
    entry.count += count;
    entry.chars += chars;
    this.paste[source] = entry;
  }

  _opened(title) {
    if (title && !this.passages.includes(title) && this.passages.length < MAX_PASSAGES) this.passages.push(title);
  }

  // A draft kept across a reload (chat.js) keeps its record too: its characters were typed.
  _save() {
    if (!this.storageKey) return;
    try {
      sessionStorage.setItem(this.storageKey, JSON.stringify(this.record()));
    } catch {
      // storage refused: a reloaded draft's record starts again
    }
  }

  /** Take back the record of a draft restored after a reload (call once the draft is back). */
  restore() {
    if (!this.storageKey) return;
    try {
      const kept = JSON.parse(sessionStorage.getItem(this.storageKey) || "null");
      if (kept && kept.v === RECORD_VERSION && this.input.value) this.resume(kept);
    } catch {
      // nothing kept
    }
  }

  /** The turn was sent: the next one starts now, and no draft record is kept. */
  sent() {
    this.reset();
    if (!this.storageKey) return;
    try {
      sessionStorage.removeItem(this.storageKey);
    } catch {
      // nothing kept
    }
  }
}

const isHighSurrogate = (code) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code) => code >= 0xdc00 && code <= 0xdfff;

/** `frame` with its record's timeline cut, oldest edits kept, until the frame's JSON fits in
 * `maxBytes` (the server's WS_MAX_FRAME_BYTES); the record says how many edits were cut. */
export function fitTimeline(frame, maxBytes) {
  const record = frame.authenticity;
  if (!record || !Array.isArray(record.timeline)) return frame;
  const size = () => new TextEncoder().encode(JSON.stringify(frame)).length;
  if (size() <= maxBytes) return frame;
  const all = record.timeline;
  let low = 0;
  let high = all.length; // the most edits that fit lies in [low, high]
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    record.timeline = all.slice(0, mid);
    record.timeline_cut = all.length - mid;
    if (size() <= maxBytes) low = mid;
    else high = mid - 1;
  }
  record.timeline = all.slice(0, low);
  record.timeline_cut = all.length - low;
  return frame;
}

function passageTitle(details) {
  if (details.dataset.title) return details.dataset.title;
  const summary = details.querySelector("summary");
  return summary ? summary.textContent.trim().slice(0, 200) : "";
}

/** The first sentence of `paneText` (at least `minWords` words) that `text` holds whole, or null:
 * the page's side of the "copy": "refuse" rule (collect/authenticity/policy.py does the same). */
export function copiedSentence(text, paneText, minWords = 6) {
  const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
  const said = ` ${words(text).join(" ")} `;
  for (const sentence of paneText.split(/(?<=[.!?。！？])\s*|\n+/u)) {
    const found = words(sentence);
    if (found.length >= minWords && said.includes(` ${found.join(" ")} `)) return sentence.trim();
  }
  return null;
}
