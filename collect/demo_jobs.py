"""One demo annotation job of each kind, over the sample dialogues of the demo campaigns
(collect.demo_samples). Made through `create_annotation_job`, as a researcher makes them."""

from __future__ import annotations

import io

from django.apps import apps
from django.core.management import CommandError, call_command

from collect.demo_samples import samples_ensure
from collect.models import Campaign

# (job slug, kind, demo campaign, sample dialogues, name, more options)
DEMO_JOBS = [
    ("relevance-demo", "relevance", "wow-demo", 2, "Knowledge relevance, WOW++ style (demo)", []),
    ("dialog-acts-demo", "dialog_acts", "curiosity-demo", 2, "Curiosity dialog acts (demo)", []),
    ("duconv-eval-demo", "duconv_eval", "duconv-demo", 2, "DuConv human evaluation (demo)", []),
    ("pairwise-demo", "pairwise", "modelchat-demo", 6, "Which model is more engaging? (demo)", ["--question", "engaging"]),
]
OVERLAP = "2"  # two annotators finish an item, so that a report shows agreement soon


def demo_jobs_ensure() -> list[str]:
    """Lines saying what was made (or why a job was left out)."""
    Job = apps.get_model("annotate", "Job")  # by the registry: collect imports none of annotate
    said = []
    for slug, kind, demo, dialogues, name, extra in DEMO_JOBS:
        if Job.objects.filter(slug=slug).exists():
            continue
        campaign = Campaign.objects.filter(slug=demo).first()
        twin = samples_ensure(campaign=campaign, dialogues=dialogues) if campaign else None
        if twin is None:
            said.append(f"demo job {slug} left out: no sample dialogues of {demo}")
            continue
        out = io.StringIO()
        call_command("create_annotation_job", slug, "--kind", kind, "--campaign", twin.slug, "--name", name,
                     "--overlap", OVERLAP, "--no-completion-code", *extra, stdout=out)
        said.append(out.getvalue().strip())
    return said


# The pairwise job over the people's own demo model chats (SmolLM2 among the models): each
# `load_demo` adds the pairs of the chats completed since its last run.
PEOPLE_PAIRWISE = "modelchat-demo-pairwise"


def people_pairwise_ensure() -> str:
    """The line saying what `load_demo` added to PEOPLE_PAIRWISE."""
    out = io.StringIO()
    try:
        call_command("create_annotation_job", PEOPLE_PAIRWISE, "--kind", "pairwise", "--campaign", "modelchat-demo",
                     "--name", "Which model would you rather talk to? (demo chats)", "--question", "engaging",
                     "--overlap", "3", "--no-completion-code", stdout=out)
    except CommandError as error:
        if "at least two models" not in str(error):
            raise
        return f"{PEOPLE_PAIRWISE}: no pairs yet (they need completed demo chats of two models)"
    return out.getvalue().strip()
