"""`rank_models` on simulated judgments: N judgments between M models of known strengths (scores
spread evenly over 0–600 Elo-like points; with --ties T a share T of the judgments become ties,
which counting as half a win each way pulls the fitted scores together), written as JSON Lines and
ranked through the management command with the bootstrap.

    .venv/bin/python bench/rank_models.py [--judgments 100000] [--models 20] [--rounds 1000] [--ties 0]

Prints the wall time of the command (file reading, fit, bootstrap) and how well the true scores
were recovered (largest error, Spearman correlation, share of true scores inside their interval)."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")


def simulate(path: Path, *, judgments: int, models: int, seed: int, ties: float) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    true = np.linspace(0, 600, models)
    true = true - true.mean() + 1000
    a = rng.integers(0, models, judgments)
    b = (a + rng.integers(1, models, judgments)) % models
    p_a = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
    draw = rng.random(judgments)
    tie = rng.random(judgments) < ties
    winner = np.where(tie, "tie", np.where(draw < p_a, "model_a", "model_b"))
    with path.open("w", encoding="utf-8") as handle:
        for i, j, w in zip(a, b, winner):
            handle.write(json.dumps({"model_a": f"m{i:02d}", "model_b": f"m{j:02d}", "winner": str(w)}) + "\n")
    return {f"m{i:02d}": float(s) for i, s in enumerate(true)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ties", type=float, default=0.0)
    args = parser.parse_args()
    import django
    from django.core.management import call_command
    from scipy.stats import spearmanr

    django.setup()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "judgments.jsonl"
        true = simulate(path, judgments=args.judgments, models=args.models, seed=args.seed, ties=args.ties)
        out = io.StringIO()
        started = time.perf_counter()
        call_command("rank_models", str(path), "--json", "--rounds", str(args.rounds), stdout=out)
        elapsed = time.perf_counter() - started
    board = json.loads(out.getvalue())["models"]
    names = sorted(true)
    est = np.array([board[n]["score"] for n in names])
    truth = np.array([true[n] for n in names])
    covered = np.mean([board[n]["lo"] <= true[n] <= board[n]["hi"] for n in names])
    width = np.mean([board[n]["hi"] - board[n]["lo"] for n in names])
    print(f"rank_models: {args.judgments} judgments, {args.models} models, {args.rounds} bootstrap rounds")
    print(f"  wall time {elapsed:.2f} s (target < 30 s)")
    print(f"  largest |score - true| {np.max(np.abs(est - truth)):.1f} points; Spearman {spearmanr(est, truth)[0]:.4f}")
    print(f"  true score inside its 95% interval: {covered:.0%} of models; mean interval width {width:.1f} points")


if __name__ == "__main__":
    main()
