"""Next-item assignment: overlap, reservations, gold and qualification items."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import ItemSpec, items_add
from tests.annotate.conftest import People, make_job, relevance_payload

pytestmark = pytest.mark.django_db


def answer(job: Job, worker, selected=(0,), now=None) -> Item:
    result = assignment_next(job=job, worker=worker, now=now)
    assert result.assignment is not None, result.status
    answer_submit(item_id=result.assignment.item_id, worker=worker, selected=list(selected), now=now)
    return result.assignment.item


def test_it_finishes_items_before_starting_new_ones(relevance_job: Job, people: People) -> None:
    first = answer(relevance_job, people.alice)
    assert first.key == "k0"
    assert answer(relevance_job, people.bob).key == "k0"  # needs one more vote
    assert answer(relevance_job, people.charlie).key == "k1"  # k0 reached its overlap of 2
    assert Item.objects.get(key="k0").answers_count == 2


def test_it_never_serves_an_annotator_the_same_item_twice(relevance_job: Job, people: People) -> None:
    keys = [answer(relevance_job, people.alice).key for _ in range(3)]
    assert keys == ["k0", "k1", "k2"]
    assert assignment_next(job=relevance_job, worker=people.alice).status == "done"


def test_it_resumes_the_open_reservation(relevance_job: Job, people: People) -> None:
    first = assignment_next(job=relevance_job, worker=people.alice)
    again = assignment_next(job=relevance_job, worker=people.alice)
    assert (first.status, again.status) == ("assigned", "resumed")
    assert first.assignment.pk == again.assignment.pk
    assert Assignment.objects.filter(worker=people.alice, status=AssignmentStatus.ASSIGNED).count() == 1


def test_it_releases_an_abandoned_item_after_the_reservation_time(db, people: People) -> None:
    job = make_job("relevance", items=1, overlap=1, reservation_seconds=60)
    now = timezone.now()
    assert assignment_next(job=job, worker=people.alice, now=now).status == "assigned"
    assert assignment_next(job=job, worker=people.bob, now=now + timedelta(seconds=59)).status == "busy"
    later = assignment_next(job=job, worker=people.bob, now=now + timedelta(seconds=61))
    assert later.status == "assigned" and later.assignment.item.key == "k0"


def test_it_reaches_the_overlap_without_declaring_annotators(db, people: People) -> None:
    job = make_job("relevance", items=1, overlap=2)
    answer(job, people.alice)
    answer(job, people.bob)
    assert assignment_next(job=job, worker=people.charlie).status == "done"
    assert Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).count() == 2


def test_it_stops_serving_a_closed_job(relevance_job: Job, people: People) -> None:
    Job.objects.filter(pk=relevance_job.pk).update(is_active=False)
    relevance_job.refresh_from_db()
    assert assignment_next(job=relevance_job, worker=people.alice).status == "inactive"


def add_known(job: Job, role: str, relevant: list[list[int]]) -> None:
    specs = [
        ItemSpec(key=f"{role}-{n}", payload=relevance_payload(100 + n), role=role, gold={"selected": ids})
        for n, ids in enumerate(relevant)
    ]
    items_add(job=job, specs=specs)


def test_it_mixes_in_gold_items_at_the_configured_rate(db, people: People) -> None:
    always = make_job("relevance", slug="gold-always", items=2, overlap=2, gold_rate=1.0)
    add_known(always, ItemRole.GOLD, [[1]])
    gold = answer(always, people.alice, selected=[1, 2])
    assert gold.role == ItemRole.GOLD
    submitted = Assignment.objects.get(item=gold, worker=people.alice)
    assert submitted.score == pytest.approx(0.5)  # Jaccard of {1, 2} with {1}
    assert Item.objects.get(pk=gold.pk).answers_count == 0  # gold votes are not data
    assert answer(always, people.alice).role == ItemRole.TASK  # no gold left for alice

    never = make_job("relevance", slug="gold-never", items=2, overlap=2, gold_rate=0.0)
    add_known(never, ItemRole.GOLD, [[1]])
    assert {answer(never, people.bob).role for _ in range(2)} == {ItemRole.TASK}


def test_it_draws_gold_items_near_the_rate(db) -> None:
    from collect.models import Worker

    job = make_job("relevance", slug="gold-rate", items=40, overlap=50, gold_rate=0.25)
    add_known(job, ItemRole.GOLD, [[0]] * 40)
    roles = []
    for n in range(8):
        worker = Worker.objects.create(external_id=f"rate-{n}")
        roles += [answer(job, worker).role for _ in range(10)]
    share = roles.count(ItemRole.GOLD) / len(roles)
    assert 0.12 <= share <= 0.38


def test_it_asks_for_the_qualification_set_first_and_turns_away_who_fails(db, people: People) -> None:
    job = make_job("relevance", items=2, overlap=2, qualification_min_score=0.75)
    add_known(job, ItemRole.QUALIFICATION, [[0], [1, 2]])
    # alice answers both qualification items right, then gets task items.
    assert answer(job, people.alice, selected=[0]).role == ItemRole.QUALIFICATION
    assert answer(job, people.alice, selected=[1, 2]).role == ItemRole.QUALIFICATION
    assert answer(job, people.alice).role == ItemRole.TASK
    # bob gets the first right and the second wrong: mean 0.5 < 0.75.
    answer(job, people.bob, selected=[0])
    answer(job, people.bob, selected=[3])
    assert assignment_next(job=job, worker=people.bob).status == "disqualified"
