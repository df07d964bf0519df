from django.urls import path

from collect.consumers import RoomConsumer, WaitingConsumer

websocket_urlpatterns = [
    path("ws/wait/<int:assignment_id>/", WaitingConsumer.as_asgi()),
    path("ws/room/<uuid:room_id>/", RoomConsumer.as_asgi()),
]
