"""Which worker pages another site may frame or send the worker on to, by the campaign's platform.

- MTurk: the task pages (join → onboarding → waiting → room → finish) are shown inside MTurk's
  frame and the finish page posts to turkSubmitTo, so on an MTurk campaign they get
  `groundwork.csp.mturk_frame_allowed` and cookies that work in a cross-site frame
  (`groundwork.framed_cookies`). Every other page keeps `frame-ancestors 'none'`.
- Prolific: the onboarding quiz's (or model chat's sample conversation's) last failed attempt (and
  "Leave" on a wait that has already ended) lands, through the finish page's redirect, on
  Prolific's completion page; CSP's form-action covers every redirect after a form's post, so on a
  Prolific campaign the forms of those pages may lead to the completion URL's origin (nowhere else)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from collect.models import Campaign, Platform
from groundwork.csp import mturk_frame_allowed, policy_for
from groundwork.framed_cookies import cookies_for_frame

CampaignOf = Callable[..., "Campaign | None"]


def by_slug(*, slug: str, **_: Any) -> Campaign | None:
    return Campaign.objects.filter(slug=slug).first()


def by_assignment(*, assignment_id: int, **_: Any) -> Campaign | None:
    return Campaign.objects.filter(assignments__pk=assignment_id).first()


def by_room(*, room_id: Any, **_: Any) -> Campaign | None:
    return Campaign.objects.filter(rooms__pk=room_id).first()


def mturk_task_page(campaign_of: CampaignOf) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A worker page of the HIT: framable by MTurk (with its cookies) when the campaign runs there.
    `campaign_of` finds the campaign from the URL's arguments."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def framed(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = view(request, *args, **kwargs)
            campaign = campaign_of(**kwargs)
            if campaign is not None and campaign.platform == Platform.MTURK:
                mturk_frame_allowed(request, response)
                cookies_for_frame(response)
            return response

        return framed

    return decorate


def prolific_completion_page(campaign_of: CampaignOf) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A page whose form can end, by the finish page's redirect, at Prolific's completion page (the
    onboarding quiz): on a Prolific campaign its form-action also allows that page's origin."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def allowed(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = view(request, *args, **kwargs)
            campaign = campaign_of(**kwargs)
            if campaign is not None and campaign.platform == Platform.PROLIFIC:
                parts = urlsplit(settings.PROLIFIC_COMPLETE_URL)
                response["Content-Security-Policy"] = policy_for(request, form_action=f"'self' {parts.scheme}://{parts.netloc}")
            return response

        return allowed

    return decorate
