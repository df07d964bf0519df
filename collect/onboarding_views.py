"""The onboarding page: role instructions and the quiz, before the waiting room."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from collect import registry
from collect.entry_views import _own
from collect.framing import by_assignment, mturk_task_page, prolific_completion_page
from collect.lifecycle.onboarding import attempts_left, onboarding_needed, onboarding_screen_out, quiz_submit
from collect.models import Assignment, AssignmentStatus, Campaign
from groundwork.languages import language_page
from groundwork.pages import error_page


def _roles(campaign: Campaign, roles: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each role's instructions with its heading, in the page's language (the task type names them)."""
    titles = registry.protocol(campaign.protocol).role_titles
    return {role: {**info, "title": titles.get(role, role)} for role, info in roles.items()}


def _onward(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    """Past the quiz: the waiting room, or the task type's own seating (a model chat needs no wait)."""
    enter = registry.task_type(assignment.campaign.protocol).part("enter")
    if enter is not None:
        return enter(request, assignment.campaign, assignment)
    return redirect("collect:wait", assignment.pk)


def screened_out(assignment: Assignment) -> HttpResponse:
    """Out of onboarding attempts, on any campaign: `screened_out` is recorded (once) and the worker
    goes to the finish page, which shows its code and completes on the platform like every outcome."""
    onboarding_screen_out(assignment=assignment)
    return redirect("collect:finish", assignment.pk)


@language_page(by_assignment)
@mturk_task_page(by_assignment)
@prolific_completion_page(by_assignment)
def onboarding(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return error_page(request, 403, _("Not your page"), _("This page belongs to another worker. Use your own link."))
    campaign, worker = assignment.campaign, assignment.worker
    if assignment.outcome:
        return redirect("collect:finish", assignment.pk)
    if not onboarding_needed(campaign=campaign, worker=worker) or assignment.status != AssignmentStatus.WAITING:
        return _onward(request, assignment)
    if attempts_left(campaign=campaign, worker=worker) == 0:
        # Out of attempts already (the join link opened again after screening out, or a shared
        # qualification used up in another campaign): screened out now, not left to wait.
        return screened_out(assignment)
    quiz = campaign.onboarding["quiz"]
    context = {"campaign": campaign, "assignment": assignment, "roles": _roles(campaign, campaign.onboarding.get("roles", {})), "quiz": quiz}
    if request.method != "POST":
        return render(request, "collect/onboarding.html", {**context, "attempts_left": attempts_left(campaign=campaign, worker=worker)})
    answers: dict[int, int] = {}
    for n, item in enumerate(quiz):
        raw = request.POST.get(f"q{n}", "")
        if not raw.isdigit() or int(raw) >= len(item["choices"]):
            return render(
                request,
                "collect/onboarding.html",
                {**context, "attempts_left": attempts_left(campaign=campaign, worker=worker), "error": _("Answer question %(number)d.") % {"number": n + 1}},
                status=400,
            )
        answers[n] = int(raw)
    result = quiz_submit(assignment=assignment, answers=answers)
    if result.passed:
        return _onward(request, assignment)
    if result.attempts_left == 0:
        return screened_out(assignment)  # quiz_submit has recorded it
    return render(
        request,
        "collect/onboarding.html",
        {**context, "attempts_left": result.attempts_left, "error": _("Not quite: %(score)s right. Read the instructions again and retry.") % {"score": f"{result.score:.0%}"}},
        status=200,
    )
