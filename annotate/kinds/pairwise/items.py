"""Pairwise items from model-chat campaigns: pairs of their complete conversations, for every two
models (pairs.pair_specs)."""

from __future__ import annotations

from annotate.kinds.pairwise.pairs import campaign_conversations, pair_specs
from annotate.models import Job
from annotate.services.jobs import items_add


def items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool) -> int:
    """Pairs of the campaigns' complete conversations the job lacks (`include_incomplete` does not
    apply: an unfinished conversation is not judged)."""
    # The job names its campaigns before it has pairs: a job whose campaigns have no two
    # models' chats yet is still theirs (their results page, the model-chat export).
    job.source = {"campaigns": sorted(set(job.source.get("campaigns", [])) | set(campaigns))}
    job.save(update_fields=["source"])
    return items_add(job=job, specs=pair_specs(job, campaign_conversations(campaigns)))
