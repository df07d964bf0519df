"""Human evaluation of dialogue models: registered models, model-chat conversations, the model's
turns with their latency and the human's per-turn problem labels, and onboarding results.

These models belong to the `collect` app (collect/models.py imports them)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

# The arm of a human-human control conversation (an ordinary WoW pair); in records its model name.
HUMAN_ARM = "human"


class EvalModelKind(models.TextChoices):
    PYTHON = "python", "Python class (dotted path)"
    HTTP = "http", "HTTP endpoint"
    OPENAI = "openai", "OpenAI-compatible endpoint"
    CHECKPOINT = "checkpoint", "Local checkpoint (transformers)"


class EvalModel(models.Model):
    """A dialogue model under evaluation: a Python class with `respond(context) -> reply`, or an
    HTTP endpoint taking the same context as JSON (docs/human-evaluation.md)."""

    name = models.SlugField(unique=True, help_text="Name in results and exports")
    description = models.CharField(max_length=300, blank=True)
    kind = models.CharField(max_length=10, choices=EvalModelKind.choices, default=EvalModelKind.PYTHON)
    dotted_path = models.CharField(max_length=300, blank=True, help_text="e.g. collect.tasktypes.modelchat.bots.KnowledgeBot")
    endpoint_url = models.URLField(blank=True, help_text="POST JSON {history, topic, knowledge, goal?} -> {text}")
    options = models.JSONField(default=dict, blank=True, help_text="Keyword arguments for the Python class")
    timeout_seconds = models.FloatField(
        default=10.0, help_text="Per attempt: for the whole reply, or for the first token of a streamed one"
    )
    token_timeout_seconds = models.FloatField(
        default=10.0, help_text="A streamed reply: the longest wait for its next token before the attempt fails"
    )
    retries = models.PositiveSmallIntegerField(default=1, help_text="Further attempts after a failure")
    max_concurrency = models.PositiveSmallIntegerField(
        default=4, help_text="Calls at once (over every process sharing the site's Redis); more wait in turn, first come first served"
    )
    is_active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "collect_evalmodel"  # the table it had before the task type was its own app
        verbose_name = "evaluated model"

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.kind == EvalModelKind.PYTHON and not self.dotted_path:
            raise ValidationError({"dotted_path": "A Python model needs the dotted path of its class."})
        if self.kind == EvalModelKind.HTTP and not self.endpoint_url:
            raise ValidationError({"endpoint_url": "An HTTP model needs its endpoint URL."})
        if self.kind == EvalModelKind.OPENAI:
            from collect.tasktypes.modelchat.openai_options import options_problems

            problems = options_problems(base_url=self.endpoint_url, options=self.options)
            if problems:
                raise ValidationError({"options": problems})
        if self.kind == EvalModelKind.CHECKPOINT:
            from collect.tasktypes.modelchat.checkpoint_options import checkpoint_options_problems

            problems = checkpoint_options_problems(options=self.options)
            if problems:
                raise ValidationError({"options": problems})
        if not 0 < self.timeout_seconds <= 120:
            raise ValidationError({"timeout_seconds": "The timeout must be more than 0 and at most 120 seconds."})
        if not 0 < self.token_timeout_seconds <= 120:
            raise ValidationError({"token_timeout_seconds": "The timeout between tokens must be more than 0 and at most 120 seconds."})
        if self.max_concurrency < 1:
            raise ValidationError({"max_concurrency": "At least one call at a time."})
        if not isinstance(self.options, dict):
            raise ValidationError({"options": "Options must be a JSON object."})


class ModelChatArm(models.TextChoices):
    MODEL = "model", "Model"
    HUMAN = "human", "Human control"


class ModelChat(models.Model):
    """A model-chat room's own state: which arm (a model, or the human control), whether its topic
    was seen in training, and the human's answers to the final questions."""

    room = models.OneToOneField("collect.Room", on_delete=models.CASCADE, related_name="model_chat")
    arm = models.CharField(max_length=10, choices=ModelChatArm.choices, default=ModelChatArm.HUMAN)
    model = models.ForeignKey(EvalModel, null=True, blank=True, on_delete=models.PROTECT, related_name="chats")
    seen = models.BooleanField(null=True, blank=True, help_text="Topic seen in training; null until chosen")
    answers = models.JSONField(null=True, blank=True, help_text="{question key: integer answer}")
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "collect_modelchat"  # the table it had before the task type was its own app
        indexes = [models.Index(fields=["arm", "model"])]

    def __str__(self) -> str:
        return f"{self.model or HUMAN_ARM} in {self.room_id}"

    @property
    def model_name(self) -> str:
        return self.model.name if self.model_id else HUMAN_ARM


