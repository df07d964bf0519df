"""Planned studies against simulated judges with known strengths.

1. Active against uniform sampling of pairs: `--studies` seeded ranking studies, each of `--models`
   models whose true Bradley–Terry scores are drawn uniformly over `--spread` points with every two
   neighbours at least `--min-gap` apart. Judges never tie. Each step serves `--batch` pairs from
   the state after the previous step; a study stops when its ranking is settled as a job's is
   (neighbours' asymptotic 95% intervals disjoint, and then the bootstrap leaderboard ranking every
   model apart: annotate.kinds.pairwise.evaluation.simulation.simulate_studies) or at `--budget` judgments. Both samplers see the same studies. Prints the judgments at the stop (median, p90),
   the share settled within the budget and the share whose order at the stop is the true one.
2. The power analysis's predicted power against simulated power (`--power-studies` studies each) at
   the judgments it computes, for a few win rates and tie rates.
3. With `--serve N`: the cost of serving the next pair, through the services on a throwaway SQLite
   database: a job of `--models` models (120 items per pair, overlap 1) judged N times by simulated
   judges (20 annotators in turn), in item order and with active sampling; assignment_next's wall
   time per request, p50 / p95.

    .venv/bin/python bench/active_sampling.py [--studies 200] [--models 5] [--batch 10] [--budget 10000] [--seed 0] [--serve 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOALS = ({"win_rate": 0.55}, {"win_rate": 0.60}, {"win_rate": 0.65}, {"points": 100}, {"win_rate": 0.60, "tie_rate": 0.2})


def strengths(studies: int, models: int, spread: float, min_gap: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < studies:
        draw = np.sort(rng.uniform(0.0, spread, models))
        if np.min(np.diff(draw)) >= min_gap:
            rows.append(draw)
    return np.array(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--spread", type=float, default=400.0)
    parser.add_argument("--min-gap", type=float, default=40.0)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--budget", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--power-studies", type=int, default=4000)
    parser.add_argument("--serve", type=int, default=0, metavar="N", help="also time N served judgments per sampler")
    args = parser.parse_args()
    if args.serve:
        serving_cost(args.models, args.serve, args.seed)
    from annotate.kinds.pairwise.evaluation.power import judgments_needed
    from annotate.kinds.pairwise.evaluation.simulation import SAMPLERS, simulate_studies, simulated_power

    true = strengths(args.studies, args.models, args.spread, args.min_gap, args.seed)
    print(f"{args.studies} studies, {args.models} models over {args.spread:g} points (neighbours ≥ {args.min_gap:g} apart), "
          f"batches of {args.batch}, budget {args.budget}")
    print(f"{'sampler':<8} {'median':>7} {'p90':>7} {'settled':>8} {'true order':>11} {'seconds':>8}")
    medians = {}
    for sampler in SAMPLERS:
        started = time.perf_counter()
        result = simulate_studies(true, sampler=sampler, batch=args.batch, budget=args.budget, seed=args.seed + 1)
        seconds = time.perf_counter() - started
        median, p90 = np.percentile(result.judgments, [50, 90])
        medians[sampler] = (median, p90)
        print(f"{sampler:<8} {median:>7.0f} {p90:>7.0f} {result.settled.mean():>8.1%} {result.correct.mean():>11.1%} {seconds:>8.1f}")
    (um, up), (am, ap) = medians["uniform"], medians["active"]
    print(f"active sampling needs {1 - am / um:.0%} fewer judgments at the median, {1 - ap / up:.0%} fewer at p90")

    print(f"\npower analysis (α 0.05, power 0.80) against {args.power_studies} simulated studies each")
    print(f"{'goal':<28} {'judgments':>9} {'normal approx.':>14} {'predicted':>9} {'simulated':>9}")
    for n, goal in enumerate(GOALS):
        plan = judgments_needed(**goal)
        simulated = simulated_power(plan["judgments"], plan["win_rate"], tie_rate=plan["tie_rate"], studies=args.power_studies, seed=n)
        label = ", ".join(f"{k} {v:g}" for k, v in goal.items())
        print(f"{label:<28} {plan['judgments']:>9} {plan['normal_approximation']:>14} {plan['achieved_power']:>9.3f} {simulated:>9.3f}")


def serving_cost(models: int, judgments: int, seed: int) -> None:
    import itertools
    import os
    import tempfile

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ["GROUNDWORK_VAR_DIR"] = tempfile.mkdtemp(prefix="gw-bench-")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from annotate.services.answers import answer_submit
    from annotate.services.assignment import assignment_next
    from annotate.services.jobs import ItemSpec, items_add, job_create
    from annotate.kinds.pairwise.pairs import pair_key, pair_payload
    from collect.models import Worker

    call_command("migrate", verbosity=0)
    names = [f"m{n}" for n in range(models)]
    scores = dict(zip(names, np.linspace(0, 400, models)))
    rng = np.random.default_rng(seed)
    print(f"\nserving the next pair: {models} models, 120 items per pair, {judgments} judgments (SQLite)")
    for active in (False, True):
        job = job_create(slug=f"serve-{int(active)}", name="serve", kind="pairwise", overlap=1, active_sampling=active)
        specs = []
        for a, b in itertools.combinations(names, 2):
            for n in range(120):
                left, right = ({"id": f"{a}{b}-{m}-{n}", "model": m, "speaker": "model", "topic": "", "seen": None,
                                "dialog": [{"speaker": "model", "text": "Hello."}]} for m in (a, b))
                key = pair_key(left, right)
                specs.append(ItemSpec(key=key, payload=pair_payload(job, key, left, right)))
        items_add(job=job, specs=specs)
        judges = [Worker.objects.create(external_id=f"serve-{int(active)}-{n}") for n in range(20)]
        times = []
        for n in range(judgments):
            started = time.perf_counter()
            served = assignment_next(job=job, worker=judges[n % len(judges)])
            times.append(1000 * (time.perf_counter() - started))
            payload = served.assignment.item.payload
            a, b = (payload["conversations"][side]["model"] for side in ("a", "b"))
            side = "a" if rng.random() < 1 / (1 + 10 ** ((scores[b] - scores[a]) / 400)) else "b"
            choice = "left" if payload["left"] == side else "right"
            answer_submit(item_id=served.assignment.item_id, worker=judges[n % len(judges)], choice=choice, reason="simulated")
        p50, p95 = np.percentile(times, [50, 95])
        print(f"{'active sampling' if active else 'item order':<16} next item p50 {p50:.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()
