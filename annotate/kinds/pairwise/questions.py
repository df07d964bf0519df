"""The ACUTE-Eval questions a pairwise job may ask (Job.question; their wordings: pairs.ACUTE_QUESTIONS)."""

from __future__ import annotations

from django.db import models


class PairwiseQuestion(models.TextChoices):
    ENGAGING = "engaging"
    INTERESTING = "interesting"
    HUMANLIKE = "humanlike"
    KNOWLEDGEABLE = "knowledgeable"
