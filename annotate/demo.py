"""The demo's pairwise (ACUTE-Eval) job: the models of the demo model-chat campaign judged against
each other from its completed chats. Each `load_demo` adds the pairs of the chats completed since."""

from __future__ import annotations

from annotate.models import Job, JobKind, PairwiseQuestion
from annotate.services import AnnotationError
from annotate.services.jobs import job_create, job_items_from_campaigns
from collect.models import Campaign

PAIRWISE_DEMO_SLUG = "modelchat-demo-pairwise"


def pairwise_demo_ensure(*, campaign: Campaign) -> tuple[Job, int]:
    """The job, and how many pairs this call added."""
    job = Job.objects.filter(slug=PAIRWISE_DEMO_SLUG).first() or job_create(
        slug=PAIRWISE_DEMO_SLUG,
        name="Which model would you rather talk to? (demo)",
        kind=JobKind.PAIRWISE,
        overlap=3,
        completion_code="",
        question=PairwiseQuestion.ENGAGING,
    )
    try:
        return job, job_items_from_campaigns(job=job, campaigns=[campaign.slug])
    except AnnotationError as error:
        if error.code != "too_few_models":
            raise
        return job, 0  # no pairs until two models have completed chats
