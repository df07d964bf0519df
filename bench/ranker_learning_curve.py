"""Held-out MRR@1 of the retrained learned ranker against the number of collected dialogues used
(the learning curve of the retraining loop, retrieval/training).

    .venv/bin/python bench/ranker_learning_curve.py [--wowpp FILE] [--sizes 5,10,20,40,60,all] [--repeats 5] [--json]
    .venv/bin/python bench/ranker_learning_curve.py --collected [--heldout FILE] [--sizes ...]

Default: the dialogues of a WOW++ file stand in for collected ones (their annotated sentences are the
graded votes a relevance job collects): the contexts of one half of the file (wowpp_half "a") are the
collection, those of the other half are held out. For each size n, n contexts drawn at random from the
collection (--repeats draws, averaged) train the lexical learned ranker, scored on the held-out half.
--collected: the finished WoW dialogues of the configured database (DATABASE_URL / GROUNDWORK_VAR_DIR),
oldest first, exactly as retrain_ranker reads them, scored on --heldout (default: the shared WOW++ file).
Lexical features only (no torch); the shipped model and TF-IDF on the same held-out contexts are the
reference rows (the shipped model was fitted on the whole shared file: on its half it is in-sample)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from statistics import fmean
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wowpp", type=Path, default=DEFAULT_FILE, help="WOW++ file split into collection and held-out halves")
    parser.add_argument("--collected", action="store_true", help="train on the configured database's collected dialogues")
    parser.add_argument("--heldout", type=Path, default=DEFAULT_FILE, help="--collected: the WOW++ file to score on")
    parser.add_argument("--sizes", default="5,10,20,40,60,all")
    parser.add_argument("--repeats", type=int, default=5, help="random draws per size (WOW++ mode)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()
    from retrieval.rankers.wowpp import wowpp_read

    path = args.heldout if args.collected else args.wowpp
    if not path.is_file():
        sys.exit(f"no WOW++ file at {path} (give one with --wowpp / --heldout)")
    if args.collected:
        held = wowpp_read(args.heldout)
        curve = collected_curve(held, args.sizes)
    else:
        contexts = wowpp_read(args.wowpp)
        pool = [c for c in contexts if _half(c.id) == "a"]
        held = [c for c in contexts if _half(c.id) == "b"]
        curve = wowpp_curve(pool, held, args.sizes, args.repeats)
    summary = {"heldout": path.name, "heldout_contexts": len(held), "rows": curve, "reference": reference(held)}
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"held out: {summary['heldout']}, {len(held)} contexts ({'collected dialogues' if args.collected else 'WOW++ half b'})")
    print(f"{'dialogues used':>15}{'examples':>10}{'MRR@1':>8}{'NDCG@10':>9}")
    for row in curve:
        print(f"{row['dialogues']:>15}{row['examples']:>10}{row['MRR@1']:>8.3f}{row['NDCG@10']:>9.3f}")
    for name, scores in summary["reference"].items():
        print(f"{name:>25}{scores['MRR@1']:>8.3f}{scores['NDCG@10']:>9.3f}")


def _half(key: str) -> str:
    from retrieval.rankers.wowpp import wowpp_half

    return wowpp_half(key)


def _sizes(spec: str, available: int) -> list[int]:
    sizes = [available if s.strip() == "all" else int(s) for s in spec.split(",") if s.strip()]
    return sorted({min(s, available) for s in sizes if s > 0})


def wowpp_curve(pool: list[Any], held: list[Any], spec: str, repeats: int) -> list[dict[str, Any]]:
    from retrieval.rankers.learned import LearnedModelError, context_features, learned_fit

    features = context_features(pool, semantic=False)
    rows = []
    for size in _sizes(spec, len(pool)):
        draws = []
        for seed in range(repeats if size < len(pool) else 1):
            chosen = random.Random(seed).sample(range(len(pool)), size)
            try:
                model = learned_fit([features[i] for i in chosen], [pool[i] for i in chosen], semantic=False)
            except LearnedModelError:
                continue  # a draw with no relevant (or no irrelevant) sentence cannot be fitted
            draws.append(_score(model, held))
        if draws:
            rows.append({"dialogues": size, "examples": size, "draws": len(draws),
                         **{m: fmean(d[m] for d in draws) for m in ("MRR@1", "NDCG@10")}})
    return rows


def collected_curve(held: list[Any], spec: str) -> list[dict[str, Any]]:
    from retrieval.rankers.learned import LearnedModelError, learned_train
    from retrieval.training.examples import training_examples_collected

    total = training_examples_collected(held_out=held, sources=["wizard_turns"]).dialogues
    rows = []
    for size in _sizes(spec, total):
        examples = training_examples_collected(held_out=held, max_dialogues=size, sources=["wizard_turns"])
        try:
            model = learned_train(examples.contexts, semantic=False)
        except LearnedModelError:
            continue
        rows.append({"dialogues": examples.dialogues, "examples": len(examples.contexts), "draws": 1, **_score(model, held)})
    return rows


def reference(held: list[Any]) -> dict[str, dict[str, float]]:
    from retrieval.rankers.config import DEFAULT_MODELS
    from retrieval.rankers.evaluate import ranker_evaluate
    from retrieval.rankers.learned import LearnedRanker, learned_load
    from retrieval.rankers.tfidf import TfidfRanker

    return {
        "shipped lexical model": ranker_evaluate(LearnedRanker(learned_load(DEFAULT_MODELS / "lexical")), held),
        "tfidf": ranker_evaluate(TfidfRanker(), held),
    }


def _score(model: dict[str, Any], held: list[Any]) -> dict[str, float]:
    from retrieval.rankers.evaluate import ranker_evaluate
    from retrieval.rankers.learned import LearnedRanker

    scores = ranker_evaluate(LearnedRanker(model, device="cpu"), held)
    return {"MRR@1": scores["MRR@1"], "NDCG@10": scores["NDCG@10"]}


if __name__ == "__main__":
    main()
