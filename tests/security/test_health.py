"""/healthz and /readyz, the probes a load balancer uses."""

from __future__ import annotations

import pytest
from django.db import connections

pytestmark = pytest.mark.backends


def test_healthz_says_the_process_is_up(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db(transaction=True)
async def test_readyz_is_ready_when_the_database_and_layer_answer(async_client) -> None:
    response = await async_client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}


@pytest.mark.django_db(transaction=True)
async def test_readyz_names_an_unreachable_channel_layer(async_client, settings) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]}}
    }
    response = await async_client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["channel_layer"].startswith("down")
    assert body["database"] == "ok"
    assert body["status"] == "not ready: channel_layer down"


@pytest.mark.django_db(transaction=True)
async def test_readyz_names_an_unreachable_database(async_client, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise OSError("connection refused")

    # Every thread's connection refuses to open, the way a dead database server does.
    monkeypatch.setattr(type(connections["default"]), "ensure_connection", refuse)
    response = await async_client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["database"].startswith("down")
    assert response.json()["channel_layer"] == "ok"
