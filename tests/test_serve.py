"""groundwork.serve's command line: daphne's keepalive pings are the pages' heartbeat."""

from __future__ import annotations

from groundwork import serve


def test_a_dead_connection_is_closed_within_a_minute() -> None:
    # daphne pings a socket quiet for --ping-interval seconds and closes it after --ping-timeout
    # more without a pong; until then its member counts as present (collect/lifecycle/heartbeats.py).
    args = serve.GroundworkCommandLine().parser.parse_args(["groundwork.asgi:application"])
    assert args.ping_interval == serve.PING_INTERVAL_S
    assert args.ping_interval + args.ping_timeout <= 60


def test_an_explicit_ping_interval_still_wins() -> None:
    args = serve.GroundworkCommandLine().parser.parse_args(["--ping-interval", "10", "groundwork.asgi:application"])
    assert args.ping_interval == 10
