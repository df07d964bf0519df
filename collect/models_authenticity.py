"""Authenticity signals found in a room's human turns (collect/authenticity/signals.py): evidence
for the person who reviews the worker, never an automatic rejection."""

from __future__ import annotations

from django.db import models


class FlagKind(models.TextChoices):
    KNOWLEDGE_COPY = "knowledge_copy", "whole knowledge sentence copied"
    PASTE_OUTSIDE = "paste_outside", "text pasted from outside the page"
    TYPING_SPEED = "typing_speed", "typing faster than a person"
    REPEATED_TEXT = "repeated_text", "same text in another dialogue"
    SHARED_BROWSER = "shared_browser", "several worker ids from one browser"
    SHARED_ADDRESS = "shared_address", "several worker ids from one address"
    RECORD_MISSING = "record_missing", "no valid record from the page"
    LLM_LIKE = "llm_like", "text likely under a language model"
    CHECKED_UNUSED = "checked_unused", "checked sentence not used in the reply"


class AuthenticityFlag(models.Model):
    """One signal on one worker's turn (seq) or on the worker's whole seat (seq null)."""

    assignment = models.ForeignKey("collect.Assignment", on_delete=models.CASCADE, related_name="authenticity_flags")
    room = models.ForeignKey("collect.Room", on_delete=models.CASCADE, related_name="authenticity_flags")
    seq = models.PositiveIntegerField(null=True, blank=True, help_text="The turn; empty for a flag on the whole seat")
    kind = models.CharField(max_length=30, choices=FlagKind.choices, db_index=True)
    evidence = models.JSONField(default=dict, help_text="The values the signal saw, e.g. {\"chars_per_second\": 41.2}")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room_id", "seq", "kind"]

    def __str__(self) -> str:
        return f"{self.kind} on {self.assignment_id} #{self.seq}"


class SignalsRun(models.Model):
    """That a room's signals were computed (and when): the review page computes those still owed."""

    room = models.OneToOneField("collect.Room", on_delete=models.CASCADE, related_name="signals_run")
    computed = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"signals of {self.room_id} at {self.computed}"
