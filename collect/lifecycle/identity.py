"""Who is joining, from the link's query string: a signed in-house link, Prolific's parameters or
MTurk's ExternalQuestion parameters. Every value is checked against a strict pattern; a link for
another platform than the campaign's is refused."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from collect.lifecycle.links import link_verify
from collect.models import Campaign, Platform

# Platform ids are opaque tokens: letters, digits, '-', '_', '.', at most 100 characters.
ID_PATTERN = re.compile(r"\A[A-Za-z0-9_.\-]{1,100}\Z")
SIG_PATTERN = re.compile(r"\A[0-9a-f]{32}\Z")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK_KEYS = ("assignmentId", "hitId", "workerId", "turkSubmitTo")


class EntryRefused(Exception):
    """A join that cannot go ahead; `status` is the HTTP status of the page that says why."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


@dataclass(frozen=True)
class Identity:
    platform: str
    external_id: str
    study_id: str = ""
    session_id: str = ""
    turk_submit_to: str = ""
    preview: bool = False


def _bad_id() -> EntryRefused:
    return EntryRefused(400, "Bad worker id", "Ids may hold only letters, digits, '-', '_' and '.', up to 100 characters.")


def _checked(*values: str) -> None:
    for value in values:
        if not ID_PATTERN.match(value):
            raise _bad_id()


def identity_parse(*, campaign: Campaign, params: Mapping[str, str]) -> Identity:
    if "worker" in params:
        return _inhouse(campaign, params)
    if "PROLIFIC_PID" in params:
        if campaign.platform != Platform.PROLIFIC:
            raise EntryRefused(400, "Wrong platform", f"This study does not run on Prolific ({campaign.get_platform_display()}). Use the link you were given.")
        extras = [params.get(k, "") for k in ("STUDY_ID", "SESSION_ID")]
        _checked(params["PROLIFIC_PID"], *filter(None, extras))
        return Identity("prolific", params["PROLIFIC_PID"], study_id=extras[0], session_id=extras[1])
    if any(key in params for key in MTURK_KEYS):
        if campaign.platform != Platform.MTURK:
            raise EntryRefused(400, "Wrong platform", f"This study does not run on MTurk ({campaign.get_platform_display()}). Use the link you were given.")
        return _mturk(params)
    raise EntryRefused(400, "Missing worker id", "The link must carry PROLIFIC_PID=… or worker=…; use the exact link you were given.")


def _inhouse(campaign: Campaign, params: Mapping[str, str]) -> Identity:
    worker, signature = params["worker"], params.get("sig")
    _checked(worker)
    if signature is None:
        if not settings.UNSIGNED_LINKS:
            raise EntryRefused(403, "Unsigned link", "This link has no signature. Use the exact link the researcher gave you.")
    elif not SIG_PATTERN.match(signature) or not link_verify(campaign_slug=campaign.slug, worker=worker, signature=signature):
        raise EntryRefused(403, "Invalid link", "This link's signature does not match. Use the exact link the researcher gave you, unchanged.")
    return Identity("inhouse", worker)


def _mturk(params: Mapping[str, str]) -> Identity:
    assignment_id, hit_id = params.get("assignmentId", ""), params.get("hitId", "")
    if assignment_id == MTURK_PREVIEW:
        return Identity("mturk", "", preview=True)
    worker_id, submit_to = params.get("workerId", ""), params.get("turkSubmitTo", "")
    if not (assignment_id and hit_id and worker_id and submit_to):
        raise EntryRefused(400, "Incomplete HIT link", "MTurk did not pass assignmentId, hitId, workerId and turkSubmitTo. Reload the HIT.")
    _checked(assignment_id, hit_id, worker_id)
    parts = urlsplit(submit_to)
    origin = f"{parts.scheme}://{parts.netloc}"
    if parts.path.strip("/") or parts.query or origin not in settings.MTURK_SUBMIT_HOSTS:
        raise EntryRefused(400, "Bad turkSubmitTo", "turkSubmitTo must be MTurk's own address (www.mturk.com or the sandbox).")
    return Identity("mturk", worker_id, study_id=hit_id, session_id=assignment_id, turk_submit_to=origin)
