"""A relevance job's report: Fleiss' kappa and Krippendorff's alpha on its finished items
(agreement.py), relevant sentences per turn and the confidence histogram, and, during a pilot, the
same figures over the partial items; its lines and charts; how the job exports."""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import fmean, median
from typing import Any

from annotate import agreement
from annotate.kinds.relevance.agreement import UNIT, relevance_agreements
from annotate.kinds.relevance.tallies import Tally, relevance_tallies
from annotate.models import Item, ItemRole, Job
from annotate.registry import JobExport
from annotate.selectors.report import figure_text
from collect.charts import Chart, column_chart

# The WOW++ file of one job (`export_dataset wowpp --job SLUG`).
DATASET = "wowpp"


def report_section(job: Job, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[Any, dict[Any, bool]]]:
    decisions = _decisions(job, answers)
    tallies = relevance_tallies(job, complete_only=True)
    kappa, alpha = relevance_agreements(tallies)
    section: dict[str, Any] = {"agreement": kappa, "agreements": [kappa, alpha], "relevance": _figures(tallies, job.threshold)}
    partial = _partial(job, decisions)
    if partial is not None:
        section["partial"] = partial
    return section, decisions


def _decisions(job: Job, answers: list[dict[str, Any]]) -> dict[Any, dict[Any, bool]]:
    sizes = dict(Item.objects.filter(job=job, role=ItemRole.TASK).values_list("pk", "payload__candidates"))
    decisions: dict[Any, dict[Any, bool]] = defaultdict(dict)
    for answer in answers:
        chosen = set(answer["answer"]["selected"])
        for candidate in range(len(sizes[answer["item_id"]])):
            decisions[(answer["item_id"], candidate)][answer["worker_id"]] = candidate in chosen
    return decisions


def _partial(job: Job, decisions: dict[Any, dict[Any, bool]]) -> dict[str, Any] | None:
    """During a pilot most items have only some of their votes, and the figures above count none of
    them. These count every item with at least one vote, confidences being shares of the votes so
    far; agreement is Krippendorff's alpha, which allows a different number of raters per unit.
    None when no item is partial."""
    tallies = relevance_tallies(job)
    complete = {t.item.pk for t in relevance_tallies(job, complete_only=True)}
    waiting = [t for t in tallies if t.item.pk not in complete]
    if not waiting:
        return None
    triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
    return {
        "items": len(tallies),
        "complete_items": len(tallies) - len(waiting),
        "partial_items": len(waiting),
        "votes_per_partial_item": fmean(t.annotators for t in waiting),
        "agreement": {
            "measure": "krippendorff_alpha",
            "value": agreement.krippendorff_alpha(triples),
            "units": sum(1 for values in decisions.values() if len(values) >= 2),
            "unit": UNIT,
        },
        "relevance": _figures(tallies, job.threshold),
    }


def _figures(tallies: list[Tally], threshold: float) -> dict[str, Any]:
    relevant = [_relevant_count(t, threshold) for t in tallies]
    confidences = Counter(min(int(t.confidence(c) * 10 + 1e-9), 10) for t in tallies for c in range(len(t.selected)))
    return {
        "threshold": threshold,
        "items": len(tallies),
        "candidates_per_item": fmean(len(t.selected) for t in tallies) if tallies else None,
        "relevant_per_item": {
            "mean": fmean(relevant) if relevant else None,
            "median": median(relevant) if relevant else None,
            "max": max(relevant, default=None),
            "items_with_none": sum(1 for r in relevant if r == 0),
            "histogram": {str(k): v for k, v in sorted(Counter(relevant).items())},
        },
        "confidence_histogram": {f"{b / 10:.1f}": confidences.get(b, 0) for b in range(11)},
    }


def _relevant_count(tally: Tally, threshold: float) -> int:
    return sum(1 for c in range(len(tally.selected)) if tally.confidence(c) >= threshold)


def report_lines(report: dict[str, Any]) -> list[str]:
    per_item = report["relevance"]["relevant_per_item"]
    lines = [
        f"relevant    per item: mean {figure_text(per_item['mean'])}, median {figure_text(per_item['median'])}, "
        f"max {figure_text(per_item['max'])}, none in {per_item['items_with_none']} item(s)",
        f"histogram   {per_item['histogram']}",
    ]
    if "partial" in report:
        partial = report["partial"]
        per_item = partial["relevance"]["relevant_per_item"]
        lines.append(
            f"partial     {partial['partial_items']} of {partial['items']} items still voting: "
            f"{partial['agreement']['measure']} = {figure_text(partial['agreement']['value'])} over "
            f"{partial['agreement']['units']} units; relevant per item mean {figure_text(per_item['mean'])}"
        )
    return lines


def charts(report: dict[str, Any]) -> list[Chart]:
    """Complete items' charts once there are any; during a pilot, the partial ones, labeled."""
    found = []
    if report["relevance"]["items"] or "partial" not in report:
        found += _charts(report["relevance"], "")
    if "partial" in report:
        partial = report["partial"]
        found += _charts(partial["relevance"], f" — partial: {partial['items']} items, {partial['partial_items']} still voting")
    return found


def _charts(relevance: dict[str, Any], suffix: str) -> list[Chart]:
    histogram = relevance["relevant_per_item"]["histogram"]
    top = max((int(k) for k in histogram), default=0)
    per_turn = [(str(k), histogram.get(str(k), 0)) for k in range(top + 1)]
    return [
        column_chart(f"Relevant sentences per turn{suffix}", per_turn, x_label="relevant sentences", y_label="turns"),
        column_chart(
            f"Confidence of each candidate sentence{suffix}",
            list(relevance["confidence_histogram"].items()),
            x_label="share of annotators who selected it",
            y_label="sentences",
        ),
    ]


def job_export(job: Job) -> JobExport:
    """Every relevance job exports as its own WOW++ file."""
    return JobExport(DATASET)
