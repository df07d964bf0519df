"""A chat process's graceful stop: what `groundwork.serve` does on SIGTERM (a deploy, a rolling
restart, `supervisorctl stop`), instead of daphne's immediate stop.

1. It stops listening, so that the proxy's next connection (a reconnecting page, a health check)
   goes to another process: HAProxy retries a refused connection elsewhere, and its checks take
   this one out of rotation. Idle keep-alive HTTP connections are closed, and one with a request
   in flight closes after its response, so that the proxy sends no new request over them.
2. It closes every open websocket with close code 4503 `server_restarting`
   (groundwork/close_codes.py): the page reconnects at once, through the proxy, to another
   process, and resyncs; an unacknowledged message is resent there (message_post is idempotent).
3. It waits until every socket is closed and every application instance (a consumer's disconnect
   handler, an HTTP request in flight) has finished, or GROUNDWORK_SHUTDOWN_GRACE_S (default 10 s)
   have passed, and then stops daphne's reactor, which cancels whatever is still running. (daphne
   itself cancels a socket's handler still running 10 s after its socket closed: its
   application_close_timeout.)

A second SIGTERM, or SIGINT, stops at once. The supervisor's stopwaitsecs must be longer than the
grace (groundwork/topology.py)."""

from __future__ import annotations

import logging
import os
import time
import weakref
from typing import Any

from autobahn.websocket.protocol import WebSocketProtocol as AutobahnProtocol
from daphne.ws_protocol import WebSocketProtocol

from groundwork.close_codes import REASONS, SERVER_RESTARTING

log = logging.getLogger("groundwork.shutdown")
DEFAULT_GRACE_S = 10.0
CHECK_EVERY_S = 0.1


def grace_seconds() -> float:
    # Read here, not in settings: groundwork.serve installs the drain before the application (and
    # Django's settings with it) is imported, and a SIGTERM may come while it still imports.
    raw = os.environ.get("GROUNDWORK_SHUTDOWN_GRACE_S", "").strip()
    if not raw:
        return DEFAULT_GRACE_S
    try:
        value = float(raw)
    except ValueError:
        raise SystemExit(f"GROUNDWORK_SHUTDOWN_GRACE_S={raw!r} must be a number of seconds") from None
    if value < 0:
        raise SystemExit(f"GROUNDWORK_SHUTDOWN_GRACE_S={raw!r} must not be negative")
    return value


def busy(protocol: Any, details: dict[str, Any]) -> bool:
    """A connection the process must not cut: an open websocket, or any connection whose
    application instance is still running. An idle keep-alive HTTP connection is not busy."""
    if isinstance(protocol, WebSocketProtocol) and "disconnected" not in details:
        return True
    instance = details.get("application_instance")
    return instance is not None and not instance.done()


class Drain:
    """The steps above for one daphne `Server`, run on its reactor."""

    def __init__(self, server: Any, reactor: Any, *, grace_s: float) -> None:
        self.server, self.reactor, self.grace_s = server, reactor, grace_s
        self.ports: list[Any] = []  # the listening ports, kept as daphne reports them
        self.channels: weakref.WeakSet[Any] = weakref.WeakSet()  # every HTTP connection (Twisted's HTTPChannel)
        self.started: float | None = None
        self.closed = 0
        self.idle_closed = 0

    def listening(self, port: Any) -> None:
        self.ports.append(port)

    def on_sigterm(self, number: int, frame: Any = None) -> None:
        """The reactor's SIGTERM handler (called in signal context: hand over to the reactor)."""
        if self.started is not None:
            self.reactor.sigTerm_immediate(number, frame)
            return
        self.reactor.callFromThread(self.begin)

    def begin(self) -> None:
        if self.started is not None:
            return
        self.started = time.monotonic()
        for port in self.ports:
            port.stopListening()
        for protocol in list(self.channels):
            # Twisted wraps each HTTPChannel in a protocol that could switch it to HTTP/2.
            channel = getattr(protocol, "_channel", protocol)
            transport = getattr(channel, "transport", None)
            if transport is None or getattr(transport, "protocol", protocol) is not protocol:
                continue  # closed, or upgraded to a websocket (closed below)
            if channel.requests:
                channel.persistent = False  # closed once its response is written
            else:
                transport.loseConnection()
                self.idle_closed += 1
        reason = REASONS[SERVER_RESTARTING]
        for protocol in list(self.server.connections):
            if isinstance(protocol, WebSocketProtocol) and protocol.state == AutobahnProtocol.STATE_OPEN:
                protocol.sendClose(code=SERVER_RESTARTING, reason=reason)
                self.closed += 1
        log.warning("SIGTERM: stopped listening; closed %d idle HTTP connections and %d websockets with %d %s; "
                    "exiting when they have gone (at most %.0f s)", self.idle_closed, self.closed, SERVER_RESTARTING,
                    reason, self.grace_s)
        self.check()

    def check(self) -> None:
        left = sum(1 for protocol, details in list(self.server.connections.items()) if busy(protocol, details))
        assert self.started is not None
        waited = time.monotonic() - self.started
        if left and waited < self.grace_s:
            self.reactor.callLater(CHECK_EVERY_S, self.check)
            return
        if left:
            log.warning("SIGTERM: %d connections still busy after %.1f s; stopping anyway", left, waited)
        else:
            log.warning("SIGTERM: every connection gone after %.1f s; stopping", waited)
        self.server.stop()


def install(server: Any, reactor: Any) -> Drain:
    """Make SIGTERM drain `server` (before reactor.run installs the handlers, which read the
    reactor's `sigTerm`); a second SIGTERM is the reactor's own immediate stop."""
    drain = Drain(server, reactor, grace_s=grace_seconds())
    reactor.sigTerm_immediate = reactor.sigTerm
    reactor.sigTerm = drain.on_sigterm
    return drain
