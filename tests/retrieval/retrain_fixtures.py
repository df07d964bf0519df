"""Fixtures of the retraining tests: their own var/ranker, ranker settings cleared, small thresholds."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.training.live import promoted_forget


@pytest.fixture
def ranker_dir(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GROUNDWORK_RANKER", "GROUNDWORK_RERANKER_CHECKPOINT", "GROUNDWORK_RANKER_FEATURES",
                 "GROUNDWORK_RETRAIN_HELDOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GROUNDWORK_RERANK_DEVICE", "cpu")  # the lexical shipped model, GPU or not
    monkeypatch.setenv("GROUNDWORK_RANKER_RELOAD_S", "0")  # every call looks at the manifest
    monkeypatch.setenv("GROUNDWORK_RETRAIN_MIN_EXAMPLES", "10")
    monkeypatch.setenv("GROUNDWORK_RETRAIN_MIN_NEW", "10")
    settings.RANKER_DIR = tmp_path / "ranker"
    promoted_forget()
    yield settings.RANKER_DIR
    promoted_forget()
