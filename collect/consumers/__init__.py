from collect.consumers.room import RoomConsumer
from collect.consumers.waiting import WaitingConsumer

__all__ = ["RoomConsumer", "WaitingConsumer"]
