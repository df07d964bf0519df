"""Campaigns, workers, rooms and messages. Room state lives here, not in any server process."""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from collect.authenticity.policy import policy_validate
from collect.registry import task_type_choices
from groundwork.languages import language_validate


def _pseudonym() -> str:
    return secrets.token_hex(8)


def _completion_code() -> str:
    return secrets.token_hex(4).upper()


def _outcome_codes() -> dict[str, str]:
    # Imported here: collect.lifecycle.outcomes imports this module's names.
    from collect.lifecycle.outcomes import default_codes

    return default_codes()


def _default_task_type() -> str:
    # The project's choice (settings.DEFAULT_TASK_TYPE), not the core's: it names no task type.
    return settings.DEFAULT_TASK_TYPE


class Platform(models.TextChoices):
    INHOUSE = "inhouse", "In-house (signed links)"
    PROLIFIC = "prolific", "Prolific"
    MTURK = "mturk", "Amazon Mechanical Turk"


class Currency(models.TextChoices):
    USD = "USD", "US dollars"
    GBP = "GBP", "pounds sterling"
    EUR = "EUR", "euros"


class Campaign(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    # The task type (collect.registry): its name, a choice among those installed.
    protocol = models.CharField(max_length=20, choices=task_type_choices, default=_default_task_type, verbose_name="task type")
    knowledge_source = models.ForeignKey("retrieval.KnowledgeSource", on_delete=models.PROTECT, related_name="campaigns")
    is_active = models.BooleanField(default=True)
    # Each worker must speak a random number of turns in [min_turns, max_turns] before either may end.
    min_turns = models.PositiveSmallIntegerField(default=4)
    max_turns = models.PositiveSmallIntegerField(default=5)
    # Hard cap on turns per worker: the chat ends by itself here.
    turn_limit = models.PositiveSmallIntegerField(
        default=12,
        help_text="The chat ends by itself (and goes to rating) once each worker has sent this many messages; "
        "workers are warned two turns before. Keep it above Max turns.",
    )
    wait_timeout_seconds = models.PositiveIntegerField(default=300, help_text="Give up pairing after this long")
    disconnect_grace_seconds = models.PositiveIntegerField(default=60, help_text="Wait this long for a partner who left")
    completion_code = models.CharField(max_length=40, default=_completion_code)
    completion_url = models.URLField(blank=True, help_text="e.g. https://app.prolific.com/submissions/complete?cc=CODE")
    instructions = models.TextField(blank=True)
    # Paid studies (docs/campaigns.md): where workers come from, timeouts, codes, pay and caps.
    platform = models.CharField(max_length=20, choices=Platform.choices, default=Platform.INHOUSE)
    turn_timeout_seconds = models.PositiveIntegerField(
        default=180, help_text="A room idle this long ends; the worker whose turn it was stalled"
    )
    outcome_codes = models.JSONField(
        default=_outcome_codes, blank=True, help_text="Completion code per outcome; an outcome without one is not paid"
    )
    outcome_pay_cents = models.JSONField(default=dict, blank=True, help_text="Base pay per outcome in cents, e.g. {\"completed\": 300}")
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.USD, help_text="What pay and bonuses are in (MTurk pays USD; Prolific USD or GBP)"
    )
    max_per_worker = models.PositiveIntegerField(default=1, help_text="Conversations per worker in this campaign (0: no cap)")
    onboarding = models.JSONField(
        default=dict, blank=True, help_text="Instructions per role and a quiz before the waiting room (docs/campaigns.md)"
    )
    max_per_worker_per_day = models.PositiveIntegerField(default=0, help_text="Conversations per worker per day, all campaigns (0: no cap)")
    protocol_config = models.JSONField(
        default=dict, blank=True, help_text="The task type's settings, e.g. its topics and knobs (its page under docs/)"
    )
    created = models.DateTimeField(auto_now_add=True)
    # Paste and copy rules per role (collect/authenticity/policy.py, docs/authenticity.md).
    authenticity_policy = models.JSONField(
        default=dict, blank=True, validators=[policy_validate],
        help_text='Per role (or "*"): {"paste": "allowed" | "knowledge" | "off", "copy": "allowed" | "refuse"}, '
        'e.g. {"wizard": {"paste": "knowledge", "copy": "refuse"}}. "copy": "refuse" refuses a message that repeats a '
        "whole knowledge sentence and tells the worker why.",
    )
    # The worker screens' language (groundwork/languages.py): a code with a catalog under locale/.
    language = models.CharField(
        max_length=15, default="en", validators=[language_validate],
        help_text="Language of the worker screens: en, or a code with a catalog under locale/ (e.g. zh-hans)",
    )
    browser_language = models.BooleanField(
        default=False, help_text="A worker whose browser asks for another language with a catalog gets it instead"
    )

    def __str__(self) -> str:
        return self.name


