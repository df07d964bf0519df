"""The researcher's numbers for one job: items, answers, agreement, labels and each annotator.

`annotation_report` returns plain JSON-ready data; the command prints it, the staff page draws it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import fmean, median
from typing import Any

from django.db.models import Count

from annotate import agreement
from annotate.models import DIALOG_ACTS, Assignment, AssignmentStatus, Item, ItemRole, Job, JobKind
from annotate.selectors.labels import Tally, dialog_act_labels, relevance_tallies, task_answers
from annotate.selectors.pairs import pairwise_section
from annotate.selectors.progress import job_progress
from annotate.selectors.relevance_agreement import UNIT as RELEVANCE_UNIT, relevance_agreements
from collect.models import Worker


def annotation_report(*, job: Job) -> dict[str, Any]:
    roles = dict(Item.objects.filter(job=job).values_list("role").annotate(n=Count("pk")))
    answers = task_answers(job)
    report: dict[str, Any] = {
        "job": {"slug": job.slug, "name": job.name, "kind": job.kind, "overlap": job.overlap, "is_active": job.is_active},
        "progress": job_progress(job=job),
        "items": {role: roles.get(role, 0) for role in ItemRole.values},
        "answers": _answer_stats(job, answers),
    }
    if job.kind == JobKind.RELEVANCE:
        decisions = _relevance_decisions(job, answers)
        report.update(_relevance_section(job))
        partial = _relevance_partial(job, decisions)
        if partial is not None:
            report["partial"] = partial
    elif job.kind == JobKind.DUCONV_EVAL:
        from annotate.duconv import duconv_decisions, duconv_report_section

        decisions = duconv_decisions(answers)
        report.update(duconv_report_section(job, answers))
    elif job.kind == JobKind.PAIRWISE:
        decisions = _pair_decisions(answers)
        triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
        units = sum(1 for values in decisions.values() if len(values) >= 2)
        report["agreement"] = {"measure": "krippendorff_alpha", "value": agreement.krippendorff_alpha(triples), "units": units,
                               "unit": "a pair of conversations; each annotator's value: the winner chosen"}
        report.update(pairwise_section(job=job))
    else:
        decisions = _act_decisions(job, answers)
        report.update(_dialog_act_section(job, decisions))
    report.setdefault("agreements", [report["agreement"]])
    report["annotators"] = _annotators(job, agreement.majority_agreement(decisions))
    return report


def _answer_stats(job: Job, answers: list[dict[str, Any]]) -> dict[str, Any]:
    by_role = dict(
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED)
        .values_list("item__role").annotate(n=Count("pk"))
    )
    times = [a["time_spent_ms"] for a in answers if a["time_spent_ms"] is not None]
    return {
        **{role: by_role.get(role, 0) for role in ItemRole.values},
        "median_time_ms": median(times) if times else None,
        "reported": sum(1 for a in answers if a["report_reason"]),
    }


def _relevance_decisions(job: Job, answers: list[dict[str, Any]]) -> dict[Any, dict[Any, bool]]:
    sizes = dict(Item.objects.filter(job=job, role=ItemRole.TASK).values_list("pk", "payload__candidates"))
    decisions: dict[Any, dict[Any, bool]] = defaultdict(dict)
    for answer in answers:
        chosen = set(answer["answer"]["selected"])
        for candidate in range(len(sizes[answer["item_id"]])):
            decisions[(answer["item_id"], candidate)][answer["worker_id"]] = candidate in chosen
    return decisions


def _pair_decisions(answers: list[dict[str, Any]]) -> dict[Any, dict[Any, str]]:
    decisions: dict[Any, dict[Any, str]] = defaultdict(dict)
    for answer in answers:
        decisions[answer["item_id"]][answer["worker_id"]] = answer["answer"]["winner"]
    return decisions


def _relevance_section(job: Job) -> dict[str, Any]:
    tallies = relevance_tallies(job, complete_only=True)
    kappa, alpha = relevance_agreements(tallies)
    return {"agreement": kappa, "agreements": [kappa, alpha], "relevance": _relevance_figures(tallies, job.relevance_threshold)}


def _relevance_partial(job: Job, decisions: dict[Any, dict[Any, bool]]) -> dict[str, Any] | None:
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
            "unit": RELEVANCE_UNIT,
        },
        "relevance": _relevance_figures(tallies, job.relevance_threshold),
    }


def _relevance_figures(tallies: list[Tally], threshold: float) -> dict[str, Any]:
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


def _act_decisions(job: Job, answers: list[dict[str, Any]]) -> dict[Any, dict[Any, str]]:
    decisions: dict[Any, dict[Any, str]] = defaultdict(dict)
    for answer in answers:
        if answer["report_reason"]:
            continue
        for index, acts in enumerate(answer["answer"]["acts"]):
            for act in DIALOG_ACTS:
                decisions[(answer["item_id"], index, act)][answer["worker_id"]] = "yes" if act in acts else "no"
    return decisions


def _dialog_act_section(job: Job, decisions: dict[Any, dict[Any, str]]) -> dict[str, Any]:
    triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
    labels = dialog_act_labels(job)
    frequency = Counter(act for item in labels.values() for acts in item for act in acts)
    reported = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).exclude(report_reason="")
    return {
        "agreement": {
            "measure": "krippendorff_alpha",
            "value": agreement.krippendorff_alpha(triples),
            "units": sum(1 for values in decisions.values() if len(values) >= 2),
            "unit": "a (message, dialog act) pair; each annotator's value: the act given or not",
        },
        "dialog_acts": {
            "dialogs": len(labels),
            "messages": sum(len(item) for item in labels.values()),
            "act_frequency": {act: frequency.get(act, 0) for act in DIALOG_ACTS},
            "reports": [
                {"item": r.item.key, "worker": r.worker.pseudonym, "reason": r.report_reason}
                for r in reported.select_related("item", "worker").order_by("submitted_at")
            ],
        },
    }


def _annotators(job: Job, majority: dict[Any, tuple[int, int]]) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    submitted = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED)
    for worker_id, role, score, time_ms in submitted.values_list("worker_id", "item__role", "score", "time_spent_ms"):
        row = rows.setdefault(worker_id, {"answers": 0, "gold": [], "qualification": [], "times": []})
        row["answers"] += 1
        if role != ItemRole.TASK and score is not None:
            row[role].append(score)
        if time_ms is not None:
            row["times"].append(time_ms)
    pseudonyms = dict(Worker.objects.filter(pk__in=list(rows)).values_list("pk", "pseudonym"))
    out = []
    for worker_id, row in rows.items():
        agree, total = majority.get(worker_id, (0, 0))
        gold = fmean(row["gold"]) if row["gold"] else None
        majority_share = agree / total if total else None
        reasons = []
        if gold is not None and gold < job.review_min_gold_score:
            reasons.append(f"gold score {gold:.2f} < {job.review_min_gold_score:.2f}")
        if majority_share is not None and majority_share < job.review_min_agreement:
            reasons.append(f"majority agreement {majority_share:.2f} < {job.review_min_agreement:.2f}")
        out.append({
            "worker": pseudonyms.get(worker_id, str(worker_id)),
            "answers": row["answers"],
            "gold_answers": len(row["gold"]),
            "gold_score": gold,
            "qualification_score": fmean(row["qualification"]) if row["qualification"] else None,
            "majority_agreement": majority_share,
            "majority_units": total,
            "median_time_ms": median(row["times"]) if row["times"] else None,
            "flagged": bool(reasons),
            "reasons": reasons,
        })
    return sorted(out, key=lambda r: (not r["flagged"], r["worker"]))
