// The chat client every room screen builds on: the page is templates/collect/chat_base.html (or a
// template extending it), the frames are those of docs/websocket-protocol.md.
//
// What it does for every protocol: the room socket (static/js/socket.js, with resync and resends of
// un-acked messages after a reconnect), the `state` frame → which screen shows, the transcript
// (bubbles in seq order, ours shown at once and confirmed when the server sends it back), the
// composer (client ids, length limit, Enter to send, the draft kept across a reload), the turn
// counter and the warning
// before the turn limit, "End chat", the rating form, partner presence and where errors show.
//
// How a protocol screen plugs in (room.js and curiosity.js are the two examples):
//
//   import { ChatRoom } from "./chat.js";
//   const chat = new ChatRoom({
//     roleNames: { user: "User", assistant: "Assistant" },  // authors' labels, by role
//     liveStatuses: ["preparing", "chatting"],  // before rating: an absent partner is announced
//     frames: { facts: (frame) => … },           // handlers of the protocol's own frame types
//     onState(state) {},                // each state frame that is not final, after the common screens
//     messageNote(frame) { return "1 fact used"; },   // the grey line under a stored message
//     decorateMessage(li, { role, own }) {},   // add buttons or badges to a new bubble
//     onMessage(frame, li, { own, fresh }) {},  // after a message frame was placed (fresh: new bubble)
//     sendBlocker() { return "Loading…"; },    // why our turn must still wait (null: it need not)
//     endBlocker(state) { return "topic B has not come up yet"; },  // what the end waits for once
//                                              // both have spoken enough (null: the common text)
//     prepareSend(frame) { return { note } },  // add fields to an outgoing message, or
//                                              // return { error: "…" } to refuse it
//     afterSend() {},                    // the message went out: clear selections
//     ratingFrame(form) { return { type: "rate", … } },  // or an error text to show
//     onError(frame, status) { return false; },  // show a protocol error; true when shown
//   });
//   chat.start();
//
// Every hook is optional. The page must have chat_base.html's element ids. `chat.state` is the
// latest state frame, `chat.socket` the GroundworkSocket, `chat.els` the common elements,
// `chat.bySeq` the stored messages' bubbles by seq, `chat.send(frame)` sends a frame now (false
// when not connected), `chat.sendAction(frame)` sends a state-changing frame with a client_id and
// resends it until acknowledged (true when it went out now; else it goes once reconnected),
// `chat.updateComposer()` refreshes the send button and hint after a protocol
// changed what sendBlocker() says.

import { TurnRecorder, copiedSentence, fitTimeline } from "./authenticity.js";
import { Confirmation } from "./confirm.js";
import { GroundworkSocket } from "./socket.js";
import { charCount, formatElapsed, h, keepNewestInView, limitChars, randomId, setNotice } from "./dom.js";
import { errorText } from "./errors.js";
import { format, formatNumber, gettext, gettext_noop, ngettext } from "./i18n.js";

// The topic the server names for a role that sees no goal (DuConv's user, a model chat's
// evaluator): a fixed key, shown in the page's language.
const FREE_CHAT = gettext_noop("Free chat");
const TEXT_FREE_CHAT = gettext(FREE_CHAT);

const TEXT = {
  endQuestion: gettext("End the chat now? You cannot take it back; the chat goes on to the rating."),
  endYes: gettext("Yes, end the chat"),
  endNo: gettext("No, keep chatting"),
  partnerBack: gettext("Your partner is back."),
};

const STATUS_TEXT = {
  connecting: gettext("Connecting…"),
  open: gettext("Connected"),
  reconnecting: gettext("Connection lost — reconnecting…"),
  closed: gettext("Disconnected"),
};
const NOT_CONNECTED = gettext("Not connected — wait a moment and try again.");
const PASTE_OFF = gettext("Pasting is turned off in this chat: please type your message.");
const PASTE_KNOWLEDGE_ONLY = gettext("In this chat you can paste only from the knowledge panel: please type the rest yourself.");
const KNOWLEDGE_COPIED = gettext(
  "Your message repeats a whole sentence of the knowledge. Please say it in your own words (you may keep names and facts).",
);
const PARTNER_ABSENT_NOTICE_MS = 4000;
const PARTNER_BACK_NOTICE_MS = 5000;
// The turn timeout's warning shows this long before the chat would end.
const TURN_WARN_SECONDS = 60;

