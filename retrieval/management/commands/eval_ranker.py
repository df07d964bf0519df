"""python manage.py eval_ranker --wowpp FILE --ranker tfidf|tfidf-paper|neural|hybrid|learned [--checkpoint DIR]
[--half a|b] [--json]
python manage.py eval_ranker --wowpp FILE --ranker learned --cross-fit [--lexical-only] [--c 1.0] [--json]"""

from __future__ import annotations

import json
import sys
import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval.rankers.config import RANKERS
from retrieval.rankers.evaluate import learned_cross_fit, ranker_evaluate
from retrieval.rankers.load import ranker_get
from retrieval.rankers.metrics import GRADED, METRICS
from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppError, wowpp_read


class Command(BaseCommand):
    help = ("Rank each WOW++ context's annotated sentences and print MRR@1, MRR@5, MAP@5, MAP@10, NDCG@5, "
            "NDCG@10 (relevant = confidence >= 0.6; contexts with nothing relevant skipped), graded NDCG@5 and "
            "@10 (gain = confidence) on the same contexts, and n.")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--wowpp", type=Path, required=True, help="a WOW++ file")
        parser.add_argument("--ranker", choices=RANKERS, required=True)
        parser.add_argument("--checkpoint", type=Path,
                            help="train_reranker output: a cross-encoder for neural/hybrid (default: the untrained "
                                 "MiniLM head), a learned model for learned")
        parser.add_argument("--cross-fit", action="store_true",
                            help="learned: fit on each half of the file and score the other half (no model needed)")
        parser.add_argument("--lexical-only", action="store_true", help="--cross-fit: without the MiniLM features")
        parser.add_argument("--c", type=float, default=None, help="--cross-fit: inverse regularisation strength")
        parser.add_argument("--half", choices=["a", "b"], help="only one half of the contexts (split by id hash)")
        parser.add_argument("--threshold", type=float, default=RELEVANCE_THRESHOLD)
        parser.add_argument("--hybrid-weight", type=float, default=0.5, help="weight of the neural score")
        parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
        parser.add_argument("--batch-size", type=int, default=32)
        parser.add_argument("--json", action="store_true", help="print the metrics as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        checkpoint = options["checkpoint"]
        expected = "learned.json" if options["ranker"] == "learned" else "reranker.json"
        if checkpoint is not None and not (checkpoint / expected).is_file():
            raise CommandError(f"--checkpoint {checkpoint}: not a train_reranker checkpoint for {options['ranker']} "
                               f"(no {expected})")
        if not 0.0 <= options["hybrid_weight"] <= 1.0:
            raise CommandError("--hybrid-weight must be between 0 and 1")
        if options["cross_fit"] and (options["ranker"] != "learned" or checkpoint or options["half"]):
            raise CommandError("--cross-fit trains its own learned models: use it with --ranker learned, "
                               "without --checkpoint or --half")
        if options["ranker"] == "learned" and not options["cross_fit"] and checkpoint is None:
            raise CommandError("--ranker learned needs --checkpoint (train_reranker --model learned) or --cross-fit")
        if options["c"] is not None and not options["c"] > 0:
            raise CommandError("--c must be positive")
        try:
            contexts = wowpp_read(options["wowpp"], half=options["half"])
        except (OSError, WowppError) as error:
            raise CommandError(str(error)) from error
        started = time.perf_counter()
        if options["cross_fit"]:
            from retrieval.rankers.learned import DEFAULT_C, LearnedModelError

            try:
                metrics = learned_cross_fit(contexts, semantic=not options["lexical_only"],
                                            c=options["c"] or DEFAULT_C, threshold=options["threshold"],
                                            device=options["device"])
            except LearnedModelError as error:
                raise CommandError(f"--cross-fit: {error}") from error
            self.report(metrics, options, started, "learned, cross-fitted over two halves")
            return
        try:
            ranker = ranker_get(options["ranker"], checkpoint=checkpoint, device=options["device"],
                                batch_size=options["batch_size"], hybrid_weight=options["hybrid_weight"])
        except ValueError as error:  # a learned model that does not load
            raise CommandError(f"--checkpoint {checkpoint}: {error}") from error
        if options["ranker"] in ("neural", "hybrid") and checkpoint is None:
            self.stderr.write("warning: no --checkpoint: the cross-encoder head is untrained")
        with tqdm(total=len(contexts), desc=f"ranking ({options['ranker']})", unit=" contexts", file=sys.stderr,
                  disable=options["verbosity"] == 0 or options["json"]) as progress:
            metrics = ranker_evaluate(ranker, contexts, threshold=options["threshold"], progress=progress.update)
        self.report(metrics, options, started, options["ranker"])

    def report(self, metrics: dict[str, float], options: dict[str, Any], started: float, what: str) -> None:
        if options["json"]:
            self.stdout.write(json.dumps({name: round(metrics[name], 4) for name in (*METRICS, *GRADED)} | {"n": metrics["n"]}))
            return
        half = f" (half {options['half']})" if options["half"] else ""
        self.stdout.write(f"{what} on {options['wowpp'].name}"
                          f"{half}: "
                          f"{metrics['n']} contexts in {time.perf_counter() - started:.1f} s")
        for name in (*METRICS, *GRADED):
            self.stdout.write(f"{name:<9}{metrics[name]:.4f}")
