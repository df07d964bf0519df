"""The MiniLM encoder's work on each device (CPU, and CUDA where there is one): what a wizard panel's
MiniLM features cost with and without stored sentence vectors, the cross-encoder's rerank of 60
candidates, the encoding throughput that sets how long `build_vectors` takes, and (with --train)
retraining on the WOW++ file: the cross-encoder for one epoch on half "a", scored on half "b", and
the encoding behind the MiniLM-feature learned model.

Needs no database (Django's settings only, for GROUNDWORK_MINILM_DIR), so it runs on a bare GPU host
with the requirements installed:

    .venv/bin/python bench/encoder_devices.py --wowpp ../shared/data/wowpp/test_random_augmented_wow.json
        [--devices cpu,cuda] [--runs 50] [--train [--train-cpu]] [--json OUT.json]

GROUNDWORK_MINILM_DIR points at a local copy of the MiniLM weights where the package is not installed.
The lexical part of a learned panel (TF-IDF and placement features, ~5 ms) runs on the CPU whatever the
device, and is measured by bench/sentence_vectors.py."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PANEL = 60  # candidates of a wizard panel (7 articles' lead sentences)
SENTENCES_PER_ARTICLE = 36_300 / 10_033  # the demo knowledge's lead sentences per article
DEMO_SENTENCES = 36_300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wowpp", type=Path, required=True, help="a WOW++ file: its contexts and candidate sentences")
    parser.add_argument("--devices", default="cpu,cuda")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--train", action="store_true", help="also retrain on the file, on a GPU")
    parser.add_argument("--train-cpu", action="store_true", help="with --train, on the CPU too (tens of minutes)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django
    import torch

    django.setup()

    from retrieval.rankers import Candidate, encoded_text
    from retrieval.rankers.wowpp import wowpp_read

    contexts = wowpp_read(args.wowpp)
    panel = [c for x in contexts[:4] for c in x.candidates][:PANEL]
    turns, topic = contexts[0].turns[-4:], contexts[0].topic
    texts = sorted({encoded_text(c) for x in contexts for c in x.candidates})
    report: dict[str, object] = {"torch": torch.__version__, "panel": len(panel), "file_sentences": len(texts)}
    devices = [d for d in args.devices.split(",") if d == "cpu" or torch.cuda.is_available()]
    for device in devices:
        name = torch.cuda.get_device_name(0) if device == "cuda" else f"cpu x{torch.get_num_threads()} threads"
        print(f"== {device}: {name}", flush=True)
        figures = device_figures(device, panel, turns, topic, texts, runs=args.runs, Candidate=Candidate)
        if args.train and (device == "cuda" or args.train_cpu):
            figures |= train_figures(device, contexts)
        report[device] = {"name": name, **figures}
        for key, value in figures.items():
            print(f"{key:<52}{value}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


def device_figures(device, panel, turns, topic, texts, *, runs, Candidate) -> dict[str, object]:
    import numpy as np
    import torch

    from retrieval.rankers import encoded_text
    from retrieval.rankers.embedder import Embedder
    from retrieval.rankers.neural import NeuralRanker

    embedder = Embedder(device=device, batch_size=256 if device == "cuda" else 64)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    panel_texts = [encoded_text(c) for c in panel]
    stored = embedder.encode(panel_texts).astype(np.float16)  # as build_vectors keeps them
    live = timings(lambda: embedder.encode([*panel_texts, topic, *turns]), runs, sync)
    # A panel with stored vectors: the new turn is encoded, the rest is looked up.
    fresh = iter(range(10**9))
    looked_up = timings(lambda: (embedder.encode([f"{turns[-1]} ({next(fresh)})"]), stored.astype(np.float32)), runs, sync)
    neural = NeuralRanker(checkpoint=None, device=device, batch_size=64)
    cross = timings(lambda: neural.score(turns, panel, topic=topic), runs, sync)
    embedder.encode(texts[:256])  # warm
    sync()
    started = time.perf_counter()
    embedder.encode(texts)
    sync()
    per_second = len(texts) / (time.perf_counter() - started)
    million = 1_000_000 * SENTENCES_PER_ARTICLE
    return {
        "panel MiniLM encoding, live (60 + 5 texts) ms": live,
        "panel MiniLM encoding, stored (1 turn) ms": looked_up,
        "cross-encoder rerank of 60 ms": cross,
        "encoding throughput, sentences/s": round(per_second),
        "build_vectors at the demo scale (36,300), s": round(DEMO_SENTENCES / per_second, 1),
        "build_vectors at 1M articles (3.6M), h": round(million / per_second / 3600, 2),
        "vectors at 1M articles (float16 + key), GB": round(million * (embedder.dimension * 2 + 8) / 1e9, 2),
    }


def train_figures(device, contexts) -> dict[str, object]:
    from retrieval.rankers import encoded_text
    from retrieval.rankers.embedder import Embedder
    from retrieval.rankers.evaluate import ranker_evaluate
    from retrieval.rankers.neural import NeuralRanker
    from retrieval.rankers.train import reranker_train, wowpp_pairs
    from retrieval.rankers.wowpp import wowpp_half

    half_a = [x for x in contexts if wowpp_half(x.id) == "a"]
    half_b = [x for x in contexts if wowpp_half(x.id) == "b"]
    pairs = wowpp_pairs(half_a)
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        reranker_train(pairs=pairs, out=Path(out), epochs=1, batch_size=32, device=device)
        seconds = time.perf_counter() - started
        trained = NeuralRanker(checkpoint=Path(out), device=device, batch_size=64)
        scores = ranker_evaluate(trained, half_b)
    embedder = Embedder(device=device, batch_size=256 if device == "cuda" else 64)
    texts = [encoded_text(c) for x in contexts for c in x.candidates] + [t for x in contexts for t in x.turns]
    started = time.perf_counter()
    embedder.encode(texts)
    encode_seconds = time.perf_counter() - started
    return {
        "cross-encoder: 1 epoch on half a, pairs": len(pairs),
        "cross-encoder: 1 epoch on half a, s": round(seconds, 1),
        "cross-encoder: MRR@1 / NDCG@10 on half b": f"{scores['MRR@1']:.3f} / {scores['NDCG@10']:.3f} (n={scores['n']})",
        "MiniLM features of the whole file: texts encoded": len(texts),
        "MiniLM features of the whole file: s": round(encode_seconds, 1),
    }


def timings(call, runs: int, sync) -> str:
    for _ in range(3):
        call()
    sync()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        sync()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return f"p50 {statistics.median(samples):.1f}  p99 {samples[min(len(samples) - 1, int(len(samples) * 0.99))]:.1f}"


if __name__ == "__main__":
    main()