const $ = (id) => document.getElementById(id);

// An Enter that confirms an input method's candidate (Chinese, Japanese, Korean…) is part of the
// composition, not a send: isComposing on the event, keyCode 229 where a browser (Safari) sends the
// keydown after compositionend, and the composition events themselves.
function composingKey(event, composing) {
  return composing || event.isComposing || event.keyCode === 229;
}

export class ChatRoom {
  constructor(hooks = {}) {
    this.hooks = hooks;
    this.root = $("room");
    this.config = {
      role: this.root.dataset.role,
      wsPath: this.root.dataset.wsPath,
      maxChars: Number.parseInt(this.root.dataset.maxChars, 10) || 1000,
      maxFrameBytes: Number.parseInt(this.root.dataset.maxFrameBytes, 10) || 8192,
      doneUrl: this.root.dataset.doneUrl,
      // This role's paste, copy and timeline rules (collect/authenticity/policy.py).
      policy: parsePolicy(this.root.dataset.authenticityPolicy),
    };
    this.roleNames = hooks.roleNames || {};
    this.liveStatuses = hooks.liveStatuses || ["chatting"];
    this.els = {
      status: $("connection-status"),
      partner: $("partner-status"),
      fatal: $("fatal-error"),
      screens: Array.from(this.root.querySelectorAll("[data-screen]")),
      topic: $("chat-topic"),
      turnCounter: $("turn-counter"),
      turnLimit: $("turn-limit-warning"),
      turnClock: $("turn-timeout-warning"),
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
      ratingWait: $("rating-wait"),
    };
    this.state = null;
    this.sendLocked = false; // a message of ours is on its way and the state has not caught up yet
    this.leaving = false;
    this.rated = false;
    this.partnerTimer = null;
    this.backTimer = null;
    this.turnDeadline = null; // Date.now() at which the turn timeout ends the chat
    this.turnClock = null;
    this.endConfirm = null;
    this.draftKey = `groundwork:draft:${this.root.dataset.roomId}:${this.config.role}`;
    this.bySeq = new Map(); // seq → <li>
    this.byClientId = new Map(); // our client_id → <li>
    this.composing = false; // an input method's composition is open in the composer
    // How each message came to be (static/js/authenticity.js), sent with it.
    this.recorder = new TurnRecorder({
      input: this.els.input,
      root: this.root,
      messages: this.els.messages,
      storageKey: `${this.draftKey}:authenticity`,
      timeline: this.config.policy.timeline === "on",
    });
    this.sentRecords = new Map(); // our client_id → the record sent with it, until stored
    this.socket = new GroundworkSocket(this.config.wsPath, {
      sync: true,
      onFrame: (frame) => this._onFrame(frame),
      onStatus: (status, detail) => this._onStatus(status, detail),
    });
  }

  start() {
    this._wire();
    keepNewestInView(this.els.messages, this.root);
    this._restoreDraft();
    this.recorder.restore();
    this._updateCounter();
    this.socket.start();
    return this;
  }

  get isChatting() {
    return Boolean(this.state && this.state.status === "chatting");
  }

  send(frame) {
    return this.socket.send(frame);
  }

  sendAction(frame) {
    return this.socket.sendAction(frame);
  }

  _hook(name, ...args) {
    const hook = this.hooks[name];
    return typeof hook === "function" ? hook(...args) : undefined;
  }

  // --- socket callbacks ------------------------------------------------------------------------

  _onStatus(status, detail) {
    this.els.status.textContent = STATUS_TEXT[status] || status;
    this.els.status.dataset.state = status;
    if (status === "closed" && !this.leaving) {
      const refused = detail && detail.code === 4403;
      setNotice(
        this.els.fatal,
        refused
          ? gettext("This chat is not yours, so it cannot be opened here.")
          : gettext("The connection to the chat was closed. Reload the page to try again."),
      );
    }
    this.updateComposer();
  }

