"""The yardstick of bench/chat_load.py: a bare Channels relay on the same channel layer. A socket
on /relay/<room>/ joins the room's group; every text frame is sent back to its sender and, through
the layer, to the rest of the group, as it is. No database, no validation, no state: what
Channels + daphne + the layer cost per message by themselves. Served as
`daphne bench.bare_relay:application` with REDIS_URL set."""

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

from groundwork.channel_layer import group_send_except  # noqa: E402


class Relay(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"relay.{self.scope['url_route']['kwargs']['room']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # As a chat message is carried (collect/consumers/room.py): the sender answered on its own
        # socket, the partner through the layer. A group send to both would cost a room whose two
        # sockets are on different processes two queue entries and two reads per message where
        # the chat pays one, and make the yardstick dearer on a topology than the chat is.
        await self.send(text_data=text_data)
        await group_send_except(self.channel_layer, self.group, {"type": "relay.text", "text": text_data}, skip=self.channel_name)

    async def relay_text(self, event: dict[str, str]) -> None:
        await self.send(text_data=event["text"])


application = ProtocolTypeRouter({"websocket": URLRouter([path("relay/<str:room>/", Relay.as_asgi())])})
