"""A DuConv scoring job's report (scoring.duconv_report_section) and its charts: goal completion as
the annotators scored it beside the one computed from the marked triples."""

from __future__ import annotations

from typing import Any

from annotate.kinds.duconv_eval.scoring import duconv_decisions, duconv_report_section
from annotate.models import Job
from collect.charts import Chart, column_chart


def report_section(job: Job, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[Any, dict[Any, int]]]:
    return duconv_report_section(job, answers), duconv_decisions(answers)


def charts(report: dict[str, Any]) -> list[Chart]:
    rows = report["duconv"]["goal_completion"]
    human = [(str(score), sum(1 for r in rows if round(r["human_mean"]) == score)) for score in range(3)]
    auto = [(str(score), sum(1 for r in rows if r["auto"] == score)) for score in range(3)]
    return [
        column_chart("Goal completion: annotators (rounded mean)", human, x_label="score", y_label="dialogues"),
        column_chart("Goal completion: computed from marked triples", auto, x_label="score", y_label="dialogues"),
    ]
