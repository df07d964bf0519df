"""`python -m groundwork.serve [daphne options] groundwork.asgi:application`: daphne, with oversized
messages refused instead of fatal.

daphne's websocket layer (autobahn) fails a connection whose client sends a message over
--websocket-max-message-size (1 MiB), and does so by dropping TCP: the page sees close 1006 and no
reason, and loses its socket for one bad frame. Here such a message is read to its end and thrown
away, and the page gets the `too_large` error frame that any frame over GROUNDWORK_WS_MAX_FRAME_BYTES
gets from Groundwork; the socket stays open. Only a message past DISCARD_FACTOR times the limit
(someone streaming data at the server) still fails the connection, with the websocket close
handshake: code 1009 and autobahn's reason.

daphne pings a websocket whose page has sent nothing for --ping-interval seconds (20 by default)
and closes it when no pong comes within --ping-timeout (30). Those pings are the pages' heartbeat:
a browser answers them itself, even in a background tab whose timers it throttles, so the pages
send no heartbeat frames, and an open socket is a present member (collect/lifecycle/heartbeats.py).
Here the default interval is PING_INTERVAL_S: a page gone for good is closed within a minute, and a
chatting page, which sends its messages, is seldom pinged at all. A proxy in front must keep a
quiet websocket longer than that (HAProxy's `timeout tunnel` in `make run-prod`).

SIGTERM drains the process instead of stopping it at once (groundwork/shutdown.py): it stops
listening, closes every websocket with close code 4503 `server_restarting` so that the pages
reconnect elsewhere, and exits once they have gone or GROUNDWORK_SHUTDOWN_GRACE_S have passed.

The application is imported in a thread while the server starts listening (groundwork/startup.py):
a restarted process answers /healthz at once and /readyz with 503 until the import is done, and
holds every other connection until then. The garbage collector is then told to leave what it
loaded alone (groundwork.gc_tuning).

The access log never holds a secret: every path it is given (a join link's `sig=`, a token in a
query string) is redacted first (groundwork.logs.redact). With GROUNDWORK_LOG_FORMAT=json its
lines go through logging (logger `groundwork.access`) as JSON objects like every other line, with
the client, method, path, status, size and duration as fields. Everything else is daphne's own
command line."""

from __future__ import annotations

import json
import logging
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol

from groundwork import gc_tuning, shutdown
from groundwork.logs import redact
from groundwork.startup import DeferredApplication

# Past this many times the limit, a message is not worth reading to its end.
DISCARD_FACTOR = 64
# With daphne's 30 s pong timeout, a dead connection is closed within a minute.
PING_INTERVAL_S = 30


def too_large_frame(limit: int) -> bytes:
    error = {"type": "error", "code": "too_large", "message": f"Frame is larger than {limit} bytes."}
    return json.dumps(error).encode()


class OversizeRefusingProtocol(WebSocketProtocol):
    """autobahn's message hooks, skipping the data of a message over the limit (nothing of it is
    kept) and answering it with an error frame when it ends."""

    oversize = False

    def _max_message_size_exceeded(self, msg_size: int, max_msg_size: int, reason: str) -> None:
        # Called by autobahn for a message (or a frame) over the limit. A compressed message is
        # checked after inflating, where skipping is not possible: that one fails as before.
        if getattr(self, "_isMessageCompressed", False) or msg_size > DISCARD_FACTOR * max_msg_size:
            super()._max_message_size_exceeded(msg_size, max_msg_size, reason)
            return
        self.oversize = True
        self.message_data = []

    def onMessageBegin(self, isBinary: bool) -> None:
        self.oversize = False
        super().onMessageBegin(isBinary)

    def onMessageFrameBegin(self, length: int) -> None:
        if not self.oversize:
            super().onMessageFrameBegin(length)  # may find the message over the limit
            return
        self.frame_data = []
        self.message_data_total_length += length
        if self.message_data_total_length > DISCARD_FACTOR * self.maxMessagePayloadSize:
            self.oversize = False
            super()._max_message_size_exceeded(
                self.message_data_total_length, self.maxMessagePayloadSize,
                f"received WebSocket message size {self.message_data_total_length} exceeds payload limit of "
                f"{self.maxMessagePayloadSize} octets",
            )

    def onMessageFrameData(self, payload: bytes) -> None:
        if not self.oversize:
            super().onMessageFrameData(payload)

    def onMessageFrameEnd(self) -> None:
        if self.oversize:
            self.frame_data = None
            return
        super().onMessageFrameEnd()

    def onMessageEnd(self) -> None:
        if not self.oversize:
            super().onMessageEnd()
            return
        self.oversize = False
        self.message_data = None
        self.sendMessage(too_large_frame(self.maxMessagePayloadSize), isBinary=False)


