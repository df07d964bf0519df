from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from collect.lifecycle.onboarding import onboarding_problems
from collect.admin_personas import PersonaForm, PersonaFormSet
from collect import registry
from collect.models import Assignment, Campaign, Message, Persona, Room, Worker
from collect.personas import campaign_topics_missing
from groundwork.surrogates import SurrogateSafeJSONField


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = "__all__"
        # JSON text can spell a lone surrogate as an escape; these refuse it (groundwork.surrogates).
        field_classes = {
            name: SurrogateSafeJSONField
            for name in ("outcome_codes", "outcome_pay_cents", "onboarding", "protocol_config", "authenticity_policy")
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for problem in onboarding_problems(cleaned.get("onboarding")):
            self.add_error("onboarding", problem)
        name = cleaned.get("protocol")
        if name not in registry.task_type_names() or "protocol_config" not in cleaned:
            return cleaned
        # Otherwise these surface only when the first two workers are paired.
        draft = Campaign(
            slug=cleaned.get("slug", ""),
            protocol=name,
            knowledge_source=cleaned.get("knowledge_source"),
            protocol_config=cleaned["protocol_config"],
        )
        problems = registry.protocol(name).config_problems(draft)
        if problems:
            self.add_error("protocol_config", problems)
        return cleaned


class PersonaInline(admin.TabularInline):
    model = Persona
    form = PersonaForm
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
            reverse("research:dashboard", args=[campaign.slug]),
            reverse("research:review", args=[campaign.slug]),
            reverse("research:links", args=[campaign.slug]),
            reverse("research:index"),
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
    fields = ["seq", "role", "text", "checked_sentence", "authenticity"]
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
