"""The admin's personas inline: each persona's topics must be article titles of the campaign's
knowledge source (the one being saved with it, when the campaign form changes it)."""

from __future__ import annotations

from django import forms
from django.forms.models import BaseInlineFormSet

from collect.models import Persona
from collect.personas import missing_message, topics_missing, topics_problems
from groundwork.surrogates import SurrogateSafeJSONField


class PersonaForm(forms.ModelForm):
    """The inline's row: an empty row starts as [] (not JSON's null, which the model field would
    show and refuse), so a row left untouched is unchanged and skipped when the campaign is saved."""

    topics = SurrogateSafeJSONField(initial=list, help_text=Persona._meta.get_field("topics").help_text)

    class Meta:
        model = Persona
        fields = "__all__"


class PersonaFormSet(BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        # The admin builds the formsets on the campaign as the form would save it.
        source = getattr(self.instance, "knowledge_source", None) if self.instance.knowledge_source_id else None
        for form in self.forms:
            cleaned = getattr(form, "cleaned_data", None) or {}
            if not cleaned or cleaned.get("DELETE") or "topics" not in cleaned:
                continue
            topics = cleaned["topics"]
            problems = topics_problems(topics)
            if problems:
                form.add_error("topics", problems)
            elif source is not None:
                missing = topics_missing(source_id=source.pk, topics=topics)
                if missing:
                    form.add_error("topics", missing_message(missing, source.slug))
