"""Several models per turn (protocol_config.prism), after PRISM (Kirk et al. 2024, "The PRISM
Alignment Dataset"): every model of the setting answers the evaluator's message at once, each reply
streaming into its own box on the page (progress frames with "candidate": its place); the replies
are stored as ModelCandidate rows, in an order drawn per turn, and offered in the evaluator's state
without the models' names. The evaluator picks one (the `pick` action, rating any of them 1–5 on
the way); the partner's seat then posts the picked reply as its message and the chat goes on from
it. With one reply only (the others failed) it is posted at once; with none, the apology.

The choices are pairwise judgments: the picked reply beats each other reply shown
(`choice_judgments`, in the format of annotate's judgments files)."""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from collect.errors import ProtocolError
from collect.frames import MAX_SEQ, require_int
from collect.models import Assignment, Message, Room, RoomStatus
from collect.tasktypes.modelchat import NAME
from collect.tasktypes.modelchat.calls import CallResult
from collect.tasktypes.modelchat.config import PRISM_MODELS, config_for
from collect.tasktypes.modelchat.models import EvalModel, ModelCandidate
from collect.tasktypes.modelchat.protocol import EVALUATOR
from collect.tasktypes.modelchat.slots import AlreadyCalling
from collect.tasktypes.modelchat.turns import Call, message_event, model_context, wow_post

log = logging.getLogger(__name__)

# One thread per reply being made (the turn's own thread waits for them).
_calls = ThreadPoolExecutor(max_workers=4 * PRISM_MODELS[1], thread_name_prefix="prism-call")


def _fresh_after_fork() -> None:
    global _calls
    _calls = ThreadPoolExecutor(max_workers=4 * PRISM_MODELS[1], thread_name_prefix="prism-call")


os.register_at_fork(after_in_child=_fresh_after_fork)


def prism_turn(*, room_id: Any, seat: Assignment, message: Message, call: Call) -> dict[str, Any] | None:
    """The model turn of a room showing several replies: make them (once), then post the picked one,
    or the only one, or the apology. Returns the group event to broadcast: the message, or the
    room's state when the evaluator is to pick; None when there is nothing to do (another process
    is making the replies, or the evaluator has not picked yet)."""
    from collect import selectors

    after_seq = message.seq
    candidates = _stored(room_id, after_seq)
    if not candidates:
        try:
            made = _candidates_make(room_id=room_id, message=message, call=call)
        except AlreadyCalling:
            log.info("room %s: the replies to #%d are already being made", room_id, after_seq)
            return None
        candidates = _store(made) or _stored(room_id, after_seq)
    shown = [c for c in candidates if c.shown]
    picked = next((c for c in candidates if c.picked), None)
    if picked is None and len(shown) >= 2:
        return {"type": "room.state", "snapshot": selectors.room_snapshot(room_id)}  # the evaluator picks
    if picked is None and shown:
        picked = shown[0]  # the one reply there is: no choice to make
        ModelCandidate.objects.filter(pk=picked.pk).update(picked=True, picked_at=timezone.now())
    reply = picked or candidates[0]  # none shown: the first model's apology
    _, knowledge = model_context(message=message)
    try:
        posted = wow_post(room_id=room_id, seat=seat, after_seq=after_seq, result=reply, model=reply.model, knowledge=knowledge)
    except ProtocolError as error:
        log.info("room %s: the picked reply to #%d not posted: %s", room_id, after_seq, error.message)
        return None
    return message_event(posted)


def _stored(room_id: Any, after_seq: int) -> list[ModelCandidate]:
    return list(ModelCandidate.objects.filter(room_id=room_id, after_seq=after_seq).select_related("model").order_by("position"))


def _candidates_make(*, room_id: Any, message: Message, call: Call) -> list[ModelCandidate]:
    """Every model's reply, made at once (each streams to its own box); in an order drawn now."""
    room = message.room
    names = list(config_for(room.campaign).prism)
    models = {m.name: m for m in EvalModel.objects.filter(name__in=names)}
    order = random.sample(names, len(names))
    context, _ = model_context(message=message)
    if not connection.in_atomic_block:
        connection.close()  # no database connection held while the models answer (turns.Call says why)
    futures = [_calls.submit(call.respond, models[name], context, candidate=position) for position, name in enumerate(order)]
    results: list[CallResult] = [future.result() for future in futures]  # AlreadyCalling: raised here
    return [
        ModelCandidate(
            room_id=room_id, after_seq=message.seq, position=position, model=models[name], text=result.text,
            knowledge_used=result.knowledge_used, latency_ms=result.latency_ms, first_token_ms=result.first_token_ms,
            last_token_ms=result.last_token_ms, queued_ms=result.queued_ms, attempts=result.attempts, error=result.error,
        )
        for position, (name, result) in enumerate(zip(order, results))
    ]


def _store(made: list[ModelCandidate]) -> list[ModelCandidate] | None:
    """Store a turn's replies once; None when another process stored them first."""
    try:
        with transaction.atomic():
            return ModelCandidate.objects.bulk_create(made)
    except IntegrityError:
        return None


