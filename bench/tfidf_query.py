"""TF-IDF retrieval latency on the demo corpus: the index query alone, and passages_for_query
(index + one sentence query), over ~200 queries made of article titles and lead sentences.

    .venv/bin/python bench/tfidf_query.py [--source demo] [--queries 200] [--k 7] [--fresh]

Uses the source and its index from the configured database (GROUNDWORK_VAR_DIR / DATABASE_URL)
when both exist; otherwise (or with --fresh) imports the demo into a temporary SQLite database and
index directory, reporting the import and build times too."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval.models import KnowledgeSource

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="demo")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--fresh", action="store_true", help="always build a temporary demo source and index")
    args = parser.parse_args()
    if args.fresh:
        workdir = Path(tempfile.mkdtemp(prefix="groundwork-bench-"))
        # Before django.setup(): the settings read these once.
        os.environ.pop("DATABASE_URL", None)
        os.environ["GROUNDWORK_VAR_DIR"] = str(workdir)
        os.environ["GROUNDWORK_INDEX_DIR"] = str(workdir / "indexes")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()
    if args.fresh:
        try:
            source = build_demo(args.source)
            run(source, args.queries, args.k)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    elif (source := existing_source(args.source)) is not None:
        run(source, args.queries, args.k)
    else:
        print(f"No source {args.source!r} with an index here; building a temporary one.", flush=True)
        os.execv(sys.executable, [sys.executable, __file__, *sys.argv[1:], "--fresh"])


def existing_source(slug: str) -> KnowledgeSource | None:
    from django.conf import settings
    from django.db import DatabaseError

    from retrieval.models import KnowledgeSource

    try:
        source = KnowledgeSource.objects.filter(slug=slug).first()
    except DatabaseError:  # not migrated
        return None
    return source if source and (settings.INDEX_DIR / slug / "meta.json").exists() else None


def build_demo(slug: str) -> KnowledgeSource:
    from django.core.management import call_command

    from retrieval.models import KnowledgeSource

    call_command("migrate", verbosity=0)
    for label, command in [("import_knowledge demo", ["import_knowledge", "demo"]), ("build_index", ["build_index"])]:
        started = time.perf_counter()
        call_command(*command, "--source", slug, verbosity=0, stdout=StringIO())
        print(f"{label}: {time.perf_counter() - started:.1f} s (in-process)")
    return KnowledgeSource.objects.get(slug=slug)


def run(source: KnowledgeSource, n_queries: int, k: int) -> None:
    from django.conf import settings

    from retrieval.index import index_load
    from retrieval.models import Article, Sentence
    from retrieval.services import passages_for_query

    titles = list(Article.objects.filter(source=source).values_list("title", flat=True))
    sentences = list(Sentence.objects.filter(article__source=source).values_list("text", flat=True))
    rng = random.Random(0)
    queries = rng.sample(titles, n_queries // 2) + rng.sample(sentences, n_queries - n_queries // 2)
    index = index_load(index_dir=settings.INDEX_DIR, slug=source.slug)
    print(f"{source.slug}: {index.meta['n_docs']} articles, {index.meta['n_terms']} terms; "
          f"{len(queries)} queries (half titles, half lead sentences), k={k}")
    print(f"{'':<20}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}")
    report("index.search", lambda q: index.search(q, k=k), queries)
    report("passages_for_query", lambda q: passages_for_query(source_id=source.pk, query=q, k=k), queries)


def report(label: str, call: Callable[[str], object], queries: list[str]) -> None:
    for query in queries[:10]:
        call(query)
    times = []
    for query in queries:
        started = time.perf_counter()
        call(query)
        times.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    print(f"{label:<20}" + "".join(f"{value:>6.2f} ms" for value in (cuts[49], cuts[94], cuts[98], max(times))))


if __name__ == "__main__":
    main()
