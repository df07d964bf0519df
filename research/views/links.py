"""Signed join links for a campaign's workers (/research/<campaign>/links/), one per worker id pasted."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collect.lifecycle.identity import ID_PATTERN
from collect.lifecycle.links import join_link
from collect.models import Campaign

MAX_LINKS = 500


@staff_member_required
def links(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    workers = request.POST.get("workers", "").split() if request.method == "POST" else []
    bad = [w for w in workers if not ID_PATTERN.match(w)]
    error = ""
    if bad:
        error = f"Not valid worker ids (letters, digits, '-', '_', '.', ≤ 100): {', '.join(bad[:10])}"
    elif len(workers) > MAX_LINKS:
        error = f"At most {MAX_LINKS} ids at once."
    base = request.build_absolute_uri("/")
    made = [] if error else [(w, join_link(base=base, campaign_slug=campaign.slug, worker=w)) for w in workers]
    return render(
        request, "research/links.html", {"campaign": campaign, "links": made, "error": error}, status=400 if error else 200
    )
