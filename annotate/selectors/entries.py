"""Who entered a job and how each entry ended: what a researcher pays annotators on."""

from __future__ import annotations

import csv
import io

from django.db.models import Count, Q

from annotate.models import AssignmentStatus, ItemRole, Job, JobEntry

OUTCOME_FIELDS = ["platform", "worker_id", "pseudonym", "study_id", "session_id", "outcome", "completion_code", "answered", "entered", "ended"]


def outcomes_csv(*, job: Job) -> str:
    """One line per annotator who entered the job: their platform id (to pay them: staff only),
    the submission's ids, the outcome and code, and how many items they answered (qualification
    items not counted)."""
    answered = Count(
        "worker__annotation_assignments",
        filter=Q(worker__annotation_assignments__job=job, worker__annotation_assignments__status=AssignmentStatus.SUBMITTED)
        & ~Q(worker__annotation_assignments__item__role=ItemRole.QUALIFICATION),
    )
    entries = JobEntry.objects.filter(job=job).select_related("worker").annotate(answered=answered).order_by("created", "id")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OUTCOME_FIELDS)
    for entry in entries:
        writer.writerow([
            entry.worker.platform, entry.worker.external_id, entry.worker.pseudonym, entry.study_id, entry.session_id,
            entry.outcome, entry.completion_code, entry.answered, entry.created.isoformat(),
            entry.ended_at.isoformat() if entry.ended_at else "",
        ])
    return out.getvalue()
