"""Which model pair a pairwise job serves next, and when it stops serving pairs: the kind's item
draw (annotate.registry.ItemDraw), which annotate.services.assignment asks on every request for an
item of a job that plans a study.

With `Job.active_sampling` the next pair is drawn with the probabilities of evaluation.active (where
a judgment most narrows the overlapping intervals, with some uniform exploration), among the pairs
that still have free items; the draw is fixed by (job, annotator, answers so far), repeatable as the
gold turns are. When the drawn pair has nothing this annotator may take, the others are tried in
order of probability (and past them all, the core's item-order scan takes over). A job stops serving
pairs once `max_judgments` judgments are in or reserved, or, with `stop_when_separated`, once the
study has settled (study.study_settled).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import numpy as np

from annotate.kinds.pairwise.evaluation.active import pair_probabilities, pair_weights
from annotate.kinds.pairwise.study import StudyState, study_settled, study_state
from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from annotate.registry import ItemDraw
from collect.exporters import stable_fraction
from collect.models import Worker

CANDIDATES_PER_PAIR = 200  # item ids handed to the row-locking scan per pair tried


class PairDraw(ItemDraw):
    """One request's draw for a job that plans a study: the study's state is read once, when the
    stopping rule or the active draw first needs it."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._state: StudyState | None = None

    @property
    def state(self) -> StudyState:
        if self._state is None:
            self._state = study_state(job=self.job)
        return self._state

    def over(self, *, now: datetime) -> bool:
        if self.job.max_judgments and budget_spent(job=self.job, now=now):
            return True
        return bool(self.job.stop_when_separated) and study_settled(job=self.job, state=self.state)

    def next_task(self, *, worker: Worker, lock: Callable[[list[int]], Item | None]) -> Item | None:
        if not self.job.active_sampling:
            return None
        return active_task(job=self.job, worker=worker, state=self.state, lock=lock)


def item_draw(job: Job) -> PairDraw | None:
    """The kind's `draw` (annotate.registry.AnnotationKind): None for a job that plans no sampling or stopping."""
    if job.active_sampling or job.stop_when_separated or job.max_judgments:
        return PairDraw(job)
    return None


def budget_spent(*, job: Job, now: datetime) -> bool:
    """The job's `max_judgments` are in or reserved (submitted task answers but reports, and
    unexpired reservations). The job's row is locked first, so that concurrent reservations cannot
    overshoot the budget (the lock lasts until the caller's transaction ends)."""
    Job.objects.select_for_update().filter(pk=job.pk).values_list("pk").first()
    answers = Assignment.objects.filter(
        job=job, item__role=ItemRole.TASK, status=AssignmentStatus.SUBMITTED, report_reason=""
    ).count()
    held = Assignment.objects.filter(
        job=job, item__role=ItemRole.TASK, status=AssignmentStatus.ASSIGNED, expires_at__gt=now
    ).count()
    return answers + held >= job.max_judgments


def active_task(
    *, job: Job, worker: Worker, lock: Callable[[list[int]], Item | None], state: StudyState | None = None
) -> Item | None:
    """The next task item of an actively sampled job: `lock(ids)` row-locks the first free item
    among ids (annotate.services.assignment's scan), pair after pair in the order drawn."""
    state = state or study_state(job=job)
    done = set(Assignment.objects.filter(job=job, worker=worker, status=AssignmentStatus.SUBMITTED).values_list("item_id", flat=True))
    for pair in pair_order(job=job, worker=worker, state=state):
        ids = [pk for pk in state.free[pair] if pk not in done][:CANDIDATES_PER_PAIR]
        item = lock(ids) if ids else None
        if item is not None:
            return item
    return None


def pair_order(*, job: Job, worker: Worker, state: StudyState) -> list[tuple[str, str]]:
    """The pairs with free items: the drawn one first, then the others by probability."""
    pairs = [pair for pair, ids in state.free.items() if ids]
    if not pairs:
        return []
    index = {name: n for n, name in enumerate(state.models)}
    m = len(state.models)
    allowed = np.zeros((m, m), dtype=bool)
    for a, b in pairs:
        allowed[min(index[a], index[b]), max(index[a], index[b])] = True
    weights = pair_weights(state.theta[None], state.covariance[None])
    chance = pair_probabilities(weights, allowed[None])[0]
    odds = [float(chance[min(index[a], index[b]), max(index[a], index[b])]) for a, b in pairs]
    answered = Assignment.objects.filter(job=job, worker=worker, status=AssignmentStatus.SUBMITTED).count()
    draw = stable_fraction(job.pk, "pair-draw", f"{worker.pk}:{answered}") * sum(odds)
    first = min(int(np.searchsorted(np.cumsum(odds), draw, side="right")), len(pairs) - 1)
    rest = sorted((n for n in range(len(pairs)) if n != first), key=lambda n: (-odds[n], pairs[n]))
    return [pairs[first]] + [pairs[n] for n in rest]