  _onFrame(frame) {
    switch (frame.type) {
      case "state":
        return this._applyState(frame);
      case "message":
        // A broadcast message carries the room's state after it; a catch-up sends its state apart.
        this._showMessage(frame);
        return frame.state ? this._applyState(frame.state) : undefined;
      case "ack":
        return this._onAck(frame);
      case "partner":
        return this._showPartner(frame.connected, frame.grace_seconds);
      case "error":
        return this._onError(frame);
      default: {
        const handler = this.hooks.frames && this.hooks.frames[frame.type];
        return handler ? handler(frame) : undefined; // pong and anything newer than this page
      }
    }
  }

  // --- state → screens -------------------------------------------------------------------------

  _applyState(next) {
    this.state = next;
    if (!this.socket.pending("message")) this.sendLocked = false; // an action awaiting its ack does not hold the composer
    this._armTurnClock(next);
    if (next.status === "complete" || next.status === "incomplete") {
      this.leaving = true;
      this._showScreen("ended");
      this.socket.stop();
      location.assign(next.done_url || this.config.doneUrl);
      return;
    }
    this._showScreen(next.status);
    if (next.status === "chatting") {
      this.els.topic.textContent = next.topic === FREE_CHAT ? TEXT_FREE_CHAT : next.topic || "";
      this._renderTurns(next);
    }
    if (next.status === "rating" && this.els.ratingForm) {
      if (this.els.ratingWait) {
        this.els.ratingForm.hidden = this.rated;
        this.els.ratingWait.hidden = !this.rated;
      }
      if (!this.rated) this.els.ratingSubmit.disabled = false;
    }
    this._hook("onState", next);

    if (!this.liveStatuses.includes(next.status) && this.els.partner.dataset.tone === "ok") this._setPartnerNotice("", "");
    if (next.partner_connected) this._showPartner(true, 0, { quiet: true });
    else if (!this.partnerTimer && this.els.partner.hidden) {
      // Right after pairing the partner may still be loading the page: only say so if it lasts.
      this.partnerTimer = setTimeout(() => {
        this.partnerTimer = null;
        if (this.state && !this.state.partner_connected && this.liveStatuses.includes(this.state.status)) {
          this._setPartnerNotice(gettext("Your partner is not connected at the moment. Please wait for them."), "warn");
        }
      }, PARTNER_ABSENT_NOTICE_MS);
    }
    this.els.end.disabled = false;
    this.updateComposer();
  }

  _showScreen(name) {
    for (const screen of this.els.screens) screen.hidden = screen.dataset.screen !== name;
    this.root.dataset.status = name;
  }

  _renderTurns(s) {
    const required = s.turns_required || 0;
    const partnerRole = Object.keys(s.turns || {}).find((role) => role !== this.config.role);
    const mine = (s.turns && s.turns[this.config.role]) || 0;
    const theirs = (partnerRole && s.turns[partnerRole]) || 0;
    const counter = this.els.turnCounter;
    const waitingFor = theirs < required ? null : this._hook("endBlocker", s) || null;
    counter.textContent = turnCounterText({ mine, theirs, required, canEnd: Boolean(s.can_end), waitingFor });
    counter.title = format(gettext("Your partner: %(done)s of %(required)s"), {
      done: formatNumber(Math.min(theirs, required)),
      required: formatNumber(required),
    });
    counter.dataset.turns = String(mine);
    counter.dataset.required = String(required);
    if (this.els.turnLimit) setNotice(this.els.turnLimit, turnLimitWarning({ mine, limit: s.turn_limit || 0 }));
  }

  updateComposer() {
    const chatting = this.isChatting;
    const state = this.state;
    const blocker = chatting ? this._hook("sendBlocker") || null : null;
    const open = this.socket.isOpen;
    this.els.send.disabled = !(chatting && state.your_turn && !this.sendLocked && open && !blocker);
    const endable = Boolean(chatting && state.can_end);
    if (!endable && this.endConfirm) this.endConfirm.close({ restore: false });
    this.els.end.hidden = !endable || Boolean(this.endConfirm && this.endConfirm.isOpen);
    let hint = "";
    if (chatting) {
      if (!open) hint = gettext("Reconnecting…");
      else if (this.sendLocked) hint = gettext("Sending…");
      else if (state.your_turn && blocker) hint = blocker;
      else if (state.your_turn) hint = this.bySeq.size === 0 ? gettext("You start the conversation") : gettext("Your turn");
      else hint = gettext("Waiting for your partner…");
      if (state.can_end) hint += gettext(" · you may end the chat now");
    }
    this.els.turnHint.textContent = hint;
    this.els.turnHint.dataset.yourTurn = String(Boolean(chatting && state.your_turn));
  }

