"""Per-turn retrieval recall on WOW++ contexts: for each context's last turn (the apprentice's turn
whose answer is to be grounded) retrieve k articles from a knowledge source, the way a Wizard of
Wikipedia room does after that turn, and measure the recall of the articles the WOW++ annotators
found relevant (a sentence with confidence >= 0.6 makes its article relevant), among those that the
knowledge source has.

    .venv/bin/python bench/retrieval_recall.py [--wowpp FILE] [--source wiki-demo] [--k 7]
                                               [--weights 0.25,0.5,1,2] [--half tune|held-out] [--json]

Queries compared: the turn alone (the paper's per-turn query, `turn_query: "turn"`), the turn's own
words with the articles it names first (`turn_query: "words"`, the rooms' default:
retrieval.services.passages_for_turn), the topic and the turn as one text, and the blend
cos(turn, doc) + w * cos(topic, doc) (`turn_query: "topic"`), for each w in --weights. The
wizard's panel shows the topic passage beside a turn's articles: bench/panel_questions.py
measures the panel as a room builds it. "without topic article" leaves the topic's own
article out of both the relevant and the retrieved sets: the wizard sees the topic passage anyway.
`--half` keeps one of two fixed halves of the contexts (by a checksum of the context's key): choose
a setting on `tune` and report it on `held-out`, so that the figure is not the one it was tuned on.
Uses the configured database and index when the source is there (GROUNDWORK_VAR_DIR /
DATABASE_URL), else a throwaway SQLite database with the demo knowledge (bench/_setup.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path
from statistics import fmean
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"
GOLD_SUFFIX = "_gold"  # the published files mark the original wizard's article this way
HALVES = ("tune", "held-out")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wowpp", type=Path, default=DEFAULT_FILE, help="a WOW++ file (default: the shared test-seen file)")
    parser.add_argument("--source", default="wiki-demo", help="knowledge source slug (default: the demo knowledge)")
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--weights", default="0.25,0.5,1,2", help="topic weights of the blend to try")
    parser.add_argument("--half", choices=HALVES, help="only this half of the contexts (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.wowpp.is_file():
        sys.exit(f"no WOW++ file at {args.wowpp} (give one with --wowpp)")

    sys.path.insert(0, str(ROOT))
    from bench._setup import django_with_demo

    django_with_demo()
    from retrieval.models import Article, KnowledgeSource

    source = KnowledgeSource.objects.get(slug=args.source)
    titles = set(Article.objects.filter(source=source).values_list("title", flat=True))
    contexts = wowpp_contexts(json.loads(args.wowpp.read_text(encoding="utf-8")), titles, half=args.half)
    queries = query_kinds([float(w) for w in args.weights.split(",") if w.strip()])
    rows = [evaluate(name, call, contexts, source.pk, args.k) for name, call in queries.items()]
    summary = {
        "file": args.wowpp.name, "half": args.half or "all", "source": source.slug, "articles": len(titles), "k": args.k,
        "contexts": len(contexts["all"]), "contexts_without_topic": len(contexts["without_topic"]), "rows": rows,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{summary['file']} ({summary['half']}): {summary['contexts']} contexts with a relevant article in {source.slug} "
          f"({len(titles)} articles; {summary['contexts_without_topic']} with one besides the topic's own); k = {args.k}")
    print(f"{'query':<32}{'recall':>9}{'recall w/o topic article':>27}{'hit@k':>8}")
    for row in rows:
        print(f"{row['query']:<32}{row['recall']:>9.3f}{row['recall_without_topic']:>27.3f}{row['hit']:>8.3f}")


def half_of(key: str) -> str:
    """The half a context belongs to, fixed by its key (not by the file's order)."""
    return HALVES[zlib.crc32(key.encode("utf-8")) % 2]


def wowpp_contexts(data: dict[str, Any], titles: set[str], half: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The contexts with at least one relevant article in the source (and, separately, at least one
    besides the topic's own article); only those of `half` when given."""
    every, without_topic = [], []
    for key, record in data.items():
        if half is not None and half_of(key) != half:
            continue
        relevant = {
            s["article"].removesuffix(GOLD_SUFFIX) for s in record["annotated_sentences"] if s["confidence"] >= 0.6
        } & titles
        context = {"topic": record["topic"], "turn": record["turns"][-1], "relevant": relevant}
        if relevant:
            every.append(context)
        if relevant - {record["topic"]}:
            without_topic.append(context)
    return {"all": every, "without_topic": without_topic}


Query = Callable[[int, str, str, int], list[str]]


def query_kinds(weights: list[float]) -> dict[str, Query]:
    from retrieval.services import passages_for_query, passages_for_turn

    def titles(source_id: int, query: str, k: int, topic: str = "", weight: float = 0.0) -> list[str]:
        passages = passages_for_query(source_id=source_id, query=query, k=k, topic=topic, topic_weight=weight)
        return [p["title"] for p in passages]

    def own_words(source_id: int, topic: str, turn: str, k: int) -> list[str]:
        return [p["title"] for p in passages_for_turn(source_id=source_id, text=turn, k=k, topic=topic)]

    kinds: dict[str, Query] = {
        "turn alone (paper)": lambda s, topic, turn, k: titles(s, turn, k),
        "own words + named (default)": own_words,
        "topic + turn, one text": lambda s, topic, turn, k: titles(s, f"{topic} {turn}", k),
    }
    for weight in weights:
        kinds[f"blend, topic weight {weight:g}"] = lambda s, topic, turn, k, w=weight: titles(s, turn, k, topic, w)
    return kinds


def evaluate(name: str, call: Query, contexts: dict[str, list[dict[str, Any]]], source_id: int, k: int) -> dict[str, Any]:
    recalls, hits = [], []
    for context in contexts["all"]:
        found = set(call(source_id, context["topic"], context["turn"], k)) & context["relevant"]
        recalls.append(len(found) / len(context["relevant"]))
        hits.append(1.0 if found else 0.0)
    without = []
    for context in contexts["without_topic"]:
        relevant = context["relevant"] - {context["topic"]}
        found = set(call(source_id, context["topic"], context["turn"], k)) & relevant
        without.append(len(found) / len(relevant))
    return {"query": name, "recall": fmean(recalls), "recall_without_topic": fmean(without), "hit": fmean(hits)}


if __name__ == "__main__":
    main()
