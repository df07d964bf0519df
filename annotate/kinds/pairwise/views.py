"""The staff results page of a model-chat campaign: the eval_report data, drawn."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from collect.charts import Chart, interval_chart, row_chart
from annotate.kinds.pairwise.campaign import campaign_evaluation
from annotate.kinds.pairwise.report import leaderboard_charts
from collect.models import Campaign
from collect.tasktypes.modelchat import NAME as MODELCHAT_NAME
from groundwork.pages import error_page


@staff_member_required
def results(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = Campaign.objects.filter(slug=slug, protocol=MODELCHAT_NAME).first()
    if campaign is None:
        return error_page(request, 404, "No such campaign", f"There is no model-chat campaign called “{slug}”.")
    try:
        report = campaign_evaluation(campaign=campaign)
    except ValueError as error:
        return error_page(request, 400, "Campaign settings", str(error))
    return render(
        request,
        "pairwise/research/results.html",
        {"campaign": campaign, "report": report, "rows": _rows(report), "goals": _has_goals(report), **_charts(report)},
    )


def _rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One table row per model and split that has conversations."""
    rows = []
    for model, splits in report["models"].items():
        for split, stats in splits.items():
            if stats["conversations"] or split == "all":
                rows.append({"model": model, "split": split, **stats,
                             "ratings_list": [stats["ratings"][q] for q in report["questions"]],
                             "problem_list": [stats["problem_rates"].get(p) for p in report["problems"]]})
    return rows


def _has_goals(report: dict[str, Any]) -> bool:
    """Whether any conversation has a goal completion (the DuConv variant)."""
    return any(splits["all"]["goal_completion"]["n"] for splits in report["models"].values())


def _charts(report: dict[str, Any]) -> dict[str, list[Any]]:
    interval: list[Chart] = []
    bars: list[Chart] = []
    for question in report["questions"]:
        rows = []
        for model, splits in report["models"].items():
            s = splits["all"]["ratings"][question]
            if s["sd"] is None:
                continue  # fewer than two ratings: no standard error, so no interval (the table has the mean)
            half = 1.96 * s["sd"] / math.sqrt(s["n"])
            rows.append((f"{model} (n={s['n']})", s["mean"], s["mean"] - half, s["mean"] + half))
        if rows:
            interval.append(interval_chart(f"{question}: mean ± 1.96 standard errors", rows, x_label=question, digits=2))
    f1 = [(m, round(s["all"]["wiki_f1"]["mean"], 3)) for m, s in report["models"].items() if s["all"]["wiki_f1"]["mean"] is not None]
    if f1:
        bars.append(row_chart("Wiki F1 (mean per conversation)", f1, x_label="unigram F1", counts=False))
    goals = [(m, round(s["all"]["goal_completion"]["mean"], 2)) for m, s in report["models"].items() if s["all"]["goal_completion"]["n"]]
    if goals:
        bars.append(row_chart("Goal completion (mean per conversation, 0–2)", goals, x_label="goal completion", counts=False))
    problems = [
        (m, round(1 - s["all"]["problem_rates"]["none"], 3))
        for m, s in report["models"].items()
        if s["all"]["problem_rates"].get("none") is not None
    ]
    if problems:
        bars.append(row_chart("Model turns with a problem label", problems, x_label="share of labelled turns", counts=False))
    for board in report["pairwise_by_question"]:
        interval += leaderboard_charts(board["leaderboard"], f"Leaderboard, {board['question']} ({', '.join(board['jobs'])})")
    if report.get("choices"):
        interval += leaderboard_charts(report["choices"]["leaderboard"], "Leaderboard, the evaluators' picks among several replies")
    return {"interval_charts": interval, "charts": bars}
