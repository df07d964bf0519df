from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from annotate.models import Assignment, Item, Job, JobEntry, JobKind
from annotate.services.controls import job_control_pairs_add

ADMIN_CONTROL_PAIRS = 4


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "kind", "question", "platform", "overlap", "is_active", "gold_rate", "report_link", "created"]
    list_filter = ["kind", "is_active", "platform"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["source", "created"]
    actions = ["add_control_pairs"]

    @admin.action(description=f"Add {ADMIN_CONTROL_PAIRS} control pairs (pairwise jobs)")
    def add_control_pairs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        for job in queryset:
            if job.kind != JobKind.PAIRWISE:
                self.message_user(request, f"Job {job.slug}: control pairs belong to pairwise jobs only", messages.ERROR)
                continue
            added = job_control_pairs_add(job=job, count=ADMIN_CONTROL_PAIRS)
            self.message_user(request, f"Job {job.slug}: {added} control pair(s) added, served at gold rate {job.gold_rate:g}")

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
