"""A pairwise study's budget holds under concurrent annotators: with active sampling on and eight
annotators asking at once, exactly `max_judgments` judgments are made, never more. Runs on SQLite
(IMMEDIATE transactions) and, in the second pass, on PostgreSQL (the job's row locked while the
budget is counted)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotate.models import Assignment, AssignmentStatus
from collect.models import Worker
from tests.annotate.judged_pairs import judge, pairwise_job

pytestmark = pytest.mark.backends

BUDGET = 12


@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_never_exceed_the_budget() -> None:
    job = pairwise_job("budget", {("A", "B"): 20, ("A", "C"): 20, ("B", "C"): 20}, active_sampling=True, max_judgments=BUDGET)
    workers = [Worker.objects.create(external_id=f"c{n}") for n in range(8)]
    errors: list[BaseException] = []
    start = threading.Barrier(len(workers))

    def annotate(worker: Worker) -> None:
        try:
            start.wait()
            while judge(job, worker, lambda a, b: "a") is not None:
                pass
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=annotate, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).count() == BUDGET
    assert not Assignment.objects.filter(job=job, status=AssignmentStatus.ASSIGNED).exists()
