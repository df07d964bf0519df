// What the evaluator sees of a model's reply still being made (collect/tasktypes/modelchat/progress.py
// sends the frames): "Your partner is typing…" until its text comes, "The model is busy; your reply
// is queued" while the call waits its turn among the model's calls, then the text so far growing in
// the partner's bubble, which the stored message replaces. A `stream` frame carries the whole text
// so far: a missed frame costs nothing, and a reloaded page shows the typing notice (from the state)
// until the next frame or the message.

import { h } from "../js/dom.js";
import { gettext } from "../js/i18n.js";

// A typing notice whose reply never came (a lost process) goes after this long; the page's resync asks again.
const NOTICE_MAX_MS = 150_000;

export class ReplyProgress {
  constructor(chat) {
    this.chat = chat;
    this.after = -1; // the message the shown progress answers
    this.attempt = 0;
    this.timer = null;
  }

  lastSeq() {
    return Math.max(0, ...this.chat.bySeq.keys());
  }

  _notice(id, text) {
    let notice = document.getElementById(id);
    if (!notice) {
      notice = h("p", { id, class: "typing-notice muted", "data-testid": id, role: "status", text });
      notice.hidden = true;
      const before = document.getElementById("partner-typing") || this.chat.els.messages;
      before.after(notice);
    }
    return notice;
  }

  get typingNotice() {
    return this._notice("partner-typing", gettext("Your partner is typing…"));
  }

  get busyNotice() {
    return this._notice("model-busy", gettext("The model is busy; your reply is queued"));
  }

  get bubble() {
    return document.getElementById("partner-streaming");
  }

  _arm() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.done(), NOTICE_MAX_MS);
  }

  _current(frame) {
    // Progress of a reply that is already here (a late frame), or of an older one, is dropped.
    return frame.after_seq >= this.lastSeq() && frame.after_seq >= this.after;
  }

  typing(frame) {
    if (!this._current(frame)) return;
    this.after = frame.after_seq;
    if (!this.bubble) this.typingNotice.hidden = false;
    this._arm();
  }

  busy(frame) {
    if (!this._current(frame)) return;
    this.after = frame.after_seq;
    this.busyNotice.hidden = false;
    this.busyNotice.dataset.position = String(frame.position);
    if (!this.bubble) this.typingNotice.hidden = false;
    this._arm();
  }

  stream(frame) {
    if (!this._current(frame) || typeof frame.text !== "string") return;
    if (frame.after_seq === this.after && frame.attempt < this.attempt) return; // a failed attempt's late frame
    this.after = frame.after_seq;
    this.attempt = frame.attempt;
    this.typingNotice.hidden = true;
    this.busyNotice.hidden = true;
    let bubble = this.bubble;
    if (!bubble) {
      bubble = h("li", { id: "partner-streaming", class: "message message-partner message-streaming", "data-testid": "message-streaming",
        dataset: { role: "wizard" }, "aria-busy": "true" },
        h("span", { class: "message-author", text: gettext("Your partner") }),
        h("p", { class: "message-text" }));
      this.chat.els.messages.append(bubble);
    }
    bubble.dataset.afterSeq = String(frame.after_seq);
    bubble.querySelector(".message-text").textContent = frame.text;
    this._arm();
  }

  /** The reply is here (or the chat moved on): every sign of it being made goes. */
  done() {
    clearTimeout(this.timer);
    this.typingNotice.hidden = true;
    this.busyNotice.hidden = true;
    if (this.bubble) this.bubble.remove();
    this.attempt = 0;
  }

  onState(s) {
    if (s.status !== "chatting" || s.your_turn || s.candidates) {
      this.done();
      return;
    }
    // A model is answering the last message: a reloaded page shows it at once.
    if (s.model_partner && !this.bubble) this.typing({ after_seq: s.last_seq || 0 });
  }

  onMessage(frame, own) {
    if (!own && frame.seq > this.after) this.done();
  }
}
