"""Admission: from a parsed identity to a place in the campaign, or a refusal that says why.

`worker_admit` is every door's first step (chat campaigns here, annotation jobs in
annotate.services.entries): the worker's identity is bound to the browser that first used their
link, a browser already taking part as one worker does not silently switch to another, and blocked
workers are refused. Then each kind of work applies its own caps; a worker who already finished is
sent back to their own result."""

from __future__ import annotations

from django.utils.translation import gettext as _

from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError
from django.db.models import QuerySet
from django.utils import timezone

from collect.lifecycle.identity import EntryRefused, Identity
from collect.lifecycle.links import browser_hash, pseudonym_for
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Platform, Worker
from collect.services.matchmaking import LIVE_ROOM_STATUSES, assignment_start


def worker_for(identity: Identity) -> Worker:
    try:
        worker, _ = Worker.objects.get_or_create(
            platform=identity.platform,
            external_id=identity.external_id,
            defaults={"pseudonym": pseudonym_for(platform=identity.platform, external_id=identity.external_id)},
        )
    except IntegrityError:  # a concurrent first join of the same worker
        worker = Worker.objects.get(platform=identity.platform, external_id=identity.external_id)
    return worker


def live_assignment(*, campaign: Campaign | None, worker_id: int) -> Assignment | None:
    live = Assignment.objects.filter(worker_id=worker_id).filter(
        status__in=(AssignmentStatus.WAITING, AssignmentStatus.PAIRED)
    )
    waiting = live.filter(status=AssignmentStatus.WAITING)
    if campaign is not None:
        live = live.filter(campaign=campaign)
        waiting = live.filter(status=AssignmentStatus.WAITING, created__gte=timezone.now() - timedelta(seconds=campaign.wait_timeout_seconds))
    return (
        waiting.first()
        or live.filter(status=AssignmentStatus.PAIRED, room__status__in=LIVE_ROOM_STATUSES).first()
    )


def worker_admit(
    *, identity: Identity, browser: str, session_worker_id: int | None, busy: Callable[[int], bool] | None = None
) -> Worker:
    """The worker behind a parsed identity, bound to this browser. Raises EntryRefused for a blocked
    worker, a link first opened in another browser, or a browser whose session belongs to another
    worker who is still busy (`busy(worker_id)`; by default: in a live chat)."""
    worker = worker_for(identity)
    if worker.blocked:
        raise EntryRefused(403, _("Not available"), _("You cannot take part in this study. Contact the researcher if you think this is a mistake."))
    _bind_browser(worker, browser)
    busy = busy or worker_busy
    if session_worker_id is not None and session_worker_id != worker.pk and busy(session_worker_id):
        raise EntryRefused(
            409,
            _("This browser is in use"),
            _("This browser is already taking part as another worker, whose chat is still open. Finish that "
            "one first, or open this link in another browser (or a private window)."),
        )
    return worker


def worker_busy(worker_id: int) -> bool:
    return live_assignment(campaign=None, worker_id=worker_id) is not None


def replayed_assignment_refuse(*, identity: Identity, places: QuerySet) -> None:
    """MTurk gives each assignmentId to one worker: another workerId arriving with it replays a link
    that is not theirs. Refused before anything is written. `places`: the campaign's assignments or
    the job's entries (each has `session_id` and `worker`)."""
    if identity.platform != Platform.MTURK or not identity.session_id:
        return
    others = places.filter(session_id=identity.session_id).exclude(
        worker__platform=identity.platform, worker__external_id=identity.external_id
    )
    if others.exists():
        raise EntryRefused(
            403,
            _("Assignment already taken"),
            _("This MTurk assignment belongs to another worker. Accept the HIT on MTurk to get an assignment of your own."),
        )


def entry_admit(*, campaign: Campaign, identity: Identity, browser: str, session_worker_id: int | None) -> tuple[Worker, Assignment]:
    """The worker and their assignment (live, finished or new). Raises EntryRefused."""
    replayed_assignment_refuse(identity=identity, places=Assignment.objects.filter(campaign=campaign))
    worker = worker_admit(identity=identity, browser=browser, session_worker_id=session_worker_id)
    live = live_assignment(campaign=campaign, worker_id=worker.pk)
    if live:
        return worker, live
    # Screened out of this study: that ending and its code again, not a new attempt (which would
    # also be paid a second time).
    screened = Assignment.objects.filter(campaign=campaign, worker=worker, outcome=Outcome.SCREENED_OUT).order_by("-created").first()
    if screened is not None:
        return worker, screened
    if identity.platform == Platform.MTURK:
        # An assignment MTurk has already been sent the result of is not worked twice: its result again.
        spent = Assignment.objects.filter(campaign=campaign, worker=worker, session_id=identity.session_id).exclude(outcome="")
        if spent.exists():
            return worker, spent.order_by("-created").first()
    finished = Assignment.objects.filter(campaign=campaign, worker=worker, room__isnull=False).order_by("-created")
    if campaign.max_per_worker and finished.count() >= campaign.max_per_worker:
        # At the cap (and no live chat): the view shows the last result and its code again.
        return worker, finished.first()
    if campaign.max_per_worker_per_day:
        day = Assignment.objects.filter(worker=worker, room__isnull=False, created__gte=timezone.now() - timedelta(days=1))
        if day.count() >= campaign.max_per_worker_per_day:
            raise EntryRefused(403, _("Come back tomorrow"), _("You have taken part in as many conversations today as this study allows."))
    assignment = assignment_start(
        campaign=campaign,
        worker=worker,
        study_id=identity.study_id,
        session_id=identity.session_id,
        turk_submit_to=identity.turk_submit_to,
    )
    return worker, assignment


def _bind_browser(worker: Worker, browser: str) -> None:
    token = browser_hash(browser)
    if not worker.browser:
        Worker.objects.filter(pk=worker.pk, browser="").update(browser=token)
        worker.refresh_from_db(fields=["browser"])
    if worker.browser != token:
        raise EntryRefused(
            403,
            _("Link already in use"),
            _("This link was first opened in another browser, and a study link works only in the browser that "
            "opened it first. Please continue there."),
        )
