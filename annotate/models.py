"""Annotation jobs, their items and each annotator's reservation-then-answer for an item.

An annotator is a collect.Worker (the same identity as in chats). Votes are never declared up front:
an Assignment row is a time-limited reservation that becomes the answer when submitted, and an item
is served until `overlap` answers are in.
"""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models import Q

from annotate.registry import REPORT, job_export, kind_choices, question_choices
from collect.models import Outcome, Platform
from groundwork.languages import language_validate


def _job_outcome_codes() -> dict[str, str]:
    # `completed` is Job.completion_code; an annotator screened out by the qualification items
    # spent their time on it and is paid by default, as in the chat campaigns.
    return {str(Outcome.SCREENED_OUT): secrets.token_hex(4).upper()}


class Job(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    # A registered annotation kind (annotate.registry): what the items hold and how they are answered.
    kind = models.CharField(max_length=20, choices=kind_choices)
    instructions = models.TextField(blank=True)
    overlap = models.PositiveSmallIntegerField(help_text="Annotators per item (each kind has a default)")
    is_active = models.BooleanField(default=True, help_text="Serving items to annotators")
    reservation_seconds = models.PositiveIntegerField(default=900, help_text="An unanswered item is released after this long")
    threshold = models.FloatField(default=0.6, help_text="A unit is labeled (e.g. a sentence relevant) iff this share of annotators chose it")
    gold_rate = models.FloatField(default=0.0, help_text="Share of served items drawn from the gold items (0–1)")
    qualification_min_score = models.FloatField(default=0.8, help_text="Mean score needed on the qualification items")
    review_min_gold_score = models.FloatField(default=0.7, help_text="Annotators whose mean gold score is lower are flagged")
    review_min_agreement = models.FloatField(default=0.5, help_text="... and those agreeing less with the majority")
    # Settings that one kind reads, kept on the job (annotate.registry.AnnotationKind: candidates, questions).
    candidates = models.JSONField(default=dict, blank=True, help_text="How the candidates to judge were chosen (kinds with candidates)")
    question = models.CharField(max_length=20, choices=question_choices, blank=True, help_text="The question the job asks (kinds that ask one)")
    # A planned study (kinds that draw their items: AnnotationKind.draw; docs/human-evaluation.md#planned-studies):
    # the power analysis asked for, how task items are drawn, and when the job stops serving them.
    plan = models.JSONField(default=dict, blank=True, help_text="The study's power analysis: the judgments it needs (kinds that draw their items)")
    active_sampling = models.BooleanField(
        default=False, help_text="Serve the items whose judgment most narrows the report's overlapping intervals (kinds that draw their items)"
    )
    stop_when_separated = models.BooleanField(
        default=False, help_text="Serve no more items once the report's neighbouring 95% intervals are apart (kinds that draw their items)"
    )
    max_judgments = models.PositiveIntegerField(default=0, help_text="Serve no more task items after this many judgments (0: no budget)")
    source = models.JSONField(default=dict, blank=True, help_text="Where the items came from (campaigns or an imported file)")
    completion_code = models.CharField(max_length=40, blank=True, help_text="The `completed` outcome's code: given once an annotator has nothing left to do")
    # Paid jobs (docs/annotation.md#paid-jobs): where annotators come from, codes per outcome, caps.
    platform = models.CharField(max_length=20, choices=Platform.choices, default=Platform.INHOUSE)
    outcome_codes = models.JSONField(
        default=_job_outcome_codes, blank=True, help_text='Code per outcome other than completed, e.g. {"screened_out": "X1"}; an outcome without one is not paid'
    )
    completion_url = models.URLField(blank=True, help_text="In-house: where the finish page's button leads (Prolific and MTurk have their own)")
    max_items_per_worker = models.PositiveIntegerField(default=0, help_text="Items an annotator may answer in this job (0: no cap)")
    created = models.DateTimeField(auto_now_add=True)
    # The annotation screens' language (groundwork/languages.py): a code with a catalog under locale/.
    language = models.CharField(
        max_length=15, default="en", validators=[language_validate],
        help_text="Language of the annotation screens: en, or a code with a catalog under locale/ (e.g. zh-hans)",
    )
    browser_language = models.BooleanField(
        default=False, help_text="An annotator whose browser asks for another language with a catalog gets it instead"
    )

    def __str__(self) -> str:
        return self.name

    def export_name(self) -> str:
        """What the job exports as: a dataset's name (its kind's `export`: annotate.registry.job_export)
        or, without one, the annotation report's (REPORT). For pages that list jobs."""
        export = job_export(self)
        return export.dataset if export is not None else REPORT


class JobEntry(models.Model):
    """An annotator's entry into a job through its link (the counterpart of a chat campaign's
    collect.Assignment): the platform's ids for this submission, and how it ended."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="entries")
    worker = models.ForeignKey("collect.Worker", on_delete=models.CASCADE, related_name="job_entries")
    study_id = models.CharField(max_length=100, blank=True, help_text="Prolific STUDY_ID or MTurk hitId")
    session_id = models.CharField(max_length=100, blank=True, help_text="Prolific SESSION_ID or MTurk assignmentId")
    turk_submit_to = models.URLField(blank=True, help_text="MTurk: where the finished HIT posts back")
    created = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=40, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "worker"], name="annotate_jobentry_once")]
        verbose_name_plural = "job entries"

    def __str__(self) -> str:
        return f"{self.worker} in {self.job.slug} ({self.outcome or 'open'})"


class ItemRole(models.TextChoices):
    TASK = "task"
    GOLD = "gold", "Gold (known answer, mixed in)"
    QUALIFICATION = "qualification", "Qualification (known answer, first)"


class Item(models.Model):
    """One thing to label. Its payload is its kind's (each package under annotate/kinds/ says what it
    holds), e.g. a relevance item's topic, turns and candidates [{article, sentence}]."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=100, help_text="The item's key in its job, e.g. its dialogue's id in the dataset")
    role = models.CharField(max_length=20, choices=ItemRole.choices, default=ItemRole.TASK)
    position = models.PositiveIntegerField(default=0)
    payload = models.JSONField()
    gold = models.JSONField(null=True, blank=True, help_text='Known answer: {"selected": [ids]}, {"acts": [[act, ...], ...]} or {"winner": "a"|"b"}')
    # Finished imported relevance items: {"annotators": n, "selected": [votes per candidate]}.
    imported_tally = models.JSONField(null=True, blank=True)
    room = models.ForeignKey("collect.Room", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    message = models.ForeignKey("collect.Message", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    answers_count = models.PositiveIntegerField(default=0, help_text="Submitted answers")

    class Meta:
        ordering = ["job_id", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["job", "key"], name="annotate_item_unique_key")]
        # The next-item scan reads this index in order and stops at the first free item (no sort).
        indexes = [models.Index(fields=["job", "role", "-answers_count", "position", "id"], name="annotate_item_next")]

    def __str__(self) -> str:
        return f"{self.job.slug}/{self.key}"


class ItemMessage(models.Model):
    """Which collected message sits at which index of a dialog-act item (for dialog_acts_for)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="message_links")
    index = models.PositiveSmallIntegerField()
    message = models.ForeignKey("collect.Message", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "index"], name="annotate_itemmessage_unique_index")]


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned"
    SUBMITTED = "submitted"
    RELEASED = "released"


class Assignment(models.Model):
    """A worker's reservation of an item (until expires_at), and then their answer to it."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey("collect.Worker", on_delete=models.CASCADE, related_name="annotation_assignments")
    status = models.CharField(max_length=20, choices=AssignmentStatus.choices, default=AssignmentStatus.ASSIGNED)
    assigned_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    answer = models.JSONField(null=True, blank=True, help_text='{"selected": [ids]}, {"acts": [[act, ...], ...]} or {"winner", "choice", "reason"}')
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True, help_text="Gold and qualification items: agreement with the known answer")
    report_reason = models.TextField(blank=True, help_text="Why the annotator reported the item instead of labeling it (kinds that allow it)")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="annotate_assignment_once_per_item"),
            # One open reservation per annotator and job, whatever the races between their requests.
            models.UniqueConstraint(
                fields=["job", "worker"], condition=Q(status="assigned"), name="annotate_assignment_one_open"
            ),
        ]
        indexes = [
            models.Index(fields=["item", "status", "expires_at"], name="annotate_asg_item_live"),
            models.Index(fields=["job", "worker", "status"], name="annotate_asg_worker"),
        ]

    def __str__(self) -> str:
        return f"{self.worker} on {self.item} ({self.status})"
