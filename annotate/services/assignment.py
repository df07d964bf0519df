"""Serving the next item. An item is never over-assigned: its submitted answers plus its unexpired
reservations stay within the job's overlap, however many annotators ask at once.

On PostgreSQL the candidate item row is locked with FOR UPDATE SKIP LOCKED (concurrent annotators
skip to the next item instead of queueing) and its slots are then counted again in a new statement,
which sees every reservation committed before the lock was granted; anyone adding a reservation or an
answer to an item holds that item's lock. On SQLite every write transaction is IMMEDIATE, so the whole
step runs alone.

Task items come in item order (the free item closest to its overlap first, then by position) unless
the job's kind draws them (annotate.registry.ItemDraw, for a job that plans a study): it may stop the
job serving them and pick the next one, inside the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from annotate.registry import ItemDraw, annotation_kind
from annotate.selectors.progress import qualification_state
from collect.exporters import stable_fraction
from collect.models import Worker

ASSIGNED, SUBMITTED, RELEASED = AssignmentStatus.ASSIGNED, AssignmentStatus.SUBMITTED, AssignmentStatus.RELEASED
# Plain strings for hand-written SQL parameters.
_ASSIGNED, _SUBMITTED, _TASK = str(ASSIGNED), str(SUBMITTED), str(ItemRole.TASK)
ITEMS, ASSIGNMENTS = Item._meta.db_table, Assignment._meta.db_table
LOCK_TRIES = 10


@dataclass(frozen=True)
class NextItem:
    assignment: Assignment | None
    # assigned | resumed | done (nothing left for you) | busy (the rest is reserved by others, retry
    # later) | disqualified (failed the qualification set) | inactive (job closed)
    status: str


def assignment_next(*, job: Job, worker: Worker, now: datetime | None = None) -> NextItem:
    now = now or timezone.now()
    if not job.is_active:
        return NextItem(None, "inactive")
    with transaction.atomic():
        current = _open(job, worker)
        if current is not None and current.expires_at > now:
            return NextItem(current, "resumed")
        if current is not None:  # abandoned: give it back before taking another
            Assignment.objects.filter(pk=current.pk, status=ASSIGNED).update(status=RELEASED)
        qualification = qualification_state(job=job, worker=worker)
        if qualification == "failed":
            return NextItem(None, "disqualified")
        draw = _draw(job)
        if draw is not None and draw.over(now=now):
            return NextItem(None, "done")  # e.g. a study's budget spent or its ranking settled
        if qualification == "pending":
            item = _next_known(job, worker, ItemRole.QUALIFICATION)
        elif job.max_items_per_worker and _answered(job, worker) >= job.max_items_per_worker:
            return NextItem(None, "done")  # at the job's cap: done, as if nothing were left
        else:
            item = _next_known(job, worker, ItemRole.GOLD) if _gold_turn(job, worker) else None
            if item is None and draw is not None:
                item = draw.next_task(worker=worker, lock=lambda ids: _lock_task(job, worker, now, ids))
            item = item or _lock_task(job, worker, now)
        if item is None:
            if not Item.objects.filter(job=job, role=ItemRole.TASK).exists():
                return NextItem(None, "empty")  # nothing imported yet: not done, and no outcome
            return NextItem(None, "busy" if _tasks_left(job, worker) else "done")
        try:
            with transaction.atomic():
                return NextItem(_reserve(job, item, worker, now), "assigned")
        except IntegrityError:
            # The same annotator's other request reserved an item a moment ago: serve that one.
            current = _open(job, worker)
            if current is None:
                raise
            return NextItem(current, "resumed")


def _draw(job: Job) -> ItemDraw | None:
    """The job's kind's draw of its task items, for a job that plans a study (annotate.registry)."""
    kind = annotation_kind(job.kind)
    return kind.part("draw")(job) if kind.draw else None


def slots_taken(*, item: Item, now: datetime, exclude_worker: Worker | None = None) -> int:
    """Answers (reports excluded: they label nothing) plus unexpired reservations of an item, as a
    new statement (a fresh snapshot)."""
    sql = (
        f"SELECT COUNT(*) FROM {ASSIGNMENTS} WHERE item_id = %s AND worker_id <> %s"
        " AND ((status = %s AND report_reason = '') OR (status = %s AND expires_at > %s))"
    )
    params = [item.pk, exclude_worker.pk if exclude_worker else -1, _SUBMITTED, _ASSIGNED, _db_time(now)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _open(job: Job, worker: Worker) -> Assignment | None:
    """The annotator's reservation in this job (at most one: a partial unique constraint), expired or not."""
    return Assignment.objects.select_related("item").filter(job=job, worker=worker, status=ASSIGNED).first()


