"""A dialog-act job's report: Krippendorff's alpha over (message, act) units, the majority labels'
act frequencies and the dialogues reported as broken; its lines and chart; how the job exports."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from annotate import agreement
from annotate.kinds.dialog_acts.acts import DIALOG_ACTS
from annotate.kinds.dialog_acts.exporter import CURIOSITY_FILE
from annotate.kinds.dialog_acts.labels import dialog_act_labels
from annotate.models import Assignment, AssignmentStatus, Job
from annotate.registry import JobExport
from collect import registry as collect_registry
from collect.charts import Chart, row_chart
from collect.tasktypes.curiosity import NAME as CURIOSITY_NAME


def report_section(job: Job, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[Any, dict[Any, str]]]:
    decisions = _act_decisions(answers)
    triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
    labels = dialog_act_labels(job)
    frequency = Counter(act for item in labels.values() for acts in item for act in acts)
    reported = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).exclude(report_reason="")
    section = {
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
    return section, decisions


def _act_decisions(answers: list[dict[str, Any]]) -> dict[Any, dict[Any, str]]:
    decisions: dict[Any, dict[Any, str]] = defaultdict(dict)
    for answer in answers:
        if answer["report_reason"]:
            continue
        for index, acts in enumerate(answer["answer"]["acts"]):
            for act in DIALOG_ACTS:
                decisions[(answer["item_id"], index, act)][answer["worker_id"]] = "yes" if act in acts else "no"
    return decisions


def report_lines(report: dict[str, Any]) -> list[str]:
    acts = report["dialog_acts"]
    return [f"labels      {acts['messages']} messages in {acts['dialogs']} dialogs; {acts['act_frequency']}"]


def charts(report: dict[str, Any]) -> list[Chart]:
    frequency = report["dialog_acts"]["act_frequency"]
    return [row_chart("Dialog acts (majority labels)", list(frequency.items()), x_label="messages")]


def job_export(job: Job) -> JobExport | None:
    """A job imported from a Curiosity file: that file with its acts; one built from campaigns: their
    Curiosity export, which carries the acts; otherwise its report."""
    if job.source.get("dataset") == CURIOSITY_FILE:
        return JobExport("curiosity-acts", label="Curiosity dialogs with their acts")
    if job.source.get("campaigns"):
        return JobExport(collect_registry.task_type(CURIOSITY_NAME).dataset, campaigns=tuple(job.source["campaigns"]))
    return None
