"""The research index (/research/): every campaign and annotation job with its staff pages and
dataset export, the task types' own staff pages, and the current login lockouts."""

from __future__ import annotations

from django.apps import apps
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from collect import registry
from collect.models import Campaign
from groundwork.lockouts import lockouts_current
from research.access import campaign_dataset, staff_only
from research.targets import campaign_hf_export, job_hf_export


@staff_only
def research_index(request: HttpRequest) -> HttpResponse:
    campaigns = [(c, campaign_dataset(c)) for c in Campaign.objects.order_by("-is_active", "name")]
    jobs = apps.get_model("annotate", "Job").objects.order_by("-is_active", "name") if apps.is_installed("annotate") else []
    jobs = [(job, job.export_name()) for job in jobs]
    for job, _ in jobs:
        job.hf_export = job_hf_export(job)
    for campaign, dataset in campaigns:
        campaign.hf_export = campaign_hf_export(campaign)
        # Its export can carry each turn's authenticity object (docs/authenticity.md).
        campaign.export_authenticity = registry.dataset_carries_authenticity(dataset)
        campaign.staff_pages = [(page.label, reverse(page.url_name, args=[campaign.slug])) for page in registry.campaign_pages(campaign.protocol)]
    # Each task type's own staff pages (research/urls.py mounts them under /research/<task type>/).
    task_type_pages = [(t.label, f"{reverse('research:index')}{t.name}/") for t in registry.task_types() if t.research_urls]
    context = {"campaigns": campaigns, "jobs": jobs, "task_type_pages": task_type_pages, "lockouts": lockouts_current()}
    return render(request, "research/index.html", context)
