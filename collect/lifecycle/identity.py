"""Who is entering, from the link's query string: a signed in-house link, Prolific's parameters or
MTurk's ExternalQuestion parameters. Every door (a chat campaign, an annotation job) reads it here.
Every value is checked against a strict pattern; a link for another platform than the door's is
refused, and so is an in-house link on a Prolific or MTurk study."""

from __future__ import annotations

from django.utils.translation import gettext as _

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from django.conf import settings

from collect.lifecycle.links import CAMPAIGN_LINKS, signature_verify
from collect.models import Platform

# Platform ids are opaque tokens: letters, digits, '-', '_', '.', at most 100 characters.
ID_PATTERN = re.compile(r"\A[A-Za-z0-9_.\-]{1,100}\Z")
SIG_PATTERN = re.compile(r"\A[0-9a-f]{32}\Z")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MTURK_KEYS = ("assignmentId", "hitId", "workerId", "turkSubmitTo")
PROLIFIC_KEYS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
LINK_PARAMETERS = {
    Platform.INHOUSE: "worker=… and sig=…",
    Platform.PROLIFIC: "PROLIFIC_PID, STUDY_ID and SESSION_ID",
    Platform.MTURK: "assignmentId, hitId, workerId and turkSubmitTo",
}


class EntryRefused(Exception):
    """A join that cannot go ahead; `status` is the HTTP status of the page that says why."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


class Enterable(Protocol):
    """What a link opens: a collect.Campaign or an annotate.Job."""

    slug: str
    platform: str

    def get_platform_display(self) -> str: ...


@dataclass(frozen=True)
class Door:
    """A campaign or a job as its links see it. `kind` is the namespace its links are signed in."""

    kind: str
    slug: str
    platform: str
    platform_label: str

    @classmethod
    def of(cls, target: Enterable, *, kind: str = CAMPAIGN_LINKS) -> Door:
        return cls(kind, target.slug, target.platform, target.get_platform_display())


@dataclass(frozen=True)
class Identity:
    platform: str
    external_id: str
    study_id: str = ""
    session_id: str = ""
    turk_submit_to: str = ""
    preview: bool = False


def _bad_id() -> EntryRefused:
    return EntryRefused(400, _("Bad worker id"), _("Ids may hold only letters, digits, '-', '_' and '.', up to 100 characters."))


def _checked(*values: str) -> None:
    for value in values:
        if not ID_PATTERN.match(value):
            raise _bad_id()


def _wrong_platform(door: Door, link: str) -> EntryRefused:
    return EntryRefused(
        400,
        _("Wrong platform"),
        _("This study does not take %(link)s links: it runs on %(platform)s. Use the link you were given there.")
        % {"link": link, "platform": door.platform_label},
    )


def identity_parse(*, door: Door, params: Mapping[str, str]) -> Identity:
    if "worker" in params:
        if door.platform != Platform.INHOUSE:
            raise _wrong_platform(door, _("in-house"))
        return _inhouse(door, params)
    if "PROLIFIC_PID" in params:
        if door.platform != Platform.PROLIFIC:
            raise _wrong_platform(door, "Prolific")
        return _prolific(params)
    if any(key in params for key in MTURK_KEYS):
        if door.platform != Platform.MTURK:
            raise _wrong_platform(door, "MTurk")
        return _mturk(params)
    expected = LINK_PARAMETERS.get(door.platform, "its platform's parameters")
    raise EntryRefused(
        400, _("Missing worker id"), _("The link must carry %(expected)s; use the exact link you were given.") % {"expected": expected}
    )


def _inhouse(door: Door, params: Mapping[str, str]) -> Identity:
    worker, signature = params["worker"], params.get("sig")
    _checked(worker)
    if signature is None:
        if not settings.UNSIGNED_LINKS:
            raise EntryRefused(403, _("Unsigned link"), _("This link has no signature. Use the exact link the researcher gave you."))
    elif not SIG_PATTERN.match(signature) or not signature_verify(kind=door.kind, slug=door.slug, worker=worker, signature=signature):
        raise EntryRefused(403, _("Invalid link"), _("This link's signature does not match. Use the exact link the researcher gave you, unchanged."))
    return Identity("inhouse", worker)


def _prolific(params: Mapping[str, str]) -> Identity:
    # Without the study and session ids no submission could be approved or paid through Prolific.
    pid, study_id, session_id = (params.get(key, "") for key in PROLIFIC_KEYS)
    if not (pid and study_id and session_id):
        raise EntryRefused(
            400,
            _("Incomplete Prolific link"),
            _("Prolific did not pass PROLIFIC_PID, STUDY_ID and SESSION_ID. Open the study again from Prolific."),
        )
    _checked(pid, study_id, session_id)
    return Identity("prolific", pid, study_id=study_id, session_id=session_id)


def _mturk(params: Mapping[str, str]) -> Identity:
    assignment_id, hit_id = params.get("assignmentId", ""), params.get("hitId", "")
    if assignment_id == MTURK_PREVIEW:
        return Identity("mturk", "", preview=True)
    worker_id, submit_to = params.get("workerId", ""), params.get("turkSubmitTo", "")
    if not (assignment_id and hit_id and worker_id and submit_to):
        raise EntryRefused(400, _("Incomplete HIT link"), _("MTurk did not pass assignmentId, hitId, workerId and turkSubmitTo. Reload the HIT."))
    _checked(assignment_id, hit_id, worker_id)
    parts = urlsplit(submit_to)
    origin = f"{parts.scheme}://{parts.netloc}"
    if parts.path.strip("/") or parts.query or origin not in settings.MTURK_SUBMIT_HOSTS:
        raise EntryRefused(400, _("Bad turkSubmitTo"), _("turkSubmitTo must be MTurk's own address (www.mturk.com or the sandbox)."))
    return Identity("mturk", worker_id, study_id=hit_id, session_id=assignment_id, turk_submit_to=origin)
