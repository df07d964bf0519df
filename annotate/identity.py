"""Who an annotator is: a collect.Worker who entered a job through its link (annotate.views.join,
the same door as a chat campaign's), kept in the Django session under collect's key, or carried by
a signed API token handed out for that worker only (annotate.api.views.JobJoinApi).

Either way a request acts for the worker only in jobs they entered (a JobEntry), and never once the
worker is blocked."""

from __future__ import annotations

from django.core import signing
from django.utils.translation import gettext_noop

from annotate.models import Job, JobEntry
from annotate.services import AnnotationError
from collect.models import Worker

# Tokens are handed out only through the job's door; those signed under an earlier salt, when the
# join endpoint still took a bare id, are not accepted.
TOKEN_SALT = "annotate.api.token.door"
TOKEN_MAX_AGE = 30 * 24 * 3600
# English in the API; the job's pages show them translated (annotate.views).
BLOCKED = gettext_noop("You cannot take part in this job. Contact the researcher if you think this is a mistake.")
NOT_ENTERED = gettext_noop("Open this job through the link you were given first.")


def worker_token(worker: Worker) -> str:
    return signing.TimestampSigner(salt=TOKEN_SALT).sign_object({"w": worker.pk})


def worker_from_token(token: str) -> Worker | None:
    try:
        data = signing.TimestampSigner(salt=TOKEN_SALT).unsign_object(token, max_age=TOKEN_MAX_AGE)
    except signing.BadSignature:
        return None
    return Worker.objects.filter(pk=data.get("w")).first()


def entry_check(*, job: Job, worker: Worker) -> JobEntry:
    """The worker's entry in this job. Raises AnnotationError (403) for a blocked worker or one who
    never entered the job through its link."""
    if worker.blocked:
        raise AnnotationError("blocked", BLOCKED, status=403)
    entry = JobEntry.objects.filter(job=job, worker=worker).select_related("job").first()
    if entry is None:
        raise AnnotationError("not_entered", NOT_ENTERED, status=403)
    return entry
