from django.urls import path, re_path

from collect.consumers import RoomConsumer, WaitingConsumer
from collect.consumers.unknown import UnknownPathConsumer

websocket_urlpatterns = [
    path("ws/wait/<int:assignment_id>/", WaitingConsumer.as_asgi()),
    path("ws/room/<uuid:room_id>/", RoomConsumer.as_asgi()),
    # Last: every other path is refused with an error frame and close 4404.
    re_path(r"", UnknownPathConsumer.as_asgi()),
]
