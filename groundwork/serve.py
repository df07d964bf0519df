"""`python -m groundwork.serve [daphne options] groundwork.asgi:application`: daphne, with one change.

daphne's websocket layer (autobahn) fails a connection by dropping TCP when a client breaks a
limit, e.g. a message over --websocket-max-message-size (1 MiB): the client sees close 1006 and no
reason. Here it closes with the websocket close handshake instead: code 1009 and the reason
("... exceeds payload limit of 1048576 octets"). Everything else is daphne's own command line."""

from __future__ import annotations

from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server


def close_with_handshake(server_class: type[Server]) -> type[Server]:
    """A subclass of daphne's Server whose websocket factory closes failed connections with a reason."""

    class HandshakeServer(server_class):  # type: ignore[misc, valid-type]
        # daphne builds its websocket factory inside run(); its assignment is the one hook.
        @property
        def ws_factory(self) -> Any:
            return self.__dict__["_ws_factory"]

        @ws_factory.setter
        def ws_factory(self, factory: Any) -> None:
            factory.failByDrop = False
            self.__dict__["_ws_factory"] = factory

    return HandshakeServer


class GroundworkCommandLine(CommandLineInterface):
    server_class = close_with_handshake(Server)


if __name__ == "__main__":
    GroundworkCommandLine.entrypoint()
