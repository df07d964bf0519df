"""The yardstick of bench/chat_load.py: a bare Channels relay on the same channel layer. A socket
on /relay/<room>/ joins the room's group; every text frame is sent to the group as it is. No
database, no validation, no state: what Channels + daphne + the layer cost per message by
themselves. Served as `daphne bench.bare_relay:application` with REDIS_URL set."""

from __future__ import annotations

import os

import django
from django.conf import settings

if not settings.configured:
    settings.configure(
        INSTALLED_APPS=["channels"],
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "groundwork.channel_layer.ProcessReaderChannelLayer",
                # The same layer settings as groundwork/settings.py.
                "CONFIG": {
                    "hosts": [{"address": os.environ["REDIS_URL"], "socket_timeout": None, "max_connections": 1000}],
                    "capacity": 1500,
                    "expiry": 60,
                },
            }
        },
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class Relay(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"relay.{self.scope['url_route']['kwargs']['room']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.channel_layer.group_send(self.group, {"type": "relay.text", "text": text_data})

    async def relay_text(self, event: dict[str, str]) -> None:
        await self.send(text_data=event["text"])


application = ProtocolTypeRouter({"websocket": URLRouter([path("relay/<str:room>/", Relay.as_asgi())])})
