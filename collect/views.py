"""Worker pages. Each view checks that the page belongs to the worker in the session."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _, ngettext

from collect import registry
from collect.authenticity.policy import role_policy, timeline_roles
from collect.models import Assignment, AssignmentStatus, Campaign, RoomStatus
from collect.entry_views import finish_page
from collect.framing import by_assignment, by_room, mturk_task_page, prolific_completion_page
from collect.lifecycle.identity import ID_PATTERN  # noqa: F401  (annotate.identity checks ids with it)
from collect.lifecycle.onboarding import onboarding_needed
from groundwork.languages import language_page
from groundwork.pages import error_page

ENDED = (RoomStatus.RATING, RoomStatus.COMPLETE, RoomStatus.INCOMPLETE)


def duration_text(seconds: int) -> str:
    """180 → "3 minutes", 90 → "90 seconds": how the instructions state a time limit."""
    if seconds % 60 == 0:
        minutes = seconds // 60
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}




def home(request: HttpRequest) -> HttpResponse:
    return render(request, "collect/home.html", {"campaigns": Campaign.objects.filter(is_active=True).order_by("name")})


def _own_assignment(request: HttpRequest, **filters: object) -> Assignment | None:
    worker_id = request.session.get("worker_id")
    if worker_id is None:
        return None
    return Assignment.objects.select_related("campaign", "room", "worker").filter(worker_id=worker_id, **filters).first()


@language_page(by_assignment)
@mturk_task_page(by_assignment)
@prolific_completion_page(by_assignment)  # "Leave" after the wait has ended leads to the finish page
def wait(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own_assignment(request, pk=assignment_id)
    if assignment is None:
        return error_page(request, 403, _("Not your page"), _("This waiting room belongs to another worker. Use your own link."))
    if assignment.status == AssignmentStatus.PAIRED:
        return redirect("collect:room", assignment.room_id)
    if assignment.outcome:
        return redirect("collect:finish", assignment.pk)
    if onboarding_needed(campaign=assignment.campaign, worker=assignment.worker):
        return redirect("collect:onboarding", assignment.pk)
    return render(
        request,
        "collect/waiting.html",
        {
            "campaign": assignment.campaign,
            "assignment": assignment,
            "ws_path": f"/ws/wait/{assignment.pk}/",
            "timeout_seconds": assignment.campaign.wait_timeout_seconds,
            # Before the role is known: whether any role's turns keep their insertion timelines.
            "timeline": bool(timeline_roles(assignment.campaign.authenticity_policy, registry.protocol(assignment.campaign.protocol).roles)),
        },
    )


@language_page(by_room)
@mturk_task_page(by_room)
def room(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return error_page(request, 403, _("Not your chat"), _("This chat belongs to other workers. Use your own link."))
    if assignment.room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE):
        return redirect("collect:done", room_id)
    protocol = registry.protocol(assignment.campaign.protocol)
    template = protocol.room_template_for(assignment.role)
    # The time this worker has for each reply (a protocol may give each role its own).
    reply_seconds = protocol.turn_timeout_seconds(campaign=assignment.campaign, role=assignment.role, status=RoomStatus.CHATTING)
    rules = role_policy(assignment.campaign.authenticity_policy, assignment.role)
    return render(
        request,
        template,
        {
            "campaign": assignment.campaign,
            "room": assignment.room,
            "assignment": assignment,
            "role": assignment.role,
            "ws_path": f"/ws/room/{room_id}/",
            "max_chars": settings.MESSAGE_MAX_CHARS,
            "max_frame_bytes": settings.WS_MAX_FRAME_BYTES,
            "done_url": reverse("collect:done", args=[room_id]),
            "instructions": assignment.campaign.instructions,
            "turn_timeout_text": duration_text(reply_seconds),
            "authenticity_policy": json.dumps(rules),
            "timeline": rules["timeline"] == "on",
        },
    )


@language_page(by_room)
@mturk_task_page(by_room)
def done(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return error_page(request, 403, _("Not your chat"), _("This chat belongs to other workers."))
    if assignment.room.status not in ENDED:
        return redirect("collect:room", room_id)
    return finish_page(request, assignment)
