"""DuConv's own state of a room: the goal and knowledge the agent was shown."""

from __future__ import annotations

from django.db import models

from collect.models import Room


class DuConvSession(models.Model):
    """A DuConv room's goal and background knowledge (what the agent was shown), the user's rating,
    or an imported DuConv session (its split and position in the file kept for the export)."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="duconv")
    goal = models.JSONField(help_text='[["START", topic_a, topic_b], [relation triple], ...]')
    knowledge = models.JSONField(help_text="[[subject, property, value], ...]; messages mark triples by index")
    user_rating = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The user's 1–5 rating of the agent")
    split = models.CharField(max_length=20, blank=True, help_text="Imported: the split (train/dev/test) it came from")
    position = models.PositiveIntegerField(default=0, help_text="Imported: its line in the file")
    extra = models.JSONField(null=True, blank=True, help_text="Imported keys after goal/knowledge/conversation")
    sample_keys = models.JSONField(
        null=True, blank=True,
        help_text="Imported from a test-format samples file: the sample's keys in order (its messages are the "
        "history, then the response when it had one)",
    )

    class Meta:
        db_table = "collect_duconvsession"  # the table it had before the task type was its own app

    def __str__(self) -> str:
        return f"DuConv {self.goal[0][1:] if self.goal else ''} ({self.room_id})"