def _answered(job: Job, worker: Worker) -> int:
    """Answers that count towards the job's cap per annotator: every item but the qualification set."""
    return Assignment.objects.filter(job=job, worker=worker, status=SUBMITTED).exclude(item__role=ItemRole.QUALIFICATION).count()


def _gold_turn(job: Job, worker: Worker) -> bool:
    if job.gold_rate <= 0:
        return False
    # A draw fixed by (job, worker, answers so far): unpredictable to the annotator, repeatable for us.
    done = Assignment.objects.filter(job=job, worker=worker, status=SUBMITTED).count()
    return stable_fraction(job.pk, "gold", f"{worker.pk}:{done}") < job.gold_rate


def _done_by(worker: Worker) -> Exists:
    return Exists(Assignment.objects.filter(item=OuterRef("pk"), worker=worker, status=SUBMITTED))


def _next_known(job: Job, worker: Worker, role: str) -> Item | None:
    """Gold and qualification items have no overlap: anyone may answer them once."""
    return Item.objects.filter(job=job, role=role).exclude(_done_by(worker)).order_by("position", "id").first()


# Hand-written: this runs on every request for the next item, and the ORM's compilation of it cost
# more CPU than the database spends running it.
_CANDIDATE_SQL = f"""
SELECT i.*, EXISTS (SELECT 1 FROM {ASSIGNMENTS} h WHERE h.item_id = i.id AND h.worker_id = %s) AS had
FROM {ITEMS} i
WHERE i.job_id = %s AND i.role = %s AND i.answers_count < %s
  AND NOT EXISTS (SELECT 1 FROM {ASSIGNMENTS} d WHERE d.item_id = i.id AND d.worker_id = %s AND d.status = %s)
  AND i.answers_count + (SELECT COUNT(*) FROM {ASSIGNMENTS} l
                         WHERE l.item_id = i.id AND l.status = %s AND l.expires_at > %s) < %s
  {{checked}}
ORDER BY i.answers_count DESC, i.position, i.id
LIMIT 1 {{lock}}
"""


def _lock_task(job: Job, worker: Worker, now: datetime, among: list[int] | None = None) -> Item | None:
    """The first free task item (of the ids `among`, when given), row-locked; items closest to their
    overlap first (finished items early, few half-done ones)."""
    features = connection.features
    lock = "FOR UPDATE OF i SKIP LOCKED" if features.has_select_for_update_skip_locked else ""
    params = [worker.pk, job.pk, _TASK, job.overlap, worker.pk, _SUBMITTED, _ASSIGNED, _db_time(now), job.overlap]
    only = f"AND i.id IN ({', '.join(['%s'] * len(among))}) " if among else ""
    checked: list[int] = []
    for _ in range(LOCK_TRIES):
        skip = f"AND i.id NOT IN ({', '.join(['%s'] * len(checked))})" if checked else ""
        found = list(Item.objects.raw(_CANDIDATE_SQL.format(checked=only + skip, lock=lock), params + (among or []) + checked))
        if not found:
            return None
        item = found[0]
        if slots_taken(item=item, now=now, exclude_worker=worker) < job.overlap:
            return item
        checked.append(item.pk)  # filled between our read and our lock
    return None


def _db_time(value: datetime) -> object:
    return connection.ops.adapt_datetimefield_value(value)


def _tasks_left(job: Job, worker: Worker) -> bool:
    return Item.objects.filter(job=job, role=ItemRole.TASK, answers_count__lt=job.overlap).exclude(_done_by(worker)).exists()


def _reserve(job: Job, item: Item, worker: Worker, now: datetime) -> Assignment:
    fields = {"status": ASSIGNED, "assigned_at": now, "expires_at": now + timedelta(seconds=job.reservation_seconds)}
    # An item this annotator abandoned earlier keeps its row (one row per item and annotator).
    if getattr(item, "had", True) and Assignment.objects.filter(item=item, worker=worker).update(**fields):
        return Assignment.objects.select_related("item").get(item=item, worker=worker)
    return Assignment.objects.create(job=job, item=item, worker=worker, **fields)
