"""The knowledge panel a worker was last shown, kept so that a reloaded page shows it again."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from collect.models import Message, Room


def knowledge_reranked_save(*, room_id: Any, role: str, frame: dict[str, Any]) -> bool:
    """Keep `frame` (a knowledge.reranked frame) as `role`'s latest reranked panel, unless the chat
    has moved on since it was asked for (a later turn's panel must not be overwritten by it)."""
    with transaction.atomic():
        room = Room.objects.select_for_update().only("id", "knowledge_reranked").get(pk=room_id)
        if Message.objects.filter(room_id=room_id).count() != frame["after_seq"]:
            return False
        room.knowledge_reranked = {**(room.knowledge_reranked or {}), role: frame}
        room.save(update_fields=["knowledge_reranked"])
    return True
