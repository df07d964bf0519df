"""create_annotation_job's options of pairwise jobs: the ACUTE question, built-in control pairs
(controls.py) as gold items or as the onboarding set, and a planned study (docs/human-evaluation.md#planned-studies):
the power analysis (evaluation.power), active sampling and the stopping rules (sampling.py), set on a
new job or on an existing one."""

from __future__ import annotations

from argparse import ArgumentParser, BooleanOptionalAction
from typing import Any

from annotate.kinds.pairwise.controls import CONTROL_GOLD_RATE, job_control_pairs_add
from annotate.kinds.pairwise.evaluation.power import judgments_needed
from annotate.kinds.pairwise.questions import PairwiseQuestion
from annotate.kinds.pairwise.study import study_text
from annotate.models import Job
from annotate.registry import JobOptions
from annotate.services import AnnotationError
from annotate.services.jobs import job_study_set


class PairwiseOptions(JobOptions):
    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--question", default="", help=f"pairwise: {', '.join(PairwiseQuestion.values)}")
        parser.add_argument(
            "--control-pairs", type=int, default=0,
            help=f"pairwise: add this many built-in control pairs (known better vs worse) as gold (--gold-rate then defaults to {CONTROL_GOLD_RATE})",
        )
        parser.add_argument(
            "--control-onboarding", type=int, default=0, help="pairwise: this many built-in control pairs first, as qualification items"
        )
        study = parser.add_argument_group("pairwise studies (docs/human-evaluation.md#planned-studies)")
        detect = study.add_mutually_exclusive_group()
        detect.add_argument("--detect-win-rate", type=float, metavar="P", help="the smallest win rate worth detecting against 0.5 (e.g. 0.6)")
        detect.add_argument("--detect-points", type=float, metavar="D", help="... or as a Bradley–Terry gap in points (70 ≈ 0.6)")
        study.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
        study.add_argument("--alpha", type=float, default=0.05, help="the test's α (default 0.05)")
        study.add_argument("--tie-rate", type=float, default=0.0, help="the share of judgments expected to be ties (default 0)")
        study.add_argument("--active-sampling", action=BooleanOptionalAction, default=None,
                           help="serve the model pair whose judgment most narrows the overlapping intervals")
        study.add_argument("--stop-when-separated", action=BooleanOptionalAction, default=None,
                           help="serve no more pairs once neighbouring models' 95%% intervals are apart")
        study.add_argument("--max-judgments", type=int, default=None, help="serve no more pairs after this many judgments (0: no budget)")

    def job_settings(self, opts: dict[str, Any]) -> dict[str, Any]:
        settings: dict[str, Any] = {"question": opts["question"]} if opts["question"] else {}
        if opts["gold_rate"] is None and opts["control_pairs"]:
            settings["gold_rate"] = CONTROL_GOLD_RATE
        return {**settings, **_study(opts)}

    def job_update(self, job: Job, opts: dict[str, Any]) -> Job:
        study = _study(opts)
        return job_study_set(job=job, **study) if study else job

    def after_items(self, job: Job, opts: dict[str, Any]) -> str:
        said = ""
        if opts["control_pairs"]:
            controls = job_control_pairs_add(job=job, count=opts["control_pairs"])
            said += f"; {controls} control pair(s) added, served at gold rate {job.gold_rate:g}"
        if opts["control_onboarding"]:
            onboarding = job_control_pairs_add(job=job, count=opts["control_onboarding"], onboarding=True)
            said += f"; {onboarding} onboarding control pair(s) added"
        return said

    def summary(self, job: Job) -> str:
        if job.plan or job.active_sampling or job.stop_when_separated or job.max_judgments:
            return study_text(job=job)
        return ""


def _study(opts: dict[str, Any]) -> dict[str, Any]:
    """The study settings given: the power analysis's plan, sampling and stopping rules."""
    study: dict[str, Any] = {}
    if opts["detect_win_rate"] is not None or opts["detect_points"] is not None:
        try:
            study["plan"] = judgments_needed(
                win_rate=opts["detect_win_rate"], points=opts["detect_points"], power=opts["power"], alpha=opts["alpha"],
                tie_rate=opts["tie_rate"],
            )
        except ValueError as error:
            raise AnnotationError("bad_plan", f"power analysis: {error}") from None
    for key in ("active_sampling", "stop_when_separated", "max_judgments"):
        if opts[key] is not None:
            study[key] = opts[key]
    if study.get("max_judgments", 0) < 0:
        raise AnnotationError("bad_setting", "--max-judgments must be ≥ 0")
    return study


OPTIONS = PairwiseOptions()
