"""A pairwise job's report: Krippendorff's alpha over the winners chosen, the win rates and the
Bradley–Terry leaderboard by connected group (selectors.pairwise_section), the planned study
(study.study_section); its lines and charts; how the job exports."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from annotate import agreement
from annotate.kinds.pairwise.evaluation.bradley_terry import interval_text, rank_text
from annotate.kinds.pairwise.evaluation.groups import groups_notes
from annotate.kinds.pairwise.selectors import pairwise_section
from annotate.kinds.pairwise.study import study_lines, study_section
from annotate.models import Job
from annotate.registry import JobExport
from annotate.selectors.report import figure_text
from collect import registry as collect_registry
from collect.charts import Chart, interval_chart
from collect.tasktypes.modelchat import NAME as MODELCHAT_NAME


def report_section(job: Job, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[Any, dict[Any, str]]]:
    decisions: dict[Any, dict[Any, str]] = defaultdict(dict)
    for answer in answers:
        decisions[answer["item_id"]][answer["worker_id"]] = answer["answer"]["winner"]
    triples = [(coder, unit, value) for unit, values in decisions.items() for coder, value in values.items()]
    units = sum(1 for values in decisions.values() if len(values) >= 2)
    section = {
        "agreement": {"measure": "krippendorff_alpha", "value": agreement.krippendorff_alpha(triples), "units": units,
                      "unit": "a pair of conversations; each annotator's value: the winner chosen"},
        **pairwise_section(job=job),
        **study_section(job=job),
    }
    return section, decisions


def report_lines(report: dict[str, Any]) -> list[str]:
    pairwise = report["pairwise"]
    lines = [f"judgments   {pairwise['judgments']} counted ({pairwise['question']})"]
    for row in pairwise["win_rates"]:
        lines.append(
            f"win rate    {row['model_a']} over {row['model_b']}: {figure_text(row['win_rate'])}"
            f" ({row['wins']}–{row['losses']}, {row['ties']} ties), binomial p {figure_text(row['p'])}"
        )
    several = len(pairwise["groups"]) > 1
    for name, row in pairwise["leaderboard"].items():
        group = f"group {row['group']} " if several else ""
        lines.append(
            f"leaderboard {group}{rank_text(row):>2}. {name:<20} {row['score']:7.1f} [{interval_text(row)}] {row['battles']} judgments"
        )
    for note in groups_notes(pairwise["leaderboard"]):
        lines.append(f"note        {note}")
    for row in pairwise["excluded_annotators"]:
        lines.append(f"excluded    {row['worker']} (check score {figure_text(row['check_score'])})")
    return lines + study_lines(report["study"])


def charts(report: dict[str, Any]) -> list[Chart]:
    return leaderboard_charts(report["pairwise"]["leaderboard"])


def leaderboard_charts(board: dict[str, dict[str, Any]], title: str = "Bradley–Terry scores with 95% bootstrap intervals") -> list[Chart]:
    """The ranked models' scores and intervals, one chart per group of the comparison graph (groups
    are on separate scales: one axis would order them); none for a group without intervals yet."""
    groups = sorted({row["group"] for row in board.values()})
    found = []
    for group in groups:
        rows = [
            (f"{name} (n={row['battles']})", row["score"], row["lo"], row["hi"])
            for name, row in board.items()
            if row["lo"] is not None and row["group"] == group
        ]
        if rows:
            named = title + (f", group {group}" if len(groups) > 1 else "")
            found.append(interval_chart(named, rows, x_label="score (mean 1000)"))
    return found


def job_export(job: Job) -> JobExport | None:
    """A job built from model-chat campaigns: their export, with its judgments in the file beside;
    one imported from a file: its report."""
    if job.source.get("campaigns"):
        return JobExport(collect_registry.task_type(MODELCHAT_NAME).dataset, campaigns=tuple(job.source["campaigns"]))
    return None