class Persona(models.Model):
    """A persona sentence and the 2–3 Wikipedia topics linked to it (WoW's topic choice)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="personas")
    text = models.CharField(max_length=300)
    topics = models.JSONField(help_text="List of article titles, e.g. [\"Guitar\", \"Blues\"]")

    def __str__(self) -> str:
        return self.text


class Worker(models.Model):
    platform = models.CharField(max_length=20, default="inhouse")
    external_id = models.CharField(max_length=100)
    # What exports carry instead of the platform id.
    pseudonym = models.CharField(max_length=32, unique=True, default=_pseudonym)
    # Hash of the browser token of the first browser that used this worker's link.
    browser = models.CharField(max_length=64, blank=True)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "external_id"], name="worker_unique_external")]

    def __str__(self) -> str:
        return f"{self.platform}:{self.external_id}"


class RoomStatus(models.TextChoices):
    CHOOSING_TOPIC = "choosing_topic"
    PREPARING = "preparing"  # Curiosity: the user marks the entities they know
    CHATTING = "chatting"
    RATING = "rating"
    COMPLETE = "complete"
    INCOMPLETE = "incomplete"


class Room(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rooms")
    status = models.CharField(max_length=20, choices=RoomStatus.choices, default=RoomStatus.CHOOSING_TOPIC)
    first_speaker = models.CharField(max_length=20, help_text="Role that chooses the topic and speaks first")
    turns_required = models.PositiveSmallIntegerField(help_text="Turns each before either may end")
    persona = models.ForeignKey(Persona, null=True, on_delete=models.SET_NULL, related_name="+")
    topic = models.CharField(max_length=300, blank=True)
    topic_passage = models.JSONField(default=list, help_text="Sentences of the topic article shown to the wizard")
    rating = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Apprentice's 1–5 rating of the wizard")
    end_reason = models.CharField(max_length=200, blank=True)
    # The latest reranked knowledge frame per role ({role: frame}): a reloaded page gets it back.
    knowledge_reranked = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    ended = models.DateTimeField(null=True, blank=True)
    # Last message or step; the turn timeout counts from here.
    activity_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # The sweep's scan of live rooms, and of those idle past a deadline.
        indexes = [models.Index(fields=["status", "activity_at"], name="room_status_activity")]

    def __str__(self) -> str:
        return f"{self.campaign.slug}/{self.id}"


class AssignmentStatus(models.TextChoices):
    WAITING = "waiting"
    PAIRED = "paired"
    TIMED_OUT = "timed_out"
    LEFT = "left"
    FINISHED = "finished"  # the room has ended; `outcome` says how


class Outcome(models.TextChoices):
    COMPLETED = "completed"
    PARTNER_LEFT = "partner_left"
    PARTNER_STALLED = "partner_stalled"
    STALLED = "stalled"
    LEFT = "left"
    NO_PARTNER = "no_partner"
    SCREENED_OUT = "screened_out"
    RETURNED = "returned"


class Decision(models.TextChoices):
    APPROVED = "approved"
    SOFT_REJECTED = "soft_rejected"  # paid, data excluded
    REJECTED = "rejected"


# The platform of a model's worker (collect.tasktypes.modelchat): the partner seat of a model chat.
MODEL_PLATFORM = "model"


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    def humans(self) -> AssignmentQuerySet:
        """People's assignments only. A model's seat is no worker: it earns no outcome, code or
        pay, is not reviewed, and counts in no worker figure."""
        return self.exclude(worker__platform=MODEL_PLATFORM)

    def model_seats(self) -> AssignmentQuerySet:
        return self.filter(worker__platform=MODEL_PLATFORM)


class Assignment(models.Model):
    """One worker's entry into a campaign: first a place in the waiting room, then a seat in a room."""

    objects = AssignmentQuerySet.as_manager()

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=20, choices=AssignmentStatus.choices, default=AssignmentStatus.WAITING)
    room = models.ForeignKey(Room, null=True, blank=True, on_delete=models.CASCADE, related_name="members")
    role = models.CharField(max_length=20, blank=True)
    study_id = models.CharField(max_length=100, blank=True)
    session_id = models.CharField(max_length=100, blank=True)
    connected = models.BooleanField(default=False)
    # The newest room socket: a reload opens the new one before the old one's disconnect is
    # processed, and only the newest one's close marks the worker as gone (left_at).
    socket = models.CharField(max_length=200, blank=True)
    left_at = models.DateTimeField(null=True, blank=True, help_text="When the last connection closed")
    last_seen = models.DateTimeField(null=True, blank=True, help_text="Last frame or ping from this worker")
    created = models.DateTimeField(auto_now_add=True)
    # How it ended, and what the worker was given for it.
    outcome = models.CharField(max_length=20, choices=Outcome.choices, blank=True, db_index=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=40, blank=True)
    turk_submit_to = models.URLField(blank=True, help_text="MTurk: where the finished HIT posts back")
    # Review and pay (collect/review).
    decision = models.CharField(max_length=20, choices=Decision.choices, blank=True)
    decision_reason = models.CharField(max_length=500, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    bonus_cents = models.PositiveIntegerField(default=0)
    notes = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "role"], name="assignment_one_worker_per_role"),
            models.UniqueConstraint(fields=["room", "worker"], name="assignment_one_seat_per_worker"),
        ]
        indexes = [models.Index(fields=["campaign", "status", "created"])]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign.slug} ({self.status})"


