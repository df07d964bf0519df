"""The Celery task that runs a wizard's search on a worker (the `default` queue, beside the
knowledge of WoW's messages) and publishes the wizard's panel to the room (searching.py)."""

from __future__ import annotations

from celery import shared_task

from collect.groups import knowledge_event, role_group
from collect.tasktypes.woi import WIZARD
from collect.tasktypes.woi.searching import search_run
from groundwork.layer_publish import group_send
from groundwork.logs import log_context


# acks_late + reject_on_worker_lost: a worker killed mid-search leaves the task on the queue (its
# claim expires, and the search is run again). ignore_result: nobody waits for it.
@shared_task(name="collect.tasktypes.woi.tasks.search_run", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def search_run_task(search_id: int) -> bool:
    """Run search `search_id` unless someone else has; True when this task ran and published it."""
    ran = search_run(search_id, "worker")
    if ran is None:
        return False
    room_id, frame = ran
    with log_context(room=room_id):
        group_send(role_group(room_id, WIZARD), knowledge_event(WIZARD, frame))
    return True
