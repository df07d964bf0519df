from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin

from collect.models import Assignment, Campaign, CuriosityDialog, Message, Persona, Protocol, Room, Worker


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("protocol") != Protocol.CURIOSITY or not {"knowledge_source", "protocol_config"} <= set(cleaned):
            return cleaned
        # Imported on use: every process loads admin.py, and this module pulls in scikit-learn.
        from collect.protocols.curiosity import campaign_problems

        # Otherwise these surface only when the first two workers are paired.
        draft = Campaign(
            slug=cleaned.get("slug", ""),
            protocol=Protocol.CURIOSITY,
            knowledge_source=cleaned["knowledge_source"],
            protocol_config=cleaned["protocol_config"],
        )
        problems = campaign_problems(draft)
        if problems:
            self.add_error("protocol_config", problems)
        return cleaned


class PersonaInline(admin.TabularInline):
    model = Persona
    extra = 1


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    form = CampaignForm
    list_display = ["name", "slug", "protocol", "is_active", "knowledge_source", "created"]
    list_filter = ["protocol", "is_active"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [PersonaInline]


class AssignmentInline(admin.TabularInline):
    model = Assignment
    fields = ["worker", "role", "status", "connected", "last_seen"]
    readonly_fields = fields
    extra = 0
    can_delete = False


class MessageInline(admin.TabularInline):
    model = Message
    fields = ["seq", "role", "text", "checked_sentence"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "status", "topic", "rating", "created", "ended"]
    list_filter = ["campaign", "status"]
    search_fields = ["topic"]
    readonly_fields = ["first_speaker", "turns_required", "topic_passage", "created", "ended"]
    inlines = [AssignmentInline, MessageInline]


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ["external_id", "platform", "pseudonym", "created"]
    search_fields = ["external_id", "pseudonym"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["worker", "campaign", "status", "room", "role", "created"]
    list_filter = ["campaign", "status"]


@admin.register(CuriosityDialog)
class CuriosityDialogAdmin(admin.ModelAdmin):
    list_display = ["room", "dialog_id", "first_aspect", "second_aspect", "tag", "split"]
    list_filter = ["tag", "split"]
    readonly_fields = ["room", "aspects", "related_entities", "known_entities", "bank", "switched_at", "marked_at"]
