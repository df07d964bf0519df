"""Worker pages. Each view checks that the page belongs to the worker in the session."""

from __future__ import annotations

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _, ngettext

from collect.charts import interval_chart
from collect.curiosity.analysis import like_rates_by_source
from collect.models import Assignment, AssignmentStatus, Campaign, Protocol, RoomStatus
from collect.entry_views import finish_page
from collect.framing import by_assignment, by_room, mturk_task_page, prolific_completion_page
from collect.lifecycle.identity import ID_PATTERN  # noqa: F401  (annotate.identity checks ids with it)
from collect.lifecycle.onboarding import onboarding_needed
from groundwork.languages import language_page

ROOM_TEMPLATES = {
    Protocol.CURIOSITY: "collect/curiosity_room.html",
    Protocol.DUCONV: "collect/duconv_room.html",
    Protocol.MODEL_CHAT: "collect/modelchat_room.html",
}

ENDED = (RoomStatus.RATING, RoomStatus.COMPLETE, RoomStatus.INCOMPLETE)


def duration_text(seconds: int) -> str:
    """180 → "3 minutes", 90 → "90 seconds": how the instructions state a time limit."""
    if seconds % 60 == 0:
        minutes = seconds // 60
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}


def _error(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "collect/error.html", {"title": title, "message": message}, status=status)


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
        return _error(request, 403, _("Not your page"), _("This waiting room belongs to another worker. Use your own link."))
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
        },
    )


@language_page(by_room)
@mturk_task_page(by_room)
def room(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return _error(request, 403, _("Not your chat"), _("This chat belongs to other workers. Use your own link."))
    if assignment.room.status in (RoomStatus.COMPLETE, RoomStatus.INCOMPLETE):
        return redirect("collect:done", room_id)
    template = ROOM_TEMPLATES.get(assignment.campaign.protocol, "collect/room.html")
    if assignment.campaign.protocol == Protocol.MODEL_CHAT and assignment.role == "wizard":
        template = "collect/room.html"  # the control arm's human partner: an ordinary WoW wizard
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
            "done_url": reverse("collect:done", args=[room_id]),
            "instructions": assignment.campaign.instructions,
            "turn_timeout_text": duration_text(assignment.campaign.turn_timeout_seconds),
        },
    )


@language_page(by_room)
@mturk_task_page(by_room)
def done(request: HttpRequest, room_id: str) -> HttpResponse:
    assignment = _own_assignment(request, room_id=room_id)
    if assignment is None:
        return _error(request, 403, _("Not your chat"), _("This chat belongs to other workers."))
    if assignment.room.status not in ENDED:
        return redirect("collect:room", room_id)
    return finish_page(request, assignment)


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
    rows = [(r.label, r.rate_percent, r.low_percent, r.high_percent) for r in analysis.rates if r.messages]
    chart = interval_chart("Like rate by fact source (95% Wilson interval)", rows, x_label="messages liked (%)", digits=1)
    return render(
        request,
        "collect/curiosity_analysis.html",
        {"campaigns": campaigns, "chosen": chosen, "analysis": analysis, "like_chart": chart},
    )
