"""Pairwise jobs over chosen model pairs, judged through the services as annotators judge them:
each judgment is a reservation (assignment_next) and an answer (answer_submit)."""

from __future__ import annotations

from typing import Callable

from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import ItemSpec, items_add, job_create
from annotate.kinds.pairwise.pairs import pair_key, pair_payload
from collect.models import Worker
from tests.annotate.pairwise_data import conversation


def pairwise_job(slug: str, pairs: dict[tuple[str, str], int], **settings: object) -> Job:
    """A job with `pairs[(a, b)]` items of model a's conversation against model b's (a < b)."""
    job = job_create(slug=slug, name=slug, kind="pairwise", overlap=settings.pop("overlap", 1), **settings)
    specs = []
    for (a, b), count in pairs.items():
        for n in range(count):
            left, right = conversation(a, n), conversation(b, n)
            left["id"], right["id"] = f"{a}-{b}-{a}-{n}", f"{a}-{b}-{b}-{n}"
            key = pair_key(left, right)
            specs.append(ItemSpec(key=key, payload=pair_payload(job, key, left, right)))
    items_add(job=job, specs=specs)
    return job


def models_of(item: Item) -> tuple[str, str]:
    conversations = item.payload["conversations"]
    return conversations["a"]["model"], conversations["b"]["model"]


def judge(job: Job, worker: Worker, winner: Callable[[str, str], str]) -> tuple[str, str] | None:
    """Serve the worker one item and answer it with `winner(model_a, model_b)` ("a" or "b"); the
    item's models, or None when nothing was served."""
    served = assignment_next(job=job, worker=worker)
    if served.assignment is None:
        return None
    item = served.assignment.item
    side = winner(*models_of(item))
    choice = "left" if item.payload["left"] == side else "right"
    answer_submit(item_id=item.pk, worker=worker, choice=choice, reason="a fine reason")
    return models_of(item)


def judged_before(job: Job, worker: Worker, model_a: str, model_b: str, *, wins: int, losses: int) -> None:
    """Answers already in: `wins` + `losses` items of the pair answered by `worker` (model_a won
    `wins`), stored as answer_submit stores them. For setting up a study's state only; serving and
    answering are what judge() does."""
    now = timezone.now()
    free = Item.objects.filter(job=job, key__startswith=f"{model_a}-{model_b}-", answers_count=0).order_by("position")
    items = list(free[: wins + losses])
    assert len(items) == wins + losses, f"the job has too few free {model_a}–{model_b} items"
    for n, item in enumerate(items):
        side = "a" if n < wins else "b"
        choice = "left" if item.payload["left"] == side else "right"
        Assignment.objects.create(
            job=job, item=item, worker=worker, status=AssignmentStatus.SUBMITTED, assigned_at=now, expires_at=now,
            submitted_at=now, answer={"choice": choice, "winner": side, "reason": "a fine reason"},
        )
    Item.objects.filter(pk__in=[item.pk for item in items]).update(answers_count=1)
