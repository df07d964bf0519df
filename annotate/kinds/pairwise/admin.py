"""The job list's action for pairwise jobs: add built-in control pairs (controls.py)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from annotate.admin import job_action_register
from annotate.kinds.pairwise import NAME
from annotate.kinds.pairwise.controls import job_control_pairs_add
from annotate.models import Job

ADMIN_CONTROL_PAIRS = 4


@admin.action(description=f"Add {ADMIN_CONTROL_PAIRS} control pairs (pairwise jobs)")
def add_control_pairs(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Job]) -> None:
    for job in queryset:
        if job.kind != NAME:
            modeladmin.message_user(request, f"Job {job.slug}: control pairs belong to pairwise jobs only", messages.ERROR)
            continue
        added = job_control_pairs_add(job=job, count=ADMIN_CONTROL_PAIRS)
        modeladmin.message_user(request, f"Job {job.slug}: {added} control pair(s) added, served at gold rate {job.gold_rate:g}")


job_action_register(add_control_pairs)