  // --- the transcript --------------------------------------------------------------------------

  _messageItem({ role, text, own }) {
    const author = own ? gettext("You") : format(gettext("Your partner (%(role)s)"), { role: this.roleNames[role] || role });
    const li = h(
      "li",
      { class: `message ${own ? "message-own" : "message-partner"}`, "data-testid": "message", dataset: { role } },
      h("span", { class: "message-author", text: author }),
      h("p", { class: "message-text", text }),
      h("span", { class: "message-meta" }),
    );
    this._hook("decorateMessage", li, { role, own });
    return li;
  }

  _setMeta(li, text) {
    li.querySelector(".message-meta").textContent = text || "";
  }

  _confirmMessage(li, seq, note) {
    li.dataset.seq = String(seq);
    li.dataset.state = "sent";
    this.bySeq.set(seq, li);
    this._setMeta(li, note !== null && note !== undefined ? note : li.dataset.note || "");
    // Keep the list in seq order, with messages still sending at the end.
    const after = Array.from(this.els.messages.children).find(
      (other) => other !== li && (!other.dataset.seq || Number(other.dataset.seq) > seq),
    );
    if (after) this.els.messages.insertBefore(li, after);
    else this.els.messages.append(li);
  }

  _showMessage(frame) {
    if (!Number.isInteger(frame.seq) || typeof frame.text !== "string") return;
    const note = this._hook("messageNote", frame) ?? null;
    const own = frame.role === this.config.role;
    const existing = this.bySeq.get(frame.seq);
    if (existing) {
      if (note) this._setMeta(existing, note);
      this._hook("onMessage", frame, existing, { own, fresh: false });
      return;
    }
    if (own && frame.client_id) this.sentRecords.delete(frame.client_id);
    let li = own && frame.client_id ? this.byClientId.get(frame.client_id) : undefined;
    if (!li) {
      li = this._messageItem({ role: frame.role, text: frame.text, own });
      if (own && frame.client_id) this.byClientId.set(frame.client_id, li);
    }
    this._confirmMessage(li, frame.seq, note);
    this._hook("onMessage", frame, li, { own, fresh: true });
    this.scrollToBottom();
    this.updateComposer();
  }

  _onAck(frame) {
    const li = this.byClientId.get(frame.client_id);
    if (li && Number.isInteger(frame.seq) && !li.dataset.seq) this._confirmMessage(li, frame.seq, null);
    if (this.state && Number.isInteger(frame.seq) && this.state.last_seq >= frame.seq) this.sendLocked = false;
    this.updateComposer();
  }

  scrollToBottom() {
    this.els.messages.scrollTop = this.els.messages.scrollHeight;
  }

  // --- the composer ----------------------------------------------------------------------------

  // The typed draft survives a reload of the page (sessionStorage: this tab only).
  _saveDraft() {
    try {
      if (this.els.input.value) sessionStorage.setItem(this.draftKey, this.els.input.value);
      else sessionStorage.removeItem(this.draftKey);
    } catch {
      // storage refused (private mode, quota): the draft just does not survive a reload
    }
  }

  _restoreDraft() {
    try {
      const draft = sessionStorage.getItem(this.draftKey);
      if (draft && !this.els.input.value) this.els.input.value = draft;
    } catch {
      // nothing kept
    }
  }

  _updateCounter() {
    const n = charCount(this.els.input.value);
    this.els.counter.textContent = `${n} / ${this.config.maxChars}`;
    this.els.counter.classList.toggle("near-limit", n > this.config.maxChars * 0.9);
  }

