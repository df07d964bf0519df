"""Celery tasks of the collect app: the lifecycle sweep, and the wizard's knowledge off the chat
processes (production mode).

messages_knowledge runs on `default`: it retrieves for stored messages (idempotent: a message that
already has its retrieval is not retrieved again) and publishes the knowledge frames to the room's
group, which the chat processes relay to the member in that role. A panel whose ranker runs no
encoder (lexical features, TF-IDF: a few milliseconds) is reranked there too, and published with
the panel in one event; knowledge_reranks runs on `rerank` for the others (MiniLM, a
cross-encoder: a GPU node's work) and publishes the reordered panels. knowledge_sweep (celery
beat) finds messages whose retrieval a dead process or a lost task left undone."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from celery import shared_task

from collect import selectors
from collect.groups import knowledge_event, role_group
from collect.lifecycle.notify import sweep_notify
from collect.lifecycle.sweep import sweep_run
from collect.models import Message
from collect.protocols import get_protocol
from collect.services import knowledge, panels, rooms
from collect.services.knowledge_claims import claim_release, claims_take_for_worker
from groundwork import metrics
from groundwork.layer_publish import group_send
from groundwork.logs import log_context
from retrieval.rerank import panel_rank, panel_rank_lexical
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)

# Messages younger than this are probably still being retrieved by their own task.
SWEEP_AFTER_SECONDS = 20.0


def _publish(room_id: Any, role: str, frame: dict[str, Any], *more: dict[str, Any]) -> None:
    group_send(role_group(room_id, role), knowledge_event(role, frame, *more))


# acks_late + reject_on_worker_lost: a worker killed mid-task leaves the task on the queue.
# ignore_result on the tasks the chat processes send: with a Redis result backend, sending a task
# whose result is kept subscribes the sender to that result, a round trip on every chat message.
@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def messages_knowledge(self: Any, message_ids: list[int]) -> int:
    """Retrieve for each message and publish its room's knowledge frames; returns how many. A
    message that fails is logged and left to the sweep; the others still get their knowledge.
    A message whose chat process took it over (no worker started it in time: services/knowledge.py)
    is left to that process."""
    published = 0
    reranks: list[tuple[str, str, dict[str, Any]]] = []
    for message_id in claims_take_for_worker(list(message_ids), task_id=str(self.request.id)):
        try:
            published += _message_knowledge(message_id, reranks)
        except Exception:
            log.exception("message %s: retrieval failed; the knowledge sweep will try again", message_id)
    if reranks:
        # One task for the batch's panels: a task's own cost on both sides (the message, its
        # acknowledgement, the worker's bookkeeping) was more than ranking a panel.
        knowledge.reranks_dispatch(reranks)
    return published


def _message_knowledge(message_id: int, reranks: list[tuple[str, str, dict[str, Any]]]) -> int:
    try:
        after = rooms.message_after(message_id=message_id)
    except Message.DoesNotExist:
        # A task from elsewhere (another database behind the same broker): its claim must not keep
        # this database's message of that id from its fallback.
        claim_release(message_id)
        return 0
    except IndexNotBuilt as error:
        log.error("message %s: %s", message_id, error)
        return 0
    ranked = get_protocol(after.protocol).reranks_knowledge
    with log_context(room=after.room_id):
        for role, frame in after.knowledge.items():
            if frame is None:
                continue
            reranked = None
            if ranked and frame.get("type") == "knowledge" and frame["passages"]:
                reranked = _reranked_here(after.room_id, role, frame, reranks)
            _publish(after.room_id, role, frame, *([reranked] if reranked else []))
    if any(after.knowledge.values()):
        metrics.panel_published(protocol=after.protocol, stored_at=after.stored_at)
    return len(after.knowledge)


@shared_task(ignore_result=True)
def knowledge_rerank(room_id: str, role: str, frame: dict[str, Any]) -> None:
    """Reorder one knowledge panel with the configured ranker and publish it as knowledge.reranked."""
    with log_context(room=room_id):
        _knowledge_rerank(room_id, role, frame)


@shared_task(ignore_result=True)
def knowledge_reranks(panels: list[tuple[str, str, dict[str, Any]]]) -> None:
    """knowledge_rerank for several panels (a messages_knowledge batch's); one that fails is
    logged and keeps its TF-IDF order, the others are still reranked."""
    for room_id, role, frame in panels:
        with log_context(room=room_id):
            try:
                _knowledge_rerank(room_id, role, frame)
            except Exception:
                log.exception("room %s: rerank failed; the TF-IDF order stays", room_id)


def _knowledge_rerank(room_id: str, role: str, frame: dict[str, Any]) -> None:
    context = selectors.dialogue_context(room_id=room_id, after_seq=frame["after_seq"])
    if context is None:
        return  # the chat has moved past this panel
    reranked = panel_rank(**_ranked_against(context, frame))
    if panels.knowledge_reranked_save(room_id=room_id, role=role, frame=reranked):
        _publish(room_id, role, reranked)


def _reranked_here(
    room_id: Any, role: str, frame: dict[str, Any], reranks: list[tuple[str, str, dict[str, Any]]]
) -> dict[str, Any] | None:
    """The panel's knowledge.reranked frame, ranked and saved by the retrieval task itself when its
    ranker runs no encoder: no task, no second transfer of the panel, no second event. A panel whose
    ranker encodes is added to `reranks` (the `rerank` queue's). None then, when the chat has moved
    past the panel, or when the rerank failed (logged: the panel keeps its TF-IDF order)."""
    try:
        context = selectors.dialogue_context(room_id=room_id, after_seq=frame["after_seq"])
        if context is None:
            return None
        reranked = panel_rank_lexical(**_ranked_against(context, frame))
        if reranked is None:
            reranks.append((str(room_id), role, frame))
            return None
        return reranked if panels.knowledge_reranked_save(room_id=room_id, role=role, frame=reranked) else None
    except Exception:
        log.exception("room %s: rerank failed; the TF-IDF order stays", room_id)
        return None


def _ranked_against(context: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """A panel's ranking arguments: its passages against the room's dialogue (selectors.dialogue_context).
    The reranked panel is kept on the room (panels.knowledge_reranked_save) so that a reload shows
    the panel the wizard was reading; one the chat has moved past is dropped."""
    return {"context": context["turns"], "topic": context["topic"], "passages": frame["passages"],
            "after_seq": frame["after_seq"], "language": context["language"]}


@shared_task
def knowledge_sweep(older_than_s: float = SWEEP_AFTER_SECONDS) -> int:
    """Queue retrieval for every stored message still without it; returns how many were queued."""
    missing = knowledge.messages_missing_knowledge(older_than_s=older_than_s)
    for start in range(0, len(missing), knowledge.DISPATCH_MAX):
        messages_knowledge.delay(missing[start : start + knowledge.DISPATCH_MAX])
    return len(missing)


@shared_task(name="collect.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """End waits and rooms past their timeouts (Celery beat runs this every SWEEP_SECONDS)."""
    result = sweep_run()
    async_to_sync(sweep_notify)(result)
    return {"waits_ended": len(result.waits_ended), "rooms_ended": len(result.rooms_ended), "settled": result.settled}
