"""Worker pages of model chat: entering a campaign (onboarding first, then a seat with a model or a
place in the waiting room for the control arm) and the onboarding sample."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from collect.tasktypes.modelchat.config import NONE_LABEL, ConfigError, config_for
from collect.tasktypes.modelchat.models import ModelChatOnboarding
from collect.tasktypes.modelchat.onboarding import SAMPLE, OnboardingRefused
from collect.tasktypes.modelchat.services import CampaignFull, modelchat_seat, onboarding_required, onboarding_submit
from collect.models import Assignment, AssignmentStatus, Campaign
from collect.tasktypes.modelchat import NAME
from collect.framing import by_slug, mturk_task_page, prolific_completion_page
from collect.onboarding_views import screened_out
from groundwork.languages import language_page
from groundwork.pages import error_page


def enter(request: HttpRequest, campaign: Campaign, assignment: Assignment) -> HttpResponse:
    """Where a worker without a room goes next in a model-chat campaign."""
    try:
        if onboarding_required(campaign=campaign, worker=assignment.worker):
            return redirect("collect:modelchat_onboarding", campaign.slug)
        room = modelchat_seat(assignment=assignment)
    except ConfigError as error:
        return error_page(request, 503, _("Study not ready"), _("This study is misconfigured (%(error)s). Please tell the researchers.") % {"error": error})
    except CampaignFull:
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.WAITING).update(status=AssignmentStatus.LEFT)
        return error_page(request, 410, _("Study full"), _("This study has all the conversations it needs. Thank you for your interest."))
    if room is not None:
        return redirect("collect:room", room.pk)
    return redirect("collect:wait", assignment.pk)


@language_page(by_slug)
@mturk_task_page(by_slug)
@prolific_completion_page(by_slug)  # a last wrong try ends at Prolific's completion page (via finish)
def onboarding(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = Campaign.objects.filter(slug=slug, protocol=NAME, is_active=True).first()
    worker_id = request.session.get("worker_id")
    assignment = (
        Assignment.objects.select_related("worker", "campaign").filter(campaign=campaign, worker_id=worker_id).order_by("-created").first()
        if campaign and worker_id
        else None
    )
    if assignment is None:
        return error_page(request, 403, _("Not your page"), _("Open the study with your own link first."))
    if assignment.outcome:
        return redirect("collect:finish", assignment.pk)
    config = config_for(campaign)
    if not onboarding_required(campaign=campaign, worker=assignment.worker):
        return enter(request, campaign, assignment)
    context = {
        "campaign": campaign,
        "problems": [{"key": k, "text": _(config.problem_text(k))} for k in config.problems],
        "none_label": NONE_LABEL,
        "turns": [{"index": i, "speaker": s, "text": _(t)} for i, (s, t, _labels) in enumerate(SAMPLE)],
        "attempts": config.onboarding_attempts,
    }
    tried = ModelChatOnboarding.objects.filter(campaign=campaign, worker=assignment.worker).first()
    if tried is not None and tried.attempts >= config.onboarding_attempts:
        return screened_out(assignment)  # e.g. the join link opened again: a new assignment, no new tries
    if request.method != "POST":
        return render(request, "modelchat/onboarding.html", context)
    answers = {i: request.POST.getlist(f"turn-{i}") for i, (speaker, _t, _l) in enumerate(SAMPLE) if speaker == "model"}
    for turn in context["turns"]:
        turn["ticked"] = answers.get(turn["index"], [])
    try:
        result = onboarding_submit(campaign=campaign, worker=assignment.worker, answers=answers)
    except OnboardingRefused as refused:
        # Not a wrong answer but no answer at all: said so, the ticks kept, no attempt used.
        context.update(refused=refused.turns)
        return render(request, "modelchat/onboarding.html", context, status=400)
    if result.passed:
        return enter(request, campaign, assignment)
    if result.attempts_left <= 0:
        return screened_out(assignment)
    context.update(wrong=result.wrong, attempts_left=result.attempts_left)
    return render(request, "modelchat/onboarding.html", context, status=400)