  _sendMessage() {
    if (!this.isChatting) return;
    const els = this.els;
    const text = els.input.value.trim();
    if (!this.state.your_turn || this.sendLocked) {
      setNotice(els.composerError, gettext("Please wait for your partner's reply before sending."));
      return;
    }
    if (!text) {
      setNotice(els.composerError, gettext("Write a message first."));
      return;
    }
    if (charCount(text) > this.config.maxChars) {
      setNotice(
        els.composerError,
        format(gettext("Your message is too long (at most %(max)s characters)."), { max: formatNumber(this.config.maxChars) }),
      );
      return;
    }
    if (this.config.policy.copy === "refuse" && copiedSentence(text, this.recorder.paneText())) {
      setNotice(els.composerError, KNOWLEDGE_COPIED);
      return;
    }
    const frame = { type: "message", client_id: randomId(), text };
    const extra = this._hook("prepareSend", frame) || {};
    if (extra.error) {
      setNotice(els.composerError, extra.error);
      return;
    }
    frame.authenticity = this.recorder.record();
    fitTimeline(frame, this.config.maxFrameBytes);
    this.sentRecords.set(frame.client_id, frame.authenticity);
    setNotice(els.composerError, "");
    const li = this._messageItem({ role: this.config.role, text, own: true });
    li.dataset.state = "sending";
    li.dataset.clientId = frame.client_id;
    if (extra.note) li.dataset.note = extra.note;
    this._setMeta(li, gettext("sending…"));
    this.byClientId.set(frame.client_id, li);
    els.messages.append(li);
    this.scrollToBottom();

    this.socket.sendMessage(frame);
    this.sendLocked = true;
    els.input.value = "";
    this.recorder.sent(); // after the box is emptied: the next turn's timeline starts from ""
    this._saveDraft();
    this._updateCounter();
    this._hook("afterSend", frame);
    this.updateComposer();
  }

  // --- errors ----------------------------------------------------------------------------------

  _onError(frame) {
    const els = this.els;
    const message = errorText(frame);
    if (frame.client_id && this.byClientId.has(frame.client_id)) {
      const li = this.byClientId.get(frame.client_id);
      if (li.dataset.seq) return; // a stale resend of a message that was stored after all
      // Refused: take the bubble back and give the text back so it can be fixed and resent.
      this.socket.forget(frame.client_id);
      this.byClientId.delete(frame.client_id);
      li.remove();
      if (!els.input.value.trim()) {
        els.input.value = li.querySelector(".message-text").textContent;
        // What was typed for it still counts for the text given back.
        this.recorder.resume(this.sentRecords.get(frame.client_id));
        this._saveDraft();
        this._updateCounter();
      }
      this.sendLocked = false;
    }
    const status = this.state ? this.state.status : null;
    if (frame.code === "not_member") {
      setNotice(els.fatal, message);
    } else if (this._hook("onError", frame, status)) {
      // the protocol showed it
    } else if (status === "rating" && els.ratingError) {
      this.rated = false;
      if (els.ratingWait && els.ratingForm) {
        els.ratingForm.hidden = false;
        els.ratingWait.hidden = true;
      }
      setNotice(els.ratingError, message);
      els.ratingSubmit.disabled = false;
    } else if (status === "chatting") {
      setNotice(els.composerError, message);
      els.end.disabled = false;
    } else {
      setNotice(els.fatal, message);
    }
    this.updateComposer();
  }

  // --- the turn timeout ------------------------------------------------------------------------

  // The server ends a room idle for `turn_timeout` seconds (the member whose turn it was is not
  // paid): a countdown shows for the last TURN_WARN_SECONDS. Each state frame resets the clock.
  _armTurnClock(s) {
    const live = this.liveStatuses.includes(s.status) && Number.isFinite(s.turn_timeout) && s.turn_timeout > 0;
    if (!live) {
      this.turnDeadline = null;
      clearInterval(this.turnClock);
      this.turnClock = null;
      if (this.els.turnClock) setNotice(this.els.turnClock, "");
      return;
    }
    this.turnDeadline = Date.now() + Math.max(0, s.turn_timeout - (Number(s.idle_seconds) || 0)) * 1000;
    if (!this.turnClock) this.turnClock = setInterval(() => this._tickTurnClock(), 1000);
    this._tickTurnClock();
  }

