"""Who an annotator is: a collect.Worker, entered by link exactly as in collect (?worker=.. for
in-house annotators, ?PROLIFIC_PID=.. for Prolific), kept in the Django session (`worker_id`, the
same key collect uses) or carried by a signed API token."""

from __future__ import annotations

from typing import Mapping

from django.core import signing

from annotate.services import AnnotationError
from collect.models import Worker
from collect.services.matchmaking import worker_get_or_create
from collect.views import ID_PATTERN

TOKEN_SALT = "annotate.api.token"
TOKEN_MAX_AGE = 30 * 24 * 3600


def worker_from_link(params: Mapping[str, str]) -> Worker:
    if params.get("PROLIFIC_PID"):
        platform, external_id = "prolific", params["PROLIFIC_PID"]
    elif params.get("worker"):
        platform, external_id = "inhouse", params["worker"]
    else:
        raise AnnotationError("missing_worker", "The link must carry PROLIFIC_PID=… or worker=…; use the exact link you were given.")
    if not ID_PATTERN.match(external_id):
        raise AnnotationError("bad_worker", "Ids may hold only letters, digits, '-', '_' and '.', up to 100 characters.")
    return worker_get_or_create(platform=platform, external_id=external_id)


def worker_token(worker: Worker) -> str:
    return signing.TimestampSigner(salt=TOKEN_SALT).sign_object({"w": worker.pk})


def worker_from_token(token: str) -> Worker | None:
    try:
        data = signing.TimestampSigner(salt=TOKEN_SALT).unsign_object(token, max_age=TOKEN_MAX_AGE)
    except signing.BadSignature:
        return None
    return Worker.objects.filter(pk=data.get("w")).first()
