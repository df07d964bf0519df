"""Topical-Chat's own state of a room and of each turn, beside the core's Room and Message."""

from __future__ import annotations

from django.db import models

from collect.models import Room


class TopicalConversation(models.Model):
    """A Topical-Chat room's knowledge configuration, both reading sets and both conversation
    ratings, or an imported conversation (its split and place in its file kept for the export).

    reading_sets: {"agent_1": [entry, ...], "agent_2": [...]}, an entry per factual section in
        order: {"key": "FS1", "entity": str, "wiki_field": "shortened_wiki_lead_section" or
        "summarized_wiki_lead_section", "wiki": str (an int id in a pre-build import),
        "fun_facts": [str]}. Lists, not objects, so that the order survives a jsonb column.
    article: the article's fields in order as [key, value] pairs: [["url", …], ["headline", …],
        ["AS1", …], …]; only [["url", …]] in configuration C; [] when an import had no reading set.
    """

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="topical_chat")
    conversation_id = models.CharField(max_length=200, db_index=True, help_text="The export's key, e.g. t_<uuid>")
    config = models.CharField(max_length=1, help_text="The knowledge configuration, A–D")
    article_url = models.TextField()
    reading_sets = models.JSONField(default=dict, blank=True)
    article = models.JSONField(default=list, blank=True)
    reading_set_build = models.CharField(
        max_length=20, blank=True, default="post-build",
        help_text="post-build: texts (collected, or imported so); pre-build: the release's ids; empty: imported without one",
    )
    rating_agent_1 = models.CharField(max_length=20, blank=True, help_text="agent_1's conversation_rating; empty until given")
    rating_agent_2 = models.CharField(max_length=20, blank=True, help_text="agent_2's conversation_rating; empty until given")
    split = models.CharField(max_length=20, blank=True, help_text="Imported: the split file it came from")
    position = models.PositiveIntegerField(default=0, help_text="Imported: its place in the file")

    def __str__(self) -> str:
        return f"Topical-Chat {self.conversation_id} ({self.config})"

    def rating_of(self, agent: str) -> str:
        return getattr(self, f"rating_{agent}")


class TopicalTurn(models.Model):
    """What one message carries beyond its text: the sender's knowledge_source (reading-set keys,
    sorted, e.g. ["FS1", "Personal Knowledge"]) and sentiment, and the partner's turn_rating (""
    until the partner rates it, with their next message or at the end). Keyed by the room and
    the message's seq: it is written in the transaction that stores the message, before the
    message row exists."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="topical_turns")
    seq = models.PositiveIntegerField()
    knowledge_source = models.JSONField(default=list)
    sentiment = models.CharField(max_length=40)
    turn_rating = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["room_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["room", "seq"], name="topical_turn_unique_seq")]

    def __str__(self) -> str:
        return f"{self.room_id}#{self.seq} {self.sentiment} {self.knowledge_source}"
