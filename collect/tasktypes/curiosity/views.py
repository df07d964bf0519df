"""Curiosity's staff page: the paper's headline analysis on the collected (and imported) dialogues."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from collect.charts import interval_chart
from collect.models import Campaign
from collect.tasktypes.curiosity import NAME
from collect.tasktypes.curiosity.analysis import like_rates_by_source
from groundwork.pages import error_page


@staff_member_required
def curiosity_analysis(request: HttpRequest) -> HttpResponse:
    """Researchers: the paper's headline analysis on the collected (and imported) dialogues — the
    like rate of assistant messages by the source of the facts they used."""
    campaigns = Campaign.objects.filter(protocol=NAME).order_by("name")
    slug = request.GET.get("campaign", "")
    chosen = campaigns.filter(slug=slug).first() if slug else None
    if slug and chosen is None:
        return error_page(request, 404, "No such campaign", f"There is no Curiosity campaign called “{slug}”.")
    analysis = like_rates_by_source(campaigns=[chosen] if chosen else list(campaigns))
    rows = [(r.label, r.rate_percent, r.low_percent, r.high_percent) for r in analysis.rates if r.messages]
    chart = interval_chart("Like rate by fact source (95% Wilson interval)", rows, x_label="messages liked (%)", digits=1)
    return render(
        request,
        "curiosity/research/analysis.html",
        {"campaigns": campaigns, "chosen": chosen, "analysis": analysis, "like_chart": chart},
    )
