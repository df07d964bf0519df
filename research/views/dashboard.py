"""A campaign's live dashboard (/research/<campaign>/dashboard/): its figures and charts; with
?fragment=1 only the part the page refreshes every few seconds (static/js/dashboard.js). The whole
page also shows the conformance report (collect/exporters/hf.py): the campaign's finished dialogues
beside the original dataset's published figures, computed once per page load, not per refresh."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collect.charts import column_chart, row_chart
from collect.exporters import ExportError
from collect.exporters.hf import STANDOUT, campaign_conformance
from collect.models import Campaign
from collect.review.stats import campaign_stats


@staff_member_required
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    stats = campaign_stats(campaign=campaign)
    charts = [
        column_chart("Rooms completed per hour", [(h, c) for h, c, _ in stats["per_hour"]], x_label="hour", y_label="rooms"),
        column_chart("Rooms abandoned per hour", [(h, a) for h, _, a in stats["per_hour"]], x_label="hour", y_label="rooms"),
        row_chart("Outcomes", [(o, n) for o, n, _ in stats["outcomes"]], x_label="assignments"),
    ] + [column_chart(title, counts, x_label="rating", y_label="rooms") for title, counts in stats["ratings"]]
    if request.GET.get("fragment"):
        return render(request, "research/_dashboard.html", {"campaign": campaign, "stats": stats, "charts": charts})
    try:
        conformance, conformance_error = campaign_conformance(campaign), ""
    except ExportError as error:  # the campaign's dialogues cannot be exported as they are: say why
        conformance, conformance_error = [], str(error)
    context = {
        "campaign": campaign, "stats": stats, "charts": charts, "conformance": conformance,
        "conformance_error": conformance_error, "standout_percent": round(STANDOUT * 100),
    }
    return render(request, "research/dashboard.html", context)
