"""The application close codes of Groundwork's sockets (docs/websocket-protocol.md#close-codes).

autobahn (daphne's websocket layer) refuses the IANA codes 1012 and 1013 ("invalid close code"),
so every condition the server knows about has a code in 4000–4999, sent with a short reason.
The page's rule (static/js/socket.js): 4000–4499 are refusals, final, the page says why and stops;
4500–4999 mean "come back": the page reconnects (after `retry` for 4504) and resyncs."""

from __future__ import annotations

# Refusals: reconnecting cannot help.
NOT_MEMBER = 4403  # the socket's room or assignment is not this worker's
NOT_FOUND = 4404  # no socket lives at this path
# Come back: the page reconnects and resyncs.
SERVICE_LOST = 4500  # this process lost its database or channel layer under the socket
SERVER_RESTARTING = 4503  # this process is shutting down (a deploy or restart): reconnect at once, elsewhere
TRY_LATER = 4504  # too many sockets or frames from this worker or address: reconnect after a wait

REASONS = {
    NOT_MEMBER: "not_member",
    NOT_FOUND: "not_found",
    SERVICE_LOST: "service_lost",
    SERVER_RESTARTING: "server_restarting",
    TRY_LATER: "try_later",
}
