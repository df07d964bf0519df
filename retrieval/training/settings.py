"""Retraining settings, from django.conf.settings (GROUNDWORK_RETRAIN_MIN_EXAMPLES and
GROUNDWORK_RETRAIN_MIN_NEW, read at start-up by groundwork/settings.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class RetrainSettings:
    min_examples: int  # fewer collected examples than this: no training at all
    min_new: int  # examples collected since the live version was trained, before a scheduled retrain
    margin: float  # a candidate may trail the live model by at most this on MRR@1 and on NDCG@10


def retrain_settings() -> RetrainSettings:
    return RetrainSettings(
        min_examples=settings.RETRAIN_MIN_EXAMPLES, min_new=settings.RETRAIN_MIN_NEW, margin=settings.RETRAIN_MARGIN,
    )