def with_frame_limits(server_class: type[Server]) -> type[Server]:
    """A subclass of daphne's Server whose websocket connections refuse oversized messages with an
    error frame and close failed connections with the handshake (a code and a reason)."""

    class GroundworkServer(server_class):  # type: ignore[misc, valid-type]
        # daphne builds its websocket factory inside run(); its assignment is the one hook.
        @property
        def ws_factory(self) -> Any:
            return self.__dict__["_ws_factory"]

        @ws_factory.setter
        def ws_factory(self, factory: Any) -> None:
            factory.failByDrop = False
            factory.protocol = OversizeRefusingProtocol
            self.__dict__["_ws_factory"] = factory

    return GroundworkServer


class JsonAccessLog:
    """daphne's action logger, writing through logging: one record per request or socket event."""

    log = logging.getLogger("groundwork.access")

    def __call__(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        event = ACCESS_EVENTS.get((protocol, action))
        if event is None:
            return
        fields = {"client": details.get("client"), "path": details.get("path")}
        if protocol == "http":
            fields |= {"method": details.get("method"), "status": details.get("status"), "size": details.get("size"),
                       "duration_ms": round(1000 * float(details.get("time_taken") or 0), 1)}
            event = fields["method"] or event
        self.log.info("%s %s", event, fields["path"], extra=fields)


# What daphne's own AccessLogGenerator writes a line for, and the verb it gives each.
ACCESS_EVENTS = {
    ("http", "complete"): "HTTP",
    ("websocket", "connecting"): "WSCONNECTING",
    ("websocket", "rejected"): "WSREJECT",
    ("websocket", "connected"): "WSCONNECT",
    ("websocket", "disconnected"): "WSDISCONNECT",
}


class GroundworkServer(with_frame_limits(Server)):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(self.application, DeferredApplication):
            # The settings are known once the application has been imported.
            self.application.when_loaded(self._choose_access_log)
            # What the import loaded lives as long as the process.
            self.application.when_loaded(gc_tuning.settle)
        else:
            self._choose_access_log()

    def _choose_access_log(self) -> None:
        if self.action_logger is not None and _log_format() == "json":
            self.action_logger = JsonAccessLog()

    def log_action(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        # Whichever access log is configured, it is given the path with its secrets taken out.
        if isinstance(details.get("path"), str):
            details = {**details, "path": redact(details["path"])}
        super().log_action(protocol, action, details)

    def run(self) -> None:
        if isinstance(self.application, DeferredApplication):
            self.application.start()  # imports it while the reactor below starts listening
        else:
            # daphne has imported the application: what it loaded lives as long as the process.
            gc_tuning.settle()
        from daphne.server import reactor

        self.drain = shutdown.install(self, reactor)
        super().run()

    def listen_success(self, port: Any) -> None:
        self.drain.listening(port)  # to stop listening on SIGTERM
        super().listen_success(port)

    # Like ws_factory above: daphne assigns its HTTP factory in run(); the drain closes the idle
    # keep-alive connections it builds (a proxy would send new requests over them).
    @property
    def http_factory(self) -> Any:
        return self.__dict__["_http_factory"]

    @http_factory.setter
    def http_factory(self, factory: Any) -> None:
        build = factory.buildProtocol

        def build_and_keep(addr: Any) -> Any:
            channel = build(addr)
            self.drain.channels.add(channel)
            return channel

        factory.buildProtocol = build_and_keep
        self.__dict__["_http_factory"] = factory


def _log_format() -> str:
    from django.conf import settings

    return str(getattr(settings, "LOG_FORMAT", "text")) if settings.configured else "text"


class GroundworkCommandLine(CommandLineInterface):
    server_class = GroundworkServer

    def __init__(self) -> None:
        super().__init__()
        self.parser.set_defaults(ping_interval=PING_INTERVAL_S)

    def load_asgi_app(self, asgi_app_path: str) -> DeferredApplication:
        # Not imported here: GroundworkServer.run() starts the import, and listens meanwhile.
        return DeferredApplication(asgi_app_path)


if __name__ == "__main__":
    GroundworkCommandLine.entrypoint()