  _tickTurnClock() {
    if (!this.els.turnClock || this.turnDeadline === null || !this.state) return;
    const left = Math.max(0, Math.ceil((this.turnDeadline - Date.now()) / 1000));
    const text = turnTimeoutWarning({
      left,
      limit: this.state.turn_timeout,
      yours: this.state.status === "chatting" ? Boolean(this.state.your_turn) : null,
    });
    setNotice(this.els.turnClock, text);
    this.els.turnClock.dataset.left = String(left);
  }

  // --- partner presence ------------------------------------------------------------------------

  _setPartnerNotice(text, tone) {
    this.els.partner.className = `notice partner-status${tone ? ` notice-${tone}` : ""}`;
    this.els.partner.dataset.tone = text ? tone : "";
    setNotice(this.els.partner, text);
  }

  _showPartner(connected, graceSeconds, { quiet = false } = {}) {
    const partner = this.els.partner;
    clearTimeout(this.partnerTimer);
    this.partnerTimer = null;
    partner.dataset.connected = String(Boolean(connected));
    if (connected) {
      if (partner.dataset.tone !== "warn") return;
      if (quiet) {
        this._setPartnerNotice("", "");
        return;
      }
      this._setPartnerNotice(TEXT.partnerBack, "ok");
      // Its own timer: the next state frame clears partnerTimer, and must not keep this on screen.
      clearTimeout(this.backTimer);
      this.backTimer = setTimeout(() => {
        this.backTimer = null;
        if (partner.dataset.tone === "ok") this._setPartnerNotice("", "");
      }, PARTNER_BACK_NOTICE_MS);
      return;
    }
    const seconds = Math.round(graceSeconds || 0);
    const text = seconds
      ? format(
          ngettext(
            "Your partner has disconnected. We will wait up to %(seconds)s second for them to come back.",
            "Your partner has disconnected. We will wait up to %(seconds)s seconds for them to come back.",
            seconds,
          ),
          { seconds: formatNumber(seconds) },
        )
      : gettext("Your partner has disconnected.");
    this._setPartnerNotice(text, "warn");
  }

  // --- wiring ----------------------------------------------------------------------------------

  _wire() {
    const els = this.els;
    els.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this._sendMessage();
    });
    limitChars(els.input, this.config.maxChars); // the count above decides
    const paste = this.config.policy.paste;
    this.recorder.attach({
      allowPaste: (source) => paste === "allowed" || (paste === "knowledge" && source === "knowledge"),
      onRefused: () => setNotice(els.composerError, paste === "off" ? PASTE_OFF : PASTE_KNOWLEDGE_ONLY),
    });
    els.input.addEventListener("compositionstart", () => {
      this.composing = true;
    });
    for (const ended of ["compositionend", "blur"]) {
      els.input.addEventListener(ended, () => {
        this.composing = false;
      });
    }
    els.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !composingKey(event, this.composing)) {
        event.preventDefault();
        this._sendMessage();
      }
    });
    els.input.addEventListener("input", () => {
      this._saveDraft();
      this._updateCounter();
      if (els.input.value.trim()) setNotice(els.composerError, "");
    });
    this.endConfirm = new Confirmation(els.end, {
      question: TEXT.endQuestion,
      yes: TEXT.endYes,
      no: TEXT.endNo,
      place: (node) => els.composer.append(node),
      onConfirm: () => {
        // Kept and resent until acknowledged: a click while reconnecting goes out once connected.
        if (!this.socket.pending("end")) this.sendAction({ type: "end" });
        els.end.disabled = true;
        this.updateComposer();
      },
    });
    els.end.addEventListener("click", () => this.endConfirm.ask());
    if (els.ratingForm) {
      els.ratingForm.addEventListener("submit", (event) => {
        event.preventDefault();
        this._submitRating();
      });
      els.ratingForm.addEventListener("change", () => setNotice(els.ratingError, ""));
    }
  }

  _submitRating() {
    const els = this.els;
    const frame = this._hook("ratingFrame", els.ratingForm);
    if (!frame || typeof frame === "string") {
      setNotice(els.ratingError, frame || gettext("Please pick a number from 1 to 5."));
      return;
    }
    setNotice(els.ratingError, "");
    // Kept and resent until acknowledged (a rating lost with a server process would leave the
    // room waiting in `rating`); sent once the socket is back if it is down now.
    this.sendAction(frame);
    this.rated = true;
    els.ratingSubmit.disabled = true;
    if (els.ratingWait) {
      els.ratingForm.hidden = true;
      els.ratingWait.hidden = false;
    }
  }
}

