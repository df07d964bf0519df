from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from collect.lifecycle.onboarding import onboarding_problems
from collect.admin_personas import PersonaFormSet
from collect.modelchat import admin as modelchat_admin  # noqa: F401 - registers the model-chat admin
from collect.models import Assignment, Campaign, CuriosityDialog, Message, Persona, Protocol, Room, Worker
from collect.personas import campaign_topics_missing


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for problem in onboarding_problems(cleaned.get("onboarding")):
            self.add_error("onboarding", problem)
        if cleaned.get("protocol") == Protocol.WOW and "protocol_config" in cleaned:
            from collect.protocols.wow_query import turn_query_problems

            if problems := turn_query_problems(cleaned["protocol_config"]):
                self.add_error("protocol_config", problems)
        if cleaned.get("protocol") == Protocol.MODEL_CHAT and "protocol_config" in cleaned:
            from collect.modelchat.config import config_errors

            draft = Campaign(protocol_config=cleaned["protocol_config"], knowledge_source=cleaned.get("knowledge_source"))
            if errors := config_errors(draft):
                self.add_error("protocol_config", errors)
            return cleaned
        protocol = cleaned.get("protocol")
        if protocol not in (Protocol.CURIOSITY, Protocol.DUCONV) or not {"knowledge_source", "protocol_config"} <= set(cleaned):
            return cleaned
        # Imported on use: every process loads admin.py, and this module pulls in scikit-learn.
        if protocol == Protocol.DUCONV:
            from collect.duconv.config import campaign_problems
        else:
            from collect.protocols.curiosity import campaign_problems

        # Otherwise these surface only when the first two workers are paired.
        draft = Campaign(
            slug=cleaned.get("slug", ""),
            protocol=protocol,
            knowledge_source=cleaned["knowledge_source"],
            protocol_config=cleaned["protocol_config"],
        )
        problems = campaign_problems(draft)
        if problems:
            self.add_error("protocol_config", problems)
        return cleaned


class PersonaInline(admin.TabularInline):
    model = Persona
    formset = PersonaFormSet
    extra = 1


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    form = CampaignForm
    list_display = ["name", "slug", "protocol", "is_active", "knowledge_source", "topics_without_article", "created"]
    list_filter = ["protocol", "is_active"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["topics_without_article", "research_links"]
    inlines = [PersonaInline]

    @admin.display(description="Run the study")
    def research_links(self, campaign: Campaign) -> str:
        if not campaign.pk:
            return "Save the campaign first."
        return format_html(
            '<a href="{}">Live dashboard</a> · <a href="{}">Review and pay</a> · <a href="{}">Signed links</a> · <a href="{}">Research index</a>',
            reverse("collect:dashboard", args=[campaign.slug]),
            reverse("collect:review", args=[campaign.slug]),
            reverse("collect:links", args=[campaign.slug]),
            reverse("collect:research"),
        )

    @admin.display(description="Persona topics without an article")
    def topics_without_article(self, campaign: Campaign) -> str:
        if campaign.pk is None:
            return "—"
        return ", ".join(campaign_topics_missing(campaign=campaign)) or "—"


class AssignmentInline(admin.TabularInline):
    model = Assignment
    fields = ["worker", "role", "status", "outcome", "completion_code", "decision", "connected", "last_seen"]
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
    list_display = ["external_id", "platform", "pseudonym", "blocked", "created"]
    list_filter = ["platform", "blocked"]
    search_fields = ["external_id", "pseudonym"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["worker", "campaign", "status", "outcome", "decision", "room", "role", "created"]
    list_filter = ["campaign", "status", "outcome", "decision"]


@admin.register(CuriosityDialog)
class CuriosityDialogAdmin(admin.ModelAdmin):
    list_display = ["room", "dialog_id", "first_aspect", "second_aspect", "tag", "split"]
    list_filter = ["tag", "split"]
    readonly_fields = ["room", "aspects", "related_entities", "known_entities", "bank", "switched_at", "marked_at"]
