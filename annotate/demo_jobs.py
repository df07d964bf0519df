"""The demo annotation jobs `make run` serves: each kind's (its `demo`), over sample dialogues of
the demo campaigns (annotate.demo_samples). Made through `create_annotation_job`, as a researcher
makes them."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

from django.core.management import call_command

from annotate.demo_samples import samples_ensure
from annotate.models import Job
from annotate.registry import annotation_kinds
from collect.models import Campaign

OVERLAP = "2"  # two annotators finish an item, so that a report shows agreement soon


def annotation_demo_ensure(*, say: Callable[[str], object]) -> None:
    """`load_demo`'s annotation part, after the task types' demos: every kind's demo jobs."""
    for kind in annotation_kinds():
        if kind.demo:
            kind.part("demo")(say=say)


def demo_job_ensure(*, slug: str, kind: str, campaign: str, dialogues: int, name: str, options: Sequence[str] = ()) -> list[str]:
    """Demo job `slug` of `kind` over `dialogues` sample dialogues of the demo campaign `campaign`
    (its closed twin), unless it exists; the lines saying what was made, or why it was left out."""
    if Job.objects.filter(slug=slug).exists():
        return []
    demo = Campaign.objects.filter(slug=campaign).first()
    twin = samples_ensure(campaign=demo, dialogues=dialogues) if demo else None
    if twin is None:
        return [f"demo job {slug} left out: no sample dialogues of {campaign}"]
    return [demo_job_create(slug=slug, kind=kind, campaigns=[twin.slug], name=name, options=options)]


def demo_job_create(
    *, slug: str, kind: str, campaigns: Sequence[str], name: str, options: Sequence[str] = (), overlap: str = OVERLAP
) -> str:
    """`create_annotation_job` for a demo job (no completion code); the line it printed. Raises
    CommandError as the command does."""
    out = io.StringIO()
    call_command("create_annotation_job", slug, "--kind", kind, "--campaign", *campaigns, "--name", name,
                 "--overlap", overlap, "--no-completion-code", *options, stdout=out)
    return out.getvalue().strip()
