"""Panels on the question asked: for specific questions in a room about a topic ("Who composed the
music for Star Wars?" in a Star Wars room), whether the article that answers is among the k a room
retrieves (hit@k), on the demo knowledge. The questions (bench/data/specific_questions.json) were
written for this benchmark over articles the demo knowledge has; 20 questions are a small sample.

    .venv/bin/python bench/panel_questions.py [--source wiki-demo] [--k 7] [--show]

Uses the configured database and index when the source is there, else a throwaway SQLite database
with the demo knowledge (bench/_setup.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "bench" / "data" / "specific_questions.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="wiki-demo")
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print the titles retrieved for every question")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench._setup import django_with_demo

    django_with_demo()
    from retrieval.models import KnowledgeSource
    from retrieval.services import passages_for_query

    source = KnowledgeSource.objects.get(slug=args.source)
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    hits = 0
    for question in questions:
        passages = passages_for_query(source_id=source.pk, query=question["turn"], k=args.k, topic=question["topic"], topic_weight=1.0)
        titles = [p["title"] for p in passages]
        hit = bool(set(titles) & set(question["expected"]))
        hits += hit
        if args.show or not hit:
            print(f"{'hit ' if hit else 'miss'} [{question['topic']}] {question['turn']} -> {', '.join(titles)}")
    print(f"{source.slug}: the answering article among the {args.k} retrieved for {hits} of {len(questions)} questions")


if __name__ == "__main__":
    main()
