"""The model's turn: after the evaluator's message (or, in the DuConv variant, to open the chat),
build the context, call the model (calls.py; its progress, the queue and the text so far, goes to
the page through `publish`), and post its reply — or an apology when it failed — as the partner
seat's message, with a ModelTurn holding its timings. Idempotent: a second call for the same
message while one is under way, or after it posted, posts nothing."""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection, transaction

from collect import selectors
from collect.errors import ProtocolError
from collect.tasktypes.modelchat.calls import CallResult, model_respond
from collect.tasktypes.modelchat.progress import Publish, ReplyProgress
from collect.tasktypes.modelchat.slots import AlreadyCalling
from collect.tasktypes.modelchat.duconv import duconv_context, duconv_session, triples_named
from collect.tasktypes.modelchat.config import config_for
from collect.tasktypes.modelchat.models import EvalModel, ModelChat, ModelChatArm, ModelTurn
from collect.tasktypes.modelchat.protocol import EVALUATOR, MODEL_CHAT, PARTNER
from collect.models import Assignment, Message, RoomStatus
from collect.tasktypes.wow.protocol import knowledge_for_wizard
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


def _post(room_id: Any, seat: Assignment, after_seq: int, result: Any, model: EvalModel, frame: dict[str, Any]) -> rooms.Posted:
    """Post `result` (a CallResult, or a ModelCandidate: the same fields) as the partner's message."""
    with transaction.atomic():
        posted = rooms.message_post(room_id=room_id, assignment=seat, client_id=f"model-{after_seq}", text=result.text, frame=frame)
        if posted.created:
            ModelTurn.objects.create(
                message=posted.message,
                model=model,
                latency_ms=result.latency_ms,
                first_token_ms=result.first_token_ms,
                last_token_ms=result.last_token_ms,
                queued_ms=result.queued_ms,
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


def model_turn_take(*, room_id: Any, after_seq: int, publish: Publish | None = None) -> dict[str, Any] | None:
    """The model's reply to the evaluator's message `after_seq` (0: the DuConv variant's opening),
    stored; returns the room.message group event to broadcast, or None when there is nothing to
    post (not a model room, already answered or being answered, the room has ended). `publish`
    sends the progress frames (progress.py) to the room's group; None: none are sent."""
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
    call = Call(publish, room_id, after_seq)
    try:
        if session is not None:
            context = duconv_context(session=session, after_seq=after_seq)
            result = call.respond(chat.model, context)
            marks = triples_named(result.knowledge_used, session.knowledge, room_id=room_id)
            posted = _post(room_id, seat, after_seq, result, chat.model, {"knowledge_used": marks})
        elif config_for(chat.room.campaign).prism:
            from collect.tasktypes.modelchat.prism import prism_turn  # prism -> turns: a cycle

            return prism_turn(room_id=room_id, seat=seat, message=message, call=call)
        else:
            posted = _wow_reply(room_id, seat, after_seq, chat, message, call)
    except AlreadyCalling:
        log.info("room %s: the model's reply to #%d is already under way", room_id, after_seq)
        return None
    except ProtocolError as error:
        log.info("room %s: model reply to #%d not posted: %s", room_id, after_seq, error.message)
        return None
    return message_event(posted)


def message_event(posted: rooms.Posted) -> dict[str, Any] | None:
    """The room.message group event of a reply just posted; None when it was posted before."""
    if not posted.created:
        return None
    snapshot = selectors.room_snapshot(posted.message.room_id)
    return {
        "type": "room.message",
        "message": selectors.message_event(posted.message),
        "extras": selectors.message_extras(posted.message, snapshot["protocol"]),
        "snapshot": snapshot,
    }


class Call:
    """One model call of a turn, with its progress frames and its ticket in the model's queue."""

    def __init__(self, publish: Publish | None, room_id: Any, after_seq: int) -> None:
        self.publish, self.room_id, self.after_seq = publish, room_id, after_seq

    def respond(self, model: Any, context: dict[str, Any], *, candidate: int | None = None) -> CallResult:
        if not connection.in_atomic_block:
            # The call may wait in the queue and stream for a minute: no database connection is
            # held meanwhile (many rooms waiting on one model would exhaust PostgreSQL's).
            connection.close()
        progress = ReplyProgress(self.publish, after_seq=self.after_seq, candidate=candidate)
        return model_respond(model=model, context=context, progress=progress, ticket=f"{self.room_id}:{self.after_seq}:{model.pk}")


def _wow_reply(room_id: Any, seat: Assignment, after_seq: int, chat: ModelChat, message: Message, call: Call) -> rooms.Posted:
    context, knowledge = model_context(message=message)
    result: CallResult = call.respond(chat.model, context)
    return wow_post(room_id=room_id, seat=seat, after_seq=after_seq, result=result, model=chat.model, knowledge=knowledge)


def wow_post(*, room_id: Any, seat: Assignment, after_seq: int, result: Any, model: EvalModel, knowledge: list[dict[str, Any]]) -> rooms.Posted:
    """Post a reply to a Wizard of Wikipedia model chat, with the sentence it used checked as a
    wizard's would be, from the `knowledge` the model was shown."""
    used = result.knowledge_used if isinstance(result.knowledge_used, str) else None
    frame = {"checked": _checked(knowledge, used, after_seq)}
    try:
        return _post(room_id, seat, after_seq, result, model, frame)
    except ProtocolError as error:
        if error.code not in ("stale_knowledge", "bad_checked"):
            raise
        # The sentence the model names is not in the knowledge as stored now: keep the reply, say
        # no knowledge was checked rather than name the wrong sentence.
        return _post(room_id, seat, after_seq, result, model, {"checked": {"no_passages_used": True}})


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
    if config_for(chat.room.campaign).prism:
        from collect.tasktypes.modelchat.prism import prism_owed  # prism -> turns: a cycle

        owed = prism_owed(room_id=room_id, after_seq=last.seq)
        if owed is not None:
            return last.seq if owed else None
    patience = chat.model.timeout_seconds * (chat.model.retries + 1) + 5
    return last.seq if last.created <= timezone.now() - timedelta(seconds=patience) else None
