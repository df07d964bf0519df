"""Staff-only pages (/research/ and its exports): a signed-in user who is not staff gets 403 (the
admin's own decorator sends them to the login page instead, as if they could sign in there)."""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from collect.models import Protocol
from collect.views import _error

# The dataset each protocol's campaigns export as (collect.exporters.EXPORTERS).
DATASET_OF_PROTOCOL = {Protocol.WOW: "wow", Protocol.CURIOSITY: "curiosity", Protocol.DUCONV: "duconv", Protocol.MODEL_CHAT: "modelchat"}
REPORT, CURIOSITY_ACTS = "annotation-report", "curiosity-acts"


def job_dataset(*, kind: str, source: dict) -> str:
    """What an annotation job exports: its own dataset where it has one, its campaigns' export that
    carries its labels, or its report (a job of annotate.models.Job's `kind` and `source`)."""
    if kind == "relevance":
        return "wowpp"
    if kind == "dialog_acts" and source.get("dataset") == "curiosity":
        return CURIOSITY_ACTS  # imported from a Curiosity file: that file with the acts
    if kind in ("dialog_acts", "pairwise") and source.get("campaigns"):
        return "curiosity" if kind == "dialog_acts" else "modelchat"
    return REPORT


def staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path(), "admin:login")
        if not (user.is_active and user.is_staff):
            return _error(request, 403, "Staff only", "This page is for the study's researchers.")
        return view(request, *args, **kwargs)

    return wrapped
