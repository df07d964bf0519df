// A reconnecting websocket client for Groundwork's sockets (docs/websocket-protocol.md).
//
// - Close codes (groundwork/close_codes.py): 4000–4499 are the server's refusals (4403 not a
//   member, 4404 no such socket): final, the page says why. 4500–4999 mean "come back": 4503 (the
//   process is restarting) reconnects at once, 4504 (too many sockets) after a longer wait, 4500
//   (the server lost its database or channel layer) with backoff. Any other close (a dropped
//   connection) reconnects with backoff.
// - Sends no heartbeat frames: the server pings a quiet connection at the websocket level, which the
//   browser answers by itself (even for a background tab), and counts an open socket as present.
// - With `sync: true` (room socket): remembers the highest message seq seen, sends
//   {"type":"sync","after":seq} after every (re)connect, and resends every state-changing frame
//   (messages and actions: choose_topic, end, rate, like...) that was never acknowledged (a message
//   by its own `message` frame coming back or an `ack`, an action by an `ack`) with the same
//   client_id, after a reconnect and, while the socket stays open, RESEND_MS after its last copy, each
//   further copy waiting twice as long (up to RESEND_MAX_MS) — the server applies a resend once and
//   acks it again. A refusal (`error` with the client_id) ends the
//   resends, except for the passing ones (server_error, rate_limited).

import { doubledWait } from "./backoff.js";
import { randomId, socketUrl } from "./dom.js";

// A dropped connection is tried again after RECONNECT_MS, each further try after twice the wait (with
// jitter, so a restarted process is not met by all its pages at once), up to MAX_BACKOFF_MS.
const RECONNECT_MS = 500;
const MAX_BACKOFF_MS = 10000;
export const CLOSE_SERVER_RESTARTING = 4503;
export const CLOSE_TRY_LATER = 4504;
const TRY_LATER_MS = 15000;
// An unacknowledged frame is sent again after this long on an open socket (its first copy or its
// ack may have been lost with a server process); the server applies it once. Each further copy on
// the same socket waits twice as long, up to RESEND_MAX_MS: a server that answers late (overloaded)
// gets fewer copies, not more.
export const RESEND_MS = 5000;
export const RESEND_MAX_MS = 30000;
// Refusals that are not final: the frame is kept and resent.
const PASSING_ERRORS = new Set(["server_error", "rate_limited"]);

/** Whether a close code is the server's final refusal (no reconnect). */
export function isRefusal(code) {
  return code >= 4000 && code < 4500;
}

export class GroundworkSocket {
  /**
   * @param {string} path  server path, e.g. "/ws/room/<id>/"
   * @param {object} opts
   * @param {(frame: object) => void} opts.onFrame   every frame from the server (after bookkeeping)
   * @param {(status: string, detail?: object) => void} [opts.onStatus]
   *        "connecting" | "open" | "reconnecting" | "closed" (final; detail.code is the close code)
   * @param {boolean} [opts.sync]  room socket bookkeeping (seq, sync, resends)
   */
  constructor(path, { onFrame, onStatus = () => {}, sync = false }) {
    this.url = socketUrl(path);
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.sync = sync;
    // The highest seq up to which this page has every message: its syncs' `after`. A message can
    // come ahead of one the page lacks (a broadcast before the socket's sync was answered), and
    // counting past the gap would tell the server, after a reconnect, that the page has the one
    // it lacks. The seqs seen past a gap wait in `ahead`.
    this.lastSeq = 0;
    this.ahead = new Set();
    /** client_id → message or action frame not yet acked, in sending order */
    this.unacked = new Map();
    /** client_id → when it was last sent (performance.now()) */
    this.sentAt = new Map();
    /** client_id → copies sent on the open socket */
    this.copies = new Map();
    this.resendTimer = null;
    this.ws = null;
    this.stopped = false;
    this.attempt = 0;
    this.retryTimer = null;
  }

  start() {
    this.stopped = false;
    this._connect();
    return this;
  }

  /** Close for good (no reconnect). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.resendTimer);
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) this.ws.close(1000);
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a frame now if connected; returns whether it went out. */
  send(frame) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Send a chat message; it is kept and resent until acked or refused. */
  sendMessage(frame) {
    this._sendKept(frame);
  }

