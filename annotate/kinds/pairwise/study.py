"""Where a pairwise study stands: its model pairs, the counted judgments of each and the
Bradley–Terry estimate with its asymptotic covariance (evaluation.active), for drawing the next pair
(sampling.py), for the stopping rules and for the job's report (report.py). Read on every request for an item, so
without payloads: each item's models are read once per process, the judgments as counts per item;
only the bootstrap check of a settled study reads the outcomes whole."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import Count

from annotate.kinds.pairwise.evaluation.active import estimate, settled
from annotate.kinds.pairwise.evaluation.bradley_terry import MIN_BATTLES
from annotate.kinds.pairwise.selectors import pair_check_failures, pair_outcomes, pairwise_results
from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job

A_MODEL, B_MODEL = "payload__conversations__a__model", "payload__conversations__b__model"


@dataclass(frozen=True)
class StudyState:
    models: list[str]
    items: dict[tuple[str, str], tuple[int, int]]  # (model a, model b) as the items store them -> (items, free items)
    free: dict[tuple[str, str], list[int]]  # the same pairs -> ids of their items that can take a judgment, ascending
    judged: dict[tuple[str, str], int]  # the same pairs -> counted judgments
    theta: np.ndarray  # (M,) natural-log strengths, mean 0
    covariance: np.ndarray  # (M, M)
    battles: np.ndarray  # (M,) counted judgments per model
    wins: np.ndarray  # (M, M) counted wins of models[i] over models[j]

    @property
    def apart(self) -> bool:
        """Every model judged MIN_BATTLES times and every two neighbours' asymptotic 95% intervals
        apart (cheap: checked on every request)."""
        if len(self.models) < 2 or self.battles.min() < MIN_BATTLES:
            return False
        return bool(settled(self.theta[None], self.covariance[None])[0])


# (database, job id, job created, counted wins) -> whether the leaderboard ranks every model apart.
_LEADERBOARD_APART: dict[tuple[str, int, object, bytes], bool] = {}


def study_settled(*, job: Job, state: StudyState) -> bool:
    """The study's ranking is settled: its asymptotic intervals are apart (StudyState.apart) and so
    are the bootstrap intervals of the leaderboard its report shows (every model ranked, all ranks
    distinct). The bootstrap runs only once the asymptotic intervals are apart, once per state of
    the counted judgments in a process."""
    if not state.apart:
        return False
    key = (Item.objects.db, job.pk, job.created, state.wins.tobytes())
    if key not in _LEADERBOARD_APART:
        board = pairwise_results(pair_outcomes(job=job))["leaderboard"]
        ranks = [row["rank"] for row in board.values()]
        _LEADERBOARD_APART[key] = len(board) == len(state.models) and None not in ranks and len(set(ranks)) == len(ranks)
    return _LEADERBOARD_APART[key]


# (database, job id, job created) -> {task item id: (model a, model b)}. An item's conversations never
# change, so a process reads each item's models once, not its payload on every request.
_ITEM_PAIRS: dict[tuple[str, int, object], dict[int, tuple[str, str]]] = {}


def item_pairs(*, job: Job) -> dict[int, tuple[str, str]]:
    """task item id -> (model a, model b), for every task item of the job."""
    items = Item.objects.filter(job=job, role=ItemRole.TASK)
    key = (items.db, job.pk, job.created)
    known = _ITEM_PAIRS.setdefault(key, {})
    new = items.filter(pk__gt=max(known, default=0)).values_list("pk", A_MODEL, B_MODEL)
    known.update({pk: (a, b) for pk, a, b in new})
    if len(known) != items.count():  # items were deleted: read them all again
        known.clear()
        known.update({pk: (a, b) for pk, a, b in items.values_list("pk", A_MODEL, B_MODEL)})
    return known


def study_state(*, job: Job) -> StudyState:
    pairs_of = item_pairs(job=job)
    sizes = Counter(pairs_of.values())
    free: dict[tuple[str, str], list[int]] = {pair: [] for pair in sizes}
    open_items = Item.objects.filter(job=job, role=ItemRole.TASK, answers_count__lt=job.overlap)
    for pk in open_items.order_by("pk").values_list("pk", flat=True):
        free[pairs_of[pk]].append(pk)
    items = {pair: (n, len(free[pair])) for pair, n in sizes.items()}
    models = sorted({name for pair in items for name in pair})
    index = {name: n for n, name in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    judged: dict[tuple[str, str], int] = dict.fromkeys(items, 0)
    rows = (
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED, item__role=ItemRole.TASK)
        .exclude(worker_id__in=list(pair_check_failures(job=job)))
        .values_list("item_id", "answer__winner")
        .annotate(n=Count("pk"))
    )
    for item_id, winner, n in rows:
        a, b = pairs_of[item_id]
        i, j = (index[a], index[b]) if winner == "a" else (index[b], index[a])
        wins[i, j] += n
        judged[(a, b)] += n
    theta, covariance = estimate(wins[None])
    battles = (wins + wins.T).sum(axis=1)
    return StudyState(models, items, free, judged, theta[0], covariance[0], battles, wins)


def study_section(*, job: Job) -> dict[str, Any]:
    """The job report's "study": its plan, sampling settings and stopping rules, and per model pair
    the counted judgments against the plan and what the items can still take."""
    state = study_state(job=job)
    needed = (job.plan or {}).get("judgments")
    pairs = [
        {
            "model_a": a,
            "model_b": b,
            "judgments": state.judged.get((a, b), 0),
            "capacity": n * job.overlap,
            "planned": needed,
            "short": needed is not None and n * job.overlap < needed,
        }
        for (a, b), (n, _free) in sorted(state.items.items())
    ]
    return {
        "study": {
            "plan": job.plan or None,
            "planned_total": needed * len(pairs) if needed else None,
            "active_sampling": job.active_sampling,
            "stop_when_separated": job.stop_when_separated,
            "max_judgments": job.max_judgments or None,
            "judgments": int(sum(state.judged.values())),
            "settled": study_settled(job=job, state=state),
            "model_pairs": pairs,
        }
    }


def study_text(*, job: Job) -> str:
    """The study section for people (create_annotation_job)."""
    return "\n".join(study_lines(study_section(job=job)["study"]))


def study_lines(study: dict[str, Any]) -> list[str]:
    """The lines of a study section (study_section()["study"]) for people (annotation_report)."""
    lines = []
    plan = study["plan"]
    if plan:
        lines.append(
            f"plan        a win rate of {plan['win_rate']:.2f} ({plan['points']:.0f} Bradley–Terry points) detected with power "
            f"{plan['power']:.2f} at α {plan['alpha']:g} ({plan['test']}"
            + (f", {plan['tie_rate']:.0%} ties expected" if plan["tie_rate"] else "")
            + f"): {plan['judgments']} judgments per pair of models (normal approximation {plan['normal_approximation']})"
            + (f"; {len(study['model_pairs'])} pairs: {study['planned_total']} judgments" if study["model_pairs"] else "")
        )
    for pair in study["model_pairs"]:
        short = f", {pair['planned'] - pair['capacity']} short of the plan" if pair["short"] else ""
        lines.append(
            f"pair        {pair['model_a']} vs {pair['model_b']}: {pair['judgments']} judgments counted, "
            f"{pair['capacity']} possible (items × overlap){short}"
        )
    rules = ["active sampling" if study["active_sampling"] else "pairs in item order"]
    if study["stop_when_separated"]:
        rules.append("stops when neighbouring models' 95% intervals are apart" + (" (now: apart)" if study["settled"] else ""))
    if study["max_judgments"]:
        rules.append(f"budget {study['max_judgments']} judgments")
    lines.append(f"sampling    {'; '.join(rules)}")
    return lines
