"""Fixtures of the retraining tests: their own var/ranker, no configured ranker, small thresholds."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.training.live import promoted_forget


@pytest.fixture
def ranker_dir(settings, tmp_path: Path) -> Path:
    settings.RANKER, settings.RERANKER_CHECKPOINT, settings.RANKER_FEATURES = "", "", "auto"
    settings.RERANK_DEVICE = "cpu"  # the lexical shipped model, GPU or not
    settings.RANKER_RELOAD_S = 0  # every call looks at the manifest
    settings.RETRAIN_MIN_EXAMPLES = settings.RETRAIN_MIN_NEW = 10
    settings.RANKER_DIR = tmp_path / "ranker"
    promoted_forget()
    yield settings.RANKER_DIR
    promoted_forget()
