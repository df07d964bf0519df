"""A pairwise study served through the services: active sampling serves the pair whose intervals
overlap most (off: item order, as ever), the job stops at its budget or once the ranking has settled,
and simulated judges with known strengths get the true order from an active job that stops by
itself."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from annotate.models import Job
from annotate.selectors.report import annotation_report
from annotate.kinds.pairwise.study import study_settled, study_state, study_text
from annotate.services.assignment import assignment_next
from collect.models import Worker
from tests.annotate.judged_pairs import judge, judged_before, models_of, pairwise_job

pytestmark = pytest.mark.django_db

PAIRS = {("A", "B"): 60, ("A", "C"): 60, ("B", "C"): 60}


def workers(n: int, prefix: str = "w") -> list[Worker]:
    return [Worker.objects.create(external_id=f"{prefix}{k}") for k in range(n)]


@pytest.fixture
def close_pair() -> Job:
    """A far above B and C (100 judgments), B and C met 6 times, 3–3."""
    job = pairwise_job("close-pair", PAIRS)
    (old,) = workers(1, "old")
    for a, b, won, lost in (("A", "B", 45, 5), ("A", "C", 45, 5), ("B", "C", 3, 3)):
        judged_before(job, old, a, b, wins=won, losses=lost)
    return job


def test_an_active_job_serves_the_pair_whose_intervals_overlap_most(close_pair: Job) -> None:
    Job.objects.filter(pk=close_pair.pk).update(active_sampling=True)
    close_pair.refresh_from_db()
    served = Counter(models_of(assignment_next(job=close_pair, worker=w).assignment.item) for w in workers(30))
    assert served.most_common(1)[0][0] == ("B", "C") and served[("B", "C")] >= 15  # drawn with probability ≈ 0.75


def test_without_active_sampling_pairs_come_in_item_order(close_pair: Job) -> None:
    free = list(close_pair.items.filter(answers_count=0).order_by("position")[:3])
    served = [assignment_next(job=close_pair, worker=w).assignment.item for w in workers(3)]
    assert served == free and {models_of(item) for item in served} == {("A", "B")}


def test_the_job_stops_at_its_budget(close_pair: Job) -> None:
    Job.objects.filter(pk=close_pair.pk).update(max_judgments=108)  # 106 in; two more may be reserved
    close_pair.refresh_from_db()
    first, second, third = workers(3)
    assert assignment_next(job=close_pair, worker=first).status == "assigned"
    assert assignment_next(job=close_pair, worker=second).status == "assigned"
    assert assignment_next(job=close_pair, worker=third).status == "done"
    later = timezone.now() + timedelta(seconds=close_pair.reservation_seconds + 1)  # the two reservations expired
    assert assignment_next(job=close_pair, worker=third, now=later).status == "assigned"


def test_the_job_stops_once_the_ranking_has_settled(close_pair: Job) -> None:
    Job.objects.filter(pk=close_pair.pk).update(stop_when_separated=True)
    close_pair.refresh_from_db()
    assert not study_settled(job=close_pair, state=study_state(job=close_pair))
    (late,) = workers(1, "late")
    assert assignment_next(job=close_pair, worker=late).status == "assigned"
    more = pairwise_job("settled", {("A", "B"): 200, ("A", "C"): 200, ("B", "C"): 200}, stop_when_separated=True)
    (old,) = workers(1, "older")
    for a, b, won, lost in (("A", "B", 160, 40), ("A", "C", 190, 10), ("B", "C", 160, 40)):
        judged_before(more, old, a, b, wins=won, losses=lost)
    assert study_settled(job=more, state=study_state(job=more))
    assert assignment_next(job=more, worker=late).status == "done"
    assert "stops when neighbouring models' 95% intervals are apart (now: apart)" in study_text(job=more)


def test_simulated_judges_get_the_true_order_from_an_active_job() -> None:
    strengths = {"A": 1300.0, "B": 1100.0, "C": 900.0}
    job = pairwise_job("simulated", {("A", "B"): 150, ("A", "C"): 150, ("B", "C"): 150}, active_sampling=True, stop_when_separated=True)
    rng = np.random.default_rng(4)

    def winner(a: str, b: str) -> str:
        return "a" if rng.random() < 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400)) else "b"

    judges = workers(40, "judge")
    served: Counter[tuple[str, str]] = Counter()
    for turn in range(450):
        pair = judge(job, judges[turn % len(judges)], winner)
        if pair is None:
            break
        served[pair] += 1
    assert assignment_next(job=job, worker=judges[0]).status == "done" and sum(served.values()) < 450
    board = annotation_report(job=job)["pairwise"]["leaderboard"]
    assert [board[m]["rank"] for m in "ABC"] == [1, 2, 3]
    assert served[("A", "C")] < max(served[("A", "B")], served[("B", "C")])  # the far pair is judged least
