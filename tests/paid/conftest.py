from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.paid.standin import StandIn, serve


@pytest.fixture
def standin() -> Iterator[StandIn]:
    state, server = serve()
    yield state
    server.shutdown()
    server.server_close()