class ModelTurn(models.Model):
    """One model utterance: how long the model took, what went wrong (then the text is an
    apology), the knowledge it says it used, and the human's problem labels for it."""

    message = models.OneToOneField("collect.Message", on_delete=models.CASCADE, related_name="model_turn")
    model = models.ForeignKey(EvalModel, on_delete=models.PROTECT, related_name="turns")
    latency_ms = models.PositiveIntegerField(help_text="From the call to the model to its reply (or giving up)")
    # Both from the turn's start (a wait for the model's turn in its queue included) to the first
    # and the last text of the reply kept; a reply that came whole came at once. Null: no reply.
    first_token_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Until the reply's first text was shown")
    last_token_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Until the reply's last text")
    queued_ms = models.PositiveIntegerField(default=0, help_text="Waiting for a free place among the model's calls")
    attempts = models.PositiveSmallIntegerField(default=1)
    error = models.CharField(max_length=300, blank=True, help_text="Empty when the model answered")
    knowledge_used = models.JSONField(null=True, blank=True)
    problems = models.JSONField(null=True, blank=True, help_text='The human\'s labels, ["none"] or problem keys; null until labelled')
    labeled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "collect_modelturn"  # the table it had before the task type was its own app

    def __str__(self) -> str:
        return f"{self.model} turn {self.message_id} ({self.latency_ms} ms)"


class ModelChatOnboarding(models.Model):
    """A worker's tries at the sample conversation of a campaign; they chat only once passed."""

    campaign = models.ForeignKey("collect.Campaign", on_delete=models.CASCADE, related_name="modelchat_onboardings")
    worker = models.ForeignKey("collect.Worker", on_delete=models.CASCADE, related_name="modelchat_onboardings")
    attempts = models.PositiveSmallIntegerField(default=0)
    passed = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "collect_modelchatonboarding"  # the table it had before the task type was its own app
        constraints = [models.UniqueConstraint(fields=["campaign", "worker"], name="modelchat_onboarding_once")]

    def __str__(self) -> str:
        return f"{self.worker} onboarding in {self.campaign} ({'passed' if self.passed else self.attempts})"


class ModelCandidate(models.Model):
    """One model's reply to an evaluator's message in a campaign that shows several models' replies
    per turn (protocol_config.prism; PRISM, Kirk et al. 2024): every reply is kept, with where it
    was shown, the evaluator's optional 1–5 rating and whether they picked it; the picked one is
    also posted as the partner's message (its ModelTurn). A failed call is kept with its error and
    not shown."""

    room = models.ForeignKey("collect.Room", on_delete=models.CASCADE, related_name="model_candidates")
    after_seq = models.PositiveIntegerField(help_text="The evaluator's message it answers")
    position = models.PositiveSmallIntegerField(help_text="Its place among the replies shown, from 0 (drawn per turn)")
    model = models.ForeignKey(EvalModel, on_delete=models.PROTECT, related_name="candidates")
    text = models.TextField()
    knowledge_used = models.JSONField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField()
    first_token_ms = models.PositiveIntegerField(null=True, blank=True)
    last_token_ms = models.PositiveIntegerField(null=True, blank=True)
    queued_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    error = models.CharField(max_length=300, blank=True, help_text="Empty when the model answered (then it was shown)")
    rating = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The evaluator's 1–5, when given")
    picked = models.BooleanField(default=False)
    picked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "after_seq", "position"], name="modelchat_candidate_place"),
            models.UniqueConstraint(fields=["room", "after_seq", "model"], name="modelchat_candidate_model"),
        ]

    def __str__(self) -> str:
        return f"{self.model} for #{self.after_seq} in {self.room_id}{' (picked)' if self.picked else ''}"

    @property
    def shown(self) -> bool:
        return not self.error
