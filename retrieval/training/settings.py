"""Retraining settings, read from the environment on each call with the project's strict parsers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from groundwork.env import env_float, env_int, env_str

# The file the shipped model's figures come from (docs/retrieval.md): WOW++ test-seen, beside the repo.
DEFAULT_HELDOUT = Path(settings.BASE_DIR).parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"


@dataclass(frozen=True)
class RetrainSettings:
    min_examples: int  # fewer collected examples than this: no training at all
    min_new: int  # examples collected since the live version was trained, before a scheduled retrain
    margin: float  # a candidate may trail the live model by at most this on MRR@1 and on NDCG@10
    heldout: Path


def retrain_settings() -> RetrainSettings:
    raw = env_str("GROUNDWORK_RETRAIN_HELDOUT").strip()
    return RetrainSettings(
        min_examples=env_int("GROUNDWORK_RETRAIN_MIN_EXAMPLES", 50, minimum=2),
        min_new=env_int("GROUNDWORK_RETRAIN_MIN_NEW", 200, minimum=0),
        margin=env_float("GROUNDWORK_RETRAIN_MARGIN", 0.01, minimum=0.0),
        heldout=Path(raw) if raw else DEFAULT_HELDOUT,
    )
