"""groundwork.serve's command line: daphne's keepalive pings are left to pages that went quiet."""

from __future__ import annotations

import re
from pathlib import Path

from collect import netclient
from groundwork import serve

ROOT = Path(__file__).resolve().parent.parent


def page_ping_ms() -> int:
    found = re.search(r"const PING_MS = (\d+);", (ROOT / "static" / "js" / "socket.js").read_text())
    assert found, "static/js/socket.js no longer names PING_MS"
    return int(found.group(1))


def test_daphne_pings_only_a_socket_whose_page_has_gone_quiet() -> None:
    # daphne pings a socket that has sent nothing for --ping-interval seconds; a live page sends
    # its own ping more often than that, so it is never pinged.
    interval = serve.GroundworkCommandLine().parser.parse_args(["groundwork.asgi:application"]).ping_interval
    assert interval == serve.PING_INTERVAL_S
    assert interval * 1000 >= 1.3 * page_ping_ms()
    # The load bench's scripted pages ping as the real ones do.
    assert netclient.PING_EVERY_S * 1000 == page_ping_ms()


def test_an_explicit_ping_interval_still_wins() -> None:
    args = serve.GroundworkCommandLine().parser.parse_args(["--ping-interval", "10", "groundwork.asgi:application"])
    assert args.ping_interval == 10
