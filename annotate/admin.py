from typing import Callable

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from annotate.models import Assignment, Item, Job, JobEntry

# Actions on the job list that kinds add from their own admin modules (Django's admin loads every
# app's admin.py before the first request); each refuses the jobs of other kinds.
JOB_ACTIONS: list[Callable] = []


def job_action_register(action: Callable) -> None:
    JOB_ACTIONS.append(action)


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "kind", "question", "platform", "overlap", "is_active", "gold_rate", "report_link", "created"]
    list_filter = ["kind", "is_active", "platform"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["source", "created"]
    actions = JOB_ACTIONS

    @admin.display(description="report")
    def report_link(self, job: Job) -> str:
        return format_html('<a href="{}">report</a>', reverse("annotate:report", args=[job.slug]))


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["key", "job", "role", "position", "answers_count"]
    list_filter = ["job", "role"]
    search_fields = ["key"]
    readonly_fields = ["answers_count", "imported_tally", "room", "message"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["worker", "item", "status", "assigned_at", "submitted_at", "time_spent_ms", "score"]
    list_filter = ["job", "status"]
    readonly_fields = ["job", "item", "worker", "assigned_at", "expires_at", "submitted_at", "answer", "time_spent_ms", "score", "report_reason"]


@admin.register(JobEntry)
class JobEntryAdmin(admin.ModelAdmin):
    """Who entered which job, and the outcome and code each was given (what a researcher pays on)."""

    list_display = ["worker", "job", "outcome", "completion_code", "study_id", "session_id", "created", "ended_at"]
    list_filter = ["job", "outcome"]
    search_fields = ["worker__pseudonym", "session_id"]
    readonly_fields = ["job", "worker", "study_id", "session_id", "turk_submit_to", "created", "outcome", "ended_at", "completion_code"]