/** This role's {paste, copy, timeline} rules from the room element's data-authenticity-policy. */
function parsePolicy(text) {
  try {
    const policy = JSON.parse(text || "{}");
    return { paste: policy.paste || "allowed", copy: policy.copy || "allowed", timeline: policy.timeline || "off" };
  } catch {
    return { paste: "allowed", copy: "allowed", timeline: "off" };
  }
}

/** "Your turns: 2 of 4"; past the minimum it stays at "4 of 4" and says what the end waits for:
 * the partner's turns, or `waitingFor` (the protocol's own rule, e.g. DuConv's topic B). */
export function turnCounterText({ mine, theirs = mine, required, canEnd, waitingFor = null }) {
  const values = { mine: formatNumber(Math.min(mine, required)), required: formatNumber(required) };
  if (mine < required) return format(gettext("Your turns: %(mine)s of %(required)s"), values);
  if (canEnd) return format(gettext("Your turns: %(mine)s of %(required)s (you may end the chat)"), values);
  if (theirs >= required && waitingFor) {
    return format(gettext("Your turns: %(mine)s of %(required)s (%(waiting_for)s)"), { ...values, waiting_for: waitingFor });
  }
  return format(gettext("Your turns: %(mine)s of %(required)s (waiting for your partner's turns)"), values);
}

/** The warning before the turn timeout ends the chat, or "" while there is time.
 * `yours`: true on our turn, false on the partner's, null outside the chat (topic choice). */
export function turnTimeoutWarning({ left, limit, yours }) {
  if (left > TURN_WARN_SECONDS) return "";
  const minutes =
    limit % 60 === 0
      ? format(ngettext("%(count)s minute", "%(count)s minutes", limit / 60), { count: formatNumber(limit / 60) })
      : format(ngettext("%(count)s second", "%(count)s seconds", limit), { count: formatNumber(limit) });
  if (left === 0) return format(gettext("Nobody wrote for %(minutes)s: the chat is ending."), { minutes });
  const clock = formatElapsed(left);
  if (yours === true) {
    return format(
      gettext("Please send your message: the chat ends in %(clock)s (after %(minutes)s without a message, and you would not be paid)."),
      { clock, minutes },
    );
  }
  if (yours === false) {
    return format(gettext("Your partner has %(clock)s left to reply; if they don't, the chat ends and you are still paid."), { clock });
  }
  return format(gettext("The chat ends in %(clock)s unless something happens (after %(minutes)s without a step)."), { clock, minutes });
}

// Warn this many turns before the campaign's turn limit ends the chat by itself.
const TURN_LIMIT_WARN = 2;

/** The warning before the turn limit (the chat ends once each has sent `limit` messages), or "". */
export function turnLimitWarning({ mine, limit }) {
  if (!limit || limit - mine > TURN_LIMIT_WARN) return "";
  const left = Math.max(0, limit - mine);
  if (left === 0) return gettext("That was your last message: the chat ends by itself once your partner has replied.");
  return format(
    ngettext(
      "The chat ends by itself after %(limit)s messages each: you have %(left)s message left.",
      "The chat ends by itself after %(limit)s messages each: you have %(left)s messages left.",
      left,
    ),
    { limit: formatNumber(limit), left: formatNumber(left) },
  );
}

/** The number 1–5 picked in the radio group `name` of `form`, or null. */
export function pickedRating(form, name) {
  const picked = form.querySelector(`input[name="${name}"]:checked`);
  return picked ? Number.parseInt(picked.value, 10) : null;
}

export { NOT_CONNECTED };
