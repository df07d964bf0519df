"""Curiosity's own state of a room, beside the core's Room and Message."""

from __future__ import annotations

from django.db import models

from collect.models import Room


class CuriosityDialog(models.Model):
    """A Curiosity room's own state (Rodriguez et al., 2020), or an imported Curiosity dialog.

    Ratings are 1–5 (null until given). The `*_value` and `extra` fields keep what an import brought
    so that an export reproduces it exactly."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="curiosity")
    dialog_id = models.BigIntegerField(null=True, blank=True, db_index=True, help_text="Exported dialog_id")
    seed = models.PositiveIntegerField(default=0, help_text="Fixes tie-breaks and shuffles of this room")
    summary = models.TextField(blank=True, help_text="Topic summary shown to the assistant")
    aspects = models.JSONField(default=list)
    first_aspect = models.CharField(max_length=300, null=True, blank=True)
    second_aspect = models.CharField(max_length=300, null=True, blank=True)
    switched_at = models.DateTimeField(null=True, blank=True)
    switched_after_seq = models.PositiveIntegerField(null=True, blank=True, help_text="Messages before the switch")
    related_entities = models.JSONField(default=list)
    known_entities = models.JSONField(default=list)
    marked_at = models.DateTimeField(null=True, blank=True)
    bank = models.JSONField(null=True, blank=True, help_text="The assistant's current fact bank")
    user_dialog_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    user_other_agent_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    assistant_dialog_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    assistant_other_agent_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    # Imported dialogs only.
    split = models.CharField(max_length=20, blank=True, help_text="The split file it was imported from")
    created_time = models.BigIntegerField(null=True, blank=True)
    tag = models.CharField(max_length=100, blank=True)
    flags = models.JSONField(default=dict, blank=True, help_text="inferred_steps, shuffle_facts, is_annotated, reported, annotated")
    user_id_value = models.JSONField(null=True, blank=True)
    assistant_id_value = models.JSONField(null=True, blank=True)
    extra = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "collect_curiositydialog"  # the table it had before the task type was its own app

    def __str__(self) -> str:
        return f"Curiosity dialog {self.dialog_id} ({self.room_id})"
