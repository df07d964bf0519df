"""python manage.py build_index --source SLUG [--n-features 2**24]"""

from __future__ import annotations

import sys
import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval.index import index_build
from retrieval.index.vectorizer import DEFAULT_FEATURES
from retrieval.models import Article, KnowledgeSource


class Command(BaseCommand):
    help = "Build the hashed unigram+bigram TF-IDF index of a knowledge source under settings.INDEX_DIR."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--source", required=True, help="slug of the knowledge source")
        parser.add_argument("--n-features", type=int, default=DEFAULT_FEATURES,
                            help=f"number of hash buckets (default {DEFAULT_FEATURES})")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 2**10 <= options["n_features"] <= 2**31:
            raise CommandError("--n-features must be between 2**10 and 2**31")
        try:
            source = KnowledgeSource.objects.get(slug=options["source"])
        except KnowledgeSource.DoesNotExist as error:
            raise CommandError(f"no knowledge source {options['source']!r}") from error
        total = Article.objects.filter(source=source).count()
        started = time.perf_counter()
        with tqdm(total=total, desc=f"indexing {source.slug}", unit=" articles", file=sys.stderr,
                  disable=options["verbosity"] == 0) as progress:
            meta = index_build(source_id=source.pk, n_features=options["n_features"], progress=progress.update)
        self.stdout.write(
            f"Indexed {meta['n_docs']} articles of {source.slug!r} ({meta['n_terms']} terms, "
            f"{meta['nnz']} weights) in {time.perf_counter() - started:.1f} s."
        )
