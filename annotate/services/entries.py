"""An annotator's entry into a job, through the same door as a chat campaign's
(collect.lifecycle.entry.worker_admit: signed link or crowd platform, first browser, blocked workers
refused), and how it ends: the outcome and its code, recorded once."""

from __future__ import annotations

from django.utils.translation import gettext as _

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, ItemRole, Job, JobEntry
from collect.lifecycle.entry import replayed_assignment_refuse, worker_admit, worker_busy
from collect.lifecycle.identity import EntryRefused, Identity
from collect.models import Outcome, Worker

# The API has no browser cookie: a link used through it is bound to this stand-in, which no
# browser can present (browser tokens are 32 URL-safe characters), so the link then opens in no
# browser, and a link first opened in a browser gets no token from its parameters.
API_BROWSER = "api"
# What the next-item statuses mean for the entry.
FINISHED_STATUSES = {"done": Outcome.COMPLETED, "disqualified": Outcome.SCREENED_OUT}


def annotator_busy(worker_id: int) -> bool:
    """In a live chat, or holding an item they have not answered yet: a browser in use."""
    held = Assignment.objects.filter(worker_id=worker_id, status=AssignmentStatus.ASSIGNED, expires_at__gt=timezone.now())
    return worker_busy(worker_id) or held.exists()


def job_entry_admit(*, job: Job, identity: Identity, browser: str, session_worker_id: int | None) -> tuple[Worker, JobEntry]:
    """The worker and their entry in this job (open, finished or new). Raises EntryRefused."""
    if not job.is_active:
        raise EntryRefused(410, _("Job closed"), _("This annotation job is closed. Thank you for your interest."))
    replayed_assignment_refuse(identity=identity, places=JobEntry.objects.filter(job=job))
    worker = worker_admit(identity=identity, browser=browser, session_worker_id=session_worker_id, busy=annotator_busy)
    params = {"study_id": identity.study_id, "session_id": identity.session_id, "turk_submit_to": identity.turk_submit_to}
    try:
        with transaction.atomic():
            entry, created = JobEntry.objects.get_or_create(job=job, worker=worker, defaults=params)
    except IntegrityError:  # the same annotator's two first requests at once
        entry, created = JobEntry.objects.get(job=job, worker=worker), False
    if not created and not entry.outcome and identity.session_id and identity.session_id != entry.session_id:
        # A new Prolific session or MTurk assignment for an unfinished entry: the platform pays that one.
        JobEntry.objects.filter(pk=entry.pk, outcome="").update(**params)
        entry.refresh_from_db()
    return worker, entry


def job_code_for(job: Job, outcome: str) -> str:
    """The code `outcome` earns in this job; "" when it earns none."""
    codes = job.outcome_codes if isinstance(job.outcome_codes, dict) else {}
    if outcome in codes:
        return str(codes[outcome] or "")
    return job.completion_code if outcome == Outcome.COMPLETED else ""


def job_entry_finish(*, entry: JobEntry, status: str) -> JobEntry:
    """Record how the entry ended from a next-item status (done: completed; disqualified: screened
    out), once: a later call never overwrites it. An annotator who answered nothing and finds
    nothing left has no outcome (there is nothing to pay for)."""
    outcome = FINISHED_STATUSES.get(status)
    if outcome is None or entry.outcome:
        return entry
    if outcome == Outcome.COMPLETED and not _answered(entry):
        return entry
    fields = {"outcome": outcome, "ended_at": timezone.now(), "completion_code": job_code_for(entry.job, outcome)}
    JobEntry.objects.filter(pk=entry.pk, outcome="").update(**fields)
    entry.refresh_from_db()
    return entry


def _answered(entry: JobEntry) -> bool:
    return (
        Assignment.objects.filter(job_id=entry.job_id, worker_id=entry.worker_id, status=AssignmentStatus.SUBMITTED)
        .exclude(item__role=ItemRole.QUALIFICATION)
        .exists()
    )


def job_entry_return(*, entry: JobEntry) -> JobEntry:
    """The annotator gives the task back: `returned` (a code only if the job names one for it),
    once, and the item they hold is released at once for others. A finished entry keeps its outcome."""
    with transaction.atomic():
        fields = {"outcome": Outcome.RETURNED, "ended_at": timezone.now(), "completion_code": job_code_for(entry.job, Outcome.RETURNED)}
        if JobEntry.objects.filter(pk=entry.pk, outcome="").update(**fields):
            Assignment.objects.filter(job_id=entry.job_id, worker_id=entry.worker_id, status=AssignmentStatus.ASSIGNED).update(
                status=AssignmentStatus.RELEASED
            )
    entry.refresh_from_db()
    return entry
