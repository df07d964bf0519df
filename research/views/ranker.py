"""Staff page (/research/ranker/): the ranker the collection retrains (retrieval/training), its
versions and scores."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from collect.charts import column_chart
from retrieval.index.vectors import vectors_overview
from retrieval.rankers.config import ranker_config
from retrieval.training.history import heldout_overview, ranker_history
from retrieval.training.settings import retrain_settings


@staff_member_required
def ranker_page(request: HttpRequest) -> HttpResponse:
    history = ranker_history()
    oldest_first = history["versions"][::-1]
    chart = column_chart(
        "Held-out MRR@1 per version", [(v["version"], round(v["mrr1"], 3)) for v in oldest_first],
        x_label="version", y_label="MRR@1",
    ) if oldest_first else None
    return render(request, "research/ranker.html", {
        **history, "chart": chart, "settings": retrain_settings(), "heldout": heldout_overview(), "vectors": vectors_overview(),
        "minilm_where_stored": ranker_config().minilm_where_stored,
    })
