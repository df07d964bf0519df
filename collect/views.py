"""Worker pages. Each view checks that the page belongs to the worker in the session."""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from collect.curiosity.analysis import like_rates_by_source
from collect.models import Assignment, AssignmentStatus, Campaign, Protocol, RoomStatus
from collect.services import matchmaking

ROOM_TEMPLATES = {Protocol.CURIOSITY: "collect/curiosity_room.html"}

# Platform ids are opaque tokens: letters, digits, '-', '_', '.', at most 100 characters.
ID_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
ENDED = (RoomStatus.RATING, RoomStatus.COMPLETE, RoomStatus.INCOMPLETE)


def _error(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "collect/error.html", {"title": title, "message": message}, status=status)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "collect/home.html", {"campaigns": Campaign.objects.filter(is_active=True).order_by("name")})


def join(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        return _error(request, 404, "No such study", f"There is no study called “{slug}”. Check the link you were given.")
    if not campaign.is_active:
        return _error(request, 410, "Study closed", "This study is not taking part any more. Thank you for your interest.")
    if "PROLIFIC_PID" in request.GET:
        platform, external_id = "prolific", request.GET["PROLIFIC_PID"]
    elif "worker" in request.GET:
        platform, external_id = "inhouse", request.GET["worker"]
    else:
        return _error(request, 400, "Missing worker id", "The link must carry PROLIFIC_PID=… or worker=…; use the exact link you were given.")
    extras = {key: request.GET.get(param, "") for key, param in (("study_id", "STUDY_ID"), ("session_id", "SESSION_ID"))}
    for value in (external_id, *filter(None, extras.values())):
        if not ID_PATTERN.match(value):
            return _error(request, 400, "Bad worker id", "Ids may hold only letters, digits, '-', '_' and '.', up to 100 characters.")
    worker = matchmaking.worker_get_or_create(platform=platform, external_id=external_id)
    request.session["worker_id"] = worker.pk
    assignment = matchmaking.assignment_start(campaign=campaign, worker=worker, **extras)
    if assignment.room_id:
        return redirect("collect:room", assignment.room_id)
    return redirect("collect:wait", assignment.pk)


def _own_assignment(request: HttpRequest, **filters: object) -> Assignment | None:
    worker_id = request.session.get("worker_id")
    if worker_id is None:
        return None
    return Assignment.objects.select_related("campaign", "room").filter(worker_id=worker_id, **filters).first()


def wait(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own_assignment(request, pk=assignment_id)
    if assignment is None:
        return _error(request, 403, "Not your page", "This waiting room belongs to another worker. Use your own link.")
    if assignment.status == AssignmentStatus.PAIRED:
        return redirect("collect:room", assignment.room_id)
    return render(
        request,
        "collect/waiting.html",
        {
            "campaign": assignment.campaign,
            "assignment": assignment,
            "ws_path": f"/ws/wait/{assignment.pk}/",
            "timeout_seconds": assignment.campaign.wait_timeout_seconds,
        },
    )


def room(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return _error(request, 403, "Not your chat", "This chat belongs to other workers. Use your own link.")
    if assignment.room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE):
        return redirect("collect:done", room_id)
    return render(
        request,
        ROOM_TEMPLATES.get(assignment.campaign.protocol, "collect/room.html"),
        {
            "campaign": assignment.campaign,
            "room": assignment.room,
            "assignment": assignment,
            "role": assignment.role,
            "ws_path": f"/ws/room/{room_id}/",
            "max_chars": settings.MESSAGE_MAX_CHARS,
            "done_url": reverse("collect:done", args=[room_id]),
            "instructions": assignment.campaign.instructions,
        },
    )


def done(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return _error(request, 403, "Not your chat", "This chat belongs to other workers.")
    room = assignment.room
    if room.status not in ENDED:
        return redirect("collect:room", room_id)
    campaign = assignment.campaign
    return render(
        request,
        "collect/done.html",
        {
            "campaign": campaign,
            "room": room,
            "completion_code": campaign.completion_code,
            "completion_url": campaign.completion_url,
            "incomplete": room.status == RoomStatus.INCOMPLETE,
        },
    )


@staff_member_required
def curiosity_analysis(request: HttpRequest) -> HttpResponse:
    """Researchers: the paper's headline analysis on the collected (and imported) dialogues — the
    like rate of assistant messages by the source of the facts they used."""
    campaigns = Campaign.objects.filter(protocol=Protocol.CURIOSITY).order_by("name")
    slug = request.GET.get("campaign", "")
    chosen = campaigns.filter(slug=slug).first() if slug else None
    if slug and chosen is None:
        return _error(request, 404, "No such campaign", f"There is no Curiosity campaign called “{slug}”.")
    analysis = like_rates_by_source(campaigns=[chosen] if chosen else list(campaigns))
    return render(
        request, "collect/curiosity_analysis.html", {"campaigns": campaigns, "chosen": chosen, "analysis": analysis}
    )
