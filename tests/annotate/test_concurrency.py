"""Many annotators at once never over-assign an item: its answers plus live reservations stay within
the overlap at every moment. Runs on SQLite (IMMEDIATE transactions) and, in the second pass, on
PostgreSQL (row locks with SKIP LOCKED)."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from collect.models import Worker
from tests.annotate.conftest import make_job

pytestmark = pytest.mark.backends

ANNOTATORS = 12
ITEMS = 8
OVERLAP = 3


def worst_item_load(job_id: int) -> int:
    now = timezone.now()
    live = Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(
        assignments__status=AssignmentStatus.ASSIGNED, assignments__expires_at__gt=now
    )
    loads = Item.objects.filter(job_id=job_id).annotate(n=Count("assignments", filter=live)).values_list("n", flat=True)
    return max(loads, default=0)


@pytest.mark.django_db(transaction=True)
def test_it_never_over_assigns_an_item_under_concurrent_annotators() -> None:
    job = make_job("relevance", items=ITEMS, overlap=OVERLAP)
    workers = [Worker.objects.create(external_id=f"c{n}") for n in range(ANNOTATORS)]
    errors: list[BaseException] = []
    done = threading.Event()
    peaks: list[int] = []

    def annotate(worker: Worker) -> None:
        try:
            idle = 0
            while idle < 50:
                result = assignment_next(job=job, worker=worker)
                if result.status == "done":
                    return
                if result.assignment is None:  # busy: the rest is reserved by others
                    idle += 1
                    time.sleep(0.01)
                    continue
                answer_submit(item_id=result.assignment.item_id, worker=worker, selected=[0])
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connection.close()

    def watch() -> None:
        try:
            while not done.is_set():
                peaks.append(worst_item_load(job.pk))
                time.sleep(0.005)
        finally:
            connection.close()

    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [threading.Thread(target=annotate, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    done.set()
    watcher.join(timeout=10)

    assert not errors, errors
    submitted = Counter(
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).values_list("item_id", flat=True)
    )
    assert sorted(submitted.values()) == [OVERLAP] * ITEMS
    assert list(Item.objects.filter(job=job).values_list("answers_count", flat=True)) == [OVERLAP] * ITEMS
    assert peaks and max(peaks) <= OVERLAP