def candidate_pick(*, room: Room, assignment: Assignment, frame: dict[str, Any]) -> None:
    """The evaluator's choice among the replies to their last message:
    {"type": "pick", "after_seq": n, "candidate": i, "ratings": {"0": 4, "2": 1}} (ratings
    optional, 1–5, of any replies shown). Raises ProtocolError (code bad_pick) on anything else."""
    if assignment.role != EVALUATOR:
        raise ProtocolError("not_allowed", "Only the person evaluating the chat picks a reply.")
    if room.status != RoomStatus.CHATTING:
        raise ProtocolError("wrong_state", "A reply can be picked only during the chat.")
    after_seq = require_int(frame, "after_seq", low=1, high=MAX_SEQ)
    position = require_int(frame, "candidate", low=0, high=PRISM_MODELS[1] - 1)
    ratings = frame.get("ratings", {})
    if not isinstance(ratings, dict):
        raise ProtocolError("bad_pick", 'Send ratings as {"<reply number>": 1–5}.')
    last = Message.objects.filter(room=room).order_by("-seq").values_list("seq", flat=True).first()
    candidates = {c.position: c for c in ModelCandidate.objects.select_for_update().filter(room=room, after_seq=after_seq)}
    if last != after_seq or not candidates:
        raise ProtocolError("bad_pick", "There are no replies to pick from for that message.")
    if any(c.picked for c in candidates.values()):
        raise ProtocolError("bad_pick", "A reply to that message was picked already.")
    shown = {p for p, c in candidates.items() if c.shown}
    if position not in shown:
        raise ProtocolError("bad_pick", f"Reply {position} was not one of those shown.")
    rated: dict[int, int] = {}
    for key, value in ratings.items():
        index = int(key) if isinstance(key, str) and key.isdigit() else None
        if index not in shown:
            raise ProtocolError("bad_pick", f"Reply {key!r} was not one of those shown.")
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            raise ProtocolError("bad_pick", f"Rate reply {key} with a whole number from 1 to 5.")
        rated[index] = value
    now = timezone.now()
    for index, candidate in candidates.items():
        candidate.rating = rated.get(index)
        candidate.picked = index == position
        candidate.picked_at = now if candidate.picked else None
        candidate.save(update_fields=["rating", "picked", "picked_at"])


def candidates_offered(*, room: Room, last_seq: int, last_role: str | None) -> dict[str, Any] | None:
    """The replies the evaluator is to pick from (their state's `candidates`): {"after_seq",
    "replies": [{"index", "text"}], "picked": index or None}; None when there are none to pick."""
    if last_role != EVALUATOR:
        return None
    candidates = list(ModelCandidate.objects.filter(room=room, after_seq=last_seq).order_by("position"))
    shown = [c for c in candidates if c.shown]
    if len(shown) < 2:
        return None
    picked = next((c.position for c in candidates if c.picked), None)
    return {"after_seq": last_seq, "replies": [{"index": c.position, "text": c.text} for c in shown], "picked": picked}


def prism_owed(*, room_id: Any, after_seq: int) -> bool | None:
    """For model_reply_owed: True when a picked reply waits to be posted (owed now), False while the
    evaluator has replies to pick from (nothing owed), None when no replies were stored (the usual
    patience applies)."""
    candidates = list(ModelCandidate.objects.filter(room_id=room_id, after_seq=after_seq).values_list("picked", "error"))
    if not candidates:
        return None
    if any(picked for picked, _ in candidates):
        return True
    return sum(1 for _, error in candidates if not error) < 2  # fewer than two shown: it posts at once


def choice_judgments(*, campaigns: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
    """The evaluators' choices as pairwise judgments: for each turn where an evaluator picked one of
    two or more replies shown, the picked model beats each other model shown, one record each:
    {"model_a": picked, "model_b": other, "winner": "model_a", "campaign", "conversation_id",
    "seq"} (the judgments format of annotate's evaluation: rank_models, the leaderboard). Oldest
    first; campaigns by slug (all when empty)."""
    shown = ModelCandidate.objects.filter(error="", room__campaign__protocol=NAME).select_related("room__campaign", "model")
    if campaigns:
        shown = shown.filter(room__campaign__slug__in=list(campaigns))
    turns: dict[tuple[Any, int], list[ModelCandidate]] = {}
    for candidate in shown.order_by("position"):
        turns.setdefault((candidate.room_id, candidate.after_seq), []).append(candidate)
    picks = sorted((c for replies in turns.values() for c in replies if c.picked), key=lambda c: (c.picked_at, c.pk))
    for pick in picks:
        for other in turns[(pick.room_id, pick.after_seq)]:
            if other.pk != pick.pk:
                yield {
                    "model_a": pick.model.name, "model_b": other.model.name, "winner": "model_a",
                    "campaign": pick.room.campaign.slug, "conversation_id": str(pick.room_id), "seq": pick.after_seq + 1,
                }
