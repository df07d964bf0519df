"""A scripted Wizard of Wikipedia worker over the network, doing what the pages do: join by link,
wait on the waiting socket (asking for its status every few seconds), then chat on the room
socket — reconnect with backoff, `sync` from the last seq seen, resend what was not acked (messages,
and the actions choose_topic and rate, each with a client_id), ask again (`sync`) for a knowledge
panel that is late, and record how each connection was closed. Used by
the multi-process fault tests and by bench/chat_load.py; it needs `websockets`, not Django's settings.

A `Node` list stands for the servers: a page that loses its connection retries the same node and
then the others, as a browser behind a load balancer would."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import websockets

from collect.frames import unbundled

STATUS_EVERY_S = 5.0
# As static/js/socket.js and knowledge.js: an unacknowledged frame is resent after RESEND_S on an
# open socket, each further copy after twice the wait of the one before (up to RESEND_MAX_S), and a
# knowledge panel this late is asked for again with a `sync`.
RESEND_S = 5.0
RESEND_MAX_S = 30.0
KNOWLEDGE_OVERDUE_S = 2.5


def doubled_wait(base_s: float, tries: int, cap_s: float) -> float:
    """As static/js/backoff.js: the wait after `tries` unanswered tries, base_s and then twice the
    wait before, never more than cap_s. A server that answers late is asked less often, not more."""
    return min(base_s * 2 ** max(0, tries), cap_s)


def resend_wait(copies: int) -> float:
    """Seconds from the last copy of an unacknowledged frame to the next, after `copies` copies on
    the open socket."""
    return doubled_wait(RESEND_S, copies - 1, RESEND_MAX_S)


@dataclass
class Stats:
    """What one worker saw; the bench and the tests add these up."""

    ack_ms: list[float] = field(default_factory=list)
    ack_at: list[float] = field(default_factory=list)  # time.time() of each ack_ms, to place a slow one
    delivery_ms: list[float] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)  # client_id → acked seq
    received: dict[int, int] = field(default_factory=dict)  # seq → times received
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)
    # The wizard's wait for the knowledge retrieved for the partner's last message, from the
    # moment it was their turn; and how many turns that knowledge did not come in time.
    knowledge_wait_ms: list[float] = field(default_factory=list)
    knowledge_missed: int = 0
    # How the server closed this worker's connections (close code → count; 1006: cut without one).
    closes: Counter[int] = field(default_factory=Counter)
    knowledge_resyncs: int = 0  # `sync`s sent because a panel was late
    resends: int = 0  # copies of unacknowledged frames sent again on an open socket


# client_id → monotonic send time, shared by the workers of one process (for delivery latency).
SENT_AT: dict[str, float] = {}


async def http_join(host: str, port: int, path: str, jar: dict[str, str]) -> str:
    """GET a join link as a browser does: with the cookies in `jar`, which takes every cookie the
    answer sets, a failed one's too (the browser binding comes with an error page as well). The
    redirect's location; RuntimeError when the answer is not a redirect with a session."""
    reader, writer = await asyncio.open_connection(host, port)
    cookies = f"Cookie: {'; '.join(f'{name}={value}' for name, value in jar.items())}\r\n" if jar else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{cookies}Connection: close\r\n\r\n".encode())
    await writer.drain()
    try:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    except asyncio.IncompleteReadError as error:
        head = error.partial.decode("latin-1")
    writer.close()
    location = ""
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "set-cookie":
            cookie, _, _ = value.strip().partition(";")
            key, _, cookie_value = cookie.partition("=")
            jar[key] = cookie_value
        elif name.lower() == "location":
            location = urlsplit(value.strip()).path
    if "sessionid" not in jar or not location:
        raise RuntimeError(f"join {path} failed: {head.splitlines()[0] if head else 'no answer'}")
    return location


