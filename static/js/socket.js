// A reconnecting websocket client for Groundwork's sockets (docs/websocket-protocol.md).
//
// - Close codes (collect/consumers/close_codes.py): 4000–4499 are the server's refusals (4403 not a
//   member, 4404 no such socket): final, the page says why. 4500–4999 mean "come back": 4503 (the
//   process is restarting) reconnects at once, 4504 (too many sockets) after a longer wait, 4500
//   (the server lost its database or channel layer) with backoff. Any other close (a dropped
//   connection) reconnects with backoff.
// - Sends no heartbeat frames: the server pings a quiet connection at the websocket level, which the
//   browser answers by itself (even for a background tab), and counts an open socket as present.
// - With `sync: true` (room socket): remembers the highest message seq seen, sends
//   {"type":"sync","after":seq} after every (re)connect, and resends messages that were never
//   acknowledged (by their own `message` frame coming back, or an `ack`) with the same client_id —
//   the server stores a resend once and acks it with the same seq.

import { socketUrl } from "./dom.js";

const MAX_BACKOFF_MS = 10000;
export const CLOSE_SERVER_RESTARTING = 4503;
export const CLOSE_TRY_LATER = 4504;
const TRY_LATER_MS = 15000;

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
    this.lastSeq = 0;
    /** client_id → message frame not yet acked, in sending order */
    this.unacked = new Map();
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

  /** Send a chat message; it is kept and resent after a reconnect until acked or refused. */
  sendMessage(frame) {
    this.unacked.set(frame.client_id, frame);
    this.send(frame);
  }

  /** Forget an un-acked message (e.g. the server refused it). */
  forget(clientId) {
    this.unacked.delete(clientId);
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
        for (const frame of this.unacked.values()) this.send(frame);
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
    if (frame.type === "message" && Number.isInteger(frame.seq)) {
      this.lastSeq = Math.max(this.lastSeq, frame.seq);
      if (frame.client_id) this.unacked.delete(frame.client_id);
    } else if (frame.type === "ack" && frame.client_id) {
      this.unacked.delete(frame.client_id);
    }
  }

  /** @param {number} [delayMs]  the wait before reconnecting; exponential backoff when left out */
  _scheduleReconnect(delayMs) {
    if (this.stopped) return;
    this.attempt += 1;
    this.onStatus("reconnecting");
    const delay = delayMs ?? Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(this.attempt - 1, 5)) * (0.75 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => this._connect(), delay);
  }
}
