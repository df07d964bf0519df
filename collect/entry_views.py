"""Entry and exit of a paid study: the join link, and the finish page with the outcome's code
(Prolific: a redirect to its completion URL; MTurk: the post back to turkSubmitTo).

`door_enter` and `outcome_render` are shared with the annotation jobs' join and finish pages
(annotate.views): one browser cookie, one session key, one refusal page, one finish page."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _, gettext_lazy

from collect import registry
from collect.framing import by_assignment, by_slug, mturk_task_page
from collect.lifecycle.entry import entry_admit
from collect.lifecycle.identity import Door, EntryRefused, Identity, identity_parse
from collect.lifecycle.onboarding import onboarding_needed
from collect.lifecycle.outcomes import assignment_outcome_set, assignment_return, room_finished_outcomes, room_outcomes_set
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Platform, Room, RoomStatus, Worker
from collect.ratelimit_views import rate_limited
from groundwork.cookies import cookie_keep
from groundwork.csp import mturk_frame_allowed
from groundwork.languages import language_page
from groundwork.pages import error_page

BROWSER_COOKIE = "gw_browser"
BROWSER_PATTERN = re.compile(r"\A[A-Za-z0-9_\-]{32}\Z")
ONE_YEAR = 365 * 24 * 3600
# The worker a browser entered as. Only door_enter writes it, after a valid link admitted them.
SESSION_WORKER = "worker_id"
# (identity, browser token, the session's worker id) -> (worker, their place: an assignment, a job entry)
Admit = Callable[[Identity, str, "int | None"], tuple[Worker, Any]]

OUTCOME_TEXT = {
    Outcome.COMPLETED: (gettext_lazy("Thank you!"), gettext_lazy("The conversation is complete. Thank you for taking part.")),
    Outcome.PARTNER_LEFT: (gettext_lazy("The chat ended early"), gettext_lazy("Your partner left before the end of the conversation. What you wrote has been kept, and you are paid for your time.")),
    Outcome.PARTNER_STALLED: (gettext_lazy("The chat ended early"), gettext_lazy("Your partner stopped replying, so the chat was ended. What you wrote has been kept, and you are paid for your time.")),
    Outcome.NO_PARTNER: (gettext_lazy("No partner was found"), gettext_lazy("Nobody else joined in time. Thank you for waiting: you are paid for your time.")),
    Outcome.STALLED: (gettext_lazy("The chat ended"), gettext_lazy("You did not reply in time, so the chat was ended. This study pays only for chats taken to the end.")),
    Outcome.LEFT: (gettext_lazy("The chat ended"), gettext_lazy("You left the chat before its end, so it was ended. This study pays only for chats taken to the end.")),
    Outcome.SCREENED_OUT: (gettext_lazy("Thank you"), gettext_lazy("You did not pass the qualification quiz for this study.")),
    Outcome.RETURNED: (gettext_lazy("Returned"), gettext_lazy("You returned this task.")),
}

# The same endings for a worker who had not written anything yet: nothing was kept to claim.
NOTHING_WRITTEN_TEXT = {
    Outcome.PARTNER_LEFT: gettext_lazy("Your partner left before the end of the conversation, so the chat was ended. You are paid for your time."),
    Outcome.PARTNER_STALLED: gettext_lazy("Your partner did not reply in time, so the chat was ended. You are paid for your time."),
}



def _browser_token(request: HttpRequest) -> str:
    token = request.COOKIES.get(BROWSER_COOKIE, "")
    return token if BROWSER_PATTERN.match(token) else secrets.token_urlsafe(24)


def door_enter(
    request: HttpRequest,
    *,
    door: Door,
    admit: Admit,
    admitted: Callable[[Worker, Any], HttpResponse],
    preview: Callable[[], HttpResponse],
) -> HttpResponse:
    """Every join page: parse the link, admit the worker (`admit`, in one transaction, raises
    EntryRefused), put them in the session and answer with `admitted(worker, place)`; a refusal is
    a page that says why and writes nothing. The browser cookie is (re)set on every answer, so the
    binding sticks."""
    browser = _browser_token(request)
    # On every answer, an error page's too: a failure after the binding was written (a session
    # that could not be saved) must not leave the browser without the token it is bound to.
    cookie_keep(request, BROWSER_COOKIE, browser, max_age=ONE_YEAR, httponly=True, samesite="Lax", secure=settings.COOKIES_SECURE)
    try:
        identity = identity_parse(door=door, params=request.GET)
        if identity.preview:
            response = preview()
        else:
            # One transaction: an entry cut short (a database lost mid-request answers 500, without
            # the browser cookie) leaves no binding to a browser token the browser never got, which
            # would refuse every retry of the link as opened in another browser.
            with transaction.atomic():
                worker, place = admit(identity, browser, request.session.get(SESSION_WORKER))
            session_enter(request, worker)
            response = admitted(worker, place)
    except EntryRefused as refused:
        response = error_page(request, refused.status, refused.title, refused.message)
    return response


def session_enter(request: HttpRequest, worker: Worker) -> None:
    if request.session.get(SESSION_WORKER) != worker.pk:
        # A new session key for a new identity: a key planted before the entry is worth nothing after it.
        request.session.cycle_key()
    request.session[SESSION_WORKER] = worker.pk


@language_page(by_slug)
@mturk_task_page(by_slug)
@rate_limited("joins")
def join(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        return error_page(request, 404, _("No such study"), _("There is no study called “%(slug)s”. Check the link you were given.") % {"slug": slug})
    if not campaign.is_active:
        return error_page(request, 410, _("Study closed"), _("This study is not taking part any more. Thank you for your interest."))

    def admit(identity: Identity, browser: str, session_worker_id: int | None) -> tuple[Worker, Assignment]:
        return entry_admit(campaign=campaign, identity=identity, browser=browser, session_worker_id=session_worker_id)

    def admitted(worker: Worker, assignment: Assignment) -> HttpResponse:
        if assignment.outcome or (assignment.room and assignment.room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE)):
            return redirect("collect:finish", assignment.pk)
        if assignment.room_id:
            return redirect("collect:room", assignment.room_id)
        if onboarding_needed(campaign=campaign, worker=worker):
            return redirect("collect:onboarding", assignment.pk)
        enter = registry.task_type(campaign.protocol).part("enter")
        if enter is not None:
            # The task type seats the worker itself (a model chat: a model takes the partner's seat).
            return enter(request, campaign, assignment)
        return redirect("collect:wait", assignment.pk)

    return door_enter(
        request,
        door=Door.of(campaign),
        admit=admit,
        admitted=admitted,
        preview=lambda: render(request, "collect/mturk_preview.html", {"campaign": campaign}),
    )


def _own(request: HttpRequest, **filters: object) -> Assignment | None:
    worker_id = request.session.get("worker_id")
    if worker_id is None:
        return None
    return Assignment.objects.select_related("campaign", "room", "worker").filter(worker_id=worker_id, **filters).first()


@language_page(by_assignment)
@mturk_task_page(by_assignment)
def finish(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return error_page(request, 403, _("Not your page"), _("This page belongs to another worker. Use your own link."))
    return finish_page(request, assignment)


@language_page(by_assignment)
@mturk_task_page(by_assignment)
def leave(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """A waiting worker gives the task back (`returned`, no code); their place is freed."""
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return error_page(request, 403, _("Not your page"), _("This page belongs to another worker. Use your own link."))
    if request.method != "POST":
        return error_page(request, 405, _("Use the button"), _("Leave the study with the button on the waiting page."))
    if not assignment_return(assignment_id=assignment.pk) and not assignment.outcome:
        return error_page(request, 409, _("Already paired"), _("You have been paired: the chat is open, so you can no longer leave from the waiting room."))
    return redirect("collect:finish", assignment.pk)


def finish_page(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    """The outcome and its code; settles an outcome the sweep has not recorded yet."""
    room = assignment.room
    if not assignment.outcome:
        if room is None:
            if assignment.status == AssignmentStatus.WAITING:
                return redirect("collect:wait", assignment.pk)
        elif room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE):
            with transaction.atomic():
                room_outcomes_set(room=room, outcomes=room_finished_outcomes(room))
        elif room.status == RoomStatus.RATING:
            assignment_outcome_set(assignment_id=assignment.pk, outcome=Outcome.COMPLETED)  # the chat itself is done
        else:
            return redirect("collect:room", room.pk)
        assignment.refresh_from_db()
    title, text = OUTCOME_TEXT.get(assignment.outcome, (gettext_lazy("Thank you"), ""))
    if assignment.outcome in NOTHING_WRITTEN_TEXT and room is not None and not room.messages.filter(sender=assignment).exists():
        text = NOTHING_WRITTEN_TEXT[assignment.outcome]
    return outcome_render(
        request,
        target=assignment.campaign,
        place=assignment,
        outcome=assignment.outcome,
        code=assignment.completion_code,
        worker_platform=assignment.worker.platform,
        title=title,
        text=text,
        room=room,
    )


def outcome_render(
    request: HttpRequest,
    *,
    target: Any,
    place: Any,
    outcome: str,
    code: str,
    worker_platform: str,
    title: str,
    text: str,
    room: Room | None = None,
) -> HttpResponse:
    """The finish page of a campaign's assignment or a job's entry (`target` has name, platform and
    completion_url; `place` has session_id and turk_submit_to). Prolific: straight to its
    completion URL with the code; MTurk: a form that posts the outcome back to turkSubmitTo, on a
    page MTurk's frame may show."""
    if code and worker_platform == Platform.PROLIFIC and target.platform == Platform.PROLIFIC:
        return redirect(f"{settings.PROLIFIC_COMPLETE_URL}?{urlencode({'cc': code})}")
    mturk = worker_platform == Platform.MTURK and bool(place.turk_submit_to)
    response = render(
        request,
        "collect/done.html",
        {
            "campaign": target,
            "room": room,
            "assignment": place,
            "outcome": outcome,
            "title": title,
            "text": text,
            "completion_code": code,
            "completion_url": target.completion_url if code and not mturk else "",
            "mturk_action": f"{place.turk_submit_to}/mturk/externalSubmit" if mturk else "",
            "incomplete": room is not None and room.status == RoomStatus.INCOMPLETE,
        },
    )
    return mturk_frame_allowed(request, response) if mturk else response