class Worker:
    def __init__(self, name: str, campaign: str, nodes: list[tuple[str, int]], *, home: int = 0,
                 think_s: float = 0.05, rng: random.Random | None = None, knowledge_wait_s: float = 20.0) -> None:
        self.name, self.campaign, self.nodes, self.node = name, campaign, nodes, home % len(nodes)
        self.think_s, self.rng, self.knowledge_wait_s = think_s, rng or random.Random(name), knowledge_wait_s
        self.stats = Stats()
        self.jar: dict[str, str] = {}  # the browser's cookies for the join link
        self.cookie = ""  # the session's, for the sockets
        self.role = ""
        self.room_path = ""
        self.state: dict[str, Any] = {}
        self.knowledge: dict[str, Any] = {}
        self.timed_turns: set[int] = set()  # the turns whose panel wait is in the stats
        self.last_seq = 0  # the highest seq seen
        # As static/js/socket.js: the highest seq up to which the page has every message, its
        # syncs' `after`; the seqs seen past a gap wait in `ahead`.
        self.have_to = 0
        self.ahead: set[int] = set()
        self.socket_seqs: set[int] = set()  # the seqs the open socket sent
        self.socket_after = 0  # the `after` of the open socket's first sync
        self.acked_seq = 0  # the seq of this worker's last acknowledged message
        self.acted: tuple[str, int] | None = None  # (status, last_seq) of the last choose_topic/rate sent
        self.unacked: dict[str, dict[str, Any]] = {}
        self.actions: dict[str, dict[str, Any]] = {}  # client_id → action frame not yet acked
        self.copies: dict[str, tuple[float, int]] = {}  # client_id → (last sent, copies on this socket)
        self.changed = asyncio.Event()
        self.waiting = asyncio.Event()  # set once the waiting page's socket is open
        self.done = False
        self.paused = False  # a paused worker sends no more messages (the bench's drain)
        self.socket: Any = None
        # (node index, time.monotonic()) when the page, leaving, began closing its final socket: a
        # server killed after that moment may have died before it handled the close.
        self.closed_on: tuple[int, float] | None = None

    # --- connections
    async def _connect(self, path: str) -> Any:
        delay = 0.2
        while True:
            host, port = self.nodes[self.node]
            try:
                return await websockets.connect(
                    f"ws://{host}:{port}{path}", additional_headers={"Cookie": self.cookie, "Origin": f"http://{host}"},
                    open_timeout=60, ping_interval=None, max_size=2**20,
                )
            except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake):
                self.node = (self.node + 1) % len(self.nodes)  # the next server, as a balancer would
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)

    async def join(self) -> None:
        while True:
            host, port = self.nodes[self.node]
            try:
                location = await http_join(host, port, f"/join/{self.campaign}/?worker={self.name}", self.jar)
                self.cookie = f"sessionid={self.jar['sessionid']}"
                break
            except (OSError, RuntimeError):  # a server that died or cut the connection: try another
                self.node = (self.node + 1) % len(self.nodes)
                await asyncio.sleep(0.2)
        assignment = location.rstrip("/").split("/")[-2]
        await self.wait(f"/ws/wait/{assignment}/")

    async def wait(self, path: str) -> None:
        while not self.room_path:
            socket = await self._connect(path)
            self.waiting.set()
            asker = asyncio.create_task(self._ask(socket))
            try:
                async for raw in socket:
                    frame = json.loads(raw)
                    if frame["type"] == "paired":
                        self.room_path, self.role = frame["room_url"].replace("/room/", "/ws/room/"), frame["role"]
                        break
                    if frame["type"] == "timeout":
                        raise RuntimeError(f"{self.name}: no partner in time")
            except websockets.ConnectionClosed as closed:
                self.stats.reconnects += 1
                self._closed(closed)
            finally:
                asker.cancel()
                await socket.close()

    async def _ask(self, socket: Any) -> None:
        while True:
            await asyncio.sleep(STATUS_EVERY_S)
            await socket.send(json.dumps({"type": "status"}))

    # --- the room
    async def chat(self) -> None:
        """Run the dialogue to its end (status complete/incomplete), reconnecting as often as needed."""
        driver = asyncio.create_task(self._drive())
        resender = asyncio.create_task(self._resend_overdue())
        try:
            backoff = 0.0
            while not self.done:
                if backoff:
                    # As static/js/socket.js after a close: a server that has lost Redis closes
                    # every socket again at once (4500) until Redis is back.
                    await asyncio.sleep(backoff * self.rng.uniform(0.75, 1.25))
                self.socket = await self._connect(self.room_path)
                self.socket_seqs, self.socket_after = set(), self.have_to
                try:
                    await self.socket.send(json.dumps({"type": "sync", "after": self.have_to}))
                    for frame in [*self.unacked.values(), *self.actions.values()]:
                        self.copies[frame["client_id"]] = (time.monotonic(), 1)
                        await self.socket.send(json.dumps(frame))
                    async for raw in self.socket:
                        for frame in unbundled(json.loads(raw)):
                            self._on_frame(frame)
                            if frame["type"] == "message":
                                backoff = 0.0  # the room is flowing again
                        if self.done:
                            break
                except websockets.ConnectionClosed as closed:
                    self.stats.reconnects += 1
                    self._closed(closed)
                    backoff = min(2.0, max(0.1, backoff * 2))
                finally:
                    socket, self.socket = self.socket, None
                    if self.done:
                        self.closed_on = (self.node, time.monotonic())
                    # A page that leaves closes its socket: the server marks the member gone.
                    await socket.close()
            await asyncio.sleep(0)
        finally:
            driver.cancel()
            resender.cancel()

    def _closed(self, closed: websockets.ConnectionClosed) -> None:
        self.stats.closes[closed.rcvd.code if closed.rcvd is not None else 1006] += 1

    async def _resend_overdue(self) -> None:
        """What is still unacknowledged goes again on the open socket once its wait is over (its
        first copy or its ack may have died with a server process; the server applies it once)."""
        while True:
            await asyncio.sleep(RESEND_S / 5)
            now = time.monotonic()
            waiting = [*self.unacked.values(), *self.actions.values()]
            self.copies = {f["client_id"]: self.copies.get(f["client_id"], (now, 1)) for f in waiting}
            for frame in waiting:
                sent, copies = self.copies[frame["client_id"]]
                if self.socket is not None and now - sent >= resend_wait(copies):
                    self.copies[frame["client_id"]] = (now, copies + 1)
                    self.stats.resends += 1
                    await self._send(frame)

    def _on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        now = time.monotonic()
        if kind == "message":
            seq = frame["seq"]
            if seq not in self.stats.received or seq in self.socket_seqs or seq <= self.socket_after:
                # A second copy counts only where the server must not send one: twice on one socket,
                # or at or below what the socket's sync said the page has. A seq past a gap the
                # page had when it reconnected comes again by right (it asked from the gap).
                self.stats.received[seq] = self.stats.received.get(seq, 0) + 1
            self.socket_seqs.add(seq)
            self.last_seq = max(self.last_seq, seq)
            self._have(seq)
            if frame["role"] != self.role and self.stats.received[seq] == 1 and frame["client_id"] in SENT_AT:
                self.stats.delivery_ms.append((now - SENT_AT[frame["client_id"]]) * 1000)
            self._acked(frame["client_id"], seq, now)
        elif kind == "ack" and "action" in frame:
            self.actions.pop(frame["client_id"], None)
        elif kind == "ack":
            self._have(frame["seq"])  # the page has its own message's text
            self._acked(frame["client_id"], frame["seq"], now)
        elif kind == "state":
            self.state = frame
        elif kind == "knowledge":
            self.knowledge = frame
        elif kind == "error":
            self.stats.errors.append(frame["code"])
            if frame.get("client_id") in self.unacked:
                del self.unacked[frame["client_id"]]  # refused: the driver writes it again
            if self.actions.pop(frame.get("client_id"), None) is not None:
                self.acted = None  # refused: the driver decides again
        # Over once the room has ended and this page has every message: a page that reconnects
        # after the end gets the ended state on connecting, before its sync's catch-up.
        self.done = self.state.get("status") in ("complete", "incomplete") and self.last_seq >= self.state.get("last_seq", 0)
        self.changed.set()

    def _have(self, seq: int) -> None:
        if seq > self.have_to:
            self.ahead.add(seq)
        while self.have_to + 1 in self.ahead:
            self.have_to += 1
            self.ahead.discard(self.have_to)

    def _acked(self, client_id: str, seq: int, now: float) -> None:
        """The first frame that acknowledges a message: its own `message` frame coming back, or an
        `ack` (a resend of a stored one)."""
        if client_id not in self.unacked:
            return
        del self.unacked[client_id]
        self.stats.sent[client_id] = seq
        self.acked_seq = max(self.acked_seq, seq)
        if client_id in SENT_AT:
            self.stats.ack_ms.append((now - SENT_AT[client_id]) * 1000)
            self.stats.ack_at.append(time.time())

    async def _send(self, frame: dict[str, Any]) -> None:
        if self.socket is not None:
            try:
                await self.socket.send(json.dumps(frame))
            except websockets.ConnectionClosed:
                pass  # resent after the reconnect

    async def _drive(self) -> None:
        while not self.done:
            self.changed.clear()
            await self._step()
            await self.changed.wait()

    async def _step(self) -> None:
        state = self.state
        if self.paused or not state or self.unacked or self.actions or state.get("last_seq", 0) > self.last_seq:
            return
        if state.get("last_seq", 0) < self.acked_seq:
            return  # the state after this worker's own last message is still on its way
        moment = (state["status"], state.get("last_seq", 0))
        if state["status"] == "choosing_topic" and state.get("persona") and self.acted != moment:
            self.acted = moment
            await self._act({"type": "choose_topic", "topic": state["persona"]["topics"][0]})
        elif state["status"] == "rating" and self.role == "apprentice" and self.acted != moment:
            self.acted = moment
            await self._act({"type": "rate", "rating": 5})
        elif state["status"] == "chatting" and state["your_turn"]:
            await self._say(state["last_seq"])

    async def _act(self, frame: dict[str, Any]) -> None:
        """An action, kept and resent (after a reconnect, and every RESEND_S) until its ack."""
        frame = {**frame, "client_id": uuid.uuid4().hex}
        self.actions[frame["client_id"]] = frame
        self.copies[frame["client_id"]] = (time.monotonic(), 1)
        await self._send(frame)

    async def _say(self, seq: int) -> None:
        frame: dict[str, Any] = {"type": "message", "client_id": uuid.uuid4().hex, "text": ""}
        # Like a person, the wizard reads and writes while the knowledge for the turn loads: the
        # think time runs from the start of the turn, and a panel delays the message only when it
        # arrives after that.
        ready_at = time.monotonic() + self.think_s * self.rng.uniform(0.5, 1.5)
        if self.role == "wizard":
            checked = await self._checked(seq)
            if checked is None or self.state.get("last_seq") != seq or self.unacked:
                return
            frame["checked"] = checked
        await asyncio.sleep(max(0.0, ready_at - time.monotonic()))
        if self.done or self.paused or self.state.get("last_seq") != seq or self.unacked:
            return
        frame["text"] = f"{self.name} turn {seq + 1}: tell me about blues and guitars ({frame['client_id'][:6]})"
        self.unacked[frame["client_id"]] = frame
        SENT_AT[frame["client_id"]] = time.monotonic()
        self.copies[frame["client_id"]] = (SENT_AT[frame["client_id"]], 1)
        await self._send(frame)

    async def _checked(self, seq: int) -> dict[str, Any] | None:
        """A sentence from the knowledge shown for this turn: the partner's passages once retrieval
        for their last message has arrived (waited for, and asked for again while late), else the
        topic passage. A panel for the turn that lacks the partner's passages (a `sync` answered
        before their retrieval was saved) is still waited on, but, as the page, no longer asked
        for: the server owes the partner's passages by itself."""
        began = time.monotonic()
        deadline = began + self.knowledge_wait_s
        ask_at = began + KNOWLEDGE_OVERDUE_S
        asks = 0
        while not self._panel_for(seq) and time.monotonic() < deadline and not self.done:
            asking = self.knowledge.get("after_seq") != seq
            if asking and time.monotonic() >= ask_at:
                # Late: its retrieval or its delivery may have been lost; the server redoes or resends
                # it. As the page, each further ask waits twice as long: a busy server gets fewer.
                asks += 1
                ask_at = time.monotonic() + doubled_wait(KNOWLEDGE_OVERDUE_S, asks, self.knowledge_wait_s)
                self.stats.knowledge_resyncs += 1
                await self._send({"type": "sync", "after": self.have_to})
            self.changed.clear()
            try:
                wake = min(deadline, ask_at) if asking else deadline
                await asyncio.wait_for(self.changed.wait(), max(0.01, wake - time.monotonic()))
            except asyncio.TimeoutError:
                continue
        arrived = self._panel_for(seq)
        if seq not in self.timed_turns:  # a message written again (refused) is the same turn
            self.timed_turns.add(seq)
            if arrived:
                self.stats.knowledge_wait_ms.append((time.monotonic() - began) * 1000)
            else:
                self.stats.knowledge_missed += 1
        passages = self.knowledge.get("passages", []) if self.knowledge.get("after_seq") == seq else []
        partner = [p for p in passages if p["source"] == "partner" and p["sentences"]]
        if partner:
            return {"source": "partner", "passage": partner[0]["passage"], "sentence": 0, "knowledge_seq": seq}
        chosen = [p for p in passages if p["source"] == "chosen" and p["sentences"]]
        if chosen:
            return {"source": "chosen", "passage": 0, "sentence": 0}
        return {"no_passages_used": True}

    def _panel_for(self, seq: int) -> bool:
        """Whether the panel shown is the one for the turn after message `seq`, with the passages
        retrieved for that message (the partner's) when there is one."""
        if self.knowledge.get("after_seq") != seq:
            return False
        return seq == 0 or any(p["source"] == "partner" for p in self.knowledge.get("passages", []))

    async def run(self) -> Worker:
        await self.join()
        await self.chat()
        return self
