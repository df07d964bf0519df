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
from collect.consumers.db import retried_once
from collect.groups import knowledge_event, role_group
from collect.lifecycle.notify import sweep_notify
from collect.lifecycle.sweep import sweep_run
from collect import registry
from collect.models import Message, Room
from collect.services import knowledge, panels, rooms
from collect.services.knowledge_claims import claim_release, claims_take_for_worker
from groundwork import metrics
from groundwork.layer_publish import group_send
from groundwork.logs import log_context
from groundwork.service_errors import SERVICE_ERRORS, one_line
from retrieval.rerank import panel_rank, panel_rank_lexical
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)

# Messages younger than this are probably still being retrieved by their own task.
SWEEP_AFTER_SECONDS = 20.0
# A retrieval that lost its database (twice: once more on a new connection) is tried again by a
# retry of its task this much later, this many times at most (a failover takes a few seconds).
RETRY_S = 1.0
RETRIES = 5


def _publish(room_id: Any, role: str, frame: dict[str, Any], *more: dict[str, Any]) -> None:
    group_send(role_group(room_id, role), knowledge_event(role, frame, *more))


# acks_late + reject_on_worker_lost: a worker killed mid-task leaves the task on the queue.
# ignore_result on the tasks the chat processes send: with a Redis result backend, sending a task
# whose result is kept subscribes the sender to that result, a round trip on every chat message.
@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def messages_knowledge(self: Any, message_ids: list[int]) -> int:
    """Retrieve for each message and publish its room's knowledge frames; returns how many. A
    message whose chat process took it over (no worker started it in time: services/knowledge.py)
    is left to that process. A message whose database connection died under it is retrieved
    again on a new one; if that is lost too, its claim is let go (a page's `sync` or the chat
    process may retrieve it at once) and the task is retried for it after RETRY_S, up to RETRIES
    times, then left to the sweep. A message that fails otherwise is logged and left to the
    sweep. The others of the batch still get their knowledge."""
    published = 0
    reranks: list[tuple[str, str, dict[str, Any]]] = []
    lost: list[int] = []
    for message_id in claims_take_for_worker(list(message_ids), task_id=str(self.request.id)):
        try:
            published += retried_once(_message_knowledge)(message_id=message_id, reranks=reranks)
        except SERVICE_ERRORS as error:
            claim_release(message_id)
            lost.append(message_id)
            log.warning("message %s: retrieval lost its database: %s", message_id, one_line(error))
        except Exception:
            claim_release(message_id)
            log.exception("message %s: retrieval failed; the knowledge sweep will try again", message_id)
    if reranks:
        # One task for the batch's panels: a task's own cost on both sides (the message, its
        # acknowledgement, the worker's bookkeeping) was more than ranking a panel.
        knowledge.reranks_dispatch(reranks)
    if lost and self.request.retries < RETRIES:
        raise self.retry(args=(lost,), countdown=RETRY_S, max_retries=RETRIES)
    if lost:
        log.warning("messages %s: retrieval lost %d times; the knowledge sweep will try again", lost, RETRIES + 1)
    return published


def _message_knowledge(*, message_id: int, reranks: list[tuple[str, str, dict[str, Any]]]) -> int:
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
    ranked = registry.protocol(after.protocol).reranks_knowledge
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
    """Reorder one knowledge panel with the configured ranker and publish it as knowledge.reranked;
    one that fails is logged and keeps its TF-IDF order."""
    knowledge_reranks([(room_id, role, frame)])


@shared_task(ignore_result=True)
def knowledge_reranks(panels: list[tuple[str, str, dict[str, Any]]]) -> None:
    """knowledge_rerank for several panels (a messages_knowledge batch's); one that fails is
    logged and keeps its TF-IDF order, the others are still reranked."""
    for room_id, role, frame in panels:
        with log_context(room=room_id):
            try:
                # Once more on a new connection if the database dropped it: a rerank saves and
                # publishes last, so it may run twice.
                retried_once(_knowledge_rerank)(room_id=room_id, role=role, frame=frame)
            except Exception:
                log.exception("room %s: rerank failed; the TF-IDF order stays", room_id)


def _knowledge_rerank(*, room_id: str, role: str, frame: dict[str, Any]) -> None:
    try:
        context = selectors.dialogue_context(room_id=room_id, after_seq=frame["after_seq"])
    except Room.DoesNotExist:
        return  # a task from elsewhere (another database behind the same broker), as for a message
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


@shared_task(bind=True, ignore_result=True)
def authenticity_signals(self: Any, room_id: str) -> int:
    """The authenticity signals of an ended room's human turns (collect/authenticity/signals.py,
    and likeness.py's llm_like where AUTHENTICITY_LLM_MODEL is set), queued when the room's
    outcomes are set; returns how many flags. Like a retrieval, a task that
    lost its database (twice: once more on a new connection) is retried after RETRY_S, up to
    RETRIES times; a room that is not in this database (a task from elsewhere behind the same
    broker) is nothing to do. Any other failure is logged, not raised: the review page computes
    the signals of any ended room still owed them."""
    from collect.authenticity.likeness import room_likeness_compute
    from collect.authenticity.signals import room_signals_compute

    try:
        flags = retried_once(room_signals_compute)(room_id=room_id)
        # The language model's score where one is configured (seconds on a CPU worker): after the
        # others, which are stored by then whatever becomes of it.
        return len(flags) + len(room_likeness_compute(room_id=room_id))
    except Room.DoesNotExist:
        return 0
    except SERVICE_ERRORS as error:
        if self.request.retries < RETRIES:
            raise self.retry(countdown=RETRY_S, max_retries=RETRIES) from error
        log.warning("room %s: authenticity signals lost their database %d times; review computes them", room_id, RETRIES + 1)
        return 0
    except Exception:  # noqa: BLE001 - never fails the step that ended the room (eager mode)
        log.exception("room %s: authenticity signals not computed", room_id)
        return 0
