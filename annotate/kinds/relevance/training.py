"""The ranker's training examples from relevance jobs (registered with retrieval.training.examples):
each task item that reached its overlap, with the share of annotators who picked each candidate
(the job's WOW++ export)."""

from __future__ import annotations

from collections.abc import Iterable

from annotate.kinds.relevance import NAME
from annotate.kinds.relevance.exporter import wowpp_records
from annotate.models import Job
from retrieval.rankers.wowpp import WowppContext, wowpp_context


def relevance_examples() -> Iterable[WowppContext]:
    for job in Job.objects.filter(kind=NAME).order_by("created", "pk"):
        for key, record in wowpp_records(job):
            context = wowpp_context(f"relevance:{job.slug}:{key}", record)
            if len(context.candidates) >= 2 and context.turns:
                yield context
