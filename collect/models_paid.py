"""Review decisions as sent to the crowd platform, and qualifications earned in onboarding."""

from __future__ import annotations

from django.db import models


class ProviderStatus(models.TextChoices):
    RECORDED = "recorded"  # no platform credentials: paid through the CSV export
    SENT = "sent"
    FAILED = "failed"


class ReviewAction(models.Model):
    """One review step on one assignment (approve, reject, bonus, block...), and what the platform said."""

    assignment = models.ForeignKey("collect.Assignment", on_delete=models.CASCADE, related_name="review_actions")
    action = models.CharField(max_length=20)
    amount_cents = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    staff = models.CharField(max_length=150, help_text="Username of the researcher who acted")
    provider_status = models.CharField(max_length=20, choices=ProviderStatus.choices, default=ProviderStatus.RECORDED)
    provider_detail = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.action} on {self.assignment_id} ({self.provider_status})"


class Qualification(models.Model):
    """A worker's onboarding result under a qualification name, reused by every campaign naming it."""

    worker = models.ForeignKey("collect.Worker", on_delete=models.CASCADE, related_name="qualifications")
    name = models.CharField(max_length=100)
    passed = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["worker", "name"], name="qualification_unique_worker_name")]

    def __str__(self) -> str:
        return f"{self.worker} {self.name}: {'passed' if self.passed else 'not passed'}"
