"""The onboarding page: role instructions and the quiz, before the waiting room."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _, gettext_lazy

from collect.entry_views import _error, _own
from collect.framing import by_assignment, mturk_task_page, prolific_completion_page
from collect.lifecycle.onboarding import attempts_left, onboarding_needed, quiz_submit
from collect.models import Assignment, AssignmentStatus, Protocol
from groundwork.languages import language_page


# The roles' headings on the onboarding page, in the page's language.
ROLE_TITLES = {
    "wizard": gettext_lazy("The wizard"),
    "apprentice": gettext_lazy("The apprentice"),
    "agent": gettext_lazy("The agent"),
    "user": gettext_lazy("The user"),
    "assistant": gettext_lazy("The assistant"),
}


def _roles(roles: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {role: {**info, "title": ROLE_TITLES.get(role, role)} for role, info in roles.items()}


def _onward(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    """Past the quiz: the waiting room, or for a model chat its own seating (a model needs no wait)."""
    if assignment.campaign.protocol == Protocol.MODEL_CHAT:
        from collect.modelchat.views import enter

        return enter(request, assignment.campaign, assignment)
    return redirect("collect:wait", assignment.pk)


@language_page(by_assignment)
@mturk_task_page(by_assignment)
@prolific_completion_page(by_assignment)
def onboarding(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own(request, pk=assignment_id)
    if assignment is None:
        return _error(request, 403, _("Not your page"), _("This page belongs to another worker. Use your own link."))
    campaign, worker = assignment.campaign, assignment.worker
    if assignment.outcome:
        return redirect("collect:finish", assignment.pk)
    if not onboarding_needed(campaign=campaign, worker=worker) or assignment.status != AssignmentStatus.WAITING:
        return _onward(request, assignment)
    quiz = campaign.onboarding["quiz"]
    context = {"campaign": campaign, "assignment": assignment, "roles": _roles(campaign.onboarding.get("roles", {})), "quiz": quiz}
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
        return redirect("collect:finish", assignment.pk)
    return render(
        request,
        "collect/onboarding.html",
        {**context, "attempts_left": result.attempts_left, "error": _("Not quite: %(score)s right. Read the instructions again and retry.") % {"score": f"{result.score:.0%}"}},
        status=200,
    )