  /** Send a state-changing action (choose_topic, end, rate, like...) with a new client_id; it is
   *  kept and resent until acked or refused. Returns whether it went out now (else it goes out
   *  once the socket is back). */
  sendAction(frame) {
    return this._sendKept({ ...frame, client_id: frame.client_id || randomId() });
  }

  /** Whether a frame of this type (a message, an action) is still waiting for its ack. */
  pending(type) {
    for (const frame of this.unacked.values()) if (frame.type === type) return true;
    return false;
  }

  /** Forget an un-acked frame (e.g. the server refused it). */
  forget(clientId) {
    this.unacked.delete(clientId);
    this.sentAt.delete(clientId);
    this.copies.delete(clientId);
  }

  /** Ask the server again for what this page may lack (and to redo lost retrieval). */
  resync() {
    if (this.sync) this.send({ type: "sync", after: this.lastSeq });
  }

  _sendKept(frame) {
    this.unacked.set(frame.client_id, frame);
    this.sentAt.set(frame.client_id, performance.now());
    this.copies.set(frame.client_id, 1);
    return this.send(frame);
  }

  _resendOverdue() {
    if (!this.isOpen) return;
    const now = performance.now();
    for (const [clientId, frame] of this.unacked) {
      const copies = this.copies.get(clientId) ?? 1;
      const wait = doubledWait(RESEND_MS, copies - 1, RESEND_MAX_MS);
      if (now - (this.sentAt.get(clientId) ?? 0) < wait) continue;
      this.sentAt.set(clientId, now);
      this.copies.set(clientId, copies + 1);
      this.send(frame);
    }
  }

  _connect() {
    clearTimeout(this.retryTimer);
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this._scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.onStatus("open");
      if (this.sync) {
        this.send({ type: "sync", after: this.lastSeq });
        const now = performance.now();
        for (const [clientId, frame] of this.unacked) {
          this.sentAt.set(clientId, now);
          this.copies.set(clientId, 1);
          this.send(frame);
        }
        clearInterval(this.resendTimer);
        this.resendTimer = setInterval(() => this._resendOverdue(), RESEND_MS / 5);
      }
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!frame || typeof frame.type !== "string") return;
      this._track(frame);
      this.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      // 4000–4499: the application refused us on purpose (e.g. 4403 not a member): retrying cannot help.
      if (this.stopped || isRefusal(event.code)) {
        this.stopped = true;
        this.onStatus("closed", { code: event.code, reason: event.reason });
        return;
      }
      if (event.code === CLOSE_SERVER_RESTARTING) {
        // A planned restart: another process takes the socket at once (a little jitter spreads the pages).
        this.attempt = 0;
        this._scheduleReconnect(Math.random() * 500);
        return;
      }
      this._scheduleReconnect(event.code === CLOSE_TRY_LATER ? TRY_LATER_MS * (0.75 + Math.random() * 0.5) : undefined);
    });
  }

  _track(frame) {
    if (!this.sync) return;
    if ((frame.type === "message" || frame.type === "ack") && Number.isInteger(frame.seq)) {
      // A message's `ack` (a resend of a stored one) gives its seq: the page has its own text.
      if (frame.seq > this.lastSeq) this.ahead.add(frame.seq);
      while (this.ahead.delete(this.lastSeq + 1)) this.lastSeq += 1;
    }
    if (frame.type === "message" && Number.isInteger(frame.seq)) {
      if (frame.client_id) this.forget(frame.client_id);
    } else if (frame.type === "ack" && frame.client_id) {
      this.forget(frame.client_id);
    } else if (frame.type === "error" && frame.client_id && this.unacked.has(frame.client_id)) {
      // A message's refusal is the page's to handle (it gives the text back); an action's is final
      // unless it passes.
      const kept = this.unacked.get(frame.client_id);
      if (kept.type !== "message" && !PASSING_ERRORS.has(frame.code)) this.forget(frame.client_id);
    }
  }

  /** @param {number} [delayMs]  the wait before reconnecting; exponential backoff when left out */
  _scheduleReconnect(delayMs) {
    if (this.stopped) return;
    this.attempt += 1;
    this.onStatus("reconnecting");
    const delay = delayMs ?? doubledWait(RECONNECT_MS, this.attempt - 1, MAX_BACKOFF_MS) * (0.75 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => this._connect(), delay);
  }
}
