"""python manage.py train_reranker --wowpp FILE [--wowpp FILE ...] --out DIR [--half a|b]
[--model cross-encoder|learned]
cross-encoder: [--epochs 1] [--batch-size 16] [--lr 2e-5] [--max-length 128] [--max-steps N]
               [--init CHECKPOINT]
learned:       [--lexical-only] [--c 1.0]
[--device auto|cpu|cuda] [--threads N]"""

from __future__ import annotations

import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from retrieval.rankers.wowpp import RELEVANCE_THRESHOLD, WowppError, wowpp_read


class Command(BaseCommand):
    help = ("Train a reranker on WOW++ relevance (positive iff confidence >= threshold): fine-tune the "
            "cross-encoder, or fit the learned ranker; save it for GROUNDWORK_RERANKER_CHECKPOINT.")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--wowpp", action="append", type=Path, required=True,
                            help="a WOW++ file (repeatable): the published ones or Groundwork's own vote exports")
        parser.add_argument("--out", type=Path, required=True, help="checkpoint directory to write")
        parser.add_argument("--half", choices=["a", "b"],
                            help="train on one half of the contexts (split by id hash); eval_ranker --half takes the other")
        parser.add_argument("--model", choices=["cross-encoder", "learned"], default="cross-encoder",
                            help="cross-encoder: fine-tune MiniLM (a GPU helps); learned: a logistic regression "
                                 "over lexical, placement and MiniLM-similarity features (minutes on a CPU)")
        parser.add_argument("--lexical-only", action="store_true",
                            help="learned: leave out the MiniLM features (no torch when ranking)")
        parser.add_argument("--c", type=float, default=None, help="learned: inverse regularisation strength")
        parser.add_argument("--attribution", default="",
                            help="learned: where the training data comes from and its licence, kept in the model")
        parser.add_argument("--init", type=Path, help="continue from this checkpoint (default: the untrained MiniLM)")
        parser.add_argument("--epochs", type=int, default=1)
        parser.add_argument("--batch-size", type=int, default=16)
        parser.add_argument("--lr", type=float, default=2e-5, help="encoder learning rate")
        parser.add_argument("--max-length", type=int, default=128, help="tokens per (context, sentence) pair")
        parser.add_argument("--max-steps", type=int, help="stop after this many batches (smoke tests)")
        parser.add_argument("--threshold", type=float, default=RELEVANCE_THRESHOLD)
        parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
        parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("epochs", "batch_size", "max_length"):
            if options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1")
        if options["max_length"] < 16:
            raise CommandError("--max-length must be at least 16")
        if options["init"] is not None and not (options["init"] / "reranker.json").is_file():
            raise CommandError(f"--init {options['init']}: not a train_reranker checkpoint")
        if options["c"] is not None and not options["c"] > 0:
            raise CommandError("--c must be positive")
        if options["threads"]:
            import torch

            torch.set_num_threads(options["threads"])
        contexts = []
        for path in options["wowpp"]:
            try:
                contexts += wowpp_read(path, half=options["half"])
            except (OSError, WowppError) as error:
                raise CommandError(str(error)) from error
        if options["model"] == "learned":
            self.train_learned(contexts, options)
            return

        from retrieval.rankers.train import EpochReport, reranker_train, wowpp_pairs

        pairs = wowpp_pairs(contexts, threshold=options["threshold"])
        if not pairs:
            raise CommandError("no annotated sentences to train on")
        positives = sum(pair.label for pair in pairs)
        self.stdout.write(f"Training on {len(pairs)} pairs ({positives:.0f} relevant) from {len(contexts)} contexts.")

        def report(epoch: EpochReport) -> None:
            self.stdout.write(f"epoch {epoch.epoch}: loss {epoch.loss:.4f} ({epoch.steps} steps, {epoch.seconds:.0f} s)")
            self.stdout.flush()

        started = time.perf_counter()
        meta = reranker_train(
            pairs=pairs, out=options["out"], init=options["init"], epochs=options["epochs"],
            batch_size=options["batch_size"], learning_rate=options["lr"], max_length=options["max_length"],
            max_steps=options["max_steps"], device=options["device"], seed=options["seed"],
            meta={"trained_on": [str(p) for p in options["wowpp"]], "half": options["half"],
                  "threshold": options["threshold"], "contexts": len(contexts)},
            on_epoch=report,
        )
        self.stdout.write(f"Saved {options['out']} after {meta['steps']} steps in {time.perf_counter() - started:.0f} s "
                          f"on {meta['device']}.")

    def train_learned(self, contexts: list[Any], options: dict[str, Any]) -> None:
        from retrieval.rankers.learned import DEFAULT_C, LearnedModelError, learned_save, learned_train

        semantic = not options["lexical_only"]
        self.stdout.write(f"Fitting the learned ranker ({'lexical + MiniLM' if semantic else 'lexical'} features) "
                          f"on {len(contexts)} contexts.")
        started = time.perf_counter()
        try:
            model = learned_train(
                contexts, semantic=semantic, c=options["c"] or DEFAULT_C, threshold=options["threshold"],
                device=options["device"],
                meta={"trained_on": [str(p) for p in options["wowpp"]], "half": options["half"],
                      **({"attribution": options["attribution"]} if options["attribution"] else {})},
            )
        except LearnedModelError as error:
            raise CommandError(str(error)) from error
        path = learned_save(model, options["out"])
        self.stdout.write(f"{model['pairs']} pairs ({model['positives']} relevant); saved {path} "
                          f"in {time.perf_counter() - started:.0f} s.")
