"""Entry and exit of a paid study: the join link, and the finish page with the outcome's code
(Prolific: a redirect to its completion URL; MTurk: the post back to turkSubmitTo)."""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from collect.lifecycle.entry import entry_admit
from collect.lifecycle.identity import EntryRefused, identity_parse
from collect.lifecycle.onboarding import onboarding_needed
from collect.lifecycle.outcomes import assignment_outcome_set, assignment_return, room_finished_outcomes, room_outcomes_set
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Platform, Protocol, RoomStatus
from collect.ratelimit_views import rate_limited

BROWSER_COOKIE = "gw_browser"
BROWSER_PATTERN = re.compile(r"\A[A-Za-z0-9_\-]{32}\Z")
ONE_YEAR = 365 * 24 * 3600

OUTCOME_TEXT = {
    Outcome.COMPLETED: ("Thank you!", "The conversation is complete. Thank you for taking part."),
    Outcome.PARTNER_LEFT: ("The chat ended early", "Your partner left before the end of the conversation. What you wrote has been kept, and you are paid for your time."),
    Outcome.PARTNER_STALLED: ("The chat ended early", "Your partner stopped replying, so the chat was ended. What you wrote has been kept, and you are paid for your time."),
    Outcome.NO_PARTNER: ("No partner was found", "Nobody else joined in time. Thank you for waiting: you are paid for your time."),
    Outcome.STALLED: ("The chat ended", "You did not reply in time, so the chat was ended. This study pays only for chats taken to the end."),
    Outcome.LEFT: ("The chat ended", "You left the chat before its end, so it was ended. This study pays only for chats taken to the end."),
    Outcome.SCREENED_OUT: ("Thank you", "You did not pass the qualification quiz for this study."),
    Outcome.RETURNED: ("Returned", "You returned this task."),
}


def _error(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "collect/error.html", {"title": title, "message": message}, status=status)


def _browser_token(request: HttpRequest) -> str:
    token = request.COOKIES.get(BROWSER_COOKIE, "")
    return token if BROWSER_PATTERN.match(token) else secrets.token_urlsafe(24)


@rate_limited("joins")
def join(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        return _error(request, 404, "No such study", f"There is no study called “{slug}”. Check the link you were given.")
    if not campaign.is_active:
        return _error(request, 410, "Study closed", "This study is not taking part any more. Thank you for your interest.")
    browser = _browser_token(request)
    try:
        identity = identity_parse(campaign=campaign, params=request.GET)
        if identity.preview:
            return render(request, "collect/mturk_preview.html", {"campaign": campaign})
        worker, assignment = entry_admit(
            campaign=campaign, identity=identity, browser=browser, session_worker_id=request.session.get("worker_id")
        )
    except EntryRefused as refused:
        response = _error(request, refused.status, refused.title, refused.message)
    else:
        request.session["worker_id"] = worker.pk
        if assignment.outcome or (assignment.room and assignment.room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE)):
            response = redirect("collect:finish", assignment.pk)
        elif assignment.room_id:
            response = redirect("collect:room", assignment.room_id)
        elif onboarding_needed(campaign=campaign, worker=worker):
            response = redirect("collect:onboarding", assignment.pk)
        elif campaign.protocol == Protocol.MODEL_CHAT:
            # No waiting room: a model takes the partner's seat (or a human control pair waits).
            from collect.modelchat.views import enter

            response = enter(request, campaign, assignment)
        else:
            response = redirect("collect:wait", assignment.pk)
    response.set_cookie(BROWSER_COOKIE, browser, max_age=ONE_YEAR, httponly=True, samesite="Lax", secure=settings.COOKIES_SECURE)
    return response


def _own(request: HttpRequest, **filters: object) -> Assignment | None:
    worker_id = request.session.get("worker_id")
    if worker_id is None:
        return None
    return Assignment.objects.select_related("campaign", "room", "worker").filter(worker_id=worker_id, **filters).first()


def finish(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return _error(request, 403, "Not your page", "This page belongs to another worker. Use your own link.")
    return finish_page(request, assignment)


def leave(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """A waiting worker gives the task back (`returned`, no code); their place is freed."""
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return _error(request, 403, "Not your page", "This page belongs to another worker. Use your own link.")
    if request.method != "POST":
        return _error(request, 405, "Use the button", "Leave the study with the button on the waiting page.")
    if not assignment_return(assignment_id=assignment.pk) and not assignment.outcome:
        return _error(request, 409, "Already paired", "You have been paired: the chat is open, so you can no longer leave from the waiting room.")
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
    campaign, code = assignment.campaign, assignment.completion_code
    if code and assignment.worker.platform == Platform.PROLIFIC and campaign.platform == Platform.PROLIFIC:
        return redirect(f"{settings.PROLIFIC_COMPLETE_URL}?{urlencode({'cc': code})}")
    title, text = OUTCOME_TEXT.get(assignment.outcome, ("Thank you", ""))
    mturk = assignment.worker.platform == Platform.MTURK and bool(assignment.turk_submit_to)
    return render(
        request,
        "collect/done.html",
        {
            "campaign": campaign,
            "room": room,
            "assignment": assignment,
            "outcome": assignment.outcome,
            "title": title,
            "text": text,
            "completion_code": code,
            "completion_url": campaign.completion_url if code and not mturk else "",
            "mturk_action": f"{assignment.turk_submit_to}/mturk/externalSubmit" if mturk else "",
            "incomplete": room is not None and room.status == RoomStatus.INCOMPLETE,
        },
    )
