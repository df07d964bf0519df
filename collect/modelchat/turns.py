"""The model's turn: after the evaluator's message (or, in the DuConv variant, to open the chat),
build the context, call the model (calls.py), and post its reply — or an apology when it failed —
as the partner seat's message, with a ModelTurn holding the latency. Idempotent: a second call for
the same message posts nothing."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from collect import selectors
from collect.errors import ProtocolError
from collect.modelchat.calls import CallResult, model_respond
from collect.modelchat.duconv import duconv_context, duconv_session, triples_named
from collect.modelchat.models import ModelChat, ModelChatArm, ModelTurn
from collect.modelchat.protocol import EVALUATOR, MODEL_CHAT, PARTNER
from collect.models import Assignment, Message, RoomStatus
from collect.protocols.wow import knowledge_for_wizard
from collect.recent import last_two_messages
from collect.services import rooms
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)


def model_context(*, message: Message) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What the model gets for its reply to `message` (the evaluator's last utterance): the
    history, the topic and the knowledge a wizard would see now; and that knowledge as shown."""
    room = message.room
    try:
        # Retrieval for this utterance, and for the model's previous one if its own pass has not
        # run yet (the wizard's knowledge is built from both; WoW's retrieved_passages).
        for recent in Message.objects.select_related("room__campaign").filter(
            room=room, seq__in=[message.seq - 1, message.seq], retrieved_passages__isnull=True
        ):
            MODEL_CHAT.retrieve(message=recent if recent.pk != message.pk else message)
    except IndexNotBuilt:
        log.error("room %s: no knowledge index for its source; the model gets the topic passage only", room.pk)
    knowledge = knowledge_for_wizard(room, last_two_messages(room.pk))
    history = list(Message.objects.filter(room=room, seq__lte=message.seq).order_by("seq").values_list("text", flat=True))
    context = {
        "history": history,
        "topic": room.topic,
        "knowledge": [{"title": p["title"], "sentences": p["sentences"]} for p in knowledge],
        "language": room.campaign.language,
    }
    return context, knowledge


def _checked(knowledge: list[dict[str, Any]], used: str | None, seq: int) -> dict[str, Any]:
    """The `checked` field a wizard would send for the sentence the model says it used."""
    if used:
        for passage in knowledge:
            for index, sentence in enumerate(passage["sentences"]):
                if sentence.strip() == used.strip():
                    checked = {"source": passage["source"], "passage": passage["passage"], "sentence": index}
                    return checked if passage["source"] == "chosen" else {**checked, "knowledge_seq": seq}
    return {"no_passages_used": True}


def _post(room_id: Any, seat: Assignment, after_seq: int, result: Any, chat: ModelChat, frame: dict[str, Any]) -> rooms.Posted:
    with transaction.atomic():
        posted = rooms.message_post(room_id=room_id, assignment=seat, client_id=f"model-{after_seq}", text=result.text, frame=frame)
        if posted.created:
            ModelTurn.objects.create(
                message=posted.message,
                model=chat.model,
                latency_ms=result.latency_ms,
                attempts=result.attempts,
                error=result.error,
                knowledge_used=result.knowledge_used,
            )
    return posted


def model_turn_after(*, room_id: Any, seq: int) -> None:
    """Retrieval for the model's utterance `seq` (WoW's retrieved_passages), after its broadcast."""
    message = Message.objects.select_related("room__campaign").filter(room_id=room_id, seq=seq, retrieved_passages__isnull=True).first()
    if message is not None:
        try:
            MODEL_CHAT.retrieve(message=message)
        except IndexNotBuilt:
            pass  # logged on the evaluator's turn


def model_turn_take(*, room_id: Any, after_seq: int) -> dict[str, Any] | None:
    """The model's reply to the evaluator's message `after_seq` (0: the DuConv variant's opening),
    stored; returns the room.message group event to broadcast, or None when there is nothing to
    post (not a model room, already answered, the room has ended)."""
    chat = ModelChat.objects.select_related("model", "room__campaign", "room__persona").filter(room_id=room_id).first()
    if chat is None or chat.arm != ModelChatArm.MODEL or chat.model is None or chat.room.status != RoomStatus.CHATTING:
        return None
    if Message.objects.filter(room_id=room_id, seq__gt=after_seq).exists():
        return None
    session = duconv_session(chat.room)
    message = Message.objects.select_related("room__campaign", "room__persona").filter(room_id=room_id, seq=after_seq).first()
    if (message is None or message.role != EVALUATOR) and not (session is not None and after_seq == 0):
        return None
    seat = Assignment.objects.select_related("campaign").get(room_id=room_id, role=PARTNER)
    try:
        if session is not None:
            result = model_respond(model=chat.model, context=duconv_context(session=session, after_seq=after_seq))
            marks = triples_named(result.knowledge_used, session.knowledge, room_id=room_id)
            posted = _post(room_id, seat, after_seq, result, chat, {"knowledge_used": marks})
        else:
            posted = _wow_reply(room_id, seat, after_seq, chat, message)
    except ProtocolError as error:
        log.info("room %s: model reply to #%d not posted: %s", room_id, after_seq, error.message)
        return None
    if not posted.created:
        return None
    snapshot = selectors.room_snapshot(room_id)
    return {
        "type": "room.message",
        "message": selectors.message_event(posted.message),
        "extras": selectors.message_extras(posted.message, snapshot["protocol"]),
        "snapshot": snapshot,
    }


def _wow_reply(room_id: Any, seat: Assignment, after_seq: int, chat: ModelChat, message: Message) -> rooms.Posted:
    context, knowledge = model_context(message=message)
    result: CallResult = model_respond(model=chat.model, context=context)
    used = result.knowledge_used if isinstance(result.knowledge_used, str) else None
    frame = {"checked": _checked(knowledge, used, after_seq)}
    try:
        return _post(room_id, seat, after_seq, result, chat, frame)
    except ProtocolError as error:
        if error.code not in ("stale_knowledge", "bad_checked"):
            raise
        # The sentence the model names is not in the knowledge as stored now: keep the reply, say
        # no knowledge was checked rather than name the wrong sentence.
        return _post(room_id, seat, after_seq, result, chat, {"checked": {"no_passages_used": True}})


def model_reply_owed(*, room_id: Any) -> int | None:
    """The seq of an evaluator message the model should have answered by now (its reply was lost
    with a process that died mid-call), or 0 for the DuConv variant's opening, owed from the
    evaluator's first sync on; None when nothing is owed or a reply may still come."""
    from datetime import timedelta

    from django.utils import timezone

    chat = ModelChat.objects.select_related("model", "room__campaign").filter(room_id=room_id, arm=ModelChatArm.MODEL).first()
    if chat is None or chat.model is None or chat.room.status != RoomStatus.CHATTING:
        return None
    last = Message.objects.filter(room_id=room_id).order_by("-seq").first()
    if last is None and duconv_session(chat.room) is not None:
        return 0  # the DuConv variant: the model opens, as soon as the evaluator is there
    if last is None or last.role != EVALUATOR:
        return None
    patience = chat.model.timeout_seconds * (chat.model.retries + 1) + 5
    return last.seq if last.created <= timezone.now() - timedelta(seconds=patience) else None
