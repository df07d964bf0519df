"""Reranking latency: one context, 60 candidate sentences (7 articles' lead sentences from the demo
knowledge), through each ranker; and how late a chat's event loop runs while reranks go on in the
background (the embedded mode's in-process reranking).

    .venv/bin/python bench/rerank_latency.py [--runs 30] [--checkpoint DIR] [--device auto|cpu|cuda]
                                             [--threads 0] [--batch-size 32]

Latency does not depend on whether the cross-encoder's head is trained, so without --checkpoint
the default MiniLM weights are timed; likewise the learned ranker is timed with placeholder weights
(lexical: its TF-IDF and placement features; semantic: plus one MiniLM encoding of the panel). GPU figures appear only on a machine with CUDA."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
N_CANDIDATES = 60
CONTEXT = [
    "Hi! I have always wanted to learn more about the history of jazz music.",
    "Jazz is great. It started in New Orleans in the late 19th century, I think.",
    "Yes, and I love how much improvisation there is. Who were the first famous jazz musicians?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--checkpoint", type=Path)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()
    import torch

    from retrieval.rankers.load import ranker_get

    if args.threads:
        torch.set_num_threads(args.threads)
    candidates = demo_candidates()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() and args.device != "cpu" else [])
    print(f"{len(candidates)} candidates, {len(CONTEXT)} context turns, {args.runs} runs, "
          f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads, batch {args.batch_size}")
    print(f"{'ranker':<12}{'device':<6}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for device in devices:
        for name in ("tfidf", "neural", "hybrid"):
            if name == "tfidf" and device != "cpu":
                continue
            ranker = ranker_get(name, checkpoint=args.checkpoint, device=device, batch_size=args.batch_size)
            report(name, device, timed(lambda: ranker.score(CONTEXT, candidates), args.runs if name != "tfidf" else 200))
        for semantic in (False, True):
            if not semantic and device != "cpu":
                continue
            ranker = placeholder_learned(semantic, device)
            runs = args.runs if semantic else 200
            report("learned" + ("" if semantic else "-lex"), device,
                   timed(lambda: ranker.score(CONTEXT, candidates, topic="Jazz"), runs))
    if not torch.cuda.is_available():
        print("GPU: not measured (no CUDA device on this machine)")
    lag_idle, lag_busy, reranks = asyncio.run(event_loop_lag(candidates, args))
    print(f"\nevent loop lag (a 10 ms timer in the chat's loop), p99 / max: idle {lag_idle[0]:.1f} / {lag_idle[1]:.1f} ms; "
          f"during {reranks} back-to-back in-process neural reranks {lag_busy[0]:.1f} / {lag_busy[1]:.1f} ms")


def report(name: str, device: str, times: list[float]) -> None:
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    print(f"{name:<12}{device:<6}{cuts[49]:>10.1f}{cuts[98]:>10.1f}{max(times):>10.1f}", flush=True)


def placeholder_learned(semantic: bool, device: str):
    from retrieval.rankers.features import feature_names
    from retrieval.rankers.learned import KIND, LearnedRanker

    size = len(feature_names(semantic=semantic))
    model = {"kind": KIND, "semantic": semantic, "features": list(feature_names(semantic=semantic)),
             "mean": [0.0] * size, "scale": [1.0] * size, "coef": [1.0] * size, "intercept": 0.0}
    return LearnedRanker(model, device=device)


def demo_candidates() -> list:
    from retrieval.importers.demo import default_path
    from retrieval.rankers import Candidate
    from retrieval.text import split_sentences

    entries = list(json.loads(default_path().read_bytes()).values())
    rng = random.Random(0)
    candidates: list[Candidate] = []
    while len(candidates) < N_CANDIDATES:
        entry = rng.choice(entries)
        for sentence in split_sentences(str(entry.get("extract") or ""))[:9]:
            candidates.append(Candidate(str(entry.get("title")), sentence))
    return candidates[:N_CANDIDATES]


def timed(call, runs: int) -> list[float]:
    call()  # warm-up: first-call allocations, lazy loading
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


async def event_loop_lag(candidates: list, args: argparse.Namespace) -> tuple[tuple[float, float], tuple[float, float], int]:
    """A 10 ms ticker stands in for the chat: how late do its ticks fire, without and with reranks
    running through arerank_passages (the rerank thread, off the loop)?"""
    from django.conf import settings

    from retrieval.rankers.load import ranker_get
    from retrieval.services import arerank_passages

    settings.CELERY_TASK_ALWAYS_EAGER = True
    ranker = ranker_get("neural", checkpoint=args.checkpoint, device="cpu", batch_size=args.batch_size)
    passages = [{"title": c.title, "sentences": [c.text]} for c in candidates]

    async def ticks(seconds: float) -> list[float]:
        lags, end = [], time.perf_counter() + seconds
        while time.perf_counter() < end:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.perf_counter() - before - 0.01) * 1000)
        return lags

    def summary(lags: list[float]) -> tuple[float, float]:
        return statistics.quantiles(lags, n=100, method="inclusive")[98], max(lags)

    idle = await ticks(3)
    done = 0

    async def rerank_loop(stop: asyncio.Event) -> None:
        nonlocal done
        while not stop.is_set():
            await arerank_passages(context=CONTEXT, passages=passages, timeout_s=30, ranker=ranker)
            done += 1

    stop = asyncio.Event()
    worker = asyncio.create_task(rerank_loop(stop))
    busy = await ticks(10)
    stop.set()
    await worker
    return summary(idle), summary(busy), done


if __name__ == "__main__":
    main()