class Message(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="messages")
    seq = models.PositiveIntegerField(help_text="1, 2, ... within the room")
    sender = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=20)
    client_id = models.CharField(max_length=64, help_text="Sender-generated id: a resend is not stored twice")
    text = models.TextField()
    created = models.DateTimeField(auto_now_add=True)
    # Knowledge retrieved for this utterance: [{title: [sentence, ...]}, ...] (WoW retrieved_passages).
    retrieved_passages = models.JSONField(null=True, blank=True)
    # Wizard messages: exactly what the wizard was shown, and what they checked (WoW export keys).
    knowledge_shown = models.JSONField(null=True, blank=True)
    checked_sentence = models.JSONField(null=True, blank=True)
    checked_passage = models.JSONField(null=True, blank=True)
    # Curiosity: the facts shown to the assistant for this message [{fid, used, source}], the user's
    # like of an assistant message, dialog acts, and the imported message id and unknown keys.
    facts = models.JSONField(null=True, blank=True)
    liked = models.BooleanField(default=False)
    liked_at = models.DateTimeField(null=True, blank=True)
    dialog_acts = models.JSONField(null=True, blank=True)
    external_id = models.CharField(max_length=64, blank=True, help_text="Imported message_id")
    extra = models.JSONField(null=True, blank=True, help_text="Imported keys Groundwork has no column for")
    # DuConv agent messages: indexes into the session's knowledge of the triples this message uses.
    knowledge_used = models.JSONField(null=True, blank=True)
    # How a person wrote it: the page's record, checked, and the server's (collect/authenticity/
    # record.py); null for a message no page sent (a model's seat, an import).
    authenticity = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["room_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["room", "seq"], name="message_unique_seq"),
            models.UniqueConstraint(fields=["room", "sender", "client_id"], name="message_idempotent_client_id"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id}#{self.seq} {self.role}: {self.text[:40]}"


class ActionReceipt(models.Model):
    """A room action (topic choice, end, rating, like...) applied for a member's client_id: the
    page resends an action until it is acknowledged, and a resend finds its receipt and is
    acknowledged without being applied again (a like taken back since must not come back)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="action_receipts")
    sender = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="action_receipts")
    client_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=32, help_text="The frame type that was applied")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "sender", "client_id"], name="action_receipt_idempotent_client_id"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id} {self.kind} {self.client_id}"


from collect.models_paid import Qualification, ReviewAction  # noqa: E402,F401  (registers the models)
from collect.models_authenticity import AuthenticityFlag, SignalsRun  # noqa: E402,F401  (registers the models)
