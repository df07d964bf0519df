"""A FaithDial job's report: Krippendorff's alpha on the BEGIN labels (every (response, label) pair
a unit, each annotator's value the label given or not; the job's main figure, which the annotators'
agreement with the majority is computed from), on faithful vs unfaithful per response and on the
VRM labels, all by annotate.agreement; the majority labels' frequencies; and every rewrite beside the response
it replaces as a word diff, for reviewers. Its lines and charts; how the job exports."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from annotate import agreement
from annotate.kinds.faithdial.diff import word_diff
from annotate.kinds.faithdial.labels import faithdial_labels
from annotate.kinds.faithdial.taxonomy import BEGIN, VRM, unfaithful
from annotate.models import Item, Job
from annotate.registry import JobExport
from collect.charts import Chart, row_chart
from collect.models import Worker

# The report page lists this many rewrites (the export has them all).
MAX_REWRITES_SHOWN = 200


def report_section(job: Job, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[Any, dict[Any, str]]]:
    answered = [a for a in answers if not a["report_reason"]]
    decisions = _label_decisions(answered, "begin", BEGIN)
    triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
    vrm = _label_decisions(answered, "vrm", VRM)
    faithful = {(a["worker_id"], a["item_id"], "unfaithful" if unfaithful(a["answer"]["begin"]) else "faithful") for a in answered}
    per_item = Counter(a["item_id"] for a in answered)
    labels = faithdial_labels(job)
    begin_frequency = Counter(label for d in labels.values() for label in d.begin)
    vrm_frequency = Counter(label for d in labels.values() for label in d.vrm)
    begin_alpha = {
        "measure": "krippendorff_alpha",
        "value": agreement.krippendorff_alpha(triples),
        "units": sum(1 for values in decisions.values() if len(values) >= 2),
        "unit": "a (response, BEGIN label) pair; each annotator's value: the label given or not",
    }
    faithful_alpha = {
        "measure": "krippendorff_alpha",
        "value": agreement.krippendorff_alpha(faithful),
        "units": sum(1 for n in per_item.values() if n >= 2),
        "unit": "a response; each annotator's value: faithful or unfaithful",
    }
    vrm_alpha = {
        "measure": "krippendorff_alpha",
        "value": agreement.krippendorff_alpha((coder, unit, value) for unit, values in vrm.items() for coder, value in values.items()),
        "units": sum(1 for values in vrm.values() if len(values) >= 2),
        "unit": "a (response, VRM label) pair; each annotator's value: the label given or not",
    }
    section = {
        "agreement": begin_alpha,
        "agreements": [begin_alpha, faithful_alpha, vrm_alpha],
        "faithdial": {
            "responses": len(labels),
            "unfaithful": sum(1 for d in labels.values() if unfaithful(d.begin)),
            "rewritten": sum(1 for d in labels.values() if d.rewrite),
            "begin_frequency": {label: begin_frequency.get(label, 0) for label in BEGIN},
            "vrm_frequency": {label: vrm_frequency.get(label, 0) for label in VRM},
            "rewrites": _rewrites(answered),
        },
    }
    return section, decisions


def _label_decisions(answers: list[dict[str, Any]], field: str, labels: tuple[str, ...]) -> dict[Any, dict[Any, str]]:
    """(item, label) -> {annotator: "yes" | "no"}: whether each annotator gave the label."""
    decisions: dict[Any, dict[Any, str]] = defaultdict(dict)
    for answer in answers:
        for label in labels:
            decisions[(answer["item_id"], label)][answer["worker_id"]] = "yes" if label in answer["answer"][field] else "no"
    return decisions


def _rewrites(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each rewrite with the response it replaces and their word diff (reviewers read these)."""
    rewritten = [a for a in answers if a["answer"]["response"]][:MAX_REWRITES_SHOWN]
    items = {i.pk: i for i in Item.objects.filter(pk__in={a["item_id"] for a in rewritten}).only("key", "payload")}
    workers = dict(Worker.objects.filter(pk__in={a["worker_id"] for a in rewritten}).values_list("pk", "pseudonym"))
    rows = []
    for answer in rewritten:
        item = items[answer["item_id"]]
        original, edited = item.payload["response"], answer["answer"]["response"]
        rows.append({
            "item": item.key, "worker": workers.get(answer["worker_id"], ""), "begin": answer["answer"]["begin"],
            "knowledge": item.payload["knowledge"], "original": original, "rewrite": edited,
            "diff": [{"op": op, "text": text} for op, text in word_diff(original, edited)],
        })
    return rows


def report_lines(report: dict[str, Any]) -> list[str]:
    f = report["faithdial"]
    return [
        f"labels      {f['responses']} responses, {f['unfaithful']} unfaithful, {f['rewritten']} rewritten",
        f"BEGIN       {f['begin_frequency']}",
        f"VRM         {f['vrm_frequency']}",
    ]


def charts(report: dict[str, Any]) -> list[Chart]:
    f = report["faithdial"]
    return [
        row_chart("BEGIN labels (majority)", list(f["begin_frequency"].items()), x_label="responses"),
        row_chart("VRM labels (majority)", list(f["vrm_frequency"].items()), x_label="responses"),
    ]


def job_export(job: Job) -> JobExport | None:
    """Every FaithDial job exports as FaithDial's released JSON (exporter.py)."""
    return JobExport("faithdial", label="FaithDial responses with their labels and rewrites")
