"""python manage.py build_index --source SLUG [--n-features 2**24] [--memory-mb N] [--workers N] [--queue]"""

from __future__ import annotations

import sys
import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval.index import index_build
from retrieval.index.build import build_memory_mb, build_workers
from retrieval.index.vectors import vectors_after_index
from retrieval.index.vectorizer import DEFAULT_FEATURES
from retrieval.models import Article, KnowledgeSource


class Command(BaseCommand):
    help = "Build the hashed unigram+bigram TF-IDF index of a knowledge source under settings.INDEX_DIR."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--source", required=True, help="slug of the knowledge source")
        parser.add_argument("--n-features", type=int, default=DEFAULT_FEATURES,
                            help=f"number of hash buckets (default {DEFAULT_FEATURES})")
        parser.add_argument("--memory-mb", type=int, help="memory for the chunks in flight "
                            "(default GROUNDWORK_INDEX_BUILD_MEMORY_MB, 512); about 40 bytes per hash bucket come on top")
        parser.add_argument("--workers", type=int, help="vectorising processes (default GROUNDWORK_INDEX_BUILD_WORKERS, "
                            "else one per core)")
        parser.add_argument("--queue", action="store_true",
                            help="send the build to the Celery `index` queue instead of building here")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 2**10 <= options["n_features"] <= 2**31:
            raise CommandError("--n-features must be between 2**10 and 2**31")
        try:
            source = KnowledgeSource.objects.get(slug=options["source"])
        except KnowledgeSource.DoesNotExist as error:
            raise CommandError(f"no knowledge source {options['source']!r}") from error
        if options["memory_mb"] is not None and options["memory_mb"] < 16:
            raise CommandError("--memory-mb must be at least 16")
        if options["workers"] is not None and options["workers"] < 1:
            raise CommandError("--workers must be at least 1")
        memory_mb, workers = options["memory_mb"] or build_memory_mb(), options["workers"] or build_workers()
        if options["queue"]:
            from retrieval.tasks import build_index

            result = build_index.delay(source.pk, memory_mb)
            self.stdout.write(f"Queued the build of {source.slug!r} as task {result.id}.")
            return
        total = Article.objects.filter(source=source).count()
        started = time.perf_counter()
        with tqdm(total=total, desc=f"indexing {source.slug}", unit=" articles", file=sys.stderr,
                  disable=options["verbosity"] == 0) as progress:
            meta = index_build(source_id=source.pk, n_features=options["n_features"], memory_mb=memory_mb,
                               workers=workers, progress=progress.update)
        self.stdout.write(
            f"Indexed {meta['n_docs']} articles of {source.slug!r} ({meta['n_terms']} terms, "
            f"{meta['nnz']} weights) in {time.perf_counter() - started:.1f} s; {vectors_after_index(source.pk)}."
        )
