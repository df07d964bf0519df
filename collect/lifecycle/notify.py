"""Tell the open pages what the sweep ended. Presence and timeouts live in the database; this is
only the push, so a page that misses it still learns the outcome on its next sync or load."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from collect import selectors
from collect.groups import assignment_group, room_group
from collect.lifecycle.sweep import SweepResult


async def sweep_notify(result: SweepResult) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for room_id in result.rooms_ended:
        snapshot = await database_sync_to_async(selectors.room_snapshot)(room_id)
        await layer.group_send(room_group(room_id), {"type": "room.state", "snapshot": snapshot})
    for assignment_id in result.waits_ended:
        await layer.group_send(assignment_group(assignment_id), {"type": "assignment.ended"})
