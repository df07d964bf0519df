"""Wizard of Internet's own state of a room: the apprentice's persona, every search the wizard ran
(query, documents shown, how it ended) and, per message, the documents the wizard was shown when
replying and the sentences they selected (`selected_contents` of the dataset)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from collect.models import Room


class WoiDialogue(models.Model):
    """One room's persona, or an imported dialogue's place in its file."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="woi")
    persona_form = models.JSONField(default=dict, blank=True, help_text="What the apprentice was offered (personas.persona_form)")
    persona = models.TextField(blank=True, help_text="apprentice_persona: its lines joined by newlines; empty until written")
    persona_key = models.CharField(max_length=200, blank=True, db_index=True, help_text="The persona without its refinement, normalised")
    persona_written = models.DateTimeField(null=True, blank=True)
    # Imported dialogues: their key in the file, split, line, and keys the format has no column for.
    dialog_id = models.CharField(max_length=200, blank=True)
    split = models.CharField(max_length=10, blank=True)
    position = models.PositiveIntegerField(default=0)
    extra = models.JSONField(null=True, blank=True, help_text="Imported: the dialogue's other keys and their order (layout.laid_out)")

    def __str__(self) -> str:
        return f"WoI {self.room_id}: {self.persona.splitlines()[0] if self.persona else '(no persona yet)'}"


class SearchStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class WoiSearch(models.Model):
    """One search the wizard ran: `Wizard => SearchAgent` (the query) and `SearchAgent => Wizard`
    (the documents) of the dataset. It belongs to the wizard's turn after message `after_seq`."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="woi_searches")
    after_seq = models.PositiveIntegerField(help_text="Messages in the room when the wizard searched")
    query = models.TextField()
    status = models.CharField(max_length=10, choices=SearchStatus.choices, default=SearchStatus.PENDING)
    documents = models.JSONField(null=True, blank=True, help_text='[{"url", "title", "content": [sentence, ...]}] as shown')
    backend = models.CharField(max_length=20, blank=True, help_text="store or http")
    error_code = models.CharField(max_length=40, blank=True)
    error = models.CharField(max_length=500, blank=True, help_text="Why it failed, for the researcher")
    created = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="When a worker or chat process took it on")
    finished_at = models.DateTimeField(null=True, blank=True)
    layout = models.JSONField(null=True, blank=True, help_text="Imported: its two entries' keys, in order, and values the format has no column for")

    class Meta:
        indexes = [models.Index(fields=["room", "after_seq"], name="woi_search_room_turn")]
        verbose_name = "Wizard of Internet search"

    def __str__(self) -> str:
        return f"{self.room_id} after #{self.after_seq}: {self.query[:40]} ({self.status})"


class WoiTurn(models.Model):
    """A message's part of the dataset: for the wizard, the search whose documents they were shown
    when replying and what they selected; for either role, an imported entry's layout. Keyed by
    the room and the message's seq: it is written in the message's own transaction, before the
    message row has its id."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="woi_turns")
    seq = models.PositiveIntegerField()
    search = models.ForeignKey(WoiSearch, null=True, blank=True, on_delete=models.PROTECT, related_name="replies")
    selected = models.JSONField(
        null=True, blank=True,
        help_text="selected_contents: [[no sentence used]] then, per document shown, a boolean per sentence",
    )
    layout = models.JSONField(null=True, blank=True, help_text="Imported: the entry's keys, in order, and values the format has no column for")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["room", "seq"], name="woi_turn_unique_seq")]

    def __str__(self) -> str:
        return f"{self.room_id}#{self.seq}"
