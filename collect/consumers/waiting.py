"""The waiting room: stays open until the worker is paired or their wait times out."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils import timezone

from collect.errors import ProtocolError
from collect.models import Assignment, AssignmentStatus
from collect.consumers.base import CLOSE_NOT_MEMBER, GroundworkConsumer
from collect.consumers.db import retried_once
from groundwork.service_errors import SERVICE_ERRORS, logged
from collect.lifecycle.onboarding import onboarding_needed
from collect.lifecycle.background import sweeper_ensure
from collect.lifecycle.heartbeats import Stamp, heartbeats
from collect.groups import assignment_group
from collect.services import matchmaking
from groundwork.logs import log_context_set

log = logging.getLogger(__name__)


@database_sync_to_async
def _own_assignment(assignment_id: int, worker_id: int | None) -> Assignment | None:
    if worker_id is None:
        return None
    return Assignment.objects.select_related("campaign", "room", "worker").filter(pk=assignment_id, worker_id=worker_id).first()


@database_sync_to_async
def _paired_frame(assignment_id: int) -> dict[str, Any]:
    assignment = Assignment.objects.get(pk=assignment_id)
    return {"type": "paired", "room_url": reverse("collect:room", args=[assignment.room_id]), "role": assignment.role}


@database_sync_to_async
def _wait_ended(assignment_id: int) -> bool:
    """Ended without a room (left, returned, no partner): the sweep's push may never have arrived."""
    return Assignment.objects.filter(pk=assignment_id, room__isnull=True).exclude(status=AssignmentStatus.WAITING).exists()


@database_sync_to_async
def _remaining(assignment_id: int) -> dict[str, int]:
    assignment = Assignment.objects.select_related("campaign").get(pk=assignment_id)
    timeout = assignment.campaign.wait_timeout_seconds
    remaining = (assignment.created - timezone.now()).total_seconds() + timeout
    return {"timeout_seconds": timeout, "remaining_seconds": max(0, int(remaining))}


class WaitingConsumer(GroundworkConsumer):
    timer: asyncio.Task | None = None
    assignment_id: int | None = None
    # Counted in this process's heartbeats: the open socket keeps the wait alive (the page's
    # frames are not needed), as a room socket keeps its member present.
    stamp: Stamp | None = None

    async def join(self) -> None:
        assignment = await _own_assignment(int(self.scope["url_route"]["kwargs"]["assignment_id"]), self.worker_id)
        if assignment is None:
            await self.refuse_member()
            return
        self.assignment_id = assignment.pk
        log_context_set(assignment=assignment.pk)  # on every line this socket logs
        sweeper_ensure()
        if await database_sync_to_async(onboarding_needed)(campaign=assignment.campaign, worker=assignment.worker):
            await self.send_error(ProtocolError("onboarding_required", "Finish the instructions and quiz first."))
            await self.close(code=CLOSE_NOT_MEMBER, reason="onboarding_required")
            self.assignment_id = None
            return
        await self.channel_layer.group_add(assignment_group(assignment.pk), self.channel_name)
        if assignment.status == AssignmentStatus.PAIRED:
            await self.send_json(await _paired_frame(assignment.pk))
            return
        if assignment.status != AssignmentStatus.WAITING or await database_sync_to_async(matchmaking.waiting_expire)(
            assignment_id=assignment.pk
        ):
            await self.send_timeout()
            return
        await database_sync_to_async(matchmaking.waiting_seen)(assignment_id=assignment.pk, connected=True)
        self.stamp = Stamp(assignment.pk)
        self.stamp.hold()
        timeout = assignment.campaign.wait_timeout_seconds
        remaining = (assignment.created - timezone.now()).total_seconds() + timeout
        await self.send_json({"type": "waiting", "timeout_seconds": timeout, "remaining_seconds": max(0, int(remaining))})
        self.timer = asyncio.create_task(self.expire_after(remaining))
        room = await database_sync_to_async(matchmaking.room_pair)(assignment_id=assignment.pk)
        if room is not None:
            await self.notify_members(room)

    async def expire_after(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))
        try:
            expired = await database_sync_to_async(matchmaking.waiting_expire)(assignment_id=self.assignment_id)
        except SERVICE_ERRORS as error:
            # A task of its own: a lost database is one line and a reconnect (the page asks again).
            await self.service_lost(error, where="wait timer")
            return
        if expired:
            await self.send_timeout()

    async def send_timeout(self) -> None:
        await self.send_json(
            {
                "type": "timeout",
                "message": "Sorry, no partner could be found in time.",
                "done_url": reverse("collect:finish", args=[self.assignment_id]),
            }
        )

    async def handle(self, frame: dict[str, Any]) -> None:
        if self.assignment_id is None:
            raise ProtocolError("not_member", "This page belongs to another worker.")
        if frame["type"] == "status":
            await self.on_status()
            return
        if frame["type"] != "ping":
            raise ProtocolError("bad_frame", "The waiting room accepts only 'ping' and 'status' frames.")
        await database_sync_to_async(matchmaking.waiting_seen)(assignment_id=self.assignment_id, connected=True)
        await self.send_json({"type": "pong"})

    async def on_status(self) -> None:
        """The page asks where it stands when no `paired` frame came (a group message can be lost
        between processes): `paired` if it is, else another try at pairing, else `waiting`."""
        await database_sync_to_async(matchmaking.waiting_seen)(assignment_id=self.assignment_id, connected=True)
        room = await database_sync_to_async(matchmaking.room_pair)(assignment_id=self.assignment_id)
        if room is not None:
            await self.notify_members(room)
            await self.send_json(await _paired_frame(self.assignment_id))
        elif await database_sync_to_async(matchmaking.waiting_expire)(assignment_id=self.assignment_id) or await _wait_ended(
            self.assignment_id
        ):
            await self.send_timeout()
        else:
            await self.send_json({"type": "waiting", **await _remaining(self.assignment_id)})

    async def notify_members(self, room: Any) -> None:
        for member_id in await database_sync_to_async(lambda: list(room.members.values_list("pk", flat=True)))():
            await self.channel_layer.group_send(assignment_group(member_id), {"type": "assignment.paired"})

    async def assignment_paired(self, event: dict[str, Any]) -> None:
        if self.timer:
            self.timer.cancel()
        await self.send_json(await _paired_frame(self.assignment_id))

    async def assignment_ended(self, event: dict[str, Any]) -> None:
        """The sweep ended this wait (timed out, or the page was away too long)."""
        if self.timer:
            self.timer.cancel()
        await self.send_timeout()

    def released(self) -> None:
        if self.stamp is not None:
            self.stamp.release()

    async def disconnect(self, code: int) -> None:
        if self.timer:
            self.timer.cancel()
        if self.assignment_id is not None:
            self.released()
            # Away (the grace period starts) only when the worker's last waiting socket in this
            # process closes: another tab keeps them here. A tab on another process marks them
            # present again with its next `status` frame.
            # Each step that cannot reach its service is skipped with one log line (the sweep ages
            # a wait nobody stamps; Redis forgets the members of a process that is gone); the
            # presence write is retried once on a dead connection, or a closed page stays `connected`.
            if not heartbeats.open[self.assignment_id]:
                await logged(log, "waiting_seen", database_sync_to_async(retried_once(matchmaking.waiting_seen))(
                    assignment_id=self.assignment_id, connected=False
                ))
            await logged(log, "group_discard", self.channel_layer.group_discard(assignment_group(self.assignment_id), self.channel_name))
