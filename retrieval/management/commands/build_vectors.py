"""python manage.py build_vectors --source SLUG [--queue] [--device auto|cpu|cuda]"""

from __future__ import annotations

import sys
import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval.index.vectors import VectorsBusy, vectors_build
from retrieval.models import KnowledgeSource
from retrieval.rankers.config import DEVICES


class Command(BaseCommand):
    help = (
        "Encode a knowledge source's sentences with the MiniLM encoder and store the vectors beside its index, "
        "so the MiniLM-feature ranker costs a lookup per panel. Resumes a build that stopped; sentences "
        "already encoded are reused."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--source", required=True, help="slug of the knowledge source")
        parser.add_argument("--device", choices=DEVICES, default="auto", help="where to encode (default: a GPU if there is one)")
        parser.add_argument("--queue", action="store_true", help="send the build to the Celery `index` queue instead")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            source = KnowledgeSource.objects.get(slug=options["source"])
        except KnowledgeSource.DoesNotExist as error:
            raise CommandError(f"no knowledge source {options['source']!r}") from error
        if options["queue"]:
            from retrieval.tasks import build_vectors

            result = build_vectors.delay(source.pk)
            self.stdout.write(f"Queued the sentence vectors of {source.slug!r} as task {result.id}.")
            return
        from retrieval.rankers.embedder import Embedder

        embedder = Embedder(device=options["device"], batch_size=64)
        started = time.perf_counter()
        with tqdm(desc=f"encoding {source.slug}", unit=" sentences", file=sys.stderr,
                  disable=options["verbosity"] == 0) as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                meta = vectors_build(source_id=source.pk, embedder=embedder, progress=progress)
            except VectorsBusy as error:
                raise CommandError(str(error)) from error
        self.stdout.write(
            f"Stored the vectors of {meta['sentences']} sentences of {source.slug!r} ({meta['encoded']} encoded, "
            f"{meta['reused']} reused; {int(meta['bytes']) / 2**20:.1f} MiB) in {time.perf_counter() - started:.1f} s on {embedder.device}."
        )
