"""Staff-only pages (/research/ and its exports): a signed-in user who is not staff gets 403 (the
admin's own decorator sends them to the login page instead, as if they could sign in there)."""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from collect import registry
from collect.models import Campaign
from groundwork.pages import error_page


def campaign_dataset(campaign: Campaign) -> str:
    """The dataset a campaign exports as ("" when its task type has none, or is not installed)."""
    try:
        return registry.task_type(campaign.protocol).dataset
    except ValueError:
        return ""


def staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path(), "admin:login")
        if not (user.is_active and user.is_staff):
            return error_page(request, 403, "Staff only", "This page is for the study's researchers.")
        return view(request, *args, **kwargs)

    return wrapped
