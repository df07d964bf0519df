"""Staff pages for running a study: the research index, the review page (with bulk actions), the
payment CSVs and decisions export, signed links, and the live dashboard."""

from __future__ import annotations

from django.apps import apps
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from collect.charts import column_chart, row_chart
from collect.lifecycle.identity import ID_PATTERN
from collect.lifecycle.links import join_link
from collect.models import Campaign, Protocol
from collect.research_access import DATASET_OF_PROTOCOL, job_dataset, staff_only
from collect.review.selectors import decisions_csv, finished_assignments, payments_csv, review_row
from collect.review.services import ReviewError, ReviewRequest, review_apply
from collect.review.stats import campaign_stats
from groundwork.lockouts import lockouts_current

MAX_LINKS = 500


@staff_only
def research_index(request: HttpRequest) -> HttpResponse:
    campaigns = [(c, DATASET_OF_PROTOCOL.get(c.protocol, "")) for c in Campaign.objects.order_by("-is_active", "name")]
    jobs = apps.get_model("annotate", "Job").objects.order_by("-is_active", "name") if apps.is_installed("annotate") else []
    jobs = [(job, job_dataset(kind=job.kind, source=job.source)) for job in jobs]
    context = {"campaigns": campaigns, "jobs": jobs, "lockouts": lockouts_current(), "model_chat": Protocol.MODEL_CHAT}
    return render(request, "collect/research/index.html", context)


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
        return redirect("collect:review", slug)
    return _review_page(request, campaign)


def _refused(request: HttpRequest, campaign: Campaign, message: str) -> HttpResponse:
    return _review_page(request, campaign, error=message, status=400)


def _review_page(request: HttpRequest, campaign: Campaign, *, error: str = "", status: int = 200) -> HttpResponse:
    rows = [review_row(a) for a in finished_assignments(campaign=campaign)]
    return render(request, "collect/research/review.html", {"campaign": campaign, "rows": rows, "error": error}, status=status)


@staff_member_required
def payments(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if kind == "decisions":
        body = decisions_csv(campaign=campaign)
    elif kind in ("approve", "bonus"):
        body = payments_csv(campaign=campaign, kind=kind)
    else:
        return HttpResponse("Unknown CSV: use approve, bonus or decisions.", status=400, content_type="text/plain")
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-{kind}.csv"'
    return response


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
        request, "collect/research/links.html", {"campaign": campaign, "links": made, "error": error}, status=400 if error else 200
    )


@staff_member_required
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    stats = campaign_stats(campaign=campaign)
    charts = [
        column_chart("Rooms completed per hour", [(h, c) for h, c, _ in stats["per_hour"]], x_label="hour", y_label="rooms"),
        column_chart("Rooms abandoned per hour", [(h, a) for h, _, a in stats["per_hour"]], x_label="hour", y_label="rooms"),
        row_chart("Outcomes", [(o, n) for o, n, _ in stats["outcomes"]], x_label="assignments"),
        column_chart("Apprentice ratings", stats["ratings"], x_label="rating", y_label="rooms"),
    ]
    template = "collect/research/_dashboard.html" if request.GET.get("fragment") else "collect/research/dashboard.html"
    return render(request, template, {"campaign": campaign, "stats": stats, "charts": charts})
