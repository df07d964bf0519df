"""Admin for registered models and model-chat conversations (collect/admin.py imports this)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from collect.tasktypes.modelchat.models import EvalModel, ModelCandidate, ModelChat, ModelChatOnboarding, ModelTurn


@admin.register(EvalModel)
class EvalModelAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "dotted_path", "endpoint_url", "timeout_seconds", "retries", "max_concurrency", "is_active"]
    list_filter = ["kind", "is_active"]
    search_fields = ["name", "description"]


@admin.register(ModelChat)
class ModelChatAdmin(admin.ModelAdmin):
    list_display = ["room", "arm", "model", "seen", "answers"]
    list_filter = ["arm", "model", "seen"]
    readonly_fields = ["room", "arm", "model", "seen", "answers", "answered_at"]

    def has_add_permission(self, request: Any) -> bool:
        return False


@admin.register(ModelTurn)
class ModelTurnAdmin(admin.ModelAdmin):
    list_display = ["message", "model", "latency_ms", "first_token_ms", "attempts", "error", "problems"]
    list_filter = ["model"]
    readonly_fields = [
        "message", "model", "latency_ms", "first_token_ms", "last_token_ms", "queued_ms", "attempts", "error", "knowledge_used",
        "problems", "labeled_at",
    ]


@admin.register(ModelCandidate)
class ModelCandidateAdmin(admin.ModelAdmin):
    """Several models' replies to one message (protocol_config.prism): read only."""

    list_display = ["room", "after_seq", "position", "model", "picked", "rating", "error"]
    list_filter = ["model", "picked"]
    readonly_fields = [f.name for f in ModelCandidate._meta.fields]

    def has_add_permission(self, request: Any) -> bool:
        return False


@admin.register(ModelChatOnboarding)
class ModelChatOnboardingAdmin(admin.ModelAdmin):
    list_display = ["worker", "campaign", "attempts", "passed", "updated"]
    list_filter = ["campaign", "passed"]
