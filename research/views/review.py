"""A campaign's review page (/research/<campaign>/review/): its finished assignments, with bulk
approve / reject / bonus (collect.review.services), and the payment and decision CSVs."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from collect.models import Campaign
from collect.authenticity.signals import signals_owed
from collect.review.selectors import authenticity_csv, decisions_csv, payments_csv, review_rows
from collect.review.services import ReviewError, ReviewRequest, review_apply


@staff_member_required
def review(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if request.method == "POST":
        ids = request.POST.getlist("assignment")
        amount = request.POST.get("amount", "").strip()
        try:
            if not ids or not all(i.isdigit() for i in ids):
                raise ReviewError("no_selection", "Select at least one assignment.")
            cents = round(float(amount) * 100) if amount else 0
            review_apply(
                campaign=campaign,
                assignment_ids=[int(i) for i in ids],
                request=ReviewRequest(action=request.POST.get("action", ""), amount_cents=cents, message=request.POST.get("message", "")),
                staff=request.user.get_username(),
            )
        except ValueError:
            return _refused(request, campaign, "The amount must be a number, e.g. 1.50.")
        except ReviewError as error:
            return _refused(request, campaign, error.message)
        messages.success(request, f"{request.POST['action']}: done for {len(ids)} assignment(s).")
        return redirect("research:review", slug)
    return _review_page(request, campaign)


def _refused(request: HttpRequest, campaign: Campaign, message: str) -> HttpResponse:
    return _review_page(request, campaign, error=message, status=400)


def _review_page(request: HttpRequest, campaign: Campaign, *, error: str = "", status: int = 200) -> HttpResponse:
    # Rooms whose signals task was lost (or that ended before signals existed) get them now.
    signals_owed(campaign_id=campaign.pk)
    sort = "flags" if request.GET.get("sort") == "flags" else ""
    rows = review_rows(campaign=campaign, sort=sort)
    return render(request, "research/review.html", {"campaign": campaign, "rows": rows, "error": error, "sort": sort}, status=status)


@staff_member_required
def payments(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if kind == "decisions":
        body = decisions_csv(campaign=campaign)
    elif kind == "authenticity":
        signals_owed(campaign_id=campaign.pk)
        body = authenticity_csv(campaign=campaign)
    elif kind in ("approve", "bonus"):
        body = payments_csv(campaign=campaign, kind=kind)
    else:
        return HttpResponse("Unknown CSV: use approve, bonus, decisions or authenticity.", status=400, content_type="text/plain")
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-{kind}.csv"'
    return response
